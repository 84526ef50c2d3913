//! Checkers on the device: the seed's three bitboards (white, black, kings) in the rotated
//! indexing where every diagonal step is ±1 or ±7 modulo 32, plus the host's `info` word.
//!
//! ```text
//!  row 8:    11  05  31  25        a step up-right    adds  1   (direction 0)
//!  row 7:  10  04  30  24          a step up-left     adds  7   (direction 1)
//!  row 6:    03  29  23  17        a step down-left   adds 31   (direction 2)
//!  row 5:  02  28  22  16          a step down-right  adds 25   (direction 3)
//!  row 4:    27  21  15  09
//!  row 3:  26  20  14  08        info: bit 0 side to move (0 Black, moving down; 1 White),
//!  row 2:    19  13  07  01            bit 1 rules (0 longest, 1 american), bits 8..15 plies
//!  row 1:  18  12  06  00              since the last capture, bits 16..23 the draw limit.
//! ```
//!
//! This move generator is written apart from the host's (a recursive walk over tables): steps
//! and first jumps are found with whole-board shifts, and capture sequences with an explicit
//! stack. Both list moves in the same canonical order: by origin bit index, then by the
//! directions taken, step by step; under `longest` only the sequences with the most captures.

pub mod movelist;

use crate::device_game::{DeviceGame, GpuGame, DRAW, LOSS, ONGOING};
use crate::rng;
use cubecl::prelude::*;
use cubesearch_games::checkers::Checkers;

/// The score of a lost game (the host's `checkers::LOSS_SCORE`).
const LOSS_SCORE: i32 = 1000;

/// Set bits of a 32-bit board (SWAR, so no backend needs a popcount instruction).
#[cube]
fn count(x: u32) -> u32 {
    let pairs = x - ((x >> 1u32) & 0x5555_5555u32);
    let nibbles = (pairs & 0x3333_3333u32) + ((pairs >> 2u32) & 0x3333_3333u32);
    (((nibbles + (nibbles >> 4u32)) & 0x0F0F_0F0Fu32) * 0x0101_0101u32) >> 24u32
}

/// The device twin of [`Checkers`].
pub struct DeviceCheckers;

impl GpuGame for Checkers {
    type Device = DeviceCheckers;
    const MAX_SCORE: i32 = LOSS_SCORE;
}

/// A position in registers: the host's four words.
#[derive(CubeType, Clone, Copy)]
pub struct Board {
    /// White's pieces.
    pub white: u32,
    /// Black's pieces.
    pub black: u32,
    /// Kings of both colours.
    pub kings: u32,
    /// Side to move, rules, quiet plies and draw limit.
    pub info: u32,
}

/// The bit of square (x, y), or 0 when it is off the board or light.
const fn bit(x: i32, y: i32) -> u32 {
    if x < 0 || x > 7 || y < 0 || y > 7 || (x + y) % 2 != 0 {
        0
    } else {
        1 << (4 * y - 3 * x + 18).rem_euclid(32)
    }
}

/// Squares from which `reach` steps of (dx, dy) stay on the board.
const fn reach_mask(dx: i32, dy: i32, reach: i32) -> u32 {
    let mut mask = 0;
    let mut y = 0;
    while y < 8 {
        let mut x = 0;
        while x < 8 {
            if bit(x, y) != 0 && bit(x + reach * dx, y + reach * dy) != 0 {
                mask |= bit(x, y);
            }
            x += 1;
        }
        y += 1;
    }
    mask
}

const STEP_UR: u32 = reach_mask(1, 1, 1);
const STEP_UL: u32 = reach_mask(-1, 1, 1);
const STEP_DL: u32 = reach_mask(-1, -1, 1);
const STEP_DR: u32 = reach_mask(1, -1, 1);
const JUMP_UR: u32 = reach_mask(1, 1, 2);
const JUMP_UL: u32 = reach_mask(-1, 1, 2);
const JUMP_DL: u32 = reach_mask(-1, -1, 2);
const JUMP_DR: u32 = reach_mask(1, -1, 2);
/// Row 1, where Black's men are crowned.
const ROW_1: u32 = bit(0, 0) | bit(2, 0) | bit(4, 0) | bit(6, 0);
/// Row 8, where White's men are crowned.
const ROW_8: u32 = bit(1, 7) | bit(3, 7) | bit(5, 7) | bit(7, 7);
/// Longest capture sequence the stack holds (the geometry allows 9).
const MAX_DEPTH: usize = 12;

