//! Reversi on the device: the host's two bitboards in registers, moved with the same verbs as
//! `crate::reversi::movegen`, every loop unrolled (no back-edges, which keeps
//! loop-limited drivers such as lavapipe happy and real GPUs fast).
//!
//! The state in words, as the host encodes it (bit `8·rank + file`, a1 = bit 0, h8 = bit 63):
//! ```text
//!  word 0        word 1         word 2          word 3           word 4
//!  [player 31..0][player 63..32][opponent 31..0][opponent 63..32][1 if White is to move]
//! ```
//! Moves in canonical order: legal squares by ascending index; one pass when there is none but
//! the opponent can move; none once the game is over.

pub mod children;
pub mod eval;
pub mod seed_players;
pub mod words;

use crate::reversi::Reversi;
use cubecl::prelude::*;
use cubesearch_kernels::device_game::{DeviceGame, GpuGame, DRAW, LOSS, ONGOING, WIN};
use cubesearch_kernels::rng;
use cubesearch_kernels::selfplay::DeviceTupleGame;

/// The device twin of [`Reversi`].
pub struct DeviceReversi;

impl GpuGame for Reversi {
    type Device = DeviceReversi;
}

/// A position in registers, relative to the side to move.
#[derive(CubeType, Clone, Copy)]
pub struct ReversiBoard {
    /// Discs of the side to move.
    pub player: u64,
    /// Discs of the other side.
    pub opponent: u64,
    /// 1 when White is to move, else 0.
    pub white: u32,
}

/// Every square but file a: where a step east (or north-east, south-east) may land.
pub(crate) const NOT_FILE_A: u64 = 0xFEFE_FEFE_FEFE_FEFE;
/// Every square but file h: where a step west (or north-west, south-west) may land.
pub(crate) const NOT_FILE_H: u64 = 0x7F7F_7F7F_7F7F_7F7F;

/// Discs counted with two 32-bit population counts: every backend has the 32-bit instruction,
/// not every one the 64-bit.
#[cube]
pub fn popcount(x: u64) -> u32 {
    u32::cast_from(x & 0xFFFF_FFFFu64).count_ones() + u32::cast_from(x >> 32u64).count_ones()
}

/// One halving step of [`nth_bit`]: if the low `width` bits of `rest` hold no more than `k` set
/// bits, skip them (counting them off `k` and `width` onto `at`); else keep only them.
#[cube]
fn keep_half(rest: &mut u32, k: &mut u32, at: &mut u32, #[comptime] width: u32) {
    let mask = comptime!((1u32 << width) - 1);
    let below = (*rest & mask).count_ones();
    let up = *k >= below;
    *k -= select(up, below, 0u32);
    *rest = select(up, *rest >> width, *rest & mask);
    *at += select(up, width, 0u32);
}

/// The `index`-th set bit of `x` (from the low end, `index < popcount(x)`) alone, found by
/// halving: the 32-bit half holding it, then 16, 8, 4, 2 and 1 bits, branch-free.
#[cube]
pub fn nth_bit(x: u64, index: u32) -> u64 {
    let mut rest = u32::cast_from(x & 0xFFFF_FFFFu64);
    let mut k = index;
    let mut at = 0u32;
    let high = k >= rest.count_ones();
    k -= select(high, rest.count_ones(), 0u32);
    rest = select(high, u32::cast_from(x >> 32u64), rest);
    at += select(high, 32u32, 0u32);
    keep_half(&mut rest, &mut k, &mut at, 16u32);
    keep_half(&mut rest, &mut k, &mut at, 8u32);
    keep_half(&mut rest, &mut k, &mut at, 4u32);
    keep_half(&mut rest, &mut k, &mut at, 2u32);
    keep_half(&mut rest, &mut k, &mut at, 1u32);
    1u64 << u64::cast_from(at)
}

/// Every disc one step up the index by `by` (north, east, ...), kept where it may `land`.
#[cube]
pub(crate) fn step_up(discs: u64, by: u64, land: u64) -> u64 {
    (discs << by) & land
}

/// Every disc one step down the index by `by` (south, west, ...), kept where it may `land`.
#[cube]
pub(crate) fn step_down(discs: u64, by: u64, land: u64) -> u64 {
    (discs >> by) & land
}

