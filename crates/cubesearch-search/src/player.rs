//! Players for `play` and `match`, built from text specs such as `random`, `flat:k=1000` or
//! `mcts:time=1s,c=1.4,leaf=32,exec=gpu`. Searching players own an executor on the backend the
//! spec (or the command line) asks for.
//!
//! ```
//! use cubesearch_core::{Backend, Game};
//! use cubesearch_games::nim::Nim;
//! use cubesearch_search::player::{from_spec, play_game};
//!
//! let mut first = from_spec::<Nim>("flat:k=64,exec=cpu", Backend::Auto, 1)?;
//! let mut second = from_spec::<Nim>("random", Backend::Auto, 2)?;
//! let start = Nim.parse_position("1,3,5,7")?;
//! let record = play_game(&Nim, start, [first.as_mut(), second.as_mut()], |_, _, _| {})?;
//! assert!(record.result == 1 || record.result == -1); // Nim has no draws
//! assert!(from_spec::<Nim>("mcts:time=fast", Backend::Auto, 1).is_err());
//! # Ok::<(), cubesearch_core::Error>(())
//! ```

use crate::mcts::{first_best, flat_scores, Budget, Mcts, MctsConfig, SearchStats};
use crate::Executor;
use cubesearch_core::backend::{cpu_threads, Backend};
use cubesearch_core::rng::{mix32, XorShift32};
use cubesearch_core::{Error, Game, Result};
use cubesearch_kernels::GpuGame;
use std::time::{Duration, Instant};

/// Something that picks moves.
pub trait Player<G: Game> {
    /// A short description, e.g. `mcts:time=1s (wgpu)`.
    fn name(&self) -> String;
    /// A legal move in `state`, which is not finished.
    fn choose(&mut self, game: &G, state: &G::State) -> Result<G::Move>;
    /// Told every move played (its own too), so a search can keep its tree.
    fn observe(&mut self, _game: &G, _before: &G::State, _mv: G::Move) {}
    /// Statistics of the last search, if the player searches.
    fn last_search(&self) -> Option<&SearchStats> {
        None
    }
}

/// Players only some games have (Reversi's seed players `easy` and `medium`), found by
/// [`from_spec`] before the generic specs. The default has none.
pub trait NamedPlayers: GpuGame {
    /// The extra specs, for error messages (`""` for none).
    const NAMED: &'static str = "";
    /// The player `spec` names, if it is one of this game's own (an error if its options are
    /// bad or its backend cannot start); `backend` is where `exec=gpu` runs.
    fn named_player(
        _spec: &str,
        _backend: Backend,
        _seed: u32,
    ) -> Option<Result<Box<dyn Player<Self>>>> {
        None
    }
}

impl NamedPlayers for cubesearch_games::nim::Nim {}
impl NamedPlayers for cubesearch_games::checkers::Checkers {}

/// Uniformly random legal moves.
pub struct RandomPlayer {
    rng: XorShift32,
}

impl RandomPlayer {
    /// A random player seeded with `seed`.
    pub fn new(seed: u32) -> Self {
        Self {
            rng: XorShift32::for_worker(seed, 0x5EED),
        }
    }
}

impl<G: Game> Player<G> for RandomPlayer {
    fn name(&self) -> String {
        "random".into()
    }
    fn choose(&mut self, game: &G, state: &G::State) -> Result<G::Move> {
        let moves = game.moves(state);
        if moves.is_empty() {
            return Err(Error::Unsupported("no legal move: the game is over".into()));
        }
        Ok(moves[self.rng.below(moves.len() as u32) as usize])
    }
}

/// Flat Monte Carlo: `k` random games after each root move; with a time budget, batches of `k`
/// are repeated until the time is up and their scores summed.
pub struct FlatPlayer {
    k: u32,
    time: Option<Duration>,
    exec: Executor,
    label: String,
    seed: u32,
    batches: u32,
}

impl<G: GpuGame> Player<G> for FlatPlayer {
    fn name(&self) -> String {
        match self.time {
            Some(t) => format!(
                "flat:time={}ms,k={} ({})",
                t.as_millis(),
                self.k,
                self.label
            ),
            None => format!("flat:k={} ({})", self.k, self.label),
        }
    }
    fn choose(&mut self, game: &G, state: &G::State) -> Result<G::Move> {
        let start = Instant::now();
        let mut totals: Vec<(G::Move, i64)> = Vec::new();
        loop {
            self.batches += 1;
            let seed = mix32(self.seed ^ mix32(self.batches));
            let scores = flat_scores(game, &mut self.exec, state, self.k, seed)?;
            if totals.is_empty() {
                totals = scores;
            } else {
                for (total, (_, s)) in totals.iter_mut().zip(scores) {
                    total.1 += s;
                }
            }
            if self.time.is_none_or(|t| start.elapsed() >= t) {
                break;
            }
        }
        first_best(totals)
            .map(|(m, _)| m)
            .ok_or_else(|| Error::Unsupported("no legal move: the game is over".into()))
    }
}

