//! Player specs: the text a command line names a player by (`random`, `mcts:time=1s,exec=gpu`,
//! `alphabeta:depth=6`, a game's own players, `expectimax:layers=2,weights=FILE`), read once
//! by `FromStr` into typed values: [`PlayerSpec`] for two-player games (built into players by
//! [`PlayerSpec::build`]), [`StochasticPlayerSpec`] for one-player stochastic games. Both read their options
//! through one machinery, [`SpecText`], which a game's own players ([`NamedPlayers`]) use too.
//!
//! `cubesearch::spec` reads specs of a game.

use crate::player::NamedPlayers;
use crate::text::SpecText;
use cubesearch_core::backend::{cpu_threads, Backend, ResolvedBackend};
use cubesearch_core::{Error, Result};
use cubesearch_search::expectimax::ExpectimaxOptions;
use cubesearch_search::expectimax_gpu::{Expectimax, ExpectimaxMethod};
use cubesearch_search::mcts::Budget;
use cubesearch_search::minimax::Strategy;
use cubesearch_search::{CpuExecutor, Executor};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

/// Where a player's searches run: `exec=cpu` or `exec=gpu`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exec {
    /// The CPU executor on every core.
    Cpu,
    /// The executor of the command's backend (`--backend`).
    Gpu,
}

impl Exec {
    /// `cpu` or `gpu`.
    pub fn name(self) -> &'static str {
        match self {
            Exec::Cpu => "cpu",
            Exec::Gpu => "gpu",
        }
    }

    /// Starts the executor (`Gpu`: on `backend`) and a label for player names: `cpu-16`, or
    /// the backend's name.
    pub fn executor(self, backend: Backend) -> Result<(Executor, String)> {
        match self {
            Exec::Cpu => Ok((
                Executor::Cpu(CpuExecutor::new(cpu_threads())?),
                format!("cpu-{}", cpu_threads()),
            )),
            Exec::Gpu => {
                let (exec, resolved) = Executor::new(backend)?;
                Ok((exec, resolved.backend().name().to_string()))
            }
        }
    }
}

impl fmt::Display for Exec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Exec {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self> {
        match text {
            "cpu" => Ok(Exec::Cpu),
            "gpu" => Ok(Exec::Gpu),
            other => Err(Error::parse(format!("exec is cpu or gpu, got '{other}'"))),
        }
    }
}

/// How deep to search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    /// Exactly this many plies.
    Depth(u32),
    /// As deep as fits in this time per move.
    Time(Duration),
}

/// `ugi:[time=T,][handshake=T,][grace=T,]cmd=COMMAND LINE`: the engine's command line (run by
/// `sh -c`), the time a move it is given (`go movetime`; without `time`, plain `go`: the
/// engine's own limits), and how long its answers may take ([`EngineWaits`]).
#[derive(Clone, Debug, PartialEq)]
pub struct UgiSpec {
    /// The command line that starts the engine.
    pub command: String,
    /// Time a move, sent as `go movetime`.
    pub time: Option<Duration>,
    /// How long the engine's answers may take.
    pub waits: EngineWaits,
    /// The spec as written.
    pub text: String,
}

/// How long an outside engine's handshake takes at most by default (`handshake=T`): long
/// enough for an engine that loads weights or compiles kernels first.
pub const DEFAULT_HANDSHAKE: Duration = Duration::from_secs(10);
/// How long past its move time an engine's move may come by default (`grace=T`): slack for
/// an engine that overshoots, and for a loaded machine.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(5);
/// How long a move given no time (plain `go`, NBoard's `go`) may take by default (`grace=T`
/// sets it): the engine keeps its own limits, which a deadline this long rarely cuts.
pub const DEFAULT_UNTIMED_MOVE: Duration = Duration::from_secs(60);

/// How long an outside engine (`ugi:`, `nboard:`) may take to answer before the game stops
/// with an error, so an engine that hangs or never speaks the protocol cannot stall a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineWaits {
    /// `handshake=T`: for each answer that is not a move (`ugiok`, `readyok`, NBoard's
    /// `pong`), from when it is asked.
    pub handshake: Duration,
    /// `grace=T`: how long past the move's time a move may come; with no move time, how long
    /// it may take ([`DEFAULT_UNTIMED_MOVE`] when not given).
    pub grace: Option<Duration>,
}

impl Default for EngineWaits {
    fn default() -> Self {
        Self {
            handshake: DEFAULT_HANDSHAKE,
            grace: None,
        }
    }
}