/// `b` rotated left by `k` (1 ≤ k ≤ 31): every piece moves `k` squares up the index.
/// (Spelled out: `#[cube]` code has no `rotate_left`.)
#[cube]
#[allow(clippy::manual_rotate)]
fn rotl(b: u32, k: u32) -> u32 {
    (b << k) | (b >> (32u32 - k))
}

/// The index step of direction `d`.
#[cube]
fn shift_of(d: u32) -> u32 {
    select(
        d == 0u32,
        1u32,
        select(d == 1u32, 7u32, select(d == 2u32, 31u32, 25u32)),
    )
}

/// Squares from which a jump in direction `d` lands on the board.
#[cube]
fn jump_mask(d: u32) -> u32 {
    select(
        d == 0u32,
        JUMP_UR,
        select(d == 1u32, JUMP_UL, select(d == 2u32, JUMP_DL, JUMP_DR)),
    )
}

/// Squares from which a step in direction `d` lands on the board.
#[cube]
fn step_mask(d: u32) -> u32 {
    select(
        d == 0u32,
        STEP_UR,
        select(d == 1u32, STEP_UL, select(d == 2u32, STEP_DL, STEP_DR)),
    )
}

/// The pieces of the side to move that may go in direction `d` (men only forward).
#[cube]
fn allowed(me: u32, kings: u32, white_to_move: bool, d: u32) -> u32 {
    let forward = (d < 2u32) == white_to_move;
    me & select(forward, 0xFFFF_FFFFu32, kings)
}

/// The side to move's pieces, the opponent's, and whether White moves.
#[cube]
fn sides(b: &Board) -> (u32, u32, bool) {
    let white_to_move = (b.info & 1u32) == 1u32;
    let me = select(white_to_move, b.white, b.black);
    let opp = select(white_to_move, b.black, b.white);
    (me, opp, white_to_move)
}

/// Pieces that can step in direction `d`.
#[cube]
fn steppers(me: u32, kings: u32, white: bool, empty: u32, d: u32) -> u32 {
    let s = shift_of(d);
    allowed(me, kings, white, d) & step_mask(d) & rotl(empty, 32u32 - s)
}

/// Pieces that can start a capture in direction `d`.
#[cube]
fn jumpers(me: u32, opp: u32, kings: u32, white: bool, empty: u32, d: u32) -> u32 {
    let s = shift_of(d);
    allowed(me, kings, white, d)
        & jump_mask(d)
        & rotl(opp, 32u32 - s)
        & rotl(empty, (64u32 - 2u32 * s) & 31u32)
}

/// Pieces of the side to move that can start a capture.
#[cube]
fn all_jumpers(b: &Board) -> u32 {
    let (me, opp, white) = sides(b);
    let empty = !(b.white | b.black);
    jumpers(me, opp, b.kings, white, empty, 0u32)
        | jumpers(me, opp, b.kings, white, empty, 1u32)
        | jumpers(me, opp, b.kings, white, empty, 2u32)
        | jumpers(me, opp, b.kings, white, empty, 3u32)
}

/// Whether the draw limit has been reached.
#[cube]
fn drawn(b: &Board) -> bool {
    ((b.info >> 8u32) & 0xFFu32) >= ((b.info >> 16u32) & 0xFFu32)
}

