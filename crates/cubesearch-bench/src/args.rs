//! The flags of `cubesearch bench`, and which of them each suite takes.

use clap::Args;
use cubesearch_core::{Error, Result};

/// What `bench` takes: the suite and how to time it. A flag the suite has no use for is
/// refused before any work (see `BenchArgs::check`).
#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
    /// The suite to run (`list` shows them).
    pub suite: String,
    /// Timed repetitions per backend (the median is reported; 1 to 1000, default 5).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1000))]
    pub reps: Option<usize>,
    /// Untimed runs before timing (0 to 1000, default 1).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=1000))]
    pub warmup: Option<usize>,
    /// Smallest time one repetition should take; the work size doubles until it does (0
    /// to 3600, default 0.25).
    #[arg(long, value_parser = parse_min_seconds)]
    pub min_seconds: Option<f64>,
    /// Fix the suite's size level instead of calibrating (perft: depth = 4 + level).
    #[arg(long)]
    pub level: Option<u32>,
    /// Columns to measure, comma-separated (default: cpu-1, cpu-all and every GPU available;
    /// `cpu-N` takes 1 to this machine's cores).
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// expectimax suites: the n-tuple weights at the leaves (default: an all-zero network of
    /// the seed's shapes, which searches exactly as much); td-train: the weights to start from.
    #[arg(long)]
    pub weights: Option<String>,
    /// td-train: games a GPU plays at once (default 65536; 1 to 16777216).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1 << 24))]
    pub units: Option<u32>,
    /// expectimax suites: the layers to time, comma-separated (0 to 3; default 1,2,3).
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(0..=3))]
    pub layers: Option<Vec<u32>>,
    /// expectimax suites: a board file instead of the committed `benches/boards-<game>.txt`.
    #[arg(
        long,
        help = "expectimax suites: a board file instead of the committed benches/boards-<game>.txt"
    )]
    pub boards: Option<String>,
    /// expectimax suites: boards timed per class (default 0 = all in the file).
    #[arg(long)]
    pub per_class: Option<usize>,
    /// expectimax suites: roots per call in the throughput rows (1 to 65536, default 32).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=65536))]
    pub batch: Option<usize>,
    /// checkers-mcts on a GPU: trees searched side by side, a thread each (1 to this
    /// machine's cores; default: one per CPU core but one).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub trees: Option<usize>,
    /// checkers-mcts: leaves each tree selects per launch (1 to 65536, default 256).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=65536))]
    pub tree_batch: Option<usize>,
    /// perft suites on a GPU: steps a unit's walk takes per launch before it is saved and
    /// resumed (default 65536; on lavapipe what its loop budget allows).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub steps_per_launch: Option<u32>,
    /// reversi-endgame: the FFO positions to solve, `N` or `N-M` within 40-59 (default: all).
    #[arg(long)]
    pub ffo: Option<String>,
}

/// `--min-seconds`: 0 (no minimum) to an hour (a repetition is timed at least
/// `--reps` times, so more would not end in a session).
fn parse_min_seconds(text: &str) -> std::result::Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if (0.0..=3600.0).contains(&s) => Ok(s),
        _ => Err(format!("expected 0 to 3600 seconds, got '{text}'")),
    }
}

/// A flag of `bench` beyond the suite's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flag {
    Reps,
    Warmup,
    MinSeconds,
    Level,
    Only,
    Weights,
    Units,
    Layers,
    Boards,
    PerClass,
    Batch,
    Trees,
    TreeBatch,
    StepsPerLaunch,
    Ffo,
}

impl Flag {
    /// The flag as typed.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Flag::Reps => "--reps",
            Flag::Warmup => "--warmup",
            Flag::MinSeconds => "--min-seconds",
            Flag::Level => "--level",
            Flag::Only => "--only",
            Flag::Weights => "--weights",
            Flag::Units => "--units",
            Flag::Layers => "--layers",
            Flag::Boards => "--boards",
            Flag::PerClass => "--per-class",
            Flag::Batch => "--batch",
            Flag::Trees => "--trees",
            Flag::TreeBatch => "--tree-batch",
            Flag::StepsPerLaunch => "--steps-per-launch",
            Flag::Ffo => "--ffo",
        }
    }
}

