//! The command line, as docs/RULES.md describes it.

use clap::builder::PossibleValuesParser;
use clap::{Args, Parser, Subcommand};
use cubesearch_core::Backend;
use cubesearch_games::registry::{GameOptions, Kind, GAMES};
use cubesearch_search::minimax::Strategy;

/// Game-tree search on GPUs: MCTS, alpha-beta and expectimax on CUDA, wgpu or the CPU.
///
/// Play, solve, count (perft) and benchmark two-player games (checkers, Reversi, Nim) and train
/// and play one-player games with chance (2584, 2048) with n-tuple networks learned by TD(0).
/// Every search runs on the CPU or a GPU (`--backend`) and gives the same results on each.
#[derive(Parser, Debug)]
#[command(
    name = "cubesearch",
    version,
    after_help = EXAMPLES,
    arg_required_else_help = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    #[command(flatten)]
    pub common: Common,
}

/// Flags every subcommand takes.
#[derive(Args, Debug, Clone)]
pub struct Common {
    /// Where kernels run: auto (CUDA, else a hardware wgpu GPU, else the CPU; lavapipe only
    /// when named), cpu, wgpu or cuda.
    #[arg(long, global = true, default_value = "auto", value_parser = parse_backend)]
    pub backend: Backend,
    /// Seed of every random choice.
    #[arg(long, global = true, default_value_t = 1)]
    pub seed: u32,
    /// Print one JSON object on the last line of stdout, and no progress bars.
    #[arg(long, global = true)]
    pub json: bool,
    /// Run work estimated to take more than a day (deep perft, solve, alphabeta:depth=D), which
    /// is otherwise refused before it starts.
    #[arg(long, global = true)]
    pub force: bool,
}

/// The top level's examples, one per kind of job.
const EXAMPLES: &str = "Examples:
  cubesearch solve reversi --position \"O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X\"
                      (an Othello endgame, exactly: X wins by 38 with a2)
  cubesearch play checkers --p1 human --p2 mcts:time=1s
  cubesearch match reversi --p1 mcts:playouts=20000 --p2 alphabeta:depth=6 --games 20
  cubesearch perft checkers --depth 10 --divide
  cubesearch train 2048 --time 5m --out w.safetensors
  cubesearch play 2048 --p1 expectimax:layers=2,weights=w.safetensors --games 10
  cubesearch info     (the backends this machine has)
Players (--p1, --p2): `cubesearch play --help`. Positions and moves: docs/RULES.md.";

/// How a two-player game's player is named (the parser in `cubesearch_players::spec` reads
/// exactly these; a test holds the two together).
const PLAYERS: &str = "Player: human (you type moves; checkers 11-15 or 15x24, Reversi d3 \
or pass, Nim HEAP:COUNT like 2:3), random, flat:k=N[,time=T][,exec=cpu|gpu] (flat Monte \
Carlo), mcts:time=T|playouts=N[,c=X][,leaf=N][,batch=N][,trees=N][,exec=cpu|gpu][,weights=FILE], \
alphabeta:depth=D|time=T[,exec=cpu|gpu][,strategy=S][,weights=FILE] (S as in `solve --strategy`; \
weights: a network `train` learned, read on the CPU), \
ugi:[time=T,][handshake=T,][grace=T,]cmd=COMMAND (another program speaking UGI, such as \
`cubesearch engine GAME`, asked each move by `position fen` and `go [movetime]`; it must \
answer within handshake, default 10s, and move within its time and grace, default 5s, or 1m \
with no time); checkers adds \
checkerboard:[time=T,]lib=PATH (an engine library of the CheckerBoard API); Reversi adds the \
seed's easy and medium (each [:exec=cpu|gpu]) and \
nboard:[depth=D,][handshake=T,][grace=T,]cmd=COMMAND (an engine \
speaking NBoard, such as Edax or `cubesearch engine reversi --protocol nboard`). 2584/2048: human (you slide with \
left/right/up/down, their first letters l/r/u/d or an arrow key, then Enter; --position \
BOARD starts from a board of 16 tile values), random, td:weights=FILE \
(greedy on a trained network) or expectimax:layers=L,weights=FILE[,method=naive|multilevel]\
[,tt=on] (L from 0 to 4; method only on a GPU, tt only on the CPU). depth= and time= \
exclude each other, as do time= and playouts=; strategy= needs exec=gpu. Times like 500ms, \
2s, 1m.";

