//! Training speed and strength: `cargo run --release -p cubesearch-games --example train_speed
//! -- [2584|2048] [games] [threads]`. Prints moves/s, the learning curve and greedy play stats.

use cubesearch_games::fib::{Sliding, TileRule};
use cubesearch_games::{Fib, Pow2};
use cubesearch_learn::{play, play_random, train, TrainConfig};

fn run<R: TileRule>(games: u64, threads: usize) {
    let game = Sliding::<R>::new();
    let random = play_random(&game, 1000, 99, threads).unwrap();
    println!("{} random play: mean {:.0}", R::NAME, random.mean_score);
    let cfg = TrainConfig {
        games,
        threads,
        curve_every: (games / 10).max(1),
        ..TrainConfig::default()
    };
    let (net, report) = train(&game, &cfg, |_| {}).unwrap();
    println!(
        "{} trained {} games on {} thread(s) in {:.1} s: {:.0} games/s, {:.0} moves/s, mean {:.0}, last 1000 {:.0}, best {}",
        R::NAME,
        report.games,
        report.threads,
        report.seconds,
        report.games_per_sec,
        report.moves_per_sec,
        report.mean_score,
        report.recent_mean_score,
        report.max_score
    );
    for p in &report.curve {
        println!("  {:>8} games: mean {:.0}", p.games, p.mean_score);
    }
    let stats = play(&game, &net, 1000, 12345, threads).unwrap();
    println!(
        "greedy play, 1000 games: mean {:.0}, max {}",
        stats.mean_score, stats.max_score
    );
    for r in &stats.reach {
        println!("  reach {:>6}: {:.1}%", r.milestone, 100.0 * r.share);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let games = args.get(2).and_then(|g| g.parse().ok()).unwrap_or(20_000);
    let threads = args.get(3).and_then(|t| t.parse().ok()).unwrap_or(1);
    match args.get(1).map(String::as_str).unwrap_or("2584") {
        "2048" => run::<Pow2>(games, threads),
        _ => run::<Fib>(games, threads),
    }
}