/// The opponent discs on an unbroken line up the index from one of `seeds`.
#[cube]
fn run_up(seeds: u64, opponent: u64, by: u64, land: u64) -> u64 {
    let mut line = step_up(seeds, by, land) & opponent;
    line |= step_up(line, by, land) & opponent;
    line |= step_up(line, by, land) & opponent;
    line |= step_up(line, by, land) & opponent;
    line |= step_up(line, by, land) & opponent;
    line |= step_up(line, by, land) & opponent;
    line
}

/// The opponent discs on an unbroken line down the index from one of `seeds`.
#[cube]
fn run_down(seeds: u64, opponent: u64, by: u64, land: u64) -> u64 {
    let mut line = step_down(seeds, by, land) & opponent;
    line |= step_down(line, by, land) & opponent;
    line |= step_down(line, by, land) & opponent;
    line |= step_down(line, by, land) & opponent;
    line |= step_down(line, by, land) & opponent;
    line |= step_down(line, by, land) & opponent;
    line
}

/// Placements along one axis (`by`), both ways: empty squares just past a run of opponent discs
/// that starts at one of the player's.
#[cube]
fn moves_along(
    player: u64,
    opponent: u64,
    empty: u64,
    by: u64,
    up_land: u64,
    down_land: u64,
) -> u64 {
    let up = step_up(run_up(player, opponent, by, up_land), by, up_land);
    let down = step_down(run_down(player, opponent, by, down_land), by, down_land);
    (up | down) & empty
}

/// The squares where the side owning `player` may place a disc.
#[cube]
pub fn legal_moves(player: u64, opponent: u64) -> u64 {
    let empty = !(player | opponent);
    let all = !0u64;
    moves_along(player, opponent, empty, 1u64, NOT_FILE_A, NOT_FILE_H)
        | moves_along(player, opponent, empty, 8u64, all, all)
        | moves_along(player, opponent, empty, 9u64, NOT_FILE_A, NOT_FILE_H)
        | moves_along(player, opponent, empty, 7u64, NOT_FILE_H, NOT_FILE_A)
}

/// Discs a disc on `square` (one bit) turns over along one axis, both ways: a run is flipped when
/// the player's disc closes it.
#[cube]
fn flips_along(
    square: u64,
    player: u64,
    opponent: u64,
    by: u64,
    up_land: u64,
    down_land: u64,
) -> u64 {
    let up = run_up(square, opponent, by, up_land);
    let up_closed = (step_up(up, by, up_land) & player) != 0u64;
    let down = run_down(square, opponent, by, down_land);
    let down_closed = (step_down(down, by, down_land) & player) != 0u64;
    select(up_closed, up, 0u64) | select(down_closed, down, 0u64)
}

/// The discs a disc placed on `square` (one bit) turns over.
#[cube]
pub fn flips(square: u64, player: u64, opponent: u64) -> u64 {
    let all = !0u64;
    flips_along(square, player, opponent, 1u64, NOT_FILE_A, NOT_FILE_H)
        | flips_along(square, player, opponent, 8u64, all, all)
        | flips_along(square, player, opponent, 9u64, NOT_FILE_A, NOT_FILE_H)
        | flips_along(square, player, opponent, 7u64, NOT_FILE_H, NOT_FILE_A)
}

/// Legal moves counted from the placements `mine` and the opponent's `theirs`: the placements,
/// else one pass if the opponent can place, else none.
#[cube]
pub(crate) fn count_moves(mine: u64, theirs: u64) -> u32 {
    select(
        mine != 0u64,
        popcount(mine),
        select(theirs != 0u64, 1u32, 0u32),
    )
}

/// Plays move `index` of the canonical order in place; `mine` are the side to move's placements.
#[cube]
pub(crate) fn play_from(state: &mut ReversiBoard, mine: u64, index: u32) {
    place(state, select(mine != 0u64, nth_bit(mine, index), 0u64));
}