/// MCTS keeping its tree from move to move.
pub struct MctsPlayer<G: Game> {
    config: MctsConfig,
    exec: Executor,
    label: String,
    spec: String,
    tree: Option<Mcts<G>>,
    last: Option<SearchStats>,
}

impl<G: GpuGame> Player<G> for MctsPlayer<G> {
    fn name(&self) -> String {
        format!("{} ({})", self.spec, self.label)
    }
    fn choose(&mut self, game: &G, state: &G::State) -> Result<G::Move> {
        let reuse = matches!(&self.tree, Some(t) if t.root_state() == *state);
        if !reuse {
            self.tree = Some(Mcts::new(game, *state, self.config.clone()));
        }
        let tree = self.tree.as_mut().expect("a tree was just made");
        let (mv, stats) = tree.search(game, &mut self.exec)?;
        self.last = Some(stats);
        mv.ok_or_else(|| Error::Unsupported("no legal move: the game is over".into()))
    }
    fn observe(&mut self, game: &G, before: &G::State, mv: G::Move) {
        match &mut self.tree {
            Some(tree) if tree.root_state() == *before => tree.advance(game, mv),
            _ => self.tree = None,
        }
    }
    fn last_search(&self) -> Option<&SearchStats> {
        self.last.as_ref()
    }
}

/// Parses a duration like `500ms`, `1s`, `1.5s` or `2m`.
pub fn parse_duration(text: &str) -> Result<Duration> {
    let bad = || {
        Error::parse(format!(
            "bad duration '{text}': use e.g. 500ms, 1s, 1.5s or 2m"
        ))
    };
    let (number, scale) = if let Some(n) = text.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = text.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = text.strip_suffix('m') {
        (n, 60.0)
    } else {
        return Err(bad());
    };
    let value: f64 = number.trim().parse().map_err(|_| bad())?;
    if !(value.is_finite() && value > 0.0) {
        return Err(bad());
    }
    Ok(Duration::from_secs_f64(value * scale))
}

/// The options of a spec (`name:key=value,key=value`).
fn options<'a>(spec: &'a str, allowed: &[&str]) -> Result<Vec<(&'a str, &'a str)>> {
    let body = spec.split_once(':').map_or("", |(_, rest)| rest);
    body.split(',')
        .filter(|p| !p.trim().is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').ok_or_else(|| {
                Error::parse(format!(
                    "bad player option '{pair}' in '{spec}': expected key=value"
                ))
            })?;
            let k = k.trim();
            if !allowed.contains(&k) {
                return Err(Error::parse(format!(
                    "unknown option '{k}' in '{spec}': expected one of {}",
                    allowed.join(", ")
                )));
            }
            Ok((k, v.trim()))
        })
        .collect()
}

fn number<T: std::str::FromStr>(spec: &str, key: &str, value: &str) -> Result<T> {
    value
        .parse()
        .map_err(|_| Error::parse(format!("bad value '{value}' for {key} in '{spec}'")))
}

/// The executor a spec's `exec=` asks for: `cpu` (all cores) or `gpu` (the command's backend).
pub fn executor_for(exec: &str, backend: Backend, spec: &str) -> Result<(Executor, String)> {
    match exec {
        "cpu" => Ok((
            Executor::Cpu(crate::CpuExecutor::new(cpu_threads())?),
            format!("cpu-{}", cpu_threads()),
        )),
        "gpu" => {
            let (exec, resolved) = Executor::new(backend)?;
            Ok((exec, resolved.backend().name().to_string()))
        }
        other => Err(Error::parse(format!(
            "bad exec '{other}' in '{spec}': cpu or gpu"
        ))),
    }
}

