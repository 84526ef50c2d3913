//! The CPU executor: rayon over roots and games. It is the oracle the GPU kernels are tested
//! against and the baseline they are measured against, so it follows the kernels' conventions
//! exactly (worker ids, RNG draws, canonical move order).

use cubesearch_core::rng::XorShift32;
use cubesearch_core::{
    Error, Game, Outcome, Perft, Playouts, Result, Searched, SubtreeSearch, WinDrawCounts, Window,
};
use rayon::prelude::*;

/// Runs executor work on a rayon pool of a chosen size.
pub struct CpuExecutor {
    pool: rayon::ThreadPool,
}

impl CpuExecutor {
    /// An executor on `threads` threads (0 = all cores).
    pub fn new(threads: usize) -> Result<Self> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| Error::Unsupported(format!("cannot start {threads} CPU threads: {e}")))?;
        Ok(Self { pool })
    }

    /// The thread pool.
    pub fn pool(&self) -> &rayon::ThreadPool {
        &self.pool
    }

    /// Threads in the pool.
    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }
}

/// Worker `id`'s random game from `root`, exactly as the playout kernel plays it; the outcome is
/// for the side to move at the root.
pub fn playout<G: Game>(
    game: &G,
    root: &G::State,
    seed: u32,
    id: u32,
    moves: &mut Vec<G::Move>,
) -> Outcome {
    let mut rng = XorShift32::for_worker(seed, id);
    let mut board = *root;
    let mut plies = 0u32;
    loop {
        let outcome = game.outcome(&board);
        if outcome != Outcome::Ongoing {
            return if plies & 1 == 0 {
                outcome
            } else {
                outcome.flipped()
            };
        }
        board = game.play_random(&board, &mut rng, moves);
        plies += 1;
    }
}

impl<G: Game> Playouts<G> for CpuExecutor {
    fn playouts(
        &mut self,
        game: &G,
        roots: &[G::State],
        per_root: u32,
        seed: u32,
    ) -> Result<Vec<WinDrawCounts>> {
        Ok(self.pool.install(|| {
            roots
                .par_iter()
                .enumerate()
                .map(|(r, root)| {
                    let first = r as u32 * per_root;
                    (0..per_root)
                        .into_par_iter()
                        .with_min_len(256)
                        .map_init(Vec::new, |moves, k| {
                            let outcome = playout(game, root, seed, first + k, moves);
                            WinDrawCounts {
                                wins: (outcome == Outcome::Win) as u64,
                                draws: (outcome == Outcome::Draw) as u64,
                                games: 1,
                            }
                        })
                        .reduce(WinDrawCounts::default, |mut a, b| {
                            a.add(b);
                            a
                        })
                })
                .collect()
        }))
    }
}

impl<G: Game> SubtreeSearch<G> for CpuExecutor {
    fn search_windows(
        &mut self,
        game: &G,
        roots: &[G::State],
        windows: &[Window],
        depth: u32,
    ) -> Result<Searched> {
        use crate::minimax::{alphabeta, SearchOptions, INFINITY};
        let searched: Vec<(i32, u64)> = self.pool.install(|| {
            roots
                .par_iter()
                .enumerate()
                .map(|(i, r)| {
                    let (alpha, beta) = windows.get(i).copied().unwrap_or((-INFINITY, INFINITY));
                    let mut options = SearchOptions::default();
                    let value = alphabeta(game, r, depth, (alpha, beta), &mut options);
                    (value, options.nodes)
                })
                .collect()
        });
        Ok(Searched {
            values: searched.iter().map(|s| s.0).collect(),
            nodes: searched.iter().map(|s| s.1).sum(),
        })
    }

    fn preferred_batch(&self) -> usize {
        64 * self.threads()
    }
}

/// The seed's root searches are GPU shapes: the CPU refuses them (the `cpu` and `cpu-split`
/// strategies are their CPU counterparts).
impl<G: cubesearch_kernels::GpuGame> crate::minimax::RootSearcher<G> for CpuExecutor {
    fn root_search(
        &mut self,
        _game: &G,
        _root: &G::State,
        _depth: u32,
        _shape: cubesearch_kernels::alphabeta::RootShape,
    ) -> Result<cubesearch_kernels::alphabeta::RootSearch> {
        Err(Error::Unsupported(
            "strategies v1, v2 and v4 run on a GPU backend (--backend wgpu or cuda)".into(),
        ))
    }
}

impl<G: Game> Perft<G> for CpuExecutor {
    fn perft(&mut self, game: &G, roots: &[G::State], depth: u32) -> Result<Vec<u64>> {
        Ok(self
            .pool
            .install(|| crate::perft::perft_many(game, roots, depth)))
    }

    /// A few subtrees per thread balance the load; more would only lengthen the serial split.
    fn preferred_roots(&self) -> usize {
        64 * self.threads()
    }
}
