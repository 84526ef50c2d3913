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
//! This move generator is written apart from the host's (a recursive walk over tables). Both
//! list moves in the same canonical order: by origin bit index, then by the directions taken,
//! step by step; under `longest` only the sequences with the most captures.
//!
//! The common cases need no list and no loop: steps, and captures when no piece that has jumped
//! can jump again, are the set bits of four whole-board masks (one per direction), counted with
//! popcounts and picked by a branch-free binary search on prefix counts (`select_move`). Only
//! when a second jump exists are capture sequences walked, depth first, entirely in registers
//! (the path is two bits a step; no local arrays): once to count them (and find the longest),
//! and once to pick one, stopping there.

pub mod movelist;

use crate::checkers::Checkers;
use cubecl::prelude::*;
use cubesearch_kernels::device_game::{DeviceGame, GpuGame, DRAW, LOSS, ONGOING, WIN};
use cubesearch_kernels::rng;
use cubesearch_kernels::selfplay::DeviceTupleGame;

/// The score of a lost game (the host's `checkers::LOSS_SCORE`).
const LOSS_SCORE: i32 = 1000;

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

/// Squares from which a jump in direction `d` would take an opponent's piece and land on a
/// square of `free`, whatever stands on the square itself.
#[cube]
fn jump_squares(opp: u32, free: u32, d: u32) -> u32 {
    let s = shift_of(d);
    jump_mask(d) & rotl(opp, 32u32 - s) & rotl(free, (64u32 - 2u32 * s) & 31u32)
}

/// Pieces of the side to move that can start a capture.
#[cube]
fn all_jumpers(b: &Board) -> u32 {
    let (me, opp, white) = sides(b);
    let empty = !(b.white | b.black);
    (allowed(me, b.kings, white, 0u32) & jump_squares(opp, empty, 0u32))
        | (allowed(me, b.kings, white, 1u32) & jump_squares(opp, empty, 1u32))
        | (allowed(me, b.kings, white, 2u32) & jump_squares(opp, empty, 2u32))
        | (allowed(me, b.kings, white, 3u32) & jump_squares(opp, empty, 3u32))
}

/// Whether the draw limit has been reached.
#[cube]
fn drawn(b: &Board) -> bool {
    ((b.info >> 8u32) & 0xFFu32) >= ((b.info >> 16u32) & 0xFFu32)
}

/// Whether the position is played under `longest` (only the longest sequences are legal).
#[cube]
fn longest_rule(b: &Board) -> bool {
    (b.info & 2u32) == 0u32
}

/// Capture sequences a walk notes by number: the first few, so that a move can often be
/// played without walking again.
const NOTED: u32 = 4;

/// What `generate` found out about a position's moves.
#[derive(CubeType, Clone, Copy)]
pub struct Moves {
    /// Origins of the moves in direction 0 (steps for kind 0, first jumps for kinds 1 and 2).
    pub m0: u32,
    /// The same in direction 1.
    pub m1: u32,
    /// The same in direction 2.
    pub m2: u32,
    /// The same in direction 3.
    pub m3: u32,
    /// 0: steps only; 1: captures, every one a single jump; 2: captures, some of several jumps
    /// (the moves are found by walking the sequences).
    pub kind: u32,
    /// Kind 2: the origins of a first jump after which the piece can jump again.
    pub multi: u32,
    /// How many legal moves (for kind 2 only once the sequences were counted, else 0).
    pub count: u32,
    /// The most captures one sequence takes (1 for kinds 0 and 1, and for kind 2 when the
    /// sequences were not counted).
    pub best: u32,
    /// Kind 2: sequence number k < `NOTED` counted, as its ends (`from | to << 8`) and the
    /// pieces it takes.
    pub ends0: u32,
    /// The pieces sequence 0 takes.
    pub taken0: u32,
    /// Sequence 1's ends.
    pub ends1: u32,
    /// The pieces sequence 1 takes.
    pub taken1: u32,
    /// Sequence 2's ends.
    pub ends2: u32,
    /// The pieces sequence 2 takes.
    pub taken2: u32,
    /// Sequence 3's ends.
    pub ends3: u32,
    /// The pieces sequence 3 takes.
    pub taken3: u32,
}

