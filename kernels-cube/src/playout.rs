//! Random playouts, generic over the device game: each unit plays a few whole games from one root
//! and adds its wins and draws to that root's counters ([`playout_kernel()`]), or, where long
//! loops are cut short (lavapipe) or launches must stay short, one game in slices of at most
//! `steps` plies a launch, its game kept in device memory in between
//! ([`playout_slice_kernel()`]). Both draw the same moves, so the counts are the same.
//!
//! A sliced unit's memory (u32 words):
//! ```text
//!  [position (STATE_WORDS words)] [rng] [plies played, or FINISHED once counted]
//! ```

use crate::device_game::{DeviceGame, GpuGame, DRAW, LOSS, ONGOING, WIN};
use crate::launch::{grid, launch_until_done, read, upload};
use crate::rng;
use cubecl::prelude::*;
use cubesearch_core::{Error, Result, Stop, WinDrawCounts};

/// The plies word of a sliced game that has been counted.
pub const FINISHED: u32 = u32::MAX;

/// Sliced games at most in device memory at once; more wait for the next turn.
const SLICED_AT_ONCE: usize = 1 << 18;

/// Whether a finished game is a win for its root's side: `outcome` speaks for the side to move
/// at the end, which is the root's side after an even number of plies.
#[cube]
fn root_won(outcome: u32, plies: u32) -> bool {
    let even = (plies & 1) == 0;
    (outcome == WIN && even) || (outcome == LOSS && !even)
}

/// Adds `wins` and `draws` to root `root`'s counters (no atomic for a zero).
#[cube]
fn add_counts(counts: &mut Array<Atomic<u32>>, root: usize, wins: u32, draws: u32) {
    if wins > 0 {
        counts[root * 2].fetch_add(wins);
    }
    if draws > 0 {
        counts[root * 2 + 1].fetch_add(draws);
    }
}

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
            wins += select(root_won(outcome, plies), 1u32, 0u32);
            draws += select(outcome == DRAW, 1u32, 0u32);
        }
        add_counts(counts, root, wins, draws);
    }
}

/// Sets up game `first + i` (`i < count`) for [`playout_slice_kernel()`] in unit `i`'s memory:
/// its root, its rng (worker `first + i`), no plies.
#[cube(launch_unchecked)]
pub fn playout_start_kernel<G: DeviceGame>(
    roots: &Array<u32>,
    walks: &mut Array<u32>,
    seed: u32,
    per_root: u32,
    first: u32,
    count: u32,
    #[comptime] words: usize,
) {
    let i = ABSOLUTE_POS as u32;
    if i < count {
        let game = first + i;
        let at = i as usize * (words + 2);
        let board = G::load(roots, (game / per_root) as usize * words);
        G::store(&board, walks, at);
        walks[at + words] = rng::worker_state(seed, game);
        walks[at + words + 1] = 0u32;
    }
}

