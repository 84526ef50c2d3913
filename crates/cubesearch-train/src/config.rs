//! One config for every training run: what to train, how it learns, for how long, where the
//! games are played ([`EngineConfig`]) and what is kept, checked before any work.

use crate::placement::EngineConfig;
use cubesearch_core::{Error, Result, Stop};
use cubesearch_learn::TdOrder;
use std::path::PathBuf;
use std::time::Duration;

/// How to train: the network, how it learns, the budget, where the games are played and what is
/// kept. The command line builds one from its flags and hands it to [`train`](crate::train).
#[derive(Clone, Debug)]
pub struct TrainConfig {
    /// Games to play in this run (on top of those a resumed file already had).
    pub games: u64,
    /// Where the games are played (default: one CPU thread).
    pub engine: EngineConfig,
    /// When a game's afterstates learn ([`TdOrder`]): at its end, or each once the next move is
    /// chosen (GPU trainers: with averaged updates only). `None`, the default: each engine's
    /// better order, forward on CPU threads (faster, learning as much a game as TDL2048+),
    /// backward on GPUs (forward learned half as much a game there).
    pub order: Option<TdOrder>,
    /// The TD step on V: each of the network's lookups moves by `alpha / lookups · δ`
    /// (default: what suits the learner, 0.1, or 0.8 for self-play averaging a launch's
    /// updates on a GPU).
    pub alpha: Option<f32>,
    /// Self-play: the chance of a random move (default 0.1). TD of a one-player game plays
    /// greedily and refuses it.
    pub epsilon: Option<f32>,
    /// The run seed: game `g` draws from `XorShift32::for_worker(seed, g)`, `g` counting the
    /// games a resumed file had already trained.
    pub seed: u32,
    /// Tuple shapes (default: the game's first named set, [`TupleBoard::SHAPES`](cubesearch_learn::TupleBoard::SHAPES)); a resumed
    /// file must match them.
    pub shapes: Option<Vec<Vec<u8>>>,
    /// Stage thresholds of a new multi-stage network (stage-progress values, ascending: see
    /// [`NTupleNetwork::staged`](cubesearch_learn::NTupleNetwork::staged); default one stage). A resumed file keeps its own, and
    /// thresholds added to them split its stages ([`NTupleNetwork::split_into_stages`](cubesearch_learn::NTupleNetwork::split_into_stages)).
    pub stages: Option<Vec<u32>>,
    /// Save to `out` every this many games (0 = only at the end).
    pub checkpoint_every: u64,
    /// Where to save the weights (none: keep them in memory only).
    pub out: Option<PathBuf>,
    /// A weights file to start from.
    pub resume: Option<PathBuf>,
    /// One learning-curve point every this many games (0 = about 100 points in all).
    pub curve_every: u64,
    /// Least time between two progress reports.
    pub progress_interval: Duration,
    /// Stop once this much time has passed: a training budget in time rather than games,
    /// `games` then being an upper bound. The engine is told the deadline with the stop
    /// request ([`TdEngine::set_stop`](crate::TdEngine::set_stop)).
    pub time_limit: Option<Duration>,
    /// Ends the run early when raised (a signal, say): the games in flight are finished or
    /// dropped as the engine does at a deadline, and the weights are saved to `out` as at
    /// the end of any run.
    pub stop: Stop,
    /// Start a new network with every state's value at this instead of 0 (optimistic
    /// initialisation: each weight is this value over the lookups). States the games have not
    /// reached keep looking better than those they have, so the greedy player keeps trying new
    /// ones (Guei, Chen and Wu, IEEE Trans. Games 2022). A resumed run takes the file's weights
    /// and refuses it.
    pub optimistic: Option<f32>,
    /// Learn with temporal coherence: each weight's step is `alpha` scaled by its own rate,
    /// `|E| / A` ([`NTupleNetwork::enable_coherence`](cubesearch_learn::NTupleNetwork::enable_coherence)). Guei, Chen and Wu (2022) finish an
    /// optimistic TD run with it at `alpha` 1.0 (TDL2048+'s OTD+TC); a GPU engine averaging
    /// its updates collapsed at 1.0 and learns best at 0.5 (docs/BENCHMARKS.md, row "Temporal
    /// coherence at alpha 0.5"). Its sums go into the weights file, and a run resumed with it
    /// goes on from them (from zero where the file has none; a run without it saves none).
    /// CPU copies merge them, while several GPUs each keep the sums of their own changes
    /// (their meetings merge the weights alone) and the file takes the first GPU's.
    pub coherence: bool,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            games: 1000,
            engine: EngineConfig::default(),
            order: None,
            alpha: None,
            epsilon: None,
            seed: 1,
            shapes: None,
            stages: None,
            checkpoint_every: 0,
            out: None,
            resume: None,
            curve_every: 0,
            progress_interval: Duration::from_millis(250),
            time_limit: None,
            stop: Stop::new(),
            optimistic: None,
            coherence: false,
        }
    }
}

impl TrainConfig {
    /// Refuses a run that cannot be what it says, before any work: the library's words, for
    /// any caller.
    pub fn check(&self) -> Result<()> {
        if let Some(alpha) = self.alpha {
            if !(alpha.is_finite() && alpha > 0.0) {
                return Err(Error::parse(format!(
                    "the learning rate must be a positive number, got {alpha}"
                )));
            }
        }
        if let Some(epsilon) = self.epsilon {
            if !(0.0..=1.0).contains(&epsilon) {
                return Err(Error::parse(format!(
                    "the chance of a random move goes from 0 to 1, got {epsilon}"
                )));
            }
        }
        if self.engine.gpus == 0 {
            return Err(Error::parse("a run on GPUs needs at least one"));
        }
        if self.engine.units == Some(0) {
            return Err(Error::parse(
                "a GPU trainer plays at least one game at once",
            ));
        }
        if let Some(value) = self.optimistic {
            if !value.is_finite() {
                return Err(Error::parse(format!(
                    "the optimistic start must be a finite value, got {value}"
                )));
            }
        }
        Ok(())
    }
}