fn parse_backend(text: &str) -> Result<Backend, String> {
    text.parse()
        .map_err(|e: cubesearch_core::Error| e.to_string())
}

fn parse_strategy(text: &str) -> Result<Strategy, String> {
    text.parse()
        .map_err(|e: cubesearch_core::Error| e.to_string())
}

/// A finite number.
fn parse_finite(text: &str) -> Result<f32, String> {
    match text.trim().parse::<f32>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!("expected a finite number, got '{text}'")),
    }
}

/// Stage thresholds of a multi-stage network (`--stages`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StageList(pub Vec<u32>);

/// Stage-progress values above 0, ascending: `16384` or `16384,24576` (at least one).
fn parse_stage_list(text: &str) -> Result<StageList, String> {
    let stages = cubesearch_learn::parse_stages(text).map_err(|e| e.to_string())?;
    if stages.is_empty() {
        return Err("expected stage-progress values like 16384,24576".into());
    }
    cubesearch_learn::check_stages(&stages).map_err(|e| e.to_string())?;
    Ok(StageList(stages))
}

/// The games a subcommand takes: those of the games' registry of `kind` (`None`: every one),
/// so that its `--help` lists them and no other.
fn game_names(kind: Option<Kind>) -> PossibleValuesParser {
    let names = GAMES
        .iter()
        .filter(|g| kind.is_none_or(|k| g.kind == k))
        .map(|g| g.name);
    PossibleValuesParser::new(names)
}

