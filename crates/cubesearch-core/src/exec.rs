//! Executor traits: one per kind of work a search pipeline hands to a device. Each has a CPU
//! implementation (rayon; also the baseline every GPU figure is compared with) and a CubeCL one
//! generic over `R: Runtime`, both in `cubesearch-search`. Pipelines are generic over these traits,
//! never over a backend.

use crate::error::Result;
use crate::game::{Game, StochasticGame};

/// Results of random games from one root, from the side to move at that root.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WinDrawCounts {
    /// Games won by the side to move at the root.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games played.
    pub games: u64,
}

impl WinDrawCounts {
    /// Games lost by the side to move at the root.
    pub fn losses(&self) -> u64 {
        self.games - self.wins - self.draws
    }
    /// Score with a draw as half a win, doubled to stay an integer: 2·wins + draws.
    pub fn score2(&self) -> u64 {
        2 * self.wins + self.draws
    }
    /// Adds another set of results.
    pub fn add(&mut self, other: WinDrawCounts) {
        self.wins += other.wins;
        self.draws += other.draws;
        self.games += other.games;
    }
}

/// Random playouts: the simulation step of Monte Carlo search.
///
/// Worker `r * per_root + k` plays game `k` from root `r` with
/// `XorShift32::for_worker(seed, r * per_root + k)`, drawing each move as `moves[rng.below(len)]`.
/// Every implementation therefore returns the same counts for the same inputs.
pub trait Playouts<G: Game> {
    /// Plays `per_root` random games to the end from every root.
    fn playouts(
        &mut self,
        game: &G,
        roots: &[G::State],
        per_root: u32,
        seed: u32,
    ) -> Result<Vec<WinDrawCounts>>;
}

/// Move-path counting to a fixed depth (perft), the correctness yardstick of move generators.
pub trait Perft<G: Game> {
    /// The number of move paths of length `depth` from each root.
    fn perft(&mut self, game: &G, roots: &[G::State], depth: u32) -> Result<Vec<u64>>;

    /// Roots per call that keep this executor busy (a pipeline splits the first plies on the host
    /// until it has this many): enough for a large GPU by default.
    fn preferred_roots(&self) -> usize {
        1 << 16
    }
}

/// A search window `(alpha, beta)`: values inside it are exact, a value `≤ alpha` is an upper
/// bound and a value `≥ beta` a lower bound (fail-soft alpha-beta).
pub type Window = (i32, i32);

/// What a batch of subtree searches returns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Searched {
    /// One fail-soft value per root, from its side to move.
    pub values: Vec<i32>,
    /// Positions visited, roots included.
    pub nodes: u64,
}

/// Depth-limited minimax of many subtrees, the leaf step of a split alpha-beta search.
/// Values are negamax values from each root's side to move: +1 win, −1 loss, 0 unknown or draw
/// (games with an evaluation scale it into `i32`).
pub trait SubtreeSearch<G: Game> {
    /// Every root searched to `depth` plies with alpha-beta in its window (`windows[i]`; an
    /// empty slice means the full window for all), fail-soft.
    fn search_windows(
        &mut self,
        game: &G,
        roots: &[G::State],
        windows: &[Window],
        depth: u32,
    ) -> Result<Searched>;

    /// The exact negamax value of every root searched to `depth` plies.
    fn search(&mut self, game: &G, roots: &[G::State], depth: u32) -> Result<Vec<i32>> {
        Ok(self.search_windows(game, roots, &[], depth)?.values)
    }

    /// About how many subtrees one call should get to keep this executor busy.
    fn preferred_batch(&self) -> usize {
        1 << 12
    }
}

/// A value function on afterstates: the leaf evaluation of expectimax and what TD learning
/// trains (an n-tuple network). V estimates the reward still to come after the afterstate.
pub trait AfterstateValue<G: StochasticGame>: Sync {
    /// V(afterstate).
    fn value(&self, game: &G, afterstate: &G::State) -> f32;
}

/// What expectimax found at one root.
#[derive(Clone, Debug, PartialEq)]
pub struct RootValue {
    /// The index in [`StochasticGame::ACTIONS`] of the best action (the first of equal values),
    /// `None` when no action is legal: the game is over.
    pub best: Option<u32>,
    /// The best action's value (0 when the game is over).
    pub value: f32,
    /// Every action's value, in [`StochasticGame::ACTIONS`] order; `None` for illegal ones.
    pub actions: Vec<Option<f32>>,
}

/// Expectimax evaluation of many roots of a stochastic game under a value function `V`
/// (an n-tuple network, or its copy on a device): each root's best action and every action's
/// expected value, searched `layers` chance layers deep (depth `2·layers + 1`: a player level,
/// then `layers` × (chance, player)). An action's value is its reward plus, at `layers = 0`,
/// V(afterstate), otherwise the probability-weighted mean over the afterstate's chance
/// outcomes of the best value there; a position with no legal action is worth 0.
pub trait ExpectimaxEval<G: StochasticGame, V: ?Sized> {
    /// The result for every root.
    fn evaluate(
        &mut self,
        game: &G,
        value: &V,
        roots: &[G::State],
        layers: u32,
    ) -> Result<Vec<RootValue>>;
}
