//! The flags of `cubesearch bench`.

use clap::Args;

/// What `bench` takes: the suite and how to time it.
#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
    /// The suite to run (`list` shows them).
    pub suite: String,
    /// Timed repetitions per backend (the median is reported; 1 to 1000).
    #[arg(long, default_value_t = 5, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1000))]
    pub reps: usize,
    /// Untimed runs before timing.
    #[arg(long, default_value_t = 1)]
    pub warmup: usize,
    /// Smallest time one repetition should take; the work size doubles until it does (0
    /// to 3600).
    #[arg(long, default_value_t = 0.25, value_parser = parse_min_seconds)]
    pub min_seconds: f64,
    /// Fix the suite's size level instead of calibrating (perft: depth = 4 + level).
    #[arg(long)]
    pub level: Option<u32>,
    /// Backends to measure, comma-separated (default: cpu-1, cpu-all and every GPU available).
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// expectimax suites: the n-tuple weights at the leaves (default: an all-zero network of
    /// the seed's shapes, which searches exactly as much); td-train: the weights to start from.
    #[arg(long)]
    pub weights: Option<String>,
    /// td-train: games a GPU plays at once (default 65536; at least 1).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub units: Option<u32>,
    /// expectimax suites: the layers to time, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [1, 2, 3])]
    pub layers: Vec<u32>,
    /// expectimax suites: a board file instead of the committed `benches/boards-<game>.txt`.
    #[arg(
        long,
        help = "expectimax suites: a board file instead of the committed benches/boards-<game>.txt"
    )]
    pub boards: Option<String>,
    /// expectimax suites: boards timed per class (0 = all in the file).
    #[arg(long, default_value_t = 0)]
    pub per_class: usize,
    /// expectimax suites: roots per call in the throughput rows.
    #[arg(long, default_value_t = 32)]
    pub batch: usize,
    /// checkers-mcts on a GPU: trees searched side by side (default: one per CPU core but one).
    #[arg(long)]
    pub trees: Option<usize>,
    /// checkers-mcts: leaves each tree selects per launch (default 256).
    #[arg(long)]
    pub tree_batch: Option<usize>,
    /// perft and alpha-beta suites on a GPU: steps a unit's walk takes per launch before it is
    /// saved and resumed (default 65536; on lavapipe what its loop budget allows).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub steps_per_launch: Option<u32>,
    /// reversi-endgame: the FFO positions to solve, `N` or `N-M` (default: all, #40-#59).
    #[arg(long)]
    pub ffo: Option<String>,
}

/// `--min-seconds`: 0 (no minimum) to an hour (a repetition is timed at least
/// `--reps` times, so more would not end in a session).
fn parse_min_seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if (0.0..=3600.0).contains(&s) => Ok(s),
        _ => Err(format!("expected 0 to 3600 seconds, got '{text}'")),
    }
}
