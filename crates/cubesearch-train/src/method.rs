//! How a run learns. A [`Method`] binds a game to a way of learning (TD of a one-player game,
//! [`Td`]; self-play of a two-player game, [`SelfPlayTd`]) and starts the [`Learner`] that the
//! one training loop ([`train`](crate::train)) drives: the loop keeps the network, the budget,
//! the deadline and stop, progress, the curve, checkpoints, resuming and saving, whatever
//! learns.

use crate::config::TrainConfig;
use crate::engine::{TdEngine, TdGames};
use crate::learner::{Batch, Learner, Started};
use crate::placement::start_engine;
use crate::selfplay::{self_play_learner, ALPHA};
use cubesearch_core::{Error, Result, Stop};
use cubesearch_kernels::selfplay::DeviceTupleGame;
use cubesearch_kernels::{GpuGame, GpuStochasticGame};
use cubesearch_learn::runner::Sharing;
use cubesearch_learn::selfplay::TwoPlayerTupleGame;
use cubesearch_learn::{Episode, NTupleNetwork, TupleBoard, TupleGame};
use std::ops::DerefMut;

/// A way of learning a game's network: what the training loop is given.
pub trait Method {
    /// The positions the network reads (its shapes, stages and weights files are this game's).
    type Board: TupleBoard;
    /// The stage thresholds of a new network when the run names none.
    fn default_stages(&self) -> &'static [u32] {
        &[]
    }
    /// Refuses, before any work, an option of `cfg` that this way of learning would ignore.
    fn check(&self, cfg: &TrainConfig) -> Result<()>;
    /// Starts the learner `cfg.engine` names.
    fn start(&self, cfg: &TrainConfig) -> Result<Started<'_>>;
}

/// TD(0) of a one-player stochastic game on afterstates (`cubesearch_learn::td`), on CPU
/// threads, one GPU, several GPUs or ranks ([`TdEngine`]).
#[derive(Clone, Copy, Debug)]
pub struct Td<'a, G>(pub &'a G);

/// TD(0) self-play of a two-player game (`cubesearch_learn::selfplay`): CPU threads sharing
/// one table, or one GPU, each unit a game.
#[derive(Clone, Copy, Debug)]
pub struct SelfPlayTd<'a, G>(pub &'a G);

impl<G: GpuStochasticGame + TupleGame> Method for Td<'_, G> {
    type Board = G;

    fn check(&self, cfg: &TrainConfig) -> Result<()> {
        match cfg.epsilon {
            Some(_) => Err(Error::parse(
                "a chance of random moves is for self-play; TD of a one-player game plays greedily",
            )),
            None => Ok(()),
        }
    }

    fn start(&self, cfg: &TrainConfig) -> Result<Started<'_>> {
        let (engine, placement) = start_engine::<G>(&cfg.engine, cfg.order)?;
        Ok(Started {
            learner: Box::new(Bound {
                game: self.0,
                engine,
            }),
            placement,
            default_alpha: ALPHA,
        })
    }
}

impl<G> Method for SelfPlayTd<'_, G>
where
    G: TwoPlayerTupleGame + GpuGame,
    G::Device: DeviceTupleGame,
{
    type Board = G;

    fn default_stages(&self) -> &'static [u32] {
        G::STAGES
    }

    fn check(&self, cfg: &TrainConfig) -> Result<()> {
        #[cfg(feature = "ranks")]
        let ranks = cfg.engine.ranks.is_some();
        #[cfg(not(feature = "ranks"))]
        let ranks = false;
        let ignored = [
            (cfg.coherence, "temporal coherence"),
            (cfg.optimistic.is_some(), "an optimistic start"),
            (cfg.order.is_some(), "a TD order"),
            (cfg.engine.gpus != 1, "several GPUs"),
            (ranks, "ranks"),
            (
                cfg.engine.sharing != Sharing::default(),
                "a way of sharing weights",
            ),
        ];
        match ignored.iter().find(|(given, _)| *given) {
            Some((_, what)) => Err(Error::parse(format!(
                "self-play has no use for {what}: it learns after every move, on one table, on \
                 CPU threads or one GPU"
            ))),
            None => Ok(()),
        }
    }

    fn start(&self, cfg: &TrainConfig) -> Result<Started<'_>> {
        self_play_learner(self.0, cfg)
    }
}

/// A TD engine with its game bound in, as the loop drives it.
pub(crate) struct Bound<'a, G, E> {
    pub(crate) game: &'a G,
    pub(crate) engine: E,
}

impl<G, T, E> Learner for Bound<'_, G, E>
where
    G: TupleGame,
    T: TdEngine<G> + ?Sized,
    E: DerefMut<Target = T>,
{
    fn play(
        &mut self,
        net: &NTupleNetwork,
        batch: Batch,
        on_game: &mut dyn FnMut(Episode) -> Result<()>,
    ) -> Result<()> {
        let games = TdGames {
            first: batch.first,
            count: batch.count,
            seed: batch.seed,
            step: batch.alpha / net.lookups() as f32,
        };
        self.engine.play(self.game, net, games, on_game)
    }
    fn sync(&mut self, net: &mut NTupleNetwork) -> Result<()> {
        self.engine.sync(net)
    }
    fn parallelism(&self) -> usize {
        self.engine.parallelism()
    }
    fn set_stop(&mut self, stop: &Stop) {
        self.engine.set_stop(stop)
    }
    fn games_between_clock_checks(&self) -> u64 {
        self.engine.games_between_clock_checks()
    }
    fn finish(&mut self) -> Result<()> {
        self.engine.finish()
    }
}
