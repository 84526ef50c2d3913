//! TD(0) self-play for two-player zero-sum games (Lucas 2008; Szubert, Jaśkowski and Krawiec
//! 2013): one n-tuple network values every position for the side to move, and plays both
//! sides.
//!
//! In position `s` the mover takes the move whose position `s'` (the opponent to move) is worth
//! least to the opponent: the maximum of `−value(s')`, where `value` is the game's final value
//! ([`TwoPlayerTupleGame::final_value`]) for a finished game and `V` otherwise (negamax). With
//! probability `epsilon` it plays a uniformly random move instead, so that self-play sees more
//! than one line. After each move `V(s)` moves toward `−value(s')`; each of the network's
//! lookups by `alpha / lookups · δ`, so `alpha` is the step on `V` itself. The value is in the
//! game's own units (Othello: the disc difference).
//!
//! Threads share one network without locks, as the one-player trainers' `table` sharing does:
//! two threads updating one weight at once may lose one of the updates.

use crate::game::TupleBoard;
use crate::network::NTupleNetwork;
use cubesearch_core::rng::XorShift32;
use cubesearch_core::{Game, Outcome, Stop};
use std::sync::atomic::{AtomicU64, Ordering};

/// A two-player game whose positions an n-tuple network reads, each from the side to move.
pub trait TwoPlayerTupleGame: Game + TupleBoard<Board = <Self as Game>::State> {
    /// The stage thresholds a new network gets ([`TupleBoard::stage_progress`] values; none:
    /// one stage).
    const STAGES: &'static [u32] = &[];

    /// A finished game's value for the side to move, in the network's units: by default 1 for
    /// a win, −1 for a loss, 0 for a draw (Othello: the final disc difference).
    fn final_value(&self, state: &Self::State) -> f32 {
        match self.outcome(state) {
            Outcome::Win => 1.0,
            Outcome::Loss => -1.0,
            _ => 0.0,
        }
    }
}

/// `state`'s value for the side to move: its final value once the game is over, `V` before.
#[inline]
pub fn value_of<G: TwoPlayerTupleGame>(game: &G, net: &NTupleNetwork, state: &G::State) -> f32 {
    if game.outcome(state) == Outcome::Ongoing {
        net.value(game, *state)
    } else {
        game.final_value(state)
    }
}

/// The move the network plays in `state` (see the module docs), the position after it and its
/// value for the mover (the first best in the game's canonical order); `None` when the game is
/// over.
pub fn best_move<G: TwoPlayerTupleGame>(
    game: &G,
    net: &NTupleNetwork,
    state: &G::State,
) -> Option<(G::Move, G::State, f32)> {
    let mut best: Option<(G::Move, G::State, f32)> = None;
    for mv in game.moves(state) {
        let next = game.apply(state, mv);
        let value = -value_of(game, net, &next);
        if best.as_ref().is_none_or(|b| value > b.2) {
            best = Some((mv, next, value));
        }
    }
    best
}

/// How self-play learns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SelfPlay {
    /// The TD step on V.
    pub alpha: f32,
    /// The chance of a random move.
    pub epsilon: f32,
}

impl Default for SelfPlay {
    fn default() -> Self {
        Self {
            alpha: 0.01,
            epsilon: 0.1,
        }
    }
}

/// What one self-play game came to.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SelfPlayGame {
    /// Moves played.
    pub moves: u32,
    /// The final value for the side that moved first.
    pub first_mover: f32,
}

/// Plays one game from `start` by self-play, learning after every move (see the module docs).
pub fn learn_game<G: TwoPlayerTupleGame>(
    game: &G,
    net: &NTupleNetwork,
    start: G::State,
    options: SelfPlay,
    rng: &mut XorShift32,
) -> SelfPlayGame {
    let step = options.alpha / net.lookups() as f32;
    let mut state = start;
    let mut moves = 0u32;
    while game.outcome(&state) == Outcome::Ongoing {
        let legal = game.moves(&state);
        // A chance of epsilon: a draw below epsilon · 2³² (the cast saturates at 1).
        let explore = rng.next_u32() < (f64::from(options.epsilon) * 4_294_967_296.0) as u32;
        let (next, target) = if explore {
            let next = game.apply(&state, legal[rng.below(legal.len() as u32) as usize]);
            let target = -value_of(game, net, &next);
            (next, target)
        } else {
            let (_, next, target) = best_move(game, net, &state).expect("a legal move");
            (next, target)
        };
        let error = target - net.value(game, state);
        net.update(game, state, step * error);
        state = next;
        moves += 1;
    }
    let last = game.final_value(&state);
    SelfPlayGame {
        moves,
        first_mover: if moves.is_multiple_of(2) { last } else { -last },
    }
}

/// What a run of [`learn_games`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SelfPlayRun {
    /// Games played.
    pub games: u64,
    /// Moves played.
    pub moves: u64,
}

/// Plays up to `games` self-play games from `start` on `threads` threads sharing `net`, until
/// `stop` is raised (each thread finishes the game it is playing). Thread `t` draws from
/// `XorShift32::for_worker(seed, t)`. `on_game` hears of each game as it ends, on the calling
/// thread.
pub fn learn_games<G: TwoPlayerTupleGame>(
    game: &G,
    net: &NTupleNetwork,
    start: G::State,
    plan: SelfPlayPlan,
    on_game: &mut dyn FnMut(SelfPlayGame),
) -> SelfPlayRun {
    let SelfPlayPlan {
        games,
        threads,
        seed,
        options,
        ref stop,
        ..
    } = plan;
    let taken = AtomicU64::new(0);
    let mut run = SelfPlayRun::default();
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::channel::<SelfPlayGame>();
        for t in 0..threads.max(1) {
            let (taken, tx) = (&taken, tx.clone());
            scope.spawn(move || {
                let mut rng = XorShift32::for_worker(seed, t as u32);
                while !stop.is_raised() && taken.fetch_add(1, Ordering::Relaxed) < games {
                    let one = learn_game(game, net, start, options, &mut rng);
                    if tx.send(one).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Every thread's games, on this thread, until the last thread ends.
        for one in rx {
            run.games += 1;
            run.moves += u64::from(one.moves);
            on_game(one);
        }
    });
    run
}

/// What [`learn_games`] plays, and how.
#[derive(Clone, Debug)]
pub struct SelfPlayPlan {
    /// Games to play at most.
    pub games: u64,
    /// Threads playing them on the CPU.
    pub threads: usize,
    /// Games at once on a device (its trainer's default when `None`).
    pub units: Option<u32>,
    /// Seeds the threads' random moves.
    pub seed: u32,
    /// How the games learn.
    pub options: SelfPlay,
    /// Ends the run early (a deadline, a signal).
    pub stop: Stop,
}