/// Builds a computer player from its spec; `backend` is where `exec=gpu` runs. `human` is the
/// caller's to handle. The game's own players ([`NamedPlayers`]) come first.
pub fn from_spec<G: NamedPlayers>(
    spec: &str,
    backend: Backend,
    seed: u32,
) -> Result<Box<dyn Player<G>>> {
    if let Some(player) = G::named_player(spec, backend, seed) {
        return player;
    }
    let kind = spec.split(':').next().unwrap_or_default().trim();
    match kind {
        "random" => {
            options(spec, &[])?;
            Ok(Box::new(RandomPlayer::new(seed)))
        }
        "flat" => {
            let mut k = 1000;
            let mut time = None;
            let mut exec = "gpu";
            for (key, value) in options(spec, &["k", "time", "exec"])? {
                match key {
                    "k" => k = number::<u32>(spec, key, value)?.max(1),
                    "time" => time = Some(parse_duration(value)?),
                    _ => exec = value,
                }
            }
            let (exec, label) = executor_for(exec, backend, spec)?;
            Ok(Box::new(FlatPlayer {
                k,
                time,
                exec,
                label,
                seed,
                batches: 0,
            }))
        }
        "mcts" => {
            let mut config = MctsConfig {
                seed,
                ..MctsConfig::default()
            };
            let mut exec = "gpu";
            let mut trees_given = false;
            let keys = ["time", "playouts", "c", "leaf", "batch", "trees", "exec"];
            for (key, value) in options(spec, &keys)? {
                trees_given |= key == "trees";
                match key {
                    "time" => config.budget = Budget::Time(parse_duration(value)?),
                    "playouts" => config.budget = Budget::Playouts(number(spec, key, value)?),
                    "c" => config.c = number(spec, key, value)?,
                    "leaf" => config.leaf = number::<u32>(spec, key, value)?.max(1),
                    "batch" => config.batch = number::<usize>(spec, key, value)?.max(1),
                    "trees" => config.trees = number::<usize>(spec, key, value)?.clamp(1, 256),
                    _ => exec = value,
                }
            }
            // A timed search on a GPU gets a tree a core but one. A playout budget keeps one
            // tree, so its move is the same on every backend and host.
            if !trees_given && exec != "cpu" && matches!(config.budget, Budget::Time(_)) {
                config.trees = crate::mcts::device_trees();
            }
            let (exec, label) = executor_for(exec, backend, spec)?;
            Ok(Box::new(MctsPlayer {
                config,
                exec,
                label,
                spec: spec.to_string(),
                tree: None,
                last: None,
            }))
        }
        "alphabeta" => {
            use crate::alphabeta_player::{AlphaBetaPlayer, Limit};
            let mut limit = None;
            let mut exec = "cpu";
            let mut strategy = crate::minimax::default_gpu_strategy::<G>();
            for (key, value) in options(spec, &["depth", "time", "exec", "strategy"])? {
                match key {
                    "depth" => limit = Some(Limit::Depth(number::<u32>(spec, key, value)?.max(1))),
                    "time" => limit = Some(Limit::Time(parse_duration(value)?)),
                    "exec" => exec = value,
                    _ => strategy = value,
                }
            }
            let limit = limit.ok_or_else(|| {
                Error::parse(format!(
                    "'{spec}' needs depth=D or time=T (alphabeta:depth=6)"
                ))
            })?;
            match exec {
                "cpu" => Ok(Box::new(AlphaBetaPlayer::<G>::cpu(limit, spec))),
                _ => {
                    crate::minimax::check_strategy(strategy)?;
                    let (exec, label) = executor_for(exec, backend, spec)?;
                    Ok(Box::new(AlphaBetaPlayer::<G>::gpu(
                        limit, exec, strategy, &label, spec,
                    )))
                }
            }
        }
        _ => {
            let own = if G::NAMED.is_empty() {
                String::new()
            } else {
                format!("{}, ", G::NAMED)
            };
            Err(Error::parse(format!(
                "unknown player '{spec}': human, random, {own}flat:k=N[,time=T], mcts:time=T|playouts=N,c=X,leaf=N,batch=N,trees=N,exec=cpu|gpu, or alphabeta:depth=D|time=T,exec=cpu|gpu,strategy=S"
            )))
        }
    }
}

/// How one game ended for the first player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord<M> {
    /// Moves in order.
    pub moves: Vec<M>,
    /// +1 the first mover won, −1 lost, 0 draw.
    pub result: i32,
}

/// Plays one game from `start`, `players[0]` moving first.
pub fn play_game<'p, G: Game>(
    game: &G,
    start: G::State,
    players: [&mut (dyn Player<G> + 'p); 2],
    mut on_move: impl FnMut(&G::State, G::Move, usize),
) -> Result<GameRecord<G::Move>> {
    let mut players = players;
    let mut state = start;
    let mut moves = Vec::new();
    loop {
        let outcome = game.outcome(&state);
        if outcome != cubesearch_core::Outcome::Ongoing {
            // The outcome is for the side to move, which is the first player after an even count.
            let for_mover = match outcome {
                cubesearch_core::Outcome::Win => 1,
                cubesearch_core::Outcome::Loss => -1,
                _ => 0,
            };
            let result = if moves.len() % 2 == 0 {
                for_mover
            } else {
                -for_mover
            };
            return Ok(GameRecord { moves, result });
        }
        let turn = moves.len() % 2;
        let mv = players[turn].choose(game, &state)?;
        for p in players.iter_mut() {
            p.observe(game, &state, mv);
        }
        on_move(&state, mv, turn);
        state = game.apply(&state, mv);
        moves.push(mv);
    }
}