/// Moves with these origins, nothing counted or noted yet.
#[cube]
fn moves_of(m0: u32, m1: u32, m2: u32, m3: u32, kind: u32, multi: u32) -> Moves {
    Moves {
        m0,
        m1,
        m2,
        m3,
        kind,
        multi,
        count: 0u32,
        best: 1u32,
        ends0: 0u32,
        taken0: 0u32,
        ends1: 0u32,
        taken1: 0u32,
        ends2: 0u32,
        taken2: 0u32,
        ends3: 0u32,
        taken3: 0u32,
    }
}

/// The moves of the side to move, ignoring the draw rule. Steps and single jumps need only
/// whole-board shifts: their moves are the set bits of `m0..m3` in (origin, direction) order,
/// counted with popcounts and picked with [`select_move`]. Only when a piece that has jumped
/// could jump again are the sequences walked ([`walk`]), and then once for the count (keeping
/// the longest under `longest`, and noting the first few); `count_sequences = false` skips
/// that walk.
#[cube]
fn generate(b: &Board, count_sequences: bool) -> Moves {
    let (me, opp, white) = sides(b);
    let kings = b.kings;
    let empty = !(b.white | b.black);
    let e0 = jump_squares(opp, empty, 0u32);
    let e1 = jump_squares(opp, empty, 1u32);
    let e2 = jump_squares(opp, empty, 2u32);
    let e3 = jump_squares(opp, empty, 3u32);
    let j0 = allowed(me, kings, white, 0u32) & e0;
    let j1 = allowed(me, kings, white, 1u32) & e1;
    let j2 = allowed(me, kings, white, 2u32) & e2;
    let j3 = allowed(me, kings, white, 3u32) & e3;
    let mut moves = moves_of(j0, j1, j2, j3, 1u32, 0u32);
    if (j0 | j1 | j2 | j3) == 0u32 {
        let m0 = steppers(me, kings, white, empty, 0u32);
        let m1 = steppers(me, kings, white, empty, 1u32);
        let m2 = steppers(me, kings, white, empty, 2u32);
        let m3 = steppers(me, kings, white, empty, 3u32);
        moves.m0 = m0;
        moves.m1 = m1;
        moves.m2 = m2;
        moves.m3 = m3;
        moves.kind = 0u32;
        moves.count = m0.count_ones() + m1.count_ones() + m2.count_ones() + m3.count_ones();
    } else {
        // Could a piece jump again from where its first jump lands? A king may go on in any
        // direction but straight back (that piece is taken already), a man forward unless the
        // jump crowned it. The landing square of a second jump is never the origin (only a
        // jump straight back could reach it), so the board's empty squares tell.
        let crown = select(white, ROW_8, ROW_1);
        let men_go_on = select(white, e0 | e1, e2 | e3) & !crown;
        let c0 = (rotl(j0 & kings, 2u32) & (e0 | e1 | e3)) | (rotl(j0 & !kings, 2u32) & men_go_on);
        let c1 =
            (rotl(j1 & kings, 14u32) & (e0 | e1 | e2)) | (rotl(j1 & !kings, 14u32) & men_go_on);
        let c2 =
            (rotl(j2 & kings, 30u32) & (e1 | e2 | e3)) | (rotl(j2 & !kings, 30u32) & men_go_on);
        let c3 =
            (rotl(j3 & kings, 18u32) & (e0 | e2 | e3)) | (rotl(j3 & !kings, 18u32) & men_go_on);
        if (c0 | c1 | c2 | c3) == 0u32 {
            moves.count = j0.count_ones() + j1.count_ones() + j2.count_ones() + j3.count_ones();
        } else {
            moves.kind = 2u32;
            // Back from the landing squares to the origins.
            moves.multi = rotl(c0, 30u32) | rotl(c1, 18u32) | rotl(c2, 2u32) | rotl(c3, 14u32);
            if count_sequences {
                moves.best = 0u32;
                walk(b, &mut moves, longest_rule(b), 1u32, 0u32, 0xFFFF_FFFFu32);
            }
        }
    }
    moves
}

/// Moves of origins below `t` (1 ≤ t ≤ 31), from the bit planes of the per-square counts.
#[cube]
fn moves_below(ones: u32, twos: u32, fours: u32, t: u32) -> u32 {
    let mask = (1u32 << t) - 1u32;
    (ones & mask).count_ones()
        + 2u32 * (twos & mask).count_ones()
        + 4u32 * (fours & mask).count_ones()
}

