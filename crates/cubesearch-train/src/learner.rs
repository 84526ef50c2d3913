//! What the one training loop drives: a [`Learner`], a game's games learned into a network
//! wherever they are played, a [`Batch`] at a time.

use crate::placement::Placement;
use cubesearch_core::{Result, Stop};
use cubesearch_learn::{Episode, NTupleNetwork};

/// The games one [`Learner::play`] call plays: `first..first + count` of the run, seeded by
/// `seed`, learning at `alpha` (the step on V, split over the network's lookups).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Batch {
    /// The first game's number in the run (a resumed file's games counted).
    pub first: u64,
    /// How many games.
    pub count: u64,
    /// The run's seed.
    pub seed: u32,
    /// The TD step on V.
    pub alpha: f32,
}

/// What the training loop drives: games of one game learned into a network, wherever they
/// are played. A device learner keeps its weights on the device between [`Learner::sync`]
/// calls.
pub trait Learner {
    /// Plays `batch` on the learner's weights (the first call starts from `net`'s), learning
    /// from them, and hands each finished game to `on_game`.
    fn play(
        &mut self,
        net: &NTupleNetwork,
        batch: Batch,
        on_game: &mut dyn FnMut(Episode) -> Result<()>,
    ) -> Result<()>;
    /// Copies the learner's weights into `net` (CPU learners learn in `net` itself).
    fn sync(&mut self, _net: &mut NTupleNetwork) -> Result<()> {
        Ok(())
    }
    /// Threads (CPU) or game units (GPU) playing at once.
    fn parallelism(&self) -> usize;
    /// Asks `play` to return soon once `stop` is raised or its deadline passes.
    fn set_stop(&mut self, stop: &Stop);
    /// Games a time-limited run hands `play` at a time, checking the clock in between; by
    /// default all of them: the learner obeys the stop's deadline itself.
    fn games_between_clock_checks(&self) -> u64 {
        u64::MAX
    }
    /// Whether it learns networks whose shapes differ in size (a fit does: it reads and
    /// updates each shape's lookups on their own); the trainers that play games take shapes
    /// of one size.
    fn shapes_of_any_size(&self) -> bool {
        false
    }
    /// The root mean square error of `net` on positions the learner kept out of its learning,
    /// where it keeps some (a fit to labelled positions).
    fn held_out_rmse(&self, _net: &NTupleNetwork) -> Option<f64> {
        None
    }
    /// Ends the learner's last run (a leading rank lets the others go).
    fn finish(&mut self) -> Result<()> {
        Ok(())
    }
}

/// A learner started for a run: it, where it plays, and the step it learns with when the run
/// names none.
pub struct Started<'a> {
    /// The learner.
    pub learner: Box<dyn Learner + 'a>,
    /// Where its games are played.
    pub placement: Placement,
    /// The TD step on V that suits it.
    pub default_alpha: f32,
}