impl EngineWaits {
    /// The spec options these are read from.
    pub const KEYS: [&'static str; 2] = ["handshake", "grace"];

    /// The longest wait either option takes: an engine silent for longer has hung, and a
    /// longer wait would keep a match (or an engine's host) waiting for it.
    pub const LONGEST: Duration = Duration::from_secs(600);

    /// Reads `key=value` of `spec`, `key` one of [`KEYS`](Self::KEYS).
    pub fn read(&mut self, spec: &SpecText, key: &str, value: &str) -> Result<()> {
        let wait = spec.duration(value)?;
        if wait > Self::LONGEST {
            return Err(spec.error(format!("{key} goes from 1ms to 10m, got {value}")));
        }
        match key {
            "handshake" => self.handshake = wait,
            "grace" => self.grace = Some(wait),
            other => return Err(spec.error(format!("unknown option '{other}'"))),
        }
        Ok(())
    }

    /// How long a move given `time` (or none) may take to come. (An engine's first move may
    /// take the handshake's time too: an engine may leave its setup, such as compiling
    /// kernels, to its first search.)
    pub fn answer(&self, time: Option<Duration>) -> Duration {
        match (time, self.grace) {
            (Some(time), grace) => time.saturating_add(grace.unwrap_or(DEFAULT_GRACE)),
            (None, Some(grace)) => grace,
            (None, None) => DEFAULT_UNTIMED_MOVE,
        }
    }
}

/// A player of a two-player game `G`, as a spec names it. `human` is the caller's to provide
/// (it reads the terminal); [`PlayerSpec::build`] makes every other one.
pub enum PlayerSpec<G: NamedPlayers> {
    /// `human`: moves typed at the terminal.
    Human,
    /// `random`: uniformly random legal moves.
    Random,
    /// `flat:k=N[,time=T][,exec=cpu|gpu]`: flat Monte Carlo.
    Flat(FlatSpec),
    /// `mcts:time=T|playouts=N[,c=X,leaf=N,batch=N,trees=N,exec=cpu|gpu]`.
    Mcts(MctsSpec),
    /// `alphabeta:depth=D|time=T[,exec=cpu|gpu][,strategy=S]`.
    AlphaBeta(AlphaBetaSpec),
    /// One of the game's own players ([`NamedPlayers`]).
    Named(G::Named),
    /// `ugi:COMMAND` or `ugi:[time=T,][handshake=T,][grace=T,]cmd=COMMAND`: another program
    /// speaking UGI.
    Ugi(UgiSpec),
}

/// The deepest `alphabeta:depth=D` a player takes: deeper fixed-depth searches of these games
/// do not end in any useful time (a deadline, `time=T`, deepens as far as it gets).
pub const MAX_DEPTH: u32 = 40;

/// `flat:…`: `k` random games after each root move, batches of `k` repeated until `time` is up.
#[derive(Clone, Debug, PartialEq)]
pub struct FlatSpec {
    /// Random games per root move and batch (at least 1; default 1000).
    pub k: u32,
    /// Keep sampling batches for this long (default: one batch).
    pub time: Option<Duration>,
    /// Where the games run (default: the command's backend).
    pub exec: Exec,
}

/// `mcts:…`: MCTS keeping its tree from move to move.
#[derive(Clone, Debug, PartialEq)]
pub struct MctsSpec {
    /// Per-move budget (default 1 s).
    pub budget: Budget,
    /// UCT exploration constant.
    pub c: f64,
    /// Random games per selected leaf (at least 1).
    pub leaf: u32,
    /// Leaves selected per batch by each tree (at least 1).
    pub batch: usize,
    /// Trees searched side by side (1 to 256); by default one, or with a time budget off the
    /// CPU, [`device_trees`](cubesearch_search::mcts::device_trees).
    pub trees: Option<usize>,
    /// Where the playouts run (default: the command's backend).
    pub exec: Exec,
    /// A learned evaluation's weights file: leaves are worth its value, read on the CPU,
    /// instead of random games.
    pub weights: Option<std::path::PathBuf>,
    /// The spec as written, which the player's name repeats.
    pub text: String,
}

/// `alphabeta:…`: alpha-beta through the minimax pipeline
/// ([`AlphaBetaPlayer`](crate::alphabeta::AlphaBetaPlayer)).
#[derive(Clone, Debug, PartialEq)]
pub struct AlphaBetaSpec {
    /// How deep to search.
    pub limit: Limit,
    /// One CPU thread (default) or the command's backend.
    pub exec: Exec,
    /// The strategy with `exec=gpu` (default: [`default_gpu_strategy`](cubesearch_search::minimax::default_gpu_strategy)).
    pub strategy: Strategy,
    /// A learned evaluation's weights file (CPU only), instead of the game's own `score`.
    pub weights: Option<std::path::PathBuf>,
    /// The spec as written, which the player's name repeats.
    pub text: String,
}

impl<G: NamedPlayers> Clone for PlayerSpec<G> {
    fn clone(&self) -> Self {
        match self {
            PlayerSpec::Human => PlayerSpec::Human,
            PlayerSpec::Random => PlayerSpec::Random,
            PlayerSpec::Flat(s) => PlayerSpec::Flat(s.clone()),
            PlayerSpec::Mcts(s) => PlayerSpec::Mcts(s.clone()),
            PlayerSpec::AlphaBeta(s) => PlayerSpec::AlphaBeta(s.clone()),
            PlayerSpec::Named(s) => PlayerSpec::Named(s.clone()),
            PlayerSpec::Ugi(s) => PlayerSpec::Ugi(s.clone()),
        }
    }
}

impl<G: NamedPlayers> fmt::Debug for PlayerSpec<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayerSpec::Human => f.write_str("Human"),
            PlayerSpec::Random => f.write_str("Random"),
            PlayerSpec::Flat(s) => f.debug_tuple("Flat").field(s).finish(),
            PlayerSpec::Mcts(s) => f.debug_tuple("Mcts").field(s).finish(),
            PlayerSpec::AlphaBeta(s) => f.debug_tuple("AlphaBeta").field(s).finish(),
            PlayerSpec::Named(s) => f.debug_tuple("Named").field(s).finish(),
            PlayerSpec::Ugi(s) => f.debug_tuple("Ugi").field(s).finish(),
        }
    }
}