/// Places a disc of the side to move on `square` (one bit) and flips, in place; no bit is a pass,
/// which only swaps the sides.
#[cube]
pub(crate) fn place(state: &mut ReversiBoard, square: u64) {
    let player = state.player;
    let opponent = state.opponent;
    let flipped = flips(square, player, opponent);
    // Both sides are computed before either field is written: `player` and `opponent` name the
    // fields themselves on the device, not copies.
    let next_player = opponent & !flipped;
    let next_opponent = player | flipped | square;
    state.player = next_player;
    state.opponent = next_opponent;
    state.white = 1u32 - state.white;
}

#[cube]
impl DeviceGame for DeviceReversi {
    type State = ReversiBoard;

    fn load(words: &Array<u32>, offset: usize) -> ReversiBoard {
        ReversiBoard {
            player: u64::cast_from(words[offset]) | (u64::cast_from(words[offset + 1]) << 32u64),
            opponent: u64::cast_from(words[offset + 2])
                | (u64::cast_from(words[offset + 3]) << 32u64),
            white: words[offset + 4] & 1u32,
        }
    }

    fn store(state: &ReversiBoard, words: &mut Array<u32>, offset: usize) {
        words[offset] = u32::cast_from(state.player & 0xFFFF_FFFFu64);
        words[offset + 1] = u32::cast_from(state.player >> 32u64);
        words[offset + 2] = u32::cast_from(state.opponent & 0xFFFF_FFFFu64);
        words[offset + 3] = u32::cast_from(state.opponent >> 32u64);
        words[offset + 4] = state.white;
    }

    fn outcome(state: &ReversiBoard) -> u32 {
        let mine = legal_moves(state.player, state.opponent);
        let theirs = legal_moves(state.opponent, state.player);
        let over = (mine | theirs) == 0u64;
        let discs = popcount(state.player);
        let other = popcount(state.opponent);
        let result = select(discs > other, WIN, select(discs < other, LOSS, DRAW));
        select(over, result, ONGOING)
    }

    fn score(state: &ReversiBoard) -> i32 {
        eval::score(state.player, state.opponent)
    }

    fn move_count(state: &ReversiBoard) -> u32 {
        let mine = legal_moves(state.player, state.opponent);
        let theirs = legal_moves(state.opponent, state.player);
        count_moves(mine, theirs)
    }

    fn play(state: &mut ReversiBoard, index: u32) {
        let mine = legal_moves(state.player, state.opponent);
        play_from(state, mine, index);
    }

    fn play_out(state: &mut ReversiBoard, rng: &mut u32) -> u32 {
        // One move generation a ply: the placements of the side to move are carried to the next
        // ply, and the opponent's are generated only when the side to move has none.
        let mut plies = 0u32;
        let mut mine = legal_moves(state.player, state.opponent);
        let mut over = false;
        while !over {
            if mine == 0u64 {
                let theirs = legal_moves(state.opponent, state.player);
                over = theirs == 0u64;
                if !over {
                    // A pass is the only move, yet it is drawn like any other (the host's
                    // stream).
                    rng::below(rng, 1u32);
                    place(state, 0u64);
                    mine = theirs;
                    plies += 1u32;
                }
            } else {
                let pick = rng::below(rng, popcount(mine));
                play_from(state, mine, pick);
                mine = legal_moves(state.player, state.opponent);
                plies += 1u32;
            }
        }
        plies
    }
}

/// The cells as `TupleBoard for Reversi` numbers them (a1 = 0): empty 0, the mover's 1, the
/// other side's 2; stages by discs; the final disc difference with the empties to the winner.
#[cube]
impl DeviceTupleGame for DeviceReversi {
    fn cell(state: &ReversiBoard, c: u32) -> u32 {
        let at = u64::cast_from(c);
        let mine = u32::cast_from((state.player >> at) & 1u64);
        let theirs = u32::cast_from((state.opponent >> at) & 1u64);
        mine | (theirs << 1u32)
    }

    fn stage_progress(state: &ReversiBoard) -> u32 {
        popcount(state.player | state.opponent)
    }

    fn final_value(state: &ReversiBoard) -> f32 {
        let mine = popcount(state.player);
        let theirs = popcount(state.opponent);
        let empty = i32::cast_from(64u32 - mine - theirs);
        let lead = i32::cast_from(mine) - i32::cast_from(theirs);
        let value = select(
            lead > 0i32,
            lead + empty,
            select(lead < 0i32, lead - empty, 0i32),
        );
        f32::cast_from(value)
    }
}