/// Walks every capture sequence of the side to move in canonical order. Each complete sequence
/// of `len` captures raises `longest`; those with `len ≥ need` are counted, and the one counted
/// as number `target` is written to `found_from`, `found_to`, `found_captured`.
#[cube]
#[allow(clippy::too_many_arguments)]
fn walk_captures(
    b: &Board,
    need: u32,
    target: u32,
    count: &mut u32,
    longest: &mut u32,
    found_from: &mut u32,
    found_to: &mut u32,
    found_captured: &mut u32,
) {
    let (_me, opp, white) = sides(b);
    let occupied = b.white | b.black;
    let crown_row = select(white, ROW_8, ROW_1);
    let mut at = Array::<u32>::new(MAX_DEPTH + 1);
    let mut next_dir = Array::<u32>::new(MAX_DEPTH + 1);
    let mut caps = Array::<u32>::new(MAX_DEPTH + 1);
    let mut extended = Array::<u32>::new(MAX_DEPTH + 1);
    let mut origins = all_jumpers(b);
    while origins != 0u32 {
        let from = origins.trailing_zeros();
        origins &= origins - 1u32;
        let from_bit = 1u32 << from;
        let king = (b.kings & from_bit) != 0u32;
        let blocked = occupied & !from_bit;
        let crown = select(king, 0u32, crown_row);
        let mut depth: u32 = 0u32;
        at[0] = from;
        next_dir[0] = 0u32;
        caps[0] = 0u32;
        extended[0] = 0u32;
        let mut walking = true;
        while walking {
            let k = depth as usize;
            let d = next_dir[k];
            if d < 4u32 {
                next_dir[k] = d + 1u32;
                let cur = at[k];
                let s = shift_of(d);
                let mid = (cur + s) & 31u32;
                let land = (mid + s) & 31u32;
                let forward = (d < 2u32) == white;
                let can = (king || forward)
                    && ((jump_mask(d) >> cur) & 1u32) == 1u32
                    && ((opp >> mid) & 1u32) == 1u32
                    && ((caps[k] >> mid) & 1u32) == 0u32
                    && ((blocked >> land) & 1u32) == 0u32;
                if can {
                    extended[k] = 1u32;
                    let taken = caps[k] | (1u32 << mid);
                    if ((crown >> land) & 1u32) == 1u32 {
                        // A man crowned by a capture stops there.
                        record(
                            depth + 1u32,
                            need,
                            target,
                            from,
                            land,
                            taken,
                            count,
                            longest,
                            found_from,
                            found_to,
                            found_captured,
                        );
                    } else {
                        depth += 1u32;
                        let up = depth as usize;
                        at[up] = land;
                        next_dir[up] = 0u32;
                        caps[up] = taken;
                        extended[up] = 0u32;
                    }
                }
            } else {
                if depth > 0u32 && extended[k] == 0u32 {
                    record(
                        depth,
                        need,
                        target,
                        from,
                        at[k],
                        caps[k],
                        count,
                        longest,
                        found_from,
                        found_to,
                        found_captured,
                    );
                }
                if depth == 0u32 {
                    walking = false;
                } else {
                    depth -= 1u32;
                }
            }
        }
    }
}

/// Notes one complete capture sequence (see [`walk_captures`]).
#[cube]
#[allow(clippy::too_many_arguments)]
fn record(
    len: u32,
    need: u32,
    target: u32,
    from: u32,
    to: u32,
    taken: u32,
    count: &mut u32,
    longest: &mut u32,
    found_from: &mut u32,
    found_to: &mut u32,
    found_captured: &mut u32,
) {
    *longest = select(len > *longest, len, *longest);
    if len >= need {
        if *count == target {
            *found_from = from;
            *found_to = to;
            *found_captured = taken;
        }
        *count += 1u32;
    }
}

/// The captures needed for a sequence to be legal: the most any sequence takes under
/// `longest`, 1 under `american`.
#[cube]
fn needed(b: &Board) -> u32 {
    let mut need: u32 = 1u32;
    if (b.info & 2u32) == 0u32 {
        let mut count: u32 = 0u32;
        let mut longest: u32 = 0u32;
        let mut f: u32 = 0u32;
        let mut t: u32 = 0u32;
        let mut c: u32 = 0u32;
        walk_captures(
            b,
            1000u32,
            0xFFFF_FFFFu32,
            &mut count,
            &mut longest,
            &mut f,
            &mut t,
            &mut c,
        );
        need = longest;
    }
    need
}

/// Moves the piece on `from` to `to`, removes `taken`, crowns, and passes the turn.
#[cube]
fn make_move(b: &mut Board, from: u32, to: u32, taken: u32) {
    let white = (b.info & 1u32) == 1u32;
    let from_bit = 1u32 << from;
    let to_bit = 1u32 << to;
    let crowned = (b.kings & from_bit) != 0u32 || (to_bit & select(white, ROW_8, ROW_1)) != 0u32;
    if white {
        b.white = (b.white & !from_bit) | to_bit;
        b.black &= !taken;
    } else {
        b.black = (b.black & !from_bit) | to_bit;
        b.white &= !taken;
    }
    b.kings &= !(from_bit | taken);
    b.kings |= select(crowned, to_bit, 0u32);
    let quiet = (b.info >> 8u32) & 0xFFu32;
    let next_quiet = select(taken == 0u32, quiet + 1u32, 0u32);
    b.info = ((b.info ^ 1u32) & !0xFF00u32) | (next_quiet << 8u32);
}

#[cube]
impl DeviceGame for DeviceCheckers {
    type State = Board;

    fn load(words: &Array<u32>, offset: usize) -> Board {
        Board {
            white: words[offset],
            black: words[offset + 1],
            kings: words[offset + 2],
            info: words[offset + 3],
        }
    }