impl<G: NamedPlayers> FromStr for PlayerSpec<G> {
    type Err = Error;

    /// Reads a spec; the game's own players ([`NamedPlayers`]) come first. An unknown name is
    /// an error listing every player the game has.
    fn from_str(text: &str) -> Result<Self> {
        // An engine's command line is taken verbatim: it may hold any character.
        if text.trim().starts_with("ugi:") {
            return parse_ugi(text.trim()).map(PlayerSpec::Ugi);
        }
        let spec = SpecText::new(text);
        if let Some(named) = G::parse_named(&spec) {
            return named.map(PlayerSpec::Named);
        }
        match spec.name() {
            "human" => {
                spec.options(&[])?;
                Ok(PlayerSpec::Human)
            }
            "random" => {
                spec.options(&[])?;
                Ok(PlayerSpec::Random)
            }
            "flat" => {
                let mut flat = FlatSpec {
                    k: 1000,
                    time: None,
                    exec: Exec::Gpu,
                };
                for (key, value) in spec.options(&["k", "time", "exec"])? {
                    match key {
                        "k" => flat.k = spec.number_in(key, value, 1, 1 << 30)?,
                        "time" => flat.time = Some(spec.duration(value)?),
                        _ => flat.exec = spec.parse(value)?,
                    }
                }
                Ok(PlayerSpec::Flat(flat))
            }
            "mcts" => {
                let defaults = cubesearch_search::mcts::MctsConfig::default();
                let mut mcts = MctsSpec {
                    budget: defaults.budget,
                    c: defaults.c,
                    leaf: defaults.leaf,
                    batch: defaults.batch,
                    trees: None,
                    exec: Exec::Gpu,
                    weights: None,
                    text: text.to_string(),
                };
                let mut exec_given = false;
                let keys = [
                    "time", "playouts", "c", "leaf", "batch", "trees", "exec", "weights",
                ];
                let options = spec.options(&keys)?;
                spec.exclusive(&options)?;
                for (key, value) in options {
                    match key {
                        "time" => mcts.budget = Budget::Time(spec.duration(value)?),
                        "playouts" => {
                            mcts.budget =
                                Budget::Playouts(spec.number_in(key, value, 1, 1 << 40)?)
                        }
                        "c" => mcts.c = spec.number_in(key, value, 0.0, 100.0)?,
                        "leaf" => mcts.leaf = spec.number_in(key, value, 1, 1 << 16)?,
                        "batch" => mcts.batch = spec.number_in(key, value, 1, 1 << 20)?,
                        "trees" => mcts.trees = Some(spec.number_in(key, value, 1, 256)?),
                        "weights" => mcts.weights = Some(std::path::PathBuf::from(value)),
                        _ => {
                            mcts.exec = spec.parse(value)?;
                            exec_given = true;
                        }
                    }
                }
                if mcts.weights.is_some() {
                    if exec_given && mcts.exec != Exec::Cpu {
                        return Err(spec.error(
                            "weights=W: the learned values are read on the CPU (exec=cpu) only",
                        ));
                    }
                    mcts.exec = Exec::Cpu;
                }
                Ok(PlayerSpec::Mcts(mcts))
            }
            "alphabeta" => {
                let mut limit = None;
                let mut exec = Exec::Cpu;
                let mut strategy = None;
                let mut weights = None;
                let keys = ["depth", "time", "exec", "strategy", "weights"];
                let options = spec.options(&keys)?;
                spec.exclusive(&options)?;
                for (key, value) in options {
                    match key {
                        "depth" => {
                            limit = Some(Limit::Depth(spec.number_in(key, value, 1, MAX_DEPTH)?))
                        }
                        "time" => limit = Some(Limit::Time(spec.duration(value)?)),
                        "exec" => exec = spec.parse(value)?,
                        "weights" => weights = Some(std::path::PathBuf::from(value)),
                        _ => strategy = Some(spec.parse(value)?),
                    }
                }
                let limit = limit.ok_or_else(|| {
                    spec.error("depth=D or time=T is required (alphabeta:depth=6)")
                })?;
                if weights.is_some() && exec != Exec::Cpu {
                    return Err(spec.error(
                        "weights=W: the learned evaluation runs in the CPU search (exec=cpu) only",
                    ));
                }
                // The CPU player is one thread's iterative deepening, whatever the strategy.
                if let (Some(strategy), Exec::Cpu) = (strategy, exec) {
                    return Err(spec.error(format!(
                        "strategy={strategy} picks how exec=gpu searches; exec=cpu (the default) is one CPU thread's alpha-beta: add exec=gpu or drop strategy="
                    )));
                }
                Ok(PlayerSpec::AlphaBeta(AlphaBetaSpec {
                    limit,
                    exec,
                    strategy: strategy
                        .unwrap_or_else(cubesearch_search::minimax::default_gpu_strategy::<G>),
                    weights,
                    text: text.to_string(),
                }))
            }
            _ => {
                let own = if G::NAMED.is_empty() {
                    String::new()
                } else {
                    format!("{}, ", G::NAMED)
                };
                Err(Error::parse(format!(
                    "unknown player '{text}': human, random, {own}flat:k=N[,time=T], mcts:time=T|playouts=N,c=X,leaf=N,batch=N,trees=N,exec=cpu|gpu,weights=W, alphabeta:depth=D|time=T,exec=cpu|gpu,strategy=S,weights=W, or ugi:[time=T,handshake=T,grace=T,cmd=]COMMAND"
                )))
            }
        }
    }
}

