//! Fitting a network to labelled positions ([`Fit`]): least squares by stochastic gradient
//! descent. Each position's error `label − V(s)` moves each of the network's lookups by
//! `alpha / lookups · error`, the positions drawn in a new order on each pass over the data.
//! One position in [`HELD_OUT`] (every one whose index in the dataset is a multiple of it) is
//! kept out of the fit, and the error of the fitted network on them is the run's
//! [`held_out_rmse`](crate::TrainReport::held_out_rmse). CPU threads share one table without
//! locks, as self-play's do; on one thread a fit is the same on every run.
//!
//! As the training loop counts it, a fit's game is one position learned (one move), scored by
//! its absolute error before the update, in thousandths of the network's unit.

use crate::config::TrainConfig;
use crate::learner::{Batch, Learner, Started};
use crate::method::Method;
use crate::placement::Placement;
use cubesearch_core::backend::{resolve, ResolvedBackend};
use cubesearch_core::rng::XorShift32;
use cubesearch_core::{Error, Game, Result, Stop};
use cubesearch_learn::runner::thread_count;
use cubesearch_learn::selfplay::TwoPlayerTupleGame;
use cubesearch_learn::{Dataset, Episode, NTupleNetwork};
use rayon::prelude::*;

/// One position in this many is held out of the fit to measure it.
pub const HELD_OUT: usize = 20;

/// The step on V when a run names none, fitting a new network: the held-out error of Reversi's
/// fits fell from 0.003 to 0.1 (docs/BENCHMARKS.md, "The fit's step").
pub const FIT_ALPHA: f32 = 0.1;

/// The step when a run that names none goes on from a weights file (`--resume`), whose values
/// are near already: 0.01 kept them best.
pub const RESUMED_FIT_ALPHA: f32 = 0.01;

/// Positions a thread takes between two looks at the stop.
const BETWEEN_STOP_CHECKS: usize = 4096;

/// Fits the network of game `G` to the labels of `data` (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct Fit<'a, G: Game>(pub &'a G, pub &'a Dataset<G>);

impl<G: TwoPlayerTupleGame> Method for Fit<'_, G> {
    type Board = G;

    fn default_stages(&self) -> &'static [u32] {
        G::STAGES
    }

    fn check(&self, cfg: &TrainConfig) -> Result<()> {
        let ignored = [
            (cfg.epsilon.is_some(), "a chance of random moves"),
            (cfg.coherence, "temporal coherence"),
            (cfg.optimistic.is_some(), "an optimistic start"),
            (cfg.order.is_some(), "a TD order"),
            (cfg.engine.units.is_some(), "GPU units"),
            (cfg.engine.gpus != 1, "several GPUs"),
        ];
        if let Some((_, what)) = ignored.iter().find(|(given, _)| *given) {
            return Err(Error::parse(format!(
                "a fit to labelled positions has no use for {what}: it plays no games, on CPU \
                 threads"
            )));
        }
        if self.1.positions.len() < 2 * HELD_OUT {
            return Err(Error::parse(format!(
                "a fit needs at least {} labelled positions (one in {HELD_OUT} is held out), \
                 and the dataset has {}",
                2 * HELD_OUT,
                self.1.positions.len()
            )));
        }
        Ok(())
    }

    fn start(&self, cfg: &TrainConfig) -> Result<Started<'_>> {
        let resolved = resolve(cfg.engine.backend)?;
        if !matches!(resolved, ResolvedBackend::Cpu { .. }) {
            return Err(Error::Unsupported(format!(
                "a fit runs on CPU threads (--backend cpu), not on {resolved}"
            )));
        }
        let threads = thread_count(cfg.engine.threads.unwrap_or(1));
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| Error::Unsupported(format!("cannot start {threads} CPU threads: {e}")))?;
        let (held, fitted): (Vec<u32>, Vec<u32>) = (0..self.1.positions.len() as u32)
            .partition(|i| (*i as usize).is_multiple_of(HELD_OUT));
        Ok(Started {
            learner: Box::new(FitOnCpu {
                game: self.0,
                data: self.1,
                fitted,
                held,
                order: None,
                pool,
                stop: Stop::new(),
            }),
            placement: Placement::new(&ResolvedBackend::Cpu { threads }, (0, 1), None),
            default_alpha: match cfg.resume {
                Some(_) => RESUMED_FIT_ALPHA,
                None => FIT_ALPHA,
            },
        })
    }
}

