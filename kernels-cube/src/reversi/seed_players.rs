//! The seed's easy and medium players on the device, batched: one cube per position, one unit
//! per square (as the seed's `get_easyAI_move` kernel), each unit scoring its square if it is a
//! legal placement: easy = the discs it flips; medium = flips − the opponent's 2-ply
//! `predict` (`cubesearch_games::reversi::players::medium_value`, bit for bit). The host then
//! draws among the best squares with the same reservoir sampling as the CPU players, so a GPU
//! player makes exactly the CPU player's moves. Many games' positions go in one launch.

use super::{flips, legal_moves, popcount, DeviceReversi};
use crate::device_game::DeviceGame;
use crate::launch::{read, upload};
use cubecl::prelude::*;
use cubesearch_core::{Error, Game, Result};
use cubesearch_games::reversi::players::NO_PLACEMENT;
use cubesearch_games::reversi::{Board, Reversi};

/// The value of a square that is not a legal placement (far below any real value).
pub const NOT_LEGAL: i32 = -(1 << 20);
const NOT_LEGAL_MAGNITUDE: i32 = 1 << 20;
/// −[`NO_PLACEMENT`] (a positive constant: negative `let`s do not compile in `#[cube]` code).
const NO_PLACEMENT_MAGNITUDE: i32 = -NO_PLACEMENT;

/// The discs a disc of `p` on `square` (one bit) flips, as an i32.
#[cube]
fn flip_count(square: u64, p: u64, o: u64) -> i32 {
    i32::cast_from(popcount(flips(square, p, o)))
}

/// The seed's `predict(board, 1)`: the most discs one placement of `p` flips, or
/// `NO_PLACEMENT` when `p` has none.
#[cube]
fn predict1(p: u64, o: u64) -> i32 {
    let mut rest = legal_moves(p, o);
    // A runtime variable (a constant expression would stay a host value).
    let mut best: i32 = 0i32;
    best -= NO_PLACEMENT_MAGNITUDE;
    while rest != 0u64 {
        let low = rest & (!rest + 1u64);
        rest ^= low;
        best = i32::max(best, flip_count(low, p, o));
    }
    best
}

/// The seed's `predict(board, 2)`: the best over `p`'s placements of flips − `predict1` of the
/// reply position, or `NO_PLACEMENT` when `p` has none.
#[cube]
fn predict2(p: u64, o: u64) -> i32 {
    let mut rest = legal_moves(p, o);
    // A runtime variable (a constant expression would stay a host value).
    let mut best: i32 = 0i32;
    best -= NO_PLACEMENT_MAGNITUDE;
    while rest != 0u64 {
        let low = rest & (!rest + 1u64);
        rest ^= low;
        let f = flips(low, p, o);
        let n = i32::cast_from(popcount(f));
        best = i32::max(best, n - predict1(o & !f, p | f | low));
    }
    best
}

/// `values[b·64 + s]`: board `b`'s value of square `s` (easy or `medium`), or `NOT_LEGAL`.
#[cube(launch_unchecked)]
pub fn seed_values_kernel(boards: &Array<u32>, values: &mut Array<i32>, #[comptime] medium: bool) {
    let b = CUBE_POS;
    let square = UNIT_POS;
    let board = DeviceReversi::load(boards, b * 5usize);
    let p = board.player;
    let o = board.opponent;
    let bit = 1u64 << u64::cast_from(square);
    let mut value: i32 = 0i32;
    value -= NOT_LEGAL_MAGNITUDE;
    if (legal_moves(p, o) & bit) != 0u64 {
        let f = flips(bit, p, o);
        value = i32::cast_from(popcount(f));
        if comptime!(medium) {
            value -= predict2(o & !f, p | f | bit);
        }
    }
    values[b * 64usize + square as usize] = value;
}

/// Every board's 64 square values (easy, or `medium`), `NOT_LEGAL` where a square is not a
/// placement; one launch for all boards.
pub fn launch_seed_values<R: Runtime>(
    client: &ComputeClient<R>,
    boards: &[Board],
    medium: bool,
) -> Result<Vec<[i32; 64]>> {
    if boards.is_empty() {
        return Ok(Vec::new());
    }
    if boards.len() > 65_535 {
        return Err(Error::Unsupported(format!(
            "{} positions in one launch: at most 65535",
            boards.len()
        )));
    }
    let words = upload(client, &Reversi.encode_all(boards));
    let values = client.empty(boards.len() * 64 * std::mem::size_of::<i32>());
    // SAFETY: cube b reads board b and writes values[b·64 .. b·64 + 64], one slot per unit.
    unsafe {
        seed_values_kernel::launch_unchecked::<R>(
            client,
            CubeCount::Static(boards.len() as u32, 1, 1),
            CubeDim::new_1d(64),
            ArrayArg::from_raw_parts(words, boards.len() * Reversi::STATE_WORDS),
            ArrayArg::from_raw_parts(values.clone(), boards.len() * 64),
            medium,
        );
    }
    let flat = read::<R, i32>(client, values)?;
    Ok(flat
        .chunks_exact(64)
        .map(|c| c.try_into().expect("64 values"))
        .collect())
}