/// `ugi:COMMAND` or `ugi:[time=T,][handshake=T,][grace=T,]cmd=COMMAND`.
fn parse_ugi(text: &str) -> Result<UgiSpec> {
    let spec = SpecText::new(text);
    let keys = ["time", EngineWaits::KEYS[0], EngineWaits::KEYS[1]];
    let (options, command) = spec.options_then("cmd", &keys, "the engine's command line")?;
    let mut time = None;
    let mut waits = EngineWaits::default();
    for (key, value) in options {
        match key {
            "time" => time = Some(spec.duration(value)?),
            _ => waits.read(&spec, key, value)?,
        }
    }
    Ok(UgiSpec {
        command: command.to_string(),
        time,
        waits,
        text: text.to_string(),
    })
}

/// Deepest expectimax a stochastic game's player may ask for: 4 layers of a 4-action game
/// with 32 outcome slots already take seconds a move on a GPU.
pub const MAX_LAYERS: u32 = 4;

/// A player of a one-player stochastic game, as a spec names it.
#[derive(Clone, Debug, PartialEq)]
pub enum StochasticPlayerSpec {
    /// `human`: a person at the terminal.
    Human,
    /// `random`: uniformly random slides.
    Random,
    /// `td:weights=FILE`: greedy on a trained n-tuple network.
    Td {
        /// The network's weights (safetensors).
        weights: PathBuf,
    },
    /// `expectimax:layers=L,weights=FILE[,method=naive|multilevel][,tt=on]`.
    Expectimax(ExpectimaxSpec),
}