/// Origin and direction of move number `index` among the set bits of `m0..m3`, ordered by
/// origin, then direction: a branch-free binary search over the origins on prefix counts.
#[cube]
fn select_move(m0: u32, m1: u32, m2: u32, m3: u32, index: u32) -> (u32, u32) {
    // Per square, the number of its moves (0..=4) in three bit planes (carry-save adds).
    let s1 = m0 ^ m1;
    let s2 = m2 ^ m3;
    let c1 = m0 & m1;
    let c2 = m2 & m3;
    let ones = s1 ^ s2;
    let twos = c1 ^ c2 ^ (s1 & s2);
    let fours = c1 & c2;
    // The last origin `lo` with fewer than `index + 1` moves below it.
    let mut lo: u32 = 0u32;
    let mut below: u32 = 0u32;
    let t = lo + 16u32;
    let c = moves_below(ones, twos, fours, t);
    let up = c <= index;
    lo = select(up, t, lo);
    below = select(up, c, below);
    let t = lo + 8u32;
    let c = moves_below(ones, twos, fours, t);
    let up = c <= index;
    lo = select(up, t, lo);
    below = select(up, c, below);
    let t = lo + 4u32;
    let c = moves_below(ones, twos, fours, t);
    let up = c <= index;
    lo = select(up, t, lo);
    below = select(up, c, below);
    let t = lo + 2u32;
    let c = moves_below(ones, twos, fours, t);
    let up = c <= index;
    lo = select(up, t, lo);
    below = select(up, c, below);
    let t = lo + 1u32;
    let c = moves_below(ones, twos, fours, t);
    let up = c <= index;
    lo = select(up, t, lo);
    below = select(up, c, below);
    // The rest-th of this origin's directions, in order.
    let rest = index - below;
    let h0 = (m0 >> lo) & 1u32;
    let h1 = (m1 >> lo) & 1u32;
    let h2 = (m2 >> lo) & 1u32;
    let dir = select(
        rest < h0,
        0u32,
        select(
            rest < h0 + h1,
            1u32,
            select(rest < h0 + h1 + h2, 2u32, 3u32),
        ),
    );
    (lo, dir)
}

/// Directions (bit d for direction d) in which the piece on `cur` can jump next: `a_d` are the
/// squares a jump in direction d can start from, `caps` the pieces taken so far (they stay on
/// the board, and cannot be taken twice).
#[cube]
fn open_directions(a0: u32, a1: u32, a2: u32, a3: u32, cur: u32, caps: u32) -> u32 {
    let o0 = (a0 >> cur) & !(caps >> ((cur + 1u32) & 31u32)) & 1u32;
    let o1 = (a1 >> cur) & !(caps >> ((cur + 7u32) & 31u32)) & 1u32;
    let o2 = (a2 >> cur) & !(caps >> ((cur + 31u32) & 31u32)) & 1u32;
    let o3 = (a3 >> cur) & !(caps >> ((cur + 25u32) & 31u32)) & 1u32;
    o0 | (o1 << 1u32) | (o2 << 2u32) | (o3 << 3u32)
}