    fn store(state: &Board, words: &mut Array<u32>, offset: usize) {
        words[offset] = state.white;
        words[offset + 1] = state.black;
        words[offset + 2] = state.kings;
        words[offset + 3] = state.info;
    }

    fn outcome(state: &Board) -> u32 {
        let (me, _opp, white) = sides(state);
        let empty = !(state.white | state.black);
        let steps = steppers(me, state.kings, white, empty, 0u32)
            | steppers(me, state.kings, white, empty, 1u32)
            | steppers(me, state.kings, white, empty, 2u32)
            | steppers(me, state.kings, white, empty, 3u32);
        let stuck = (steps | all_jumpers(state)) == 0u32;
        select(stuck, LOSS, select(drawn(state), DRAW, ONGOING))
    }

    fn score(state: &Board) -> i32 {
        let outcome = Self::outcome(state);
        let (me, opp, _white) = sides(state);
        let material =
            i32::cast_from(3u32 * count(me & !state.kings) + 5u32 * count(me & state.kings))
                - i32::cast_from(
                    3u32 * count(opp & !state.kings) + 5u32 * count(opp & state.kings),
                );
        select(
            outcome == LOSS,
            -LOSS_SCORE,
            select(outcome == DRAW, 0i32, material),
        )
    }

    fn move_count(state: &Board) -> u32 {
        let mut total: u32 = 0u32;
        if !drawn(state) {
            if all_jumpers(state) != 0u32 {
                let need = needed(state);
                let mut longest: u32 = 0u32;
                let mut f: u32 = 0u32;
                let mut t: u32 = 0u32;
                let mut c: u32 = 0u32;
                walk_captures(
                    state,
                    need,
                    0xFFFF_FFFFu32,
                    &mut total,
                    &mut longest,
                    &mut f,
                    &mut t,
                    &mut c,
                );
            } else {
                let (me, _opp, white) = sides(state);
                let empty = !(state.white | state.black);
                total = steppers(me, state.kings, white, empty, 0u32).count_ones()
                    + steppers(me, state.kings, white, empty, 1u32).count_ones()
                    + steppers(me, state.kings, white, empty, 2u32).count_ones()
                    + steppers(me, state.kings, white, empty, 3u32).count_ones();
            }
        }
        total
    }

    fn play(state: &mut Board, index: u32) {
        if all_jumpers(state) != 0u32 {
            let need = needed(state);
            let mut count: u32 = 0u32;
            let mut longest: u32 = 0u32;
            let mut from: u32 = 0u32;
            let mut to: u32 = 0u32;
            let mut taken: u32 = 0u32;
            walk_captures(
                state,
                need,
                index,
                &mut count,
                &mut longest,
                &mut from,
                &mut to,
                &mut taken,
            );
            make_move(state, from, to, taken);
        } else {
            let (me, _opp, white) = sides(state);
            let empty = !(state.white | state.black);
            let m0 = steppers(me, state.kings, white, empty, 0u32);
            let m1 = steppers(me, state.kings, white, empty, 1u32);
            let m2 = steppers(me, state.kings, white, empty, 2u32);
            let m3 = steppers(me, state.kings, white, empty, 3u32);
            let mut pieces = m0 | m1 | m2 | m3;
            let mut rest = index;
            let mut from: u32 = 0u32;
            let mut dir: u32 = 0u32;
            let mut searching = true;
            while searching && pieces != 0u32 {
                let i = pieces.trailing_zeros();
                pieces &= pieces - 1u32;
                let h0 = (m0 >> i) & 1u32;
                let h1 = (m1 >> i) & 1u32;
                let h2 = (m2 >> i) & 1u32;
                let h3 = (m3 >> i) & 1u32;
                let here = h0 + h1 + h2 + h3;
                if rest < here {
                    // The rest-th of this piece's directions, in order.
                    dir = select(
                        rest < h0,
                        0u32,
                        select(
                            rest < h0 + h1,
                            1u32,
                            select(rest < h0 + h1 + h2, 2u32, 3u32),
                        ),
                    );
                    from = i;
                    searching = false;
                } else {
                    rest -= here;
                }
            }
            make_move(state, from, (from + shift_of(dir)) & 31u32, 0u32);
        }
    }

    fn play_random(state: &mut Board, rng: &mut u32) {
        let pick = rng::below(rng, Self::move_count(state));
        Self::play(state, pick);
    }
}
