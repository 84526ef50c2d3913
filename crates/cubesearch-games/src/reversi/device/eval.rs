//! The device twin of `crate::reversi::eval`: the same features, weights and clamp,
//! written with the device's bitboard verbs, every loop unrolled. `DeviceReversi::score` returns
//! it for unfinished positions, so the GPU search strategies score leaves exactly as the CPU does
//! (the parity test holds them equal on random positions).

use super::{legal_moves, popcount, step_down, step_up, NOT_FILE_A, NOT_FILE_H};
use crate::reversi::eval::{
    ANCHORED, CORNER, CORNERS, C_SQUARE, EDGES, MOBILITY, POTENTIAL_MOBILITY, WIN_SCALE, X_SQUARE,
};
use cubecl::prelude::*;

const A1: u64 = 1;
const H1: u64 = 1 << 7;
const A8: u64 = 1 << 56;
const H8: u64 = 1 << 63;

/// Every square next to one of `discs`.
#[cube]
pub fn neighbours(discs: u64) -> u64 {
    let all = !0u64;
    step_up(discs, 1u64, NOT_FILE_A)
        | step_down(discs, 1u64, NOT_FILE_H)
        | step_up(discs, 8u64, all)
        | step_down(discs, 8u64, all)
        | step_up(discs, 9u64, NOT_FILE_A)
        | step_down(discs, 9u64, NOT_FILE_H)
        | step_up(discs, 7u64, NOT_FILE_H)
        | step_down(discs, 7u64, NOT_FILE_A)
}

/// The X squares beside the corners in `corners`.
#[cube]
fn x_squares(corners: u64) -> u64 {
    ((corners & A1) << 9u64)
        | ((corners & H1) << 7u64)
        | ((corners & A8) >> 7u64)
        | ((corners & H8) >> 9u64)
}

/// The C squares beside the corners in `corners`.
#[cube]
fn c_squares(corners: u64) -> u64 {
    ((corners & A1) << 1u64)
        | ((corners & A1) << 8u64)
        | ((corners & H1) >> 1u64)
        | ((corners & H1) << 8u64)
        | ((corners & A8) << 1u64)
        | ((corners & A8) >> 8u64)
        | ((corners & H8) >> 1u64)
        | ((corners & H8) >> 8u64)
}

/// One step of the anchored-edge fill: `stable` grown by one square along the edges into `own`.
#[cube]
fn anchor_step(stable: u64, own: u64) -> u64 {
    let along_ranks = ((stable << 1u64) & NOT_FILE_A) | ((stable >> 1u64) & NOT_FILE_H);
    let along_files = (stable << 8u64) | (stable >> 8u64);
    stable | ((along_ranks | along_files) & own & EDGES)
}

/// `own`'s edge discs joined to an owned corner by an unbroken own run (seven steps, unrolled).
#[cube]
pub fn anchored(own: u64) -> u64 {
    let s = own & CORNERS;
    let s = anchor_step(s, own);
    let s = anchor_step(s, own);
    let s = anchor_step(s, own);
    let s = anchor_step(s, own);
    let s = anchor_step(s, own);
    let s = anchor_step(s, own);
    anchor_step(s, own)
}

/// Discs counted as an i32.
#[cube]
fn count(bits: u64) -> i32 {
    i32::cast_from(popcount(bits))
}

/// One side's weighted features; `placements` are its legal placements.
#[cube]
fn side(own: u64, other: u64, placements: u64, empty_corners: u64) -> i32 {
    let empty = !(own | other);
    MOBILITY * count(placements)
        + POTENTIAL_MOBILITY * count(neighbours(other) & empty)
        + CORNER * count(own & CORNERS)
        - X_SQUARE * count(own & x_squares(empty_corners))
        - C_SQUARE * count(own & c_squares(empty_corners))
        + ANCHORED * count(anchored(own))
}

/// The heuristic value for the owner of `player` (to move), given both sides' placements.
#[cube]
pub fn evaluate(player: u64, opponent: u64, mine: u64, theirs: u64) -> i32 {
    let empty_corners = !(player | opponent) & CORNERS;
    let value =
        side(player, opponent, mine, empty_corners) - side(opponent, player, theirs, empty_corners);
    i32::max(i32::min(value, WIN_SCALE - 1i32), 1i32 - WIN_SCALE)
}

/// `DeviceGame::score`: a finished game's final score times `WIN_SCALE` (empties to the winner),
/// else [`evaluate`](fn@evaluate).
#[cube]
pub fn score(player: u64, opponent: u64) -> i32 {
    let mine = legal_moves(player, opponent);
    let theirs = legal_moves(opponent, player);
    let discs = count(player);
    let other = count(opponent);
    let empty = 64i32 - discs - other;
    let bonus = select(
        discs > other,
        empty,
        select(discs < other, 0i32 - empty, 0i32),
    );
    let over = (mine | theirs) == 0u64;
    let heuristic = evaluate(player, opponent, mine, theirs);
    select(over, (discs - other + bonus) * WIN_SCALE, heuristic)
}