/// Unit `i` plays at most `steps` more plies of game `first + i` (worker `first + i`, from root
/// `(first + i) / per_root`): each ply move number `below(rng, move_count)`, the draws
/// `DeviceGame::play_out` makes. A game that ends is counted once; one still going is saved
/// and adds one to `unfinished`.
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn playout_slice_kernel<G: DeviceGame>(
    walks: &mut Array<u32>,
    counts: &mut Array<Atomic<u32>>,
    unfinished: &mut Array<Atomic<u32>>,
    per_root: u32,
    first: u32,
    count: u32,
    steps: u32,
    #[comptime] words: usize,
) {
    let i = ABSOLUTE_POS as u32;
    if i < count {
        let at = i as usize * (words + 2);
        let mut plies = walks[at + words + 1];
        if plies != FINISHED {
            let mut board = G::load(walks, at);
            let mut state = walks[at + words];
            let mut left = steps;
            let mut outcome = G::outcome(&board);
            while left > 0u32 && outcome == ONGOING {
                let pick = rng::below(&mut state, G::move_count(&board));
                G::play(&mut board, pick);
                plies += 1u32;
                left -= 1u32;
                outcome = G::outcome(&board);
            }
            if outcome == ONGOING {
                G::store(&board, walks, at);
                walks[at + words] = state;
                walks[at + words + 1] = plies;
                unfinished[0].fetch_add(1u32);
            } else {
                let root = ((first + i) / per_root) as usize;
                let won = select(root_won(outcome, plies), 1u32, 0u32);
                add_counts(counts, root, won, select(outcome == DRAW, 1u32, 0u32));
                walks[at + words + 1] = FINISHED;
            }
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

/// How [`launch_playouts`] plays its games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayoutShape {
    /// Whole games in one launch, up to this many a unit ([`playout_kernel()`]).
    Whole { max_games_per_unit: u32 },
    /// One game a unit, at most `steps` plies a launch ([`playout_slice_kernel()`]).
    Sliced { steps: u32 },
}

/// The random games [`launch_playouts`] plays: `per_root` from every root, drawn from `seed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayoutGames {
    /// Games from each root.
    pub per_root: u32,
    /// Each game draws from `seed` and its index.
    pub seed: u32,
}

/// Runs the random games from every root on the device, shaped as `shape` says (the counts do
/// not depend on it).
pub fn launch_playouts<R: Runtime, G: GpuGame>(
    client: &ComputeClient<R>,
    game: &G,
    roots: &[G::State],
    games: PlayoutGames,
    shape: PlayoutShape,
) -> Result<Vec<WinDrawCounts>> {
    let PlayoutGames { per_root, seed } = games;
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
    let roots_handle = upload(client, &game.encode_all(roots));
    let counts_handle = upload(client, &vec![0u32; roots.len() * 2]);
    let root_words = roots.len() * G::STATE_WORDS;
    let counts_len = roots.len() * 2;
    match shape {
        PlayoutShape::Whole { max_games_per_unit } => {
            let per_unit = games_per_unit(per_root, total, max_games_per_unit);
            let units = (total / per_unit as u64) as u32;
            let (count, dim) = grid(client, units as usize);
            // SAFETY: units past `units` return at once; every index is < roots.len()·2 or <
            // roots words.
            unsafe {
                playout_kernel::launch_unchecked::<G::Device, R>(
                    client,
                    count,
                    dim,
                    ArrayArg::from_raw_parts(roots_handle, root_words),
                    ArrayArg::from_raw_parts(counts_handle.clone(), counts_len),
                    seed,
                    per_root,
                    per_unit,
                    units,
                    G::STATE_WORDS,
                );
            }
        }
        PlayoutShape::Sliced { steps } => {
            let unit_words = G::STATE_WORDS + 2;
            let walks = client.empty(SLICED_AT_ONCE.min(total as usize) * unit_words * 4);
            for first in (0..total).step_by(SLICED_AT_ONCE) {
                let n = (total - first).min(SLICED_AT_ONCE as u64) as u32;
                let (count, dim) = grid(client, n as usize);
                // SAFETY: unit i < n writes its own `unit_words` words of `walks`, which holds
                // SLICED_AT_ONCE units; games below `total` read roots below roots.len().
                unsafe {
                    playout_start_kernel::launch_unchecked::<G::Device, R>(
                        client,
                        count.clone(),
                        dim,
                        ArrayArg::from_raw_parts(roots_handle.clone(), root_words),
                        ArrayArg::from_raw_parts(walks.clone(), n as usize * unit_words),
                        seed,
                        per_root,
                        first as u32,
                        n,
                        G::STATE_WORDS,
                    );
                }
                // A batch of playouts is short: it is never stopped.
                launch_until_done(client, &Stop::new(), |_, unfinished| {
                    // SAFETY: as the start kernel; counters below roots.len()·2.
                    unsafe {
                        playout_slice_kernel::launch_unchecked::<G::Device, R>(
                            client,
                            count.clone(),
                            dim,
                            ArrayArg::from_raw_parts(walks.clone(), n as usize * unit_words),
                            ArrayArg::from_raw_parts(counts_handle.clone(), counts_len),
                            ArrayArg::from_raw_parts(unfinished, 1),
                            per_root,
                            first as u32,
                            n,
                            steps.max(1),
                            G::STATE_WORDS,
                        );
                    }
                })?;
            }
        }
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
