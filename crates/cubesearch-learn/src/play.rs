//! Greedy (and random) play statistics.

use crate::game::TupleGame;
use crate::network::NTupleNetwork;
use crate::runner::{run_games, Policy, Schedule};
use crate::td::Episode;
use cubesearch_core::{Result, Stop};
use serde::Serialize;
use std::time::Instant;

/// The share of games whose progress ([`TupleBoard::progress`](crate::TupleBoard::progress)) reached a milestone
/// ([`TupleBoard::MILESTONES`](crate::TupleBoard::MILESTONES)).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Reach {
    /// The milestone.
    pub milestone: u32,
    /// Games reaching it (progress at least that large), as a share of all games.
    pub share: f64,
}

/// Results of many games.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayStats {
    /// Games played.
    pub games: u64,
    /// Mean score.
    pub mean_score: f64,
    /// Best score.
    pub max_score: u64,
    /// Mean moves a game.
    pub mean_moves: f64,
    /// For each of the game's milestones, the share of games reaching it.
    pub reach: Vec<Reach>,
    /// Wall-clock time.
    pub seconds: f64,
}

fn collect<G: TupleGame>(
    game: &G,
    policy: Policy<'_>,
    games: u64,
    seed: u32,
    threads: usize,
) -> Result<PlayStats> {
    let start = Instant::now();
    let mut episodes: Vec<Episode> = Vec::with_capacity(games as usize);
    let schedule = Schedule {
        games: 0..games,
        seed,
        threads,
        stop: &Stop::new(),
        sharing: Default::default(),
    };
    run_games(game, policy, schedule, |e| {
        episodes.push(e);
        Ok(())
    })?;
    Ok(stats::<G>(&episodes, start.elapsed().as_secs_f64()))
}

/// The statistics of finished games (from any player) that took `seconds` in all.
pub fn stats<G: TupleGame>(episodes: &[Episode], seconds: f64) -> PlayStats {
    let n = episodes.len().max(1) as f64;
    let reach = G::MILESTONES
        .iter()
        .map(|&milestone| Reach {
            milestone,
            share: episodes.iter().filter(|e| e.progress >= milestone).count() as f64 / n,
        })
        .collect();
    PlayStats {
        games: episodes.len() as u64,
        mean_score: episodes.iter().map(|e| e.score as f64).sum::<f64>() / n,
        max_score: episodes.iter().map(|e| e.score).max().unwrap_or(0),
        mean_moves: episodes.iter().map(|e| e.moves as f64).sum::<f64>() / n,
        reach,
        seconds,
    }
}

/// Plays `games` games greedily with `net` (no learning) on `threads` threads (0 = all).
/// Game `g` uses `XorShift32::for_worker(seed, g)`; the result does not depend on `threads`.
pub fn play<G: TupleGame>(
    game: &G,
    net: &NTupleNetwork,
    games: u64,
    seed: u32,
    threads: usize,
) -> Result<PlayStats> {
    net.check_game::<G>()?;
    collect(game, Policy::Greedy(net, None), games, seed, threads)
}

/// Plays `games` games with uniformly random legal moves.
pub fn play_random<G: TupleGame>(
    game: &G,
    games: u64,
    seed: u32,
    threads: usize,
) -> Result<PlayStats> {
    collect(game, Policy::Random, games, seed, threads)
}