/// The games `train` takes.
fn registry_trained() -> Vec<&'static str> {
    cubesearch_games::registry::trained_names()
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// List every backend with its availability, device and limits.
    Info,
    /// Count move paths to a depth (perft) on the chosen backend.
    Perft {
        #[arg(value_parser = game_names(Some(Kind::TwoPlayer)))]
        game: String,
        /// Plies to count (0 to 40: deeper counts of these games do not end).
        #[arg(long, value_parser = clap::value_parser!(u32).range(0..=40))]
        depth: u32,
        #[command(flatten)]
        rules: RuleFlags,
        /// Start position in the game's notation, or `start` (the default).
        #[arg(long, allow_hyphen_values = true)]
        position: Option<String>,
        /// Also print the count under each root move.
        #[arg(long)]
        divide: bool,
    },
    /// Play games between two players (human, random, or a search), shown move by move.
    #[command(after_help = PLAYERS)]
    Play {
        #[arg(value_parser = game_names(None))]
        game: String,
        /// The first player (moves first; the only player of 2584/2048): a spec, see below.
        #[arg(long, default_value = "human")]
        p1: String,
        /// The second player: a spec, see below.
        #[arg(long, default_value = "random")]
        p2: String,
        /// Games to play (at least 1).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
        games: u32,
        /// 2584/2048 expectimax: games whose moves are searched together in one call
        /// (1 to 65536, default 32; other games refuse it).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=65536))]
        batch: Option<u32>,
        /// Start position in the game's notation, or `start` (the default).
        #[arg(long, allow_hyphen_values = true)]
        position: Option<String>,
        #[command(flatten)]
        rules: RuleFlags,
        /// Write every game played to this file in the game's record format (checkers: PDN; Reversi: GGF, a game a line).
        #[arg(long)]
        pdn: Option<String>,
    },
    /// Run as an engine other programs drive over stdin/stdout (UGI: ugi, isready,
    /// uginewgame, position, go, stop, setoption, query, quit; NBoard for Othello), keeping
    /// the player's backend, kernels and search tree between moves. 2584/2048: the engine is
    /// the player, sent each board (position fen) and answering its slide.
    #[command(after_help = PLAYERS)]
    Engine {
        #[arg(value_parser = game_names(None))]
        game: String,
        /// The engine's player: any program spec of `play` (see below; default mcts:time=1s,
        /// and for 2584/2048 a network player: td:weights=FILE or expectimax:…).
        #[arg(long)]
        player: Option<String>,
        /// The protocol spoken: UGI (every game) or NBoard (Othello).
        #[arg(long, default_value = "ugi", value_parser = ["ugi", "nboard"])]
        protocol: String,
        #[command(flatten)]
        rules: RuleFlags,
    },
    /// Play a match of N games between two computer players, colours alternating, and report
    /// the first player's wins, losses and draws.
    #[command(after_help = PLAYERS)]
    Match {
        #[arg(value_parser = game_names(Some(Kind::TwoPlayer)))]
        game: String,
        /// The first player (first to move in even games): a spec, see below.
        #[arg(long)]
        p1: String,
        /// The second player: a spec, see below.
        #[arg(long)]
        p2: String,
        /// Games to play (at least 1; with --openings, by default each opening twice).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        games: Option<u32>,
        /// Start position of every game in the game's notation, or `start` (the default).
        #[arg(long, allow_hyphen_values = true)]
        position: Option<String>,
        /// Openings, a line each: moves from the start (`11-15 23-19`, PDN's `1.` numbers read
        /// past, or run together as XOT lists write them: `f5d6c3d3`), or `fen POSITION`; `#`
        /// starts a comment. Games 2k and 2k+1 play opening k, colours swapped.
        #[arg(long)]
        openings: Option<String>,
        /// Append each game's result and moves here (a JSON line) as it ends; a match run again
        /// with the same file, game, players, position and openings resumes after its games.
        #[arg(long)]
        results: Option<String>,
        /// Write every game to this file in the game's record format (checkers: PDN; Reversi:
        /// GGF), rewritten whole after each game; a resumed match writes its earlier games too.
        #[arg(long)]
        pdn: Option<String>,
        #[command(flatten)]
        rules: RuleFlags,
    },
    /// Solve a position: its negamax value and a best move.
    Solve {
        #[arg(value_parser = game_names(Some(Kind::TwoPlayer)))]
        game: String,
        /// The position in the game's notation, or `start`.
        #[arg(long, allow_hyphen_values = true)]
        position: String,
        /// Plies to search (default: to the end for Nim, 8 for checkers; 1 to 128). Without it
        /// or --strategy, Reversi is solved exactly by the endgame solver and Nim by the
        /// nim-sum; a search estimated past a day is refused unless --force.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=128))]
        depth: Option<u32>,
        /// cpu, cpu-split, v1, v2, v4, split or frontier (default: cpu-split on the CPU; on a
        /// GPU split for won/lost games such as Nim, frontier for games with an evaluation).
        #[arg(long, value_parser = parse_strategy)]
        strategy: Option<Strategy>,
        /// The exact solver's CPU threads (default 0: every core; at most this machine's cores).
        #[arg(long)]
        threads: Option<usize>,
        #[command(flatten)]
        rules: RuleFlags,
    },
    /// Apply moves to a position and print the result.
    Apply {
        #[arg(value_parser = game_names(None))]
        game: String,
        /// Start position in the game's notation, or `start` (the default).
        #[arg(long, allow_hyphen_values = true)]
        position: Option<String>,
        /// Moves, comma-separated.
        #[arg(long, value_delimiter = ',')]
        moves: Vec<String>,
        /// 2584/2048: spawn a tile after each slide.
        #[arg(long)]
        spawn: bool,
        #[command(flatten)]
        rules: RuleFlags,
    },
    /// Train an n-tuple network by TD learning (two-player games: by self-play, on the CPU).
    Train {
        #[arg(value_parser = PossibleValuesParser::new(registry_trained()))]
        game: String,
        #[command(flatten)]
        args: TrainArgs,
    },
    /// Make a dataset for `train --fit`: self-play positions of a network, each labelled with
    /// the value a deeper search on the same network finds (exact where the game's solver
    /// knows it and --exact-nodes allows), on CPU threads.
    Label {
        #[arg(value_parser = PossibleValuesParser::new(registry_trained()))]
        game: String,
        #[command(flatten)]
        args: LabelArgs,
    },
    /// Start `train` as one process a CUDA GPU of this host, the ranks summing what they learn
    /// through NCCL on the GPUs (the environment torchrun sets: a run over several hosts starts
    /// each host's ranks with torchrun, or with RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and
    /// MASTER_PORT set by hand). Rank 0 prints and saves.
    #[command(
        after_help = "Example:\n  cubesearch launch --gpus 8 -- train 2048 --backend cuda --time 5m --out w.safetensors"
    )]
    Launch {
        /// Ranks to start, one a GPU.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
        gpus: u32,
        /// MASTER_PORT for the ranks (rank 0 listens on the port after it); default: a free one.
        #[arg(long)]
        port: Option<u16>,
        /// The command every rank runs: `train GAME …`, after `--`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
        command: Vec<String>,
    },
    /// Time a benchmark suite on every available backend.
    Bench(cubesearch_bench::BenchArgs),
    /// 2584/2048: write the seed's starter, normal and late-game benchmark boards, taken from
    /// an expectimax agent's games (on the CPU).
    Boards {
        #[arg(value_parser = game_names(Some(Kind::OnePlayer)))]
        game: String,
        #[command(flatten)]
        args: BoardsArgs,
    },
}