/// `expectimax:…`: the best action of an L-layer expectimax with the network at the leaves.
#[derive(Clone, Debug, PartialEq)]
pub struct ExpectimaxSpec {
    /// Chance layers searched (0 to [`MAX_LAYERS`]).
    pub layers: u32,
    /// The network's weights (safetensors).
    pub weights: PathBuf,
    /// The GPU's generation scheme.
    pub method: ExpectimaxMethod,
    /// Whether `method=` was written: the CPU has no use for it ([`searcher`](Self::searcher)).
    pub method_given: bool,
    /// The CPU's transposition table (`tt=on`).
    pub transposition: bool,
    /// The spec as written, which errors name.
    pub text: String,
}

impl<G: NamedPlayers> PlayerSpec<G> {
    /// The files the player reads (`weights=`, a game's own player's such as CheckerBoard's
    /// `lib=`): inputs that a run's outputs must not overwrite.
    pub fn input_files(&self) -> Vec<PathBuf> {
        match self {
            PlayerSpec::Mcts(MctsSpec { weights, .. })
            | PlayerSpec::AlphaBeta(AlphaBetaSpec { weights, .. }) => {
                weights.iter().cloned().collect()
            }
            PlayerSpec::Named(named) => G::named_inputs(named),
            _ => Vec::new(),
        }
    }
}

impl StochasticPlayerSpec {
    /// The weights file the player reads, as [`PlayerSpec::input_files`].
    pub fn input_files(&self) -> Vec<PathBuf> {
        match self {
            StochasticPlayerSpec::Td { weights }
            | StochasticPlayerSpec::Expectimax(ExpectimaxSpec { weights, .. }) => {
                vec![weights.clone()]
            }
            _ => Vec::new(),
        }
    }
}

impl ExpectimaxSpec {
    /// The searcher on the executor `backend` resolves to, set up for this search. `method=` on the CPU and
    /// `tt=on` on a GPU are refused: each would be dropped there.
    pub fn searcher(&self, backend: Backend) -> Result<(Expectimax, ResolvedBackend)> {
        let resolved = cubesearch_core::backend::resolve(backend)?;
        let spec = SpecText::new(&self.text);
        let on_cpu = resolved.backend() == Backend::Cpu;
        if on_cpu && self.method_given {
            return Err(spec.error(format!(
                "method= shapes a GPU's search, and --backend resolved to the CPU (drop method={}, or use tt=on there)",
                self.method.name()
            )));
        }
        if !on_cpu && self.transposition {
            return Err(spec.error(format!(
                "tt=on is the CPU search's table, and --backend resolved to {} (use --backend cpu, or drop tt=)",
                resolved.backend().name()
            )));
        }
        let mut searcher = Expectimax::new(Executor::on(&resolved)?);
        if let Some(device) = searcher.device() {
            device.set_method(self.method);
        }
        searcher.set_options(ExpectimaxOptions {
            transposition: self.transposition,
            ..ExpectimaxOptions::default()
        });
        Ok((searcher, resolved))
    }
}