/// A fit on a pool of CPU threads.
struct FitOnCpu<'a, G: Game> {
    game: &'a G,
    data: &'a Dataset<G>,
    /// The indices of the positions fitted, and of those held out.
    fitted: Vec<u32>,
    held: Vec<u32>,
    /// The order of the pass under way: its number and the positions' indices.
    order: Option<(u64, Vec<u32>)>,
    pool: rayon::ThreadPool,
    stop: Stop,
}

/// Pass `pass`'s order, kept in `cache`: the `fitted` positions shuffled by the run's seed and
/// the pass.
fn pass_order<'c>(
    cache: &'c mut Option<(u64, Vec<u32>)>,
    fitted: &[u32],
    pass: u64,
    seed: u32,
) -> &'c [u32] {
    if cache.as_ref().is_none_or(|(p, _)| *p != pass) {
        let mut order = fitted.to_vec();
        let mut rng = XorShift32::for_worker(seed, pass as u32);
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i as u32 + 1) as usize);
        }
        *cache = Some((pass, order));
    }
    &cache.as_ref().expect("just made").1
}

impl<G: TwoPlayerTupleGame> Learner for FitOnCpu<'_, G> {
    fn play(
        &mut self,
        net: &NTupleNetwork,
        batch: Batch,
        on_game: &mut dyn FnMut(Episode) -> Result<()>,
    ) -> Result<()> {
        let n = self.fitted.len() as u64;
        let step = batch.alpha / net.lookups() as f32;
        let (game, data, stop) = (self.game, self.data, self.stop.clone());
        let threads = self.pool.current_num_threads();
        let mut at = batch.first;
        let end = batch.first + batch.count;
        while at < end && !stop.is_raised() {
            // One pass's part of the batch at a time.
            let pass = at / n;
            let from = (at % n) as usize;
            let to = (from as u64 + (end - at)).min(n) as usize;
            let order = &pass_order(&mut self.order, &self.fitted, pass, batch.seed)[from..to];
            let share = order.len().div_ceil(threads).max(1);
            let errors: Vec<Vec<f32>> = self.pool.install(|| {
                order
                    .par_chunks(share)
                    .map(|part| {
                        let mut errors = Vec::with_capacity(part.len());
                        // A position's weights are found once, then read and moved.
                        let mut indices = vec![0u32; net.lookups()];
                        for (k, &i) in part.iter().enumerate() {
                            if k.is_multiple_of(BETWEEN_STOP_CHECKS) && stop.is_raised() {
                                break;
                            }
                            net.indices(game, data.positions[i as usize], &mut indices);
                            let error = data.labels[i as usize] - net.value_at(&indices);
                            net.update_at(&indices, step * error);
                            errors.push(error);
                        }
                        errors
                    })
                    .collect()
            });
            for error in errors.into_iter().flatten() {
                on_game(Episode {
                    score: (error.abs() * 1000.0).round() as u64,
                    moves: 1,
                    progress: 0,
                })?;
            }
            at += (to - from) as u64;
        }
        Ok(())
    }

    fn parallelism(&self) -> usize {
        self.pool.current_num_threads()
    }

    fn set_stop(&mut self, stop: &Stop) {
        self.stop = stop.clone();
    }

    fn games_between_clock_checks(&self) -> u64 {
        (BETWEEN_STOP_CHECKS * self.parallelism()) as u64
    }

    fn shapes_of_any_size(&self) -> bool {
        true
    }

    fn held_out_rmse(&self, net: &NTupleNetwork) -> Option<f64> {
        let (game, data) = (self.game, self.data);
        let squares: Vec<f64> = self.pool.install(|| {
            self.held
                .par_iter()
                .map(|&i| {
                    let i = i as usize;
                    let error = f64::from(data.labels[i] - net.value(game, data.positions[i]));
                    error * error
                })
                .collect()
        });
        // Added in the positions' order: the same figure on any number of threads.
        let squares: f64 = squares.iter().sum();
        Some((squares / self.held.len().max(1) as f64).sqrt())
    }
}