/// Walks every capture sequence of the origins in `moves.m0..m3` in canonical order, all in
/// registers: the directions taken are a 2-bit-a-step path, and the square and the pieces
/// taken are undone from it on the way back; an origin outside `moves.multi` has single jumps
/// only, read off `m0..m3`. Each complete sequence of `len` captures raises `moves.best`;
/// under `reset` (counting under `longest`) a longer one restarts the count and only those as
/// long as the best count, otherwise those with `len ≥ need`. Sequences counted as numbers
/// `first .. first + NOTED` are noted in `moves`; the walk stops once `stop` sequences are
/// counted.
#[cube]
fn walk(b: &Board, moves: &mut Moves, reset: bool, need: u32, first: u32, stop: u32) {
    let (_me, opp, white) = sides(b);
    let empty = !(b.white | b.black);
    let crown_row = select(white, ROW_8, ROW_1);
    let men_dirs = select(white, 3u32, 12u32);
    let m0 = moves.m0;
    let m1 = moves.m1;
    let m2 = moves.m2;
    let m3 = moves.m3;
    let multi = moves.multi;
    let mut rest = m0 | m1 | m2 | m3;
    while rest != 0u32 && moves.count < stop {
        let from = rest.trailing_zeros();
        rest &= rest - 1u32;
        if ((multi >> from) & 1u32) == 0u32 {
            // Single jumps, in direction order.
            let mut dirs = ((m0 >> from) & 1u32)
                | (((m1 >> from) & 1u32) << 1u32)
                | (((m2 >> from) & 1u32) << 2u32)
                | (((m3 >> from) & 1u32) << 3u32);
            while dirs != 0u32 && moves.count < stop {
                let d = dirs.trailing_zeros();
                dirs &= dirs - 1u32;
                let s = shift_of(d);
                let mid = (from + s) & 31u32;
                record(
                    moves,
                    1u32,
                    from,
                    (mid + s) & 31u32,
                    1u32 << mid,
                    reset,
                    need,
                    first,
                );
            }
        } else {
            let from_bit = 1u32 << from;
            let king = (b.kings & from_bit) != 0u32;
            let dirs = select(king, 15u32, men_dirs);
            // The origin is free once the piece has left it.
            let free = empty | from_bit;
            let a0 = select((dirs & 1u32) != 0u32, jump_squares(opp, free, 0u32), 0u32);
            let a1 = select((dirs & 2u32) != 0u32, jump_squares(opp, free, 1u32), 0u32);
            let a2 = select((dirs & 4u32) != 0u32, jump_squares(opp, free, 2u32), 0u32);
            let a3 = select((dirs & 8u32) != 0u32, jump_squares(opp, free, 3u32), 0u32);
            let crown = select(king, 0u32, crown_row);
            let mut cur: u32 = from;
            let mut caps: u32 = 0u32;
            let mut path: u32 = 0u32;
            let mut depth: u32 = 0u32;
            // The first direction not tried yet at this depth.
            let mut next: u32 = 0u32;
            // Bit k: the sequence standing at depth k was extended.
            let mut extended: u32 = 0u32;
            let mut walking = true;
            while walking && moves.count < stop {
                let open = open_directions(a0, a1, a2, a3, cur, caps) & ((15u32 << next) & 15u32);
                if open != 0u32 {
                    let d = open.trailing_zeros();
                    let s = shift_of(d);
                    let mid = (cur + s) & 31u32;
                    let land = (mid + s) & 31u32;
                    let taken = caps | (1u32 << mid);
                    extended |= 1u32 << depth;
                    if ((crown >> land) & 1u32) == 1u32 {
                        // A man crowned by a capture stops there.
                        record(moves, depth + 1u32, from, land, taken, reset, need, first);
                        next = d + 1u32;
                    } else {
                        path |= d << (2u32 * depth);
                        depth += 1u32;
                        extended &= !(1u32 << depth);
                        cur = land;
                        caps = taken;
                        next = 0u32;
                    }
                } else {
                    if depth > 0u32 && ((extended >> depth) & 1u32) == 0u32 {
                        record(moves, depth, from, cur, caps, reset, need, first);
                    }
                    if depth == 0u32 {
                        walking = false;
                    } else {
                        depth -= 1u32;
                        let d = (path >> (2u32 * depth)) & 3u32;
                        path &= !(3u32 << (2u32 * depth));
                        let back = 32u32 - shift_of(d);
                        let mid = (cur + back) & 31u32;
                        cur = (mid + back) & 31u32;
                        caps &= !(1u32 << mid);
                        next = d + 1u32;
                    }
                }
            }
        }
    }
}

/// Notes one complete capture sequence (see [`walk`]).
#[cube]
#[allow(clippy::too_many_arguments)]
fn record(
    moves: &mut Moves,
    len: u32,
    from: u32,
    to: u32,
    taken: u32,
    reset: bool,
    need: u32,
    first: u32,
) {
    if reset && len > moves.best {
        moves.count = 0u32;
    }
    moves.best = select(len > moves.best, len, moves.best);
    let wanted = select(reset, moves.best, need);
    if len >= wanted {
        // Wraps past NOTED when the count is below `first`.
        let k = moves.count - first;
        let ends = from | (to << 8u32);
        if k == 0u32 {
            moves.ends0 = ends;
            moves.taken0 = taken;
        }
        if k == 1u32 {
            moves.ends1 = ends;
            moves.taken1 = taken;
        }
        if k == 2u32 {
            moves.ends2 = ends;
            moves.taken2 = taken;
        }
        if k == 3u32 {
            moves.ends3 = ends;
            moves.taken3 = taken;
        }
        moves.count += 1u32;
    }
}

