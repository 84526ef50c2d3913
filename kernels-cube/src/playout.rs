//! Random playouts, generic over the device game: each unit plays a few whole games from one root
//! and adds its wins and draws to that root's counters.

use crate::device_game::{DeviceGame, GpuGame, DRAW, LOSS, WIN};
use crate::launch::{grid, read, upload};
use crate::rng;
use cubecl::prelude::*;
use cubesearch_core::{Error, Result, WinDrawCounts};

/// Unit `u` plays games `u·games_per_unit ..` (game `g` is worker `g` of the RNG scheme) from root
/// `g / per_root`; `per_root` is a multiple of `games_per_unit`, so a unit never changes root.
/// `counts[2r]` gathers root `r`'s wins, `counts[2r + 1]` its draws.
#[cube(launch_unchecked)]
pub fn playout_kernel<G: DeviceGame>(
    roots: &Array<u32>,
    counts: &mut Array<Atomic<u32>>,
    seed: u32,
    per_root: u32,
    games_per_unit: u32,
    units: u32,
    #[comptime] words: usize,
) {
    let unit = ABSOLUTE_POS as u32;
    if unit < units {
        let first = unit * games_per_unit;
        let root = (first / per_root) as usize;
        let mut wins: u32 = 0u32;
        let mut draws: u32 = 0u32;
        for game in 0..games_per_unit {
            let mut state: u32 = rng::worker_state(seed, first + game);
            let mut board = G::load(roots, root * words);
            let plies = G::play_out(&mut board, &mut state);
            let outcome = G::outcome(&board);
            // `outcome` speaks for the side to move at the end, which is the root's side
            // after an even number of plies.
            let even = (plies & 1) == 0;
            let won = (outcome == WIN && even) || (outcome == LOSS && !even);
            wins += select(won, 1u32, 0u32);
            draws += select(outcome == DRAW, 1u32, 0u32);
        }
        if wins > 0 {
            counts[root * 2].fetch_add(wins);
        }
        if draws > 0 {
            counts[root * 2 + 1].fetch_add(draws);
        }
    }
}

/// Games each unit plays: enough units to fill a large GPU (2¹⁸), then up to `max` games a unit
/// so fewer atomics meet on one counter.
pub fn games_per_unit(per_root: u32, total_games: u64, max: u32) -> u32 {
    let mut games = 1u32;
    // `games * 2` is a power of two: a mask tests divisibility (MSRV 1.85 has no is_multiple_of).
    while games < max
        && per_root & (games * 2 - 1) == 0
        && total_games / (games as u64 * 2) >= 1 << 18
    {
        games *= 2;
    }
    games
}

/// Runs `per_root` random games from every root on the device, at most `max_games_per_unit` in
/// one unit.
pub fn launch_playouts<R: Runtime, G: GpuGame>(
    client: &ComputeClient<R>,
    game: &G,
    roots: &[G::State],
    per_root: u32,
    seed: u32,
    max_games_per_unit: u32,
) -> Result<Vec<WinDrawCounts>> {
    let total = roots.len() as u64 * per_root as u64;
    if total == 0 {
        return Ok(vec![WinDrawCounts::default(); roots.len()]);
    }
    if total > u32::MAX as u64 {
        return Err(Error::Unsupported(format!(
            "{total} playouts in one launch: at most {} (u32 worker ids)",
            u32::MAX
        )));
    }
    let per_unit = games_per_unit(per_root, total, max_games_per_unit);
    let units = (total / per_unit as u64) as u32;
    let roots_handle = upload(client, &game.encode_all(roots));
    let counts_handle = upload(client, &vec![0u32; roots.len() * 2]);
    let (count, dim) = grid(client, units as usize);
    // SAFETY: units past `units` return at once; every index is < roots.len()·2 or < roots words.
    unsafe {
        playout_kernel::launch_unchecked::<G::Device, R>(
            client,
            count,
            dim,
            ArrayArg::from_raw_parts(roots_handle, roots.len() * G::STATE_WORDS),
            ArrayArg::from_raw_parts(counts_handle.clone(), roots.len() * 2),
            seed,
            per_root,
            per_unit,
            units,
            G::STATE_WORDS,
        );
    }
    let counts = read::<R, u32>(client, counts_handle)?;
    Ok(counts
        .chunks_exact(2)
        .map(|c| WinDrawCounts {
            wins: c[0] as u64,
            draws: c[1] as u64,
            games: per_root as u64,
        })
        .collect())
}
