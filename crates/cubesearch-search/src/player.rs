//! Players for `play` and `match`, built from their specs ([`PlayerSpec`]: `random`,
//! `flat:k=1000`, `mcts:time=1s,c=1.4,leaf=32,exec=gpu`, …, read from text once by `FromStr`).
//! Searching players own an executor on the backend the spec (or the command line) asks for.
//!
//! `cubesearch::player` plays a game between two specs.

use crate::alphabeta_player::AlphaBetaPlayer;
use crate::external::UgiPlayer;
use crate::mcts::{first_best, flat_scores, Budget, Mcts, MctsConfig, SearchStats};
use crate::spec::{Exec, PlayerSpec, SpecText};
use crate::Executor;
use cubesearch_core::backend::Backend;
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
    /// Takes the limits an engine protocol gives for the next moves (`go movetime 500`, `go
    /// depth 6`, `go nodes 20000`); a player keeps what it has no use for. By default all.
    fn set_limits(&mut self, _limits: &MoveLimits) {}
}

/// What an engine protocol asks of a move's search: each `None` keeps the player's own.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MoveLimits {
    /// Time for the move.
    pub time: Option<Duration>,
    /// Plies to search (alpha-beta).
    pub depth: Option<u32>,
    /// Positions or simulated games to spend (MCTS: playouts).
    pub nodes: Option<u64>,
}

/// Players only some games have (such as the seed's own players of a game): the game reads
/// their specs ([`PlayerSpec::Named`]) before the generic ones, and builds them.
pub trait NamedPlayers: GpuGame {
    /// The game's own player specs ([`NoNamed`] for none).
    type Named: Clone + std::fmt::Debug;
    /// Their names, for error messages (`""` for none).
    const NAMED: &'static str = "";
    /// The game's own player `spec` names, if it names one (an error if its options are bad).
    /// The default knows none.
    fn parse_named(_spec: &SpecText) -> Option<Result<Self::Named>> {
        None
    }
    /// Builds one of the game's own players; `backend` is where `exec=gpu` runs. The default,
    /// for a game that reads none ([`NoNamed`]), refuses.
    fn named_player(
        _spec: &Self::Named,
        _backend: Backend,
        _seed: u32,
    ) -> Result<Box<dyn Player<Self>>> {
        Err(Error::Unsupported(format!(
            "{} has no players of its own",
            Self::NAME
        )))
    }
}

/// The named players of a game that has none: no value of it exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoNamed {}

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
    fn set_limits(&mut self, limits: &MoveLimits) {
        if limits.time.is_some() {
            self.time = limits.time;
        }
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
    fn set_limits(&mut self, limits: &MoveLimits) {
        if let Some(playouts) = limits.nodes {
            self.config.budget = Budget::Playouts(playouts.max(1));
        } else if let Some(time) = limits.time {
            self.config.budget = Budget::Time(time);
        }
        if let Some(tree) = &mut self.tree {
            tree.set_budget(self.config.budget);
        }
    }
}

impl<G: NamedPlayers> PlayerSpec<G> {
    /// The player this spec names; `backend` is where `exec=gpu` runs, `seed` seeds its random
    /// choices. `human` is the caller's to provide (an error here).
    pub fn build(&self, backend: Backend, seed: u32) -> Result<Box<dyn Player<G>>> {
        match self {
            PlayerSpec::Human => Err(Error::Unsupported(
                "human: the caller provides the terminal player".into(),
            )),
            PlayerSpec::Random => Ok(Box::new(RandomPlayer::new(seed))),
            PlayerSpec::Flat(flat) => {
                let (exec, label) = flat.exec.executor(backend)?;
                Ok(Box::new(FlatPlayer {
                    k: flat.k,
                    time: flat.time,
                    exec,
                    label,
                    seed,
                    batches: 0,
                }))
            }
            PlayerSpec::Mcts(mcts) => {
                // A timed search on a GPU gets a tree a core but one. A playout budget keeps one
                // tree, so its move is the same on every backend and host.
                let device_trees = mcts.exec != Exec::Cpu && matches!(mcts.budget, Budget::Time(_));
                let config = MctsConfig {
                    budget: mcts.budget,
                    c: mcts.c,
                    leaf: mcts.leaf,
                    batch: mcts.batch,
                    trees: mcts.trees.unwrap_or(if device_trees {
                        crate::mcts::device_trees()
                    } else {
                        MctsConfig::default().trees
                    }),
                    seed,
                };
                let (exec, label) = mcts.exec.executor(backend)?;
                Ok(Box::new(MctsPlayer {
                    config,
                    exec,
                    label,
                    spec: mcts.text.clone(),
                    tree: None,
                    last: None,
                }))
            }
            PlayerSpec::AlphaBeta(ab) => match ab.exec {
                Exec::Cpu => Ok(Box::new(AlphaBetaPlayer::<G>::cpu(ab.limit, &ab.text))),
                Exec::Gpu => {
                    let (exec, label) = ab.exec.executor(backend)?;
                    Ok(Box::new(AlphaBetaPlayer::<G>::gpu(
                        ab.limit,
                        exec,
                        ab.strategy,
                        &label,
                        &ab.text,
                    )))
                }
            },
            PlayerSpec::Named(named) => G::named_player(named, backend, seed),
            PlayerSpec::Ugi(ugi) => Ok(Box::new(UgiPlayer::start(ugi)?)),
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

/// Plays one game from `start`, `players[0]` moving first. `on_move` hears each move (the
/// position before it, the move, the mover's index); an error from it ends the game there
/// and is returned (a match stopped by a signal, say).
pub fn play_game<'p, G: Game>(
    game: &G,
    start: G::State,
    players: [&mut (dyn Player<G> + 'p); 2],
    mut on_move: impl FnMut(&G::State, G::Move, usize) -> Result<()>,
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
        on_move(&state, mv, turn)?;
        state = game.apply(&state, mv);
        moves.push(mv);
    }
}