/// Plays move number `index` of `moves` (which [`generate`] found for `b`).
#[cube]
fn play_move(b: &mut Board, moves: &Moves, index: u32) {
    if moves.kind == 2u32 {
        // Counted already, and noted; else walk again up to the move.
        let noted = moves.count > 0u32 && index < NOTED;
        let mut found = moves_of(moves.m0, moves.m1, moves.m2, moves.m3, 2u32, moves.multi);
        if !noted {
            let need = select(longest_rule(b), moves.best, 1u32);
            walk(b, &mut found, false, need, index, index + 1u32);
        }
        let ends = select(
            noted,
            select(
                index == 0u32,
                moves.ends0,
                select(
                    index == 1u32,
                    moves.ends1,
                    select(index == 2u32, moves.ends2, moves.ends3),
                ),
            ),
            found.ends0,
        );
        let taken = select(
            noted,
            select(
                index == 0u32,
                moves.taken0,
                select(
                    index == 1u32,
                    moves.taken1,
                    select(index == 2u32, moves.taken2, moves.taken3),
                ),
            ),
            found.taken0,
        );
        make_move(b, ends & 31u32, ends >> 8u32, taken);
    } else {
        let (from, d) = select_move(moves.m0, moves.m1, moves.m2, moves.m3, index);
        let s = shift_of(d);
        let jump = moves.kind == 1u32;
        let mid = (from + s) & 31u32;
        let to = select(jump, (mid + s) & 31u32, mid);
        let taken = select(jump, 1u32 << mid, 0u32);
        make_move(b, from, to, taken);
    }
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
        let material = i32::cast_from(
            3u32 * (me & !state.kings).count_ones() + 5u32 * (me & state.kings).count_ones(),
        ) - i32::cast_from(
            3u32 * (opp & !state.kings).count_ones() + 5u32 * (opp & state.kings).count_ones(),
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
            total = generate(state, true).count;
        }
        total
    }

    fn play(state: &mut Board, index: u32) {
        // Under `american` a sequence is picked without counting them first.
        let moves = generate(state, longest_rule(state));
        play_move(state, &moves, index);
    }

    fn play_out(state: &mut Board, rng: &mut u32) -> u32 {
        let mut plies = 0u32;
        while Self::outcome(state) == ONGOING {
            let moves = generate(state, true);
            let pick = rng::below(rng, moves.count);
            play_move(state, &moves, pick);
            plies += 1u32;
        }
        plies
    }
}

/// The bit of standard square `c + 1` for cells 0..32, five bits each, twelve a word.
const fn square_bits() -> [u64; 3] {
    let mut words = [0u64; 3];
    let mut c = 0;
    while c < 32 {
        words[c / 12] |= (crate::checkers::board::GEOMETRY.index[c] as u64) << (5 * (c % 12));
        c += 1;
    }
    words
}
const SQUARE_BITS: [u64; 3] = square_bits();
const SQUARE_BITS_0: u64 = SQUARE_BITS[0];
const SQUARE_BITS_1: u64 = SQUARE_BITS[1];
const SQUARE_BITS_2: u64 = SQUARE_BITS[2];

/// The cells as `TupleBoard for Checkers` numbers them, from the mover's seat: cell `c` is
/// square `c + 1` with Black to move and `32 − c`, its half turn, with White (the half turn
/// of bit `b` is bit `11 − b` mod 32); empty 0, the mover's man 1 or king 2, the other side's
/// 3 or 4. Stages by pieces captured; a won game is worth 1.
#[cube]
impl DeviceTupleGame for DeviceCheckers {
    fn cell(s: &Board, c: u32) -> u32 {
        let word = select(
            c < 12u32,
            SQUARE_BITS_0,
            select(c < 24u32, SQUARE_BITS_1, SQUARE_BITS_2),
        );
        let at = u32::cast_from((word >> u64::cast_from(5u32 * (c % 12u32))) & 31u64);
        let (me, opp, white) = sides(s);
        let mask = 1u32 << select(white, (43u32 - at) & 31u32, at);
        let king = select((s.kings & mask) != 0u32, 1u32, 0u32);
        select(
            (me & mask) != 0u32,
            1u32 + king,
            select((opp & mask) != 0u32, 3u32 + king, 0u32),
        )
    }

    fn stage_progress(s: &Board) -> u32 {
        24u32 - (s.white | s.black).count_ones()
    }

    fn final_value(s: &Board) -> f32 {
        let outcome = Self::outcome(s);
        select(
            outcome == LOSS,
            -1.0f32,
            select(outcome == WIN, 1.0f32, 0.0f32),
        )
    }
}
