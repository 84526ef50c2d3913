//! Runs many games on CPU threads that share one network without locks (the seed's 4.3).
//!
//! Game number `g` of a run draws its randomness from `XorShift32::for_worker(seed, g)`, so one
//! thread replays a run exactly; with several threads the games interleave their updates and
//! the run is no longer bit-reproducible (each game still starts from the same draws).

use crate::network::NTupleNetwork;
use crate::td::{play_episode, random_episode, Episode, Trajectory};
use cubesearch_core::rng::XorShift32;
use cubesearch_core::Result;
use cubesearch_games::fib::{Sliding, TileRule};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;

/// How the games of a run are played.
#[derive(Clone, Copy, Debug)]
pub enum Policy<'a> {
    /// Greedy on the network; learn with this step per weight when given.
    Greedy(&'a NTupleNetwork, Option<f32>),
    /// Uniformly random legal moves.
    Random,
}

/// The number of threads to use for `requested` (0 = every core).
pub fn thread_count(requested: usize) -> usize {
    if requested > 0 {
        requested
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }
}

/// Plays games `first..first + games` on `threads` threads, handing each finished game to
/// `on_game` on the calling thread (in the order they finish). An error from `on_game` stops
/// the run and is returned.
pub fn run_games<R: TileRule>(
    game: &Sliding<R>,
    policy: Policy<'_>,
    first: u64,
    games: u64,
    seed: u32,
    threads: usize,
    mut on_game: impl FnMut(Episode) -> Result<()>,
) -> Result<()> {
    let play = |g: u64, path: &mut Trajectory| {
        let mut rng = XorShift32::for_worker(seed, g as u32);
        match policy {
            Policy::Greedy(net, step) => play_episode(game, net, &mut rng, step, path),
            Policy::Random => random_episode(game, &mut rng),
        }
    };
    let threads = thread_count(threads).min(games.max(1) as usize);
    if threads <= 1 {
        let mut path = Trajectory::default();
        for g in first..first + games {
            on_game(play(g, &mut path))?;
        }
        return Ok(());
    }
    let next = AtomicU64::new(first);
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<Episode>();
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, stop, play) = (&next, &stop, &play);
            scope.spawn(move || {
                let mut path = Trajectory::default();
                while !stop.load(Ordering::Relaxed) {
                    let g = next.fetch_add(1, Ordering::Relaxed);
                    if g >= first + games || tx.send(play(g, &mut path)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut result = Ok(());
        for episode in rx {
            if result.is_ok() {
                result = on_game(episode);
                if result.is_err() {
                    stop.store(true, Ordering::Relaxed);
                }
            }
        }
        result
    })
}