/// What `--only` may name in a suite.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Columns {
    /// `cpu-N` (1 to this machine's cores), `cpu`, `wgpu`, `cuda`.
    Targets,
    /// These names; `cpu-all` in one also answers to `cpu-N` for this machine's N.
    Named(&'static [&'static str]),
}

/// The flags a suite takes, and what its `--only` names.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Takes {
    pub flags: &'static [Flag],
    pub columns: Columns,
}

impl BenchArgs {
    /// Timed repetitions.
    pub(crate) fn reps(&self) -> usize {
        self.reps.unwrap_or(5)
    }
    /// Untimed runs first.
    pub(crate) fn warmup(&self) -> usize {
        self.warmup.unwrap_or(1)
    }
    /// The shortest repetition calibration aims for, in seconds.
    pub(crate) fn min_seconds(&self) -> f64 {
        self.min_seconds.unwrap_or(0.25)
    }
    /// Expectimax layers to time.
    pub(crate) fn layers(&self) -> Vec<u32> {
        self.layers.clone().unwrap_or_else(|| vec![1, 2, 3])
    }
    /// Expectimax boards a class (0: all).
    pub(crate) fn per_class(&self) -> usize {
        self.per_class.unwrap_or(0)
    }
    /// Expectimax roots a call.
    pub(crate) fn batch(&self) -> usize {
        self.batch.unwrap_or(32)
    }

    /// The flags given on the command line.
    pub(crate) fn given(&self) -> Vec<Flag> {
        [
            (self.reps.is_some(), Flag::Reps),
            (self.warmup.is_some(), Flag::Warmup),
            (self.min_seconds.is_some(), Flag::MinSeconds),
            (self.level.is_some(), Flag::Level),
            (!self.only.is_empty(), Flag::Only),
            (self.weights.is_some(), Flag::Weights),
            (self.units.is_some(), Flag::Units),
            (self.layers.is_some(), Flag::Layers),
            (self.boards.is_some(), Flag::Boards),
            (self.per_class.is_some(), Flag::PerClass),
            (self.batch.is_some(), Flag::Batch),
            (self.trees.is_some(), Flag::Trees),
            (self.tree_batch.is_some(), Flag::TreeBatch),
            (self.steps_per_launch.is_some(), Flag::StepsPerLaunch),
            (self.ffo.is_some(), Flag::Ffo),
        ]
        .into_iter()
        .filter_map(|(given, flag)| given.then_some(flag))
        .collect()
    }

    /// Refuses a flag `suite` has no use for, and an `--only` name that is none of its
    /// columns, before any work: a flag that changed nothing would pass for a measurement.
    pub(crate) fn check(&self, suite: &str, takes: Takes) -> Result<()> {
        if let Some(flag) = self.given().into_iter().find(|f| !takes.flags.contains(f)) {
            let taken: Vec<&str> = takes.flags.iter().map(|f| f.name()).collect();
            return Err(Error::parse(format!(
                "bench {suite} does not take {}: it takes {}",
                flag.name(),
                if taken.is_empty() {
                    "none of the timing flags".to_string()
                } else {
                    taken.join(", ")
                }
            )));
        }
        if let Columns::Named(names) = takes.columns {
            let all = format!("cpu-{}", cubesearch_core::backend::cpu_threads());
            // `cpu-all` also answers to this machine's `cpu-N`.
            let known = |o: &str| {
                names
                    .iter()
                    .any(|n| *n == o || n.replace("cpu-all", &all) == o)
            };
            if let Some(bad) = self.only.iter().find(|o| !known(o)) {
                return Err(Error::parse(format!(
                    "bench {suite}: --only {bad} is none of its columns ({})",
                    names.join(", ")
                )));
            }
        }
        Ok(())
    }
}
