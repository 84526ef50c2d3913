//! The CPU trainer's speed from trained weights: `cargo run --release -p cubesearch-games
//! --example td_speed -- weights/2584-19min.safetensors [games] [reps] [threads]`.
//! The game (2584 or 2048) is the weights file's. Each rep loads the weights afresh and trains
//! `games` games (default 1024, as `cubesearch bench td-train` does) on `threads` threads
//! (default 1), the threads sharing the weights as `SHARING` (`auto`, the default, `copies`
//! or `table`) says, learning in the order `TD_ORDER` (`backward`, the default, or `forward`) says;
//! prints each rep's moves/s and the median.

use cubesearch_games::{Game2048, Game2584};
use cubesearch_learn::{CpuEngine, NTupleNetwork, TdEngine, TupleGame};
use std::path::Path;
use std::time::Instant;

fn main() -> cubesearch_core::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let path = Path::new(
        args.get(1)
            .map_or("weights/2584-19min.safetensors", String::as_str),
    );
    let games = args.get(2).and_then(|g| g.parse().ok()).unwrap_or(1024);
    let reps = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(5);
    let threads = args.get(4).and_then(|t| t.parse().ok()).unwrap_or(1);
    let rates = match NTupleNetwork::load::<Game2584>(path, None) {
        Ok(_) => time(&Game2584::new(), path, games, reps, threads)?,
        Err(_) => time(&Game2048::new(), path, games, reps, threads)?,
    };
    println!("median {:.3e} moves/s", rates[rates.len() / 2]);
    Ok(())
}

/// Each rep's moves/s, sorted.
fn time<G: TupleGame>(
    game: &G,
    path: &Path,
    games: u64,
    reps: usize,
    threads: usize,
) -> cubesearch_core::Result<Vec<f64>> {
    let mut engine = CpuEngine {
        threads,
        sharing: match std::env::var("SHARING") {
            Ok(s) => s.parse()?,
            Err(_) => Default::default(),
        },
        order: match std::env::var("TD_ORDER") {
            Ok(s) => s.parse()?,
            Err(_) => Default::default(),
        },
        stop: Default::default(),
    };
    let mut rates = Vec::new();
    for rep in 0..reps {
        let (net, _) = NTupleNetwork::load::<G>(path, None)?;
        let step = 0.1 / net.lookups() as f32;
        let mut moves = 0u64;
        let start = Instant::now();
        engine.play(game, &net, 0, games, 1, step, &mut |e| {
            moves += e.moves as u64;
            Ok(())
        })?;
        let rate = moves as f64 / start.elapsed().as_secs_f64();
        println!("rep {rep}: {moves} moves, {rate:.3e} moves/s");
        rates.push(rate);
    }
    rates.sort_by(f64::total_cmp);
    Ok(rates)
}