/// The rule options of the games that have them (checkers); other games refuse them.
#[derive(Args, Debug, Clone, Default)]
pub struct RuleFlags {
    /// Checkers rule set: `american` (the default: any capture may be chosen, as in
    /// CheckerBoard and the published perft tables) or `longest` (the longest capture is
    /// forced: seed 001's rules).
    #[arg(long, value_parser = ["american", "longest"])]
    pub rules: Option<String>,
    /// Checkers: plies without a capture after which the game is drawn (1 to 255; default 50).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=255))]
    pub draw_plies: Option<u32>,
}

impl RuleFlags {
    /// The options the games' registry takes.
    pub fn options(&self) -> GameOptions<'_> {
        GameOptions {
            rules: self.rules.as_deref(),
            draw_plies: self.draw_plies,
        }
    }
}

/// What `boards` takes besides the game.
#[derive(Args, Debug, Clone)]
pub struct BoardsArgs {
    /// The agent's weights (safetensors).
    #[arg(long)]
    pub weights: String,
    /// The agent's expectimax layers (0 = greedy, to 2).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(0..=2))]
    pub layers: u32,
    /// Games to play: one board of each class from each (1 to 100000).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub games: u32,
    /// The board file to write.
    #[arg(long)]
    pub out: String,
}

/// What `label` takes besides the game.
#[derive(Args, Debug, Clone)]
pub struct LabelArgs {
    /// The network that plays the games and values the search's leaves (safetensors).
    #[arg(long)]
    pub weights: String,
    /// Self-play games whose positions are kept (1 to 10^8).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub games: u64,
    /// Random moves from the start of each game before the network plays (not kept).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(0..=200))]
    pub random_plies: u32,
    /// After them, the chance of a random move (0 to 1).
    #[arg(long, default_value_t = 0.1, value_parser = parse_unit_interval)]
    pub epsilon: f32,
    /// Plies each label's search looks ahead (0 to 12).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(0..=12))]
    pub depth: u32,
    /// Label exactly, with the game's exact solver (Reversi), each position whose solve it
    /// estimates at most this many nodes (Reversi: about 7e4 at 14 empties, 5e5 at 16).
    #[arg(long)]
    pub exact_nodes: Option<f64>,
    /// CPU threads (default 0: every core; at most this machine's cores).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// The dataset file to write (safetensors).
    #[arg(long)]
    pub out: String,
}

/// A number from 0 to 1.
fn parse_unit_interval(text: &str) -> std::result::Result<f32, String> {
    match text.parse::<f32>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!("takes a number from 0 to 1, got '{text}'")),
    }
}