impl FromStr for StochasticPlayerSpec {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self> {
        let spec = SpecText::new(text);
        match spec.name() {
            "human" => {
                spec.options(&[])?;
                Ok(StochasticPlayerSpec::Human)
            }
            "random" => {
                spec.options(&[])?;
                Ok(StochasticPlayerSpec::Random)
            }
            "td" => {
                let mut weights = None;
                for (_, value) in spec.options(&["weights"])? {
                    weights = Some(PathBuf::from(value));
                }
                let weights = weights
                    .ok_or_else(|| spec.error("weights=FILE is required (td:weights=FILE)"))?;
                Ok(StochasticPlayerSpec::Td { weights })
            }
            "expectimax" => {
                let (mut layers, mut weights) = (None, None);
                let mut method = None;
                let mut transposition = false;
                for (key, value) in spec.options(&["layers", "weights", "method", "tt"])? {
                    match key {
                        "layers" => layers = Some(spec.number_in(key, value, 0, MAX_LAYERS)?),
                        "weights" => weights = Some(PathBuf::from(value)),
                        "method" => method = Some(spec.parse(value)?),
                        _ => transposition = spec.switch(key, value)?,
                    }
                }
                Ok(StochasticPlayerSpec::Expectimax(ExpectimaxSpec {
                    layers: layers.ok_or_else(|| spec.error("layers=L is required"))?,
                    weights: weights.ok_or_else(|| spec.error("weights=FILE is required"))?,
                    method: method.unwrap_or_default(),
                    method_given: method.is_some(),
                    transposition,
                    text: text.to_string(),
                }))
            }
            _ => Err(Error::parse(format!(
                "unknown player '{text}': human, random, td:weights=FILE or expectimax:layers=L,weights=FILE[,method=naive|multilevel][,tt=on]"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ugi_specs_take_their_waits_and_need_a_command() {
        let text = "ugi:time=1s,handshake=2s,grace=3s,cmd=engine --x=a,b";
        let spec = parse_ugi(text).unwrap();
        assert_eq!(spec.command, "engine --x=a,b");
        let secs = Duration::from_secs;
        assert_eq!(
            spec.waits,
            EngineWaits {
                handshake: secs(2),
                grace: Some(secs(3))
            }
        );
        assert_eq!(spec.waits.answer(spec.time), secs(4));
        assert_eq!(spec.waits.answer(None), secs(3));
        // The defaults: 10 s a handshake, 5 s past a move's time, a minute with none.
        let plain = parse_ugi("ugi:engine").unwrap();
        assert_eq!(plain.waits.handshake, DEFAULT_HANDSHAKE);
        assert_eq!(plain.waits.answer(Some(secs(1))), secs(6));
        assert_eq!(plain.waits.answer(None), DEFAULT_UNTIMED_MOVE);
        for (text, says) in [
            ("ugi:time=1s", "cmd= is missing"),
            ("ugi:grace=2s,handshake=1s", "cmd= is missing"),
            ("ugi:handshake=never,cmd=x", "bad duration 'never'"),
            ("ugi:patience=1s,cmd=x", "unknown option 'patience'"),
        ] {
            let err = parse_ugi(text).expect_err(text).to_string();
            assert!(err.contains(says), "{text}: {err}");
        }
    }

    #[test]
    fn stochastic_specs_share_the_option_reading() {
        assert_eq!(
            "td:weights=w.safetensors"
                .parse::<StochasticPlayerSpec>()
                .unwrap(),
            StochasticPlayerSpec::Td {
                weights: "w.safetensors".into()
            }
        );
        let spec: StochasticPlayerSpec = "expectimax:layers=2,weights=w,method=multilevel,tt=on"
            .parse()
            .unwrap();
        assert_eq!(
            spec,
            StochasticPlayerSpec::Expectimax(ExpectimaxSpec {
                layers: 2,
                weights: "w".into(),
                method: ExpectimaxMethod::Multilevel,
                method_given: true,
                transposition: true,
                text: "expectimax:layers=2,weights=w,method=multilevel,tt=on".into(),
            })
        );
        for (text, says) in [
            ("td", "weights=FILE is required"),
            ("td:", "nothing follows ':' (td takes weights)"),
            (
                "expectimax:layers=-1,weights=w",
                "layers goes from 0 to 4 in whole numbers, got -1",
            ),
            ("td:weights=", "weights= has no value"),
            ("expectimax:layers=,weights=w", "layers= has no value"),
            (
                "expectimax:layers=1,weights=w,tt=maybe",
                "tt is on or off, got 'maybe'",
            ),
            (
                "expectimax:layers=5,weights=w",
                "layers goes from 0 to 4, got 5",
            ),
            (
                "expectimax:layers=1,weights=w,depth=3",
                "unknown option 'depth'",
            ),
            ("alien", "random, td:weights=FILE or expectimax:"),
            (
                "expectimax:layers=1,layers=2,weights=w",
                "layers is given twice",
            ),
        ] {
            let err = text.parse::<StochasticPlayerSpec>().expect_err(text);
            assert!(err.to_string().contains(says), "{text}: {err}");
        }
    }

    #[test]
    fn expectimax_refuses_a_method_on_the_cpu() {
        let expectimax = |text: &str| match text.parse::<StochasticPlayerSpec>().unwrap() {
            StochasticPlayerSpec::Expectimax(spec) => spec,
            other => panic!("{other:?}"),
        };
        let naive = expectimax("expectimax:layers=1,weights=w,method=naive");
        let err = naive.searcher(Backend::Cpu).err().expect("refused");
        assert!(
            err.to_string().contains("method= shapes a GPU's search"),
            "{err}"
        );
        let table = expectimax("expectimax:layers=1,weights=w,tt=on");
        assert!(table.searcher(Backend::Cpu).is_ok());
    }
}
