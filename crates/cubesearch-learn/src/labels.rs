//! Positions labelled by a deeper search: what a network is fitted to, as the strong Othello
//! programs fit their patterns (Logistello, Edax, Egaroucid: searched values of self-play
//! positions, exact ones near the end).
//!
//! [`generate_positions`] plays games by self-play: `random_plies` uniformly random moves from
//! the start, then the network's move ([`best_move`]), with a chance `epsilon` of a random one.
//! Every position from the first after the random plies to the last before the end is kept, in
//! the order of the games and their plies.
//!
//! [`label_positions`] values each for the side to move: its exact value where the game's
//! solver knows it ([`Label::exact`]), else the negamax to [`Label::depth`] plies with the
//! network's value at the leaves and a finished game's final value wherever the search reaches
//! one ([`value_of`]), found with alpha-beta. Each position is searched alone, so its label does
//! not depend on the threads or on the other positions.
//!
//! Both run on the current rayon pool.

use crate::network::NTupleNetwork;
use crate::selfplay::{best_move, value_of, TwoPlayerTupleGame};
use cubesearch_core::rng::XorShift32;
use cubesearch_core::{Game, Outcome, Stop};
use rayon::prelude::*;

/// How [`generate_positions`] plays.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Generate {
    /// Games to play: game `g` draws from `XorShift32::for_worker(seed, g)`.
    pub games: u64,
    /// Random moves from the start before the network plays (their positions are not kept).
    pub random_plies: u32,
    /// After them, the chance of a random move instead of the network's.
    pub epsilon: f32,
    /// The seed.
    pub seed: u32,
}

/// The positions of `options.games` self-play games on `net` (see the module docs); none
/// once `stop` is raised.
pub fn generate_positions<G: TwoPlayerTupleGame>(
    game: &G,
    net: &NTupleNetwork,
    options: Generate,
    stop: &Stop,
) -> Vec<G::State> {
    let games: Vec<Vec<G::State>> = (0..options.games)
        .into_par_iter()
        .map(|g| {
            if stop.is_raised() {
                return Vec::new();
            }
            play_one(
                game,
                net,
                &options,
                &mut XorShift32::for_worker(options.seed, g as u32),
            )
        })
        .collect();
    if stop.is_raised() {
        return Vec::new();
    }
    games.into_iter().flatten().collect()
}

/// One game's kept positions.
fn play_one<G: TwoPlayerTupleGame>(
    game: &G,
    net: &NTupleNetwork,
    options: &Generate,
    rng: &mut XorShift32,
) -> Vec<G::State> {
    let mut state = game.initial();
    let mut kept = Vec::new();
    let mut ply = 0u32;
    // A chance of epsilon: a draw below epsilon · 2³² (the cast saturates at 1).
    let threshold = (f64::from(options.epsilon) * 4_294_967_296.0) as u32;
    while game.outcome(&state) == Outcome::Ongoing {
        let random = ply < options.random_plies || rng.next_u32() < threshold;
        if ply >= options.random_plies {
            kept.push(state);
        }
        state = if random {
            let legal = game.moves(&state);
            game.apply(&state, legal[rng.below(legal.len() as u32) as usize])
        } else {
            best_move(game, net, &state).expect("a legal move").1
        };
        ply += 1;
    }
    kept
}

/// A game's exact value of a position for the side to move, where its solver knows one
/// (Othello near the end); `None` elsewhere.
pub type ExactValue<'a, G> = &'a (dyn Fn(&<G as Game>::State) -> Option<f32> + Sync);

/// How [`label_positions`] values a position.
pub struct Label<'a, G: Game> {
    /// Plies the search looks ahead (0, the default: the network's value, or the final value).
    pub depth: u32,
    /// The exact value where the game's solver knows it.
    pub exact: Option<ExactValue<'a, G>>,
    /// Once raised, the labelling ends and gives nothing.
    pub stop: Stop,
}

impl<G: Game> Default for Label<'_, G> {
    fn default() -> Self {
        Self {
            depth: 0,
            exact: None,
            stop: Stop::new(),
        }
    }
}

/// Each position's label (see the module docs); `None` once `label.stop` is raised.
pub fn label_positions<G: TwoPlayerTupleGame>(
    game: &G,
    net: &NTupleNetwork,
    positions: &[G::State],
    label: &Label<G>,
) -> Option<Vec<f32>> {
    let stop = &label.stop;
    let labels: Vec<f32> = positions
        .par_iter()
        .with_min_len(16)
        .map(|p| {
            if stop.is_raised() {
                return 0.0;
            }
            label.exact.and_then(|exact| exact(p)).unwrap_or_else(|| {
                // A drawn line's zero as +0, whichever sign the order found first (the
                // device's labels do the same, so the two agree bit for bit).
                let v = negamax(game, net, p, label.depth, f32::NEG_INFINITY, f32::INFINITY);
                if v == 0.0 {
                    0.0
                } else {
                    v
                }
            })
        })
        .collect();
    (!stop.is_raised()).then_some(labels)
}

/// The negamax value of `state` for the side to move, `depth` plies deep, in the window
/// (`alpha`, `beta`): fail-soft alpha-beta, children searched best first by their values
/// from one ply less deep, where there is more than one ply to go.
fn negamax<G: TwoPlayerTupleGame>(
    game: &G,
    net: &NTupleNetwork,
    state: &G::State,
    depth: u32,
    mut alpha: f32,
    beta: f32,
) -> f32 {
    if depth == 0 || game.outcome(state) != Outcome::Ongoing {
        return value_of(game, net, state);
    }
    let mut children: Vec<G::State> = game
        .moves(state)
        .into_iter()
        .map(|mv| game.apply(state, mv))
        .collect();
    if depth > 1 {
        // Best first: the child worth least to the opponent. A stable sort keeps the game's
        // order among equals, so the search is the same on every run.
        let mut keyed: Vec<(f32, G::State)> = children
            .iter()
            .map(|c| (value_of(game, net, c), *c))
            .collect();
        keyed.sort_by(|a, b| a.0.total_cmp(&b.0));
        children = keyed.into_iter().map(|k| k.1).collect();
    }
    let mut best = f32::NEG_INFINITY;
    for child in &children {
        let value = -negamax(game, net, child, depth - 1, -beta, -alpha);
        if value > best {
            best = value;
            if value > alpha {
                alpha = value;
                if alpha >= beta {
                    break;
                }
            }
        }
    }
    best
}
