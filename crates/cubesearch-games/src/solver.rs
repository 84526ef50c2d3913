//! A game's exact solver, as `solve` runs it: what it is, its value, and its work estimate.

use cubesearch_core::{Game, Stop};

/// A game's exact solver: the value of a position under perfect play and a best move, on CPU
/// threads.
pub struct ExactSolver<G: Game> {
    /// What it is, for the line naming where the work runs (`exact endgame solver`).
    pub name: &'static str,
    /// What its value counts, for the side to move (`exact final disc difference`).
    pub value: &'static str,
    /// Solves a position; `None` once the stop is raised, the work dropped.
    pub solve: SolveFn<G>,
    /// About how many positions a solve visits: what a refusal of work of days reads.
    pub estimate: fn(&G::State) -> f64,
    /// Whether the solve uses the threads it is given (a formula does not: `--threads` is
    /// refused there).
    pub threaded: bool,
}

/// An [`ExactSolver`]'s solve: the game, the position, the CPU threads it may use and the stop
/// it obeys.
pub type SolveFn<G> = fn(&G, &<G as Game>::State, usize, &Stop) -> Option<Exact<<G as Game>::Move>>;

/// What an [`ExactSolver`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exact<M> {
    /// The value for the side to move.
    pub value: i32,
    /// A best move (`None` when the game is over).
    pub best: Option<M>,
    /// Positions visited.
    pub nodes: u64,
    /// Counts that describe the position (`empties`), in the order they are reported.
    pub facts: Vec<(&'static str, u64)>,
}
