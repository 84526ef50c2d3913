//! The search suites: random playouts, perft, MCTS within a search, and the MCTS host tree alone.

use crate::BenchArgs;
use cubesearch_core::{Error, Game, Playouts, Result};
use cubesearch_games::checkers::Checkers;
use cubesearch_kernels::GpuGame;
use cubesearch_search::mcts::{Budget, Mcts, MctsConfig};
use cubesearch_search::perft::perft_split;
use cubesearch_search::Executor;
use std::time::Duration;

fn playouts_at(level: u32) -> u32 {
    4096 << level
}

pub(super) fn playouts_size(level: u32) -> String {
    format!("{} games", playouts_at(level))
}

pub(super) fn depth_size(level: u32) -> String {
    format!("depth {}", PERFT_FIRST_DEPTH + level)
}

/// Perft suites start here and go one ply deeper per level.
const PERFT_FIRST_DEPTH: u32 = 4;

/// Random games from `root`; the units are games.
pub(super) fn playouts<G: GpuGame>(
    exec: &mut Executor,
    game: &G,
    root: G::State,
    level: u32,
    seed: u32,
) -> Result<u64> {
    let counts = exec.playouts(game, &[root], playouts_at(level), seed)?;
    Ok(counts[0].games)
}

/// perft from `root`; the units are nodes.
pub(super) fn perft<G: GpuGame>(
    exec: &mut Executor,
    game: &G,
    root: G::State,
    level: u32,
) -> Result<u64> {
    perft_split(exec, game, &root, PERFT_FIRST_DEPTH + level)
}

/// One MCTS search of one second from `root`; the units are simulated games.
pub(super) fn mcts<G: GpuGame>(
    exec: &mut Executor,
    game: &G,
    root: G::State,
    seed: u32,
    args: &BenchArgs,
) -> Result<u64> {
    let gpu = !exec.is_cpu();
    // The device wants wide launches: one tree per core but one selects 256 leaves each. The CPU
    // executor simulates on every core already, fed by one tree.
    let cores = cubesearch_core::backend::cpu_threads();
    let trees = match args.trees {
        // A tree is a thread: past the cores, threads only wait for each other.
        Some(n) if n > cores => {
            return Err(cubesearch_core::Error::parse(format!(
                "--trees takes 1 to {cores}, this machine's cores; got {n}"
            )))
        }
        Some(n) if gpu => n,
        _ if gpu => cubesearch_search::mcts::device_trees(),
        _ => 1,
    };
    let config = MctsConfig {
        budget: Budget::Time(Duration::from_secs(1)),
        seed,
        batch: args.tree_batch.unwrap_or(256),
        trees,
        ..MctsConfig::default()
    };
    let (_, stats) = Mcts::new(root, config).search(exec, game)?;
    eprintln!(
        "  mcts: {} playouts in {:.2} s, {trees} trees, {} launches, waited for the executor {:.0}% of the time",
        stats.playouts,
        stats.seconds,
        stats.batches,
        100.0 * stats.wait_seconds / stats.seconds.max(1e-9)
    );
    Ok(stats.playouts)
}

/// Simulations answered at once, so that a search measures its host tree alone: each leaf's
/// games are "won" in a share drawn from a hash of its position (deterministic, and varied
/// enough for the trees to grow as in a real search).
struct InstantPlayouts;

impl<G: Game> Playouts<G> for InstantPlayouts {
    fn playouts(
        &mut self,
        _game: &G,
        roots: &[G::State],
        per_root: u32,
        seed: u32,
    ) -> Result<Vec<cubesearch_core::WinDrawCounts>> {
        use std::hash::{Hash, Hasher};
        Ok(roots
            .iter()
            .map(|root| {
                let mut h = std::collections::hash_map::DefaultHasher::new();
                (root, seed).hash(&mut h);
                cubesearch_core::WinDrawCounts {
                    wins: h.finish() % (per_root as u64 + 1),
                    draws: 0,
                    games: per_root as u64,
                }
            })
            .collect())
    }
}

/// Leaves an mcts-tree run selects.
pub(super) fn mcts_tree_leaves(level: u32) -> u64 {
    16_384 << level
}

/// The MCTS host tree alone from the checkers start: one tree per thread of the CPU target,
/// selecting, expanding and backing up `mcts_tree_leaves(level)` leaves of 32 playouts each,
/// the playouts answered instantly. The units are leaves. A GPU search cannot simulate faster
/// than its trees make leaves, so this bounds the in-search playouts/s (× 32) on that host.
pub(super) fn mcts_tree(exec: &mut Executor, level: u32, seed: u32, _: &BenchArgs) -> Result<u64> {
    let Executor::Cpu(cpu) = exec else {
        return Err(Error::parse(
            "mcts-tree measures the host's trees: one tree per thread of --only cpu-N",
        ));
    };
    let game = Checkers::default();
    let config = MctsConfig {
        budget: Budget::Playouts(mcts_tree_leaves(level) * 32),
        seed,
        trees: cpu.threads(),
        ..MctsConfig::default()
    };
    let (_, stats) = Mcts::new(game.initial(), config).search(&mut InstantPlayouts, &game)?;
    Ok(stats.playouts / 32)
}
