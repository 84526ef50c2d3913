//! The seed's Table 3 setting: one of its AIs (easy or medium) against random over many games,
//! with the AI's decision time summed. The games advance in lockstep, so the AI's decisions of all
//! games waiting for it can be made at once: on the CPU one after another (one thread) or spread
//! over a rayon pool; on a GPU in one launch (`batched`) or one launch per decision (the seed's
//! shape). Or the whole games run on the GPU, both sides, in a single launch. Every game draws
//! from its own generators, and device and CPU give the same square values, so every way of
//! deciding plays the same games and reaches the same results.

use cubesearch_core::rng::XorShift32;
use cubesearch_core::{Error, Game, Result};
use cubesearch_games::reversi::players::{easy_move, medium_move};
use cubesearch_games::reversi::seed_player::{
    choose_from_values, device_seed_games, device_square_values, Level,
};
use cubesearch_games::reversi::{final_score, Board, Reversi, ReversiMove};
use cubesearch_search::Executor;
use rayon::prelude::*;
use std::time::{Duration, Instant};

/// Where the AI's decisions are made.
pub enum Decider<'a> {
    /// On a rayon pool (one thread: sequential).
    Cpu(&'a rayon::ThreadPool),
    /// On a GPU executor, in the given shape.
    Device {
        /// The GPU executor.
        exec: &'a Executor,
        /// How the decisions are launched.
        shape: DeviceShape,
    },
}

/// How a GPU makes the AI's decisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceShape {
    /// One launch per decision (the seed's shape).
    PerDecision,
    /// One launch for all waiting games.
    Batched,
    /// Whole games, both sides, one cube a game, in a single launch: the decision time is the
    /// launch's, so it counts random's moves too.
    WholeGames,
}

impl DeviceShape {
    /// Every shape.
    pub const ALL: [DeviceShape; 3] = [Self::PerDecision, Self::Batched, Self::WholeGames];

    /// The shape's name in tables.
    pub fn name(self) -> &'static str {
        match self {
            Self::PerDecision => "per decision",
            Self::Batched => "batched",
            Self::WholeGames => "whole games",
        }
    }
}

/// What a batch of games against random produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchReport {
    /// Games the AI won, lost, drew.
    pub wins: u32,
    /// Games lost.
    pub losses: u32,
    /// Games drawn.
    pub draws: u32,
    /// The AI's decisions.
    pub decisions: u64,
    /// Lockstep rounds (launches, when batched on a GPU).
    pub rounds: u64,
    /// Every game's moves, for comparing deciders.
    pub moves: Vec<Vec<ReversiMove>>,
    /// Total time spent deciding the AI's moves.
    pub decision_time: Duration,
}

/// `games` games of the AI of `level` against random, the AI moving first in even games; game
/// `g`'s AI draws its ties from worker `2g` of `seed`, its random opponent from worker `2g + 1`.
pub fn seed_ai_against_random(
    level: Level,
    games: u32,
    seed: u32,
    decider: &Decider,
) -> Result<BatchReport> {
    if let Decider::Device {
        exec,
        shape: DeviceShape::WholeGames,
    } = decider
    {
        return whole_games_on_device(level, games, seed, exec);
    }
    let n = games as usize;
    let mut boards = vec![Reversi.initial(); n];
    let mut plies = vec![0u32; n];
    let mut over = vec![false; n];
    let mut ai_rng: Vec<XorShift32> = (0..games)
        .map(|g| XorShift32::for_worker(seed, 2 * g))
        .collect();
    let mut random_rng: Vec<XorShift32> = (0..games)
        .map(|g| XorShift32::for_worker(seed, 2 * g + 1))
        .collect();
    let mut report = BatchReport {
        wins: 0,
        losses: 0,
        draws: 0,
        decisions: 0,
        rounds: 0,
        moves: vec![Vec::new(); n],
        decision_time: Duration::ZERO,
    };
    let mut scratch = Vec::new();
    loop {
        for g in 0..n {
            over[g] = over[g] || Reversi.moves(&boards[g]).is_empty();
        }
        let waiting: Vec<usize> = (0..n)
            .filter(|&g| !over[g] && ai_to_move(g, plies[g]))
            .collect();
        if over.iter().all(|&o| o) {
            break;
        }
        // The AI's moves, timed.
        let started = Instant::now();
        let chosen = decide(level, decider, &waiting, &boards, &mut ai_rng)?;
        report.decision_time += started.elapsed();
        report.decisions += waiting.len() as u64;
        report.rounds += !waiting.is_empty() as u64;
        let mut chosen = chosen.into_iter();
        for g in 0..n {
            if over[g] {
                continue;
            }
            let mv = if ai_to_move(g, plies[g]) {
                chosen.next().expect("a decision per waiting game")
            } else {
                scratch.clear();
                Reversi.legal_moves(&boards[g], &mut scratch);
                scratch[random_rng[g].below(scratch.len() as u32) as usize]
            };
            boards[g] = Reversi.apply(&boards[g], mv);
            plies[g] += 1;
            report.moves[g].push(mv);
        }
    }
    for g in 0..n {
        report.count_result(g, plies[g], final_score(&boards[g]));
    }
    Ok(report)
}