/// What `train` takes besides the game.
#[derive(Args, Debug, Clone)]
pub struct TrainArgs {
    /// Games to play (on top of those of a resumed file); with `--time`, at most this many
    /// (1 to 10⁹: a billion games already take hours on a GPU).
    #[arg(long, required_unless_present = "time", value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    pub games: Option<u64>,
    /// Train for this long (`300s`, `5m`, `1500ms`). A GPU stops at the first launch past it,
    /// dropping the games in flight (what they learned stays); CPU threads finish the game each
    /// is playing. SIGINT or SIGTERM ends a run the same way, saves it and exits 130 or 143.
    #[arg(long)]
    pub time: Option<String>,
    /// Where to save the weights (safetensors).
    #[arg(long)]
    pub out: String,
    /// A weights file to continue from.
    #[arg(long)]
    pub resume: Option<String>,
    /// CPU threads (default 1; 0 = every core; 1 is reproducible, and so is any number on
    /// copies; at most 1024). A run on a GPU refuses it.
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=1024))]
    pub threads: Option<usize>,
    /// How CPU threads share the weights: `copies` (one each, merged every ~0.1 s: each weight
    /// moves by the mean change of the copies that changed it; reproducible), `table` (one
    /// table without locks, the seed's 4.3) or `auto` (copies for a network of at most 32 MB,
    /// the table above, where merging copies costs more than their games).
    #[arg(long, default_value = "auto")]
    pub sharing: cubesearch_learn::runner::Sharing,
    /// When a trainer's games learn: `backward` (at each game's end, last move first: the
    /// seed's order) or `forward` (each afterstate once the next move is chosen, while its
    /// weights are still in the cache, its error taken against its value when it was chosen,
    /// or on the CPU with --coherence its value then: TDL2048+'s order; GPU trainers with
    /// averaged updates, --units ≥ 1024, keep no path then). Default: forward on the CPU,
    /// backward on a GPU (each the faster way to learn as much a game there).
    #[arg(long)]
    pub td_order: Option<cubesearch_learn::TdOrder>,
    /// TD learning rate (the step on V). Default 0.1; self-play on a GPU with 1024 or more
    /// units, which averages each launch's updates, 0.8.
    #[arg(long)]
    pub alpha: Option<f32>,
    /// Temporal coherence: each weight learns at its own rate, alpha times |E| / A (E the sum of
    /// the changes asked of it, A the sum of their sizes), slowing where its errors cancel out.
    /// TDL2048+'s OTD+TC finishes an optimistic run with it at --alpha 1.0 on the CPU; GPU
    /// trainers of 1024+ games average their updates: use 0.5 there (the 2048 agent's best; 1.0
    /// collapsed). The sums go into --out, and --resume goes on from them.
    #[arg(long)]
    pub coherence: bool,
    /// Start a new network with every state valued at V, not 0 (optimistic initialisation,
    /// which makes the player try what it has not seen: 320000 for 2048's 4x6patt).
    #[arg(
        long,
        value_name = "V",
        conflicts_with = "resume",
        value_parser = parse_finite,
        allow_negative_numbers = true
    )]
    pub optimistic: Option<f32>,
    /// Tuple shapes: `seed` (three 4-tuples), `6tuple` (also `4x6patt`), `8x6patt` (eight
    /// 6-tuples), or cells like `0,1,2,3;4,5,6,7`.
    #[arg(long)]
    pub shapes: Option<String>,
    /// A multi-stage network: a new stage, with tables of its own, from each of these
    /// values of the sum of the two largest tiles on (`16384` gives 2048's late game its own
    /// values; `16384,24576` are Yeh et al.'s three stages, the third once a 16384 and an 8192
    /// are on the board). A resumed file keeps its own thresholds; ones added to them split
    /// its stages, each new stage starting from the weights (and coherence sums) of the stage
    /// it splits, so `16384` then `16384,24576` grows the third stage from the second.
    #[arg(long, value_name = "THRESHOLDS", value_parser = parse_stage_list)]
    pub stages: Option<StageList>,
    /// Save the weights every N games (0 = only at the end, or when SIGINT or SIGTERM stops
    /// the run).
    #[arg(long, default_value_t = 0)]
    pub checkpoint_every: u64,
    /// Write the learning curve (games,mean_score,max_score) as CSV here.
    #[arg(long)]
    pub curve: Option<String>,
    /// Draw the learning curve here, as PNG or SVG by the name's extension (.png, .svg): mean
    /// score (blue) and best score (grey) of each curve window against games, with numbered
    /// axes and a legend.
    #[arg(long)]
    pub plot: Option<String>,
    /// GPU backends: games played at once, one unit each (default: 65536; 64 on lavapipe);
    /// from 1024 on, each launch averages its updates per weight (see `TdShape::averaged`).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub units: Option<u32>,
    /// CUDA: train on this many GPUs in this process, a rank each, their changes merged (as
    /// `--sharing copies` merges) every 2 s while their games run (NCCL on the GPUs, one
    /// process a GPU: `cubesearch launch`).
    #[arg(long, default_value_t = 1)]
    pub gpus: usize,
    /// Two-player games: fit the network to this dataset of labelled positions (`label`)
    /// instead of learning by self-play; --games then counts positions learned, and one in 20
    /// is held out to measure the fit. On CPU threads.
    #[arg(long)]
    pub fit: Option<String>,
}
