//! The one seam every trainer plays through ([`TdEngine`]), and its CPU engine ([`CpuEngine`]):
//! threads learning on copies of the weights or on one table ([`Sharing`]).

use cubesearch_core::{Result, Stop};
use cubesearch_learn::runner::{run_games, thread_count, Policy, Schedule, Sharing};
use cubesearch_learn::td::Learning;
use cubesearch_learn::{Episode, NTupleNetwork, TdOrder, TupleGame};

/// The games one [`TdEngine::play`] call plays and learns from: `first..first + count`, game
/// `g` drawing from `XorShift32::for_worker(seed, g)`, learning with `step` per weight.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TdGames {
    /// The first game's number.
    pub first: u64,
    /// How many games.
    pub count: u64,
    /// The run's seed.
    pub seed: u32,
    /// The learning rate per weight.
    pub step: f32,
}

/// Where the games of a training run are played and learned from: CPU threads ([`CpuEngine`])
/// or a GPU, whose weights live on the device between [`TdEngine::sync`] calls.
pub trait TdEngine<G: TupleGame> {
    /// Plays the games of `batch` greedily on the engine's weights, learning from them, and
    /// hands each finished game to `on_game`. The first call starts from `net`'s weights.
    fn play(
        &mut self,
        game: &G,
        net: &NTupleNetwork,
        batch: TdGames,
        on_game: &mut dyn FnMut(Episode) -> Result<()>,
    ) -> Result<()>;

    /// Copies the engine's weights into `net` (a CPU engine learns in `net` itself).
    fn sync(&mut self, _net: &mut NTupleNetwork) -> Result<()> {
        Ok(())
    }

    /// Threads (CPU) or game units (GPU) playing at once.
    fn parallelism(&self) -> usize;

    /// Asks `play` to return soon once `stop` is raised or its deadline passes: a GPU engine
    /// after its next launch, dropping the games it has not finished, CPU threads once their
    /// games in hand end.
    fn set_stop(&mut self, stop: &Stop);

    /// Games a time-limited run hands `play` at a time, checking the clock in between.
    fn games_between_clock_checks(&self) -> u64 {
        self.parallelism() as u64 * 8
    }

    /// The share of the device's unit steps that did work so far (GPU engines; see
    /// `cubesearch_kernels::td::DeviceTd::occupancy`).
    fn occupancy(&self) -> Option<f64> {
        None
    }

    /// Ends the engine's last run: an engine leading others ([`crate::ranks`]) lets them go.
    /// Nothing to do for the others.
    fn finish(&mut self) -> Result<()> {
        Ok(())
    }

    /// Plays `games` games from `net`'s weights at learning rate `alpha` (split over the
    /// network's lookups, game `g` drawing from `XorShift32::for_worker(seed, g)`), copies the
    /// learned weights back into `net` and returns each game's score.
    fn learn_games(
        &mut self,
        game: &G,
        net: &mut NTupleNetwork,
        games: u32,
        alpha: f32,
        seed: u32,
    ) -> Result<Vec<u64>> {
        net.check_game::<G>()?;
        let step = alpha / net.lookups() as f32;
        let mut scores = Vec::with_capacity(games as usize);
        self.play(
            game,
            net,
            TdGames {
                first: 0,
                count: games as u64,
                seed,
                step,
            },
            &mut |e| {
                scores.push(e.score);
                Ok(())
            },
        )?;
        self.sync(net)?;
        Ok(scores)
    }
}

/// TD(0) on CPU threads, learning on a copy of the weights each or on one table without locks
/// ([`Sharing`]); one thread replays a run exactly, and so do several on copies.
#[derive(Clone, Debug, Default)]
pub struct CpuEngine {
    /// Threads (≥ 1).
    pub threads: usize,
    /// How the threads share the weights.
    pub sharing: Sharing,
    /// When the games learn.
    pub order: TdOrder,
    /// Raised: each thread ends the game in hand and takes no other ([`TdEngine::set_stop`]).
    pub stop: Stop,
}

impl CpuEngine {
    /// `threads` threads (0 = every core), the weights shared as [`Sharing::Auto`] picks,
    /// learning backward.
    pub fn new(threads: usize) -> Self {
        CpuEngine {
            threads: thread_count(threads),
            ..Default::default()
        }
    }
}

impl<G: TupleGame> TdEngine<G> for CpuEngine {
    fn play(
        &mut self,
        game: &G,
        net: &NTupleNetwork,
        batch: TdGames,
        on_game: &mut dyn FnMut(Episode) -> Result<()>,
    ) -> Result<()> {
        let TdGames {
            first,
            count: games,
            seed,
            step,
        } = batch;
        net.check_trainable()?;
        run_games(
            game,
            Policy::Greedy(
                net,
                Some(Learning {
                    step,
                    order: self.order,
                }),
            ),
            Schedule {
                games: first..first + games,
                seed,
                threads: self.threads,
                stop: &self.stop,
                sharing: self.sharing,
            },
            on_game,
        )
    }

    fn parallelism(&self) -> usize {
        self.threads
    }

    fn set_stop(&mut self, stop: &Stop) {
        self.stop = stop.clone();
    }

    /// Enough games for a few rounds of the copies on every thread: each call makes the
    /// copies afresh and merges them at its end.
    fn games_between_clock_checks(&self) -> u64 {
        self.threads as u64 * 1024
    }
}