/// Whether the AI moves after `plies` plies of game `g`: it moves first in even games.
fn ai_to_move(g: usize, plies: u32) -> bool {
    plies.is_multiple_of(2) == g.is_multiple_of(2)
}

impl BatchReport {
    /// Counts game `g`'s result, which ended after `plies` plies with `score` (any sign-keeping
    /// disc difference) for the side to move.
    fn count_result(&mut self, g: usize, plies: u32, score: i32) {
        let for_mover = score.signum();
        let for_ai = if ai_to_move(g, plies) {
            for_mover
        } else {
            -for_mover
        };
        match for_ai {
            1 => self.wins += 1,
            -1 => self.losses += 1,
            _ => self.draws += 1,
        }
    }
}

/// `seed_ai_against_random` with the whole games on the device, in one launch.
fn whole_games_on_device(
    level: Level,
    games: u32,
    seed: u32,
    exec: &Executor,
) -> Result<BatchReport> {
    use cubesearch_games::reversi::device::seed_players::{MATCH_PLIES, NO_MOVE, PASS};
    let started = Instant::now();
    let (slots, scores) = device_seed_games(exec, games, seed, level)?;
    let mut report = BatchReport {
        wins: 0,
        losses: 0,
        draws: 0,
        decisions: 0,
        rounds: 1,
        moves: Vec::with_capacity(games as usize),
        decision_time: started.elapsed(),
    };
    for (g, (game, &score)) in slots.chunks_exact(MATCH_PLIES).zip(&scores).enumerate() {
        let Some(plies) = game.iter().position(|&m| m == NO_MOVE) else {
            return Err(Error::Unsupported(format!(
                "device game {g} did not end within {MATCH_PLIES} plies"
            )));
        };
        let moves: Vec<ReversiMove> = game[..plies]
            .iter()
            .map(|&m| match m {
                PASS => ReversiMove::Pass,
                square => ReversiMove::Place(square as u8),
            })
            .collect();
        report.decisions += (0..plies as u32).filter(|&p| ai_to_move(g, p)).count() as u64;
        report.count_result(g, plies as u32, score);
        report.moves.push(moves);
    }
    Ok(report)
}

/// The AI's moves in the `waiting` games, in order.
fn decide(
    level: Level,
    decider: &Decider,
    waiting: &[usize],
    boards: &[Board],
    rngs: &mut [XorShift32],
) -> Result<Vec<ReversiMove>> {
    let cpu = |board: &Board, rng: &mut XorShift32| match level {
        Level::Easy => easy_move(board, rng),
        Level::Medium => medium_move(board, rng),
    };
    match decider {
        Decider::Cpu(pool) => {
            let mut jobs: Vec<(Board, XorShift32)> =
                waiting.iter().map(|&g| (boards[g], rngs[g])).collect();
            let moves: Vec<ReversiMove> = if pool.current_num_threads() == 1 {
                jobs.iter_mut().map(|(b, r)| cpu(b, r)).collect()
            } else {
                pool.install(|| jobs.par_iter_mut().map(|(b, r)| cpu(b, r)).collect())
            };
            for (&g, (_, rng)) in waiting.iter().zip(jobs) {
                rngs[g] = rng;
            }
            Ok(moves)
        }
        Decider::Device { exec, shape } => {
            let positions: Vec<Board> = waiting.iter().map(|&g| boards[g]).collect();
            // Whole games never get here (`seed_ai_against_random` hands them over at once).
            let values = if *shape == DeviceShape::PerDecision {
                let mut all = Vec::with_capacity(positions.len());
                for p in &positions {
                    all.extend(device_square_values(exec, std::slice::from_ref(p), level)?);
                }
                all
            } else {
                device_square_values(exec, &positions, level)?
            };
            Ok(waiting
                .iter()
                .zip(&values)
                .map(|(&g, v)| choose_from_values(v, &mut rngs[g]))
                .collect())
        }
    }
}
