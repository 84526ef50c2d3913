//! Training and loading 2584 weights: a short TD(0) run on the CPU, the network saved as
//! safetensors (written to a temporary name, then renamed), loaded back, and played greedily.
//!
//! ```text
//! cargo run --release --example td_2584 -- 5000
//! ```

use cubesearch::games::Game2584;
use cubesearch::learn::play;
use cubesearch::train::{train, EngineConfig, Td, TrainConfig};
use cubesearch::NTupleNetwork;
use cubesearch::Result;

fn main() -> Result<()> {
    let games = std::env::args()
        .nth(1)
        .and_then(|g| g.parse().ok())
        .unwrap_or(2_000);
    let game = Game2584::new();
    let config = TrainConfig {
        games,
        // Every core, each thread on a copy of the weights, merged every round.
        engine: EngineConfig {
            threads: Some(0),
            ..EngineConfig::default()
        },
        ..TrainConfig::default()
    };
    let (network, report) = train(Td(&game), &config, |_| {})?;
    println!("trained {games} games: mean score {:.0}", report.mean_score);
    let path = std::env::temp_dir().join("cubesearch-example-2584.safetensors");
    network.save(&path, games, report.mean_score)?;
    let (loaded, meta) = NTupleNetwork::load::<cubesearch::games::Game2584>(&path, None)?;
    let stats = play(&game, &loaded, 200, 1, 0)?;
    println!(
        "{}: {} games trained; greedy play over 200 games: mean {:.0}, max {}",
        path.display(),
        meta.games,
        stats.mean_score,
        stats.max_score
    );
    Ok(())
}
