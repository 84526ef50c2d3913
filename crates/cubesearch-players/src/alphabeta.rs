//! `alphabeta:depth=D|time=T[,exec=cpu|gpu][,strategy=S]`: a minimax player through the minimax
//! pipeline, for any game whose `Game::score` is a real evaluation.
//!
//! * `exec=cpu` (default): [`solve_iterative`] on one thread: iterative deepening, the previous
//!   iteration's best move first, the children of nodes two plies or more above the leaves
//!   ordered by their static score, one transposition table shared by the iterations; with
//!   `time=T` the deepest finished iteration answers.
//! * `exec=gpu`: [`minimax::solve`](cubesearch_search::minimax::solve()) with a GPU [`Strategy`] (by
//!   default [`default_gpu_strategy`](minimax::default_gpu_strategy): `split` for won/lost
//!   scores, `frontier` for an evaluation) on the command's backend; with `time=T`, depths
//!   1, 2, … until the time is up. The device's walks end between launches at the deadline or
//!   the host's stop, and the deepest finished depth answers (one CPU ply if none finished).
//!
//! Its spec is read by [`PlayerSpec`](crate::spec::PlayerSpec) into an
//! [`AlphaBetaSpec`](crate::spec::AlphaBetaSpec).
//!
//! The leaf values are the same on every backend, so `exec=cpu` and `exec=gpu` at one depth
//! choose the same move value (the first best move in their own order).

use crate::learned::Evaluated;
use crate::player::{MoveLimits, Player, SearchReport};
use crate::spec::Limit;
use cubesearch_core::{Error, Game, Result, Stop, SubtreeSearch};
use cubesearch_kernels::GpuGame;
use cubesearch_search::minimax::{
    self, order_by_score, solve_iterative, Deepened, ProbCut, SearchOptions, Strategy,
    TranspositionTable,
};
use cubesearch_search::Executor;
use std::time::Instant;

/// Deepest search a time budget may reach (a guard, far beyond what any budget allows).
const MAX_DEPTH: u32 = 64;
/// Steps a GPU walk takes a launch for a player, a sixteenth of the default: a stop or a
/// deadline waits for the launch in flight.
const PLAYER_STEPS_PER_LAUNCH: u32 = 1 << 12;
/// Positions the CPU player's transposition table holds before it is cleared (it is kept
/// between moves).
const TABLE: usize = 1 << 18;

/// An alpha-beta player.
pub struct AlphaBetaPlayer<G: Game> {
    limit: Limit,
    /// `None`: one CPU thread; otherwise the executor and strategy of the GPU search.
    gpu: Option<(Executor, Strategy, String)>,
    table: TranspositionTable<G::State>,
    spec: String,
    /// Depth of the last move's search.
    pub last_depth: u32,
    /// Nodes the last move's search visited (CPU searches).
    pub last_nodes: u64,
    /// The last move's value for the side to move (the game's `score` units).
    last_value: Option<i32>,
    /// The host's request for the move now: the CPU search unwinds within a thousand nodes,
    /// the GPU one between depths (a launch cannot be cut short).
    stop: Stop,
    /// The game scored by a learned evaluation, which the CPU search then plays (`weights=W`),
    /// and the ProbCut fitted to it.
    learned: Option<(Evaluated<G>, Option<ProbCut>)>,
}

impl<G: GpuGame> AlphaBetaPlayer<G> {
    /// A player searching with `limit` on one CPU thread.
    pub fn cpu(limit: Limit, spec: &str) -> Self {
        Self {
            limit,
            gpu: None,
            table: TranspositionTable::new(TABLE),
            spec: spec.to_string(),
            last_depth: 0,
            last_nodes: 0,
            last_value: None,
            stop: Stop::new(),
            learned: None,
        }
    }

    /// This CPU player searching `learned`, the game scored by a learned evaluation, instead
    /// of the game it is given (whose rules `learned` keeps).
    /// Where `learned` asks for it ([`Evaluated::with_probcut`]), it searches with
    /// [`ProbCut`], its margin fitted to `learned` on positions of the evaluation's own games.
    pub fn with_evaluation(mut self, learned: Evaluated<G>) -> Self {
        let cut = learned
            .probcut()
            .then(|| ProbCut::fit(&learned, &fitting_positions(&learned)))
            .flatten();
        self.learned = Some((learned, cut));
        self
    }

    /// A player searching with `limit` on `exec` by `strategy` (`label` names the backend).
    pub fn gpu(limit: Limit, exec: Executor, strategy: Strategy, label: &str, spec: &str) -> Self {
        // Short launches: the stop and the deadline are looked at between them.
        let exec = exec.with_steps_per_launch(PLAYER_STEPS_PER_LAUNCH);
        Self {
            limit,
            gpu: Some((exec, strategy, label.to_string())),
            table: TranspositionTable::new(0),
            spec: spec.to_string(),
            last_depth: 0,
            last_nodes: 0,
            last_value: None,
            stop: Stop::new(),
            learned: None,
        }
    }

    fn choose_gpu(&mut self, game: &G, state: &G::State) -> Result<Option<G::Move>> {
        let (exec, strategy, _) = self.gpu.as_mut().expect("a GPU player");
        let (depths, stop) = match self.limit {
            Limit::Depth(d) => (d..=d, self.stop.clone()),
            Limit::Time(t) => (1..=MAX_DEPTH, self.stop.with_deadline(Instant::now() + t)),
        };
        // The walks end between launches once the stop is raised or the time is up: the
        // depth in progress is dropped and the last finished one answers.
        exec.set_stop(&stop);
        let mut best = None;
        for depth in depths {
            if best.is_some() && stop.is_raised() {
                break;
            }
            let solved = match minimax::solve(exec, game, state, depth, *strategy) {
                Ok(solved) => solved,
                Err(_) if stop.is_raised() => break,
                Err(e) => {
                    exec.set_stop(&Stop::new());
                    return Err(e);
                }
            };
            best = solved.solution.best;
            self.last_depth = depth;
            self.last_nodes = solved.solution.nodes.unwrap_or(0);
            self.last_value = Some(solved.solution.value);
            if best.is_none() {
                break;
            }
        }
        exec.set_stop(&Stop::new());
        if best.is_none() && stop.is_raised() {
            // Stopped before any depth finished: one ply on the CPU still gives a move.
            let found =
                solve_iterative(game, state, 1, &Stop::new(), &mut SearchOptions::default());
            best = found.solution.best;
            self.last_depth = found.depth;
            self.last_nodes = found.solution.nodes.unwrap_or(0);
            self.last_value = Some(found.solution.value);
        }
        Ok(best)
    }
}

impl<G: GpuGame> Player<G> for AlphaBetaPlayer<G> {
    fn name(&self) -> String {
        let place = match &self.gpu {
            None => "cpu-1".to_string(),
            Some((_, strategy, label)) => format!("{label} {strategy}"),
        };
        format!("{} ({place})", self.spec)
    }

    fn last_search(&self) -> Option<SearchReport> {
        self.last_value.map(|value| SearchReport {
            nodes: self.last_nodes,
            playouts: None,
            depth: Some(self.last_depth),
            score: Some(value),
        })
    }

    fn set_limits(&mut self, limits: &MoveLimits) {
        if let Some(depth) = limits.depth {
            self.limit = Limit::Depth(depth.clamp(1, crate::spec::MAX_DEPTH));
        } else if let Some(time) = limits.time {
            self.limit = Limit::Time(time);
        }
        if let Some(stop) = &limits.stop {
            self.stop = stop.clone();
        }
    }

    fn prepare(&mut self, game: &G) -> Result<()> {
        let Some((exec, strategy, _)) = self.gpu.as_mut() else {
            return Ok(());
        };
        let start = game.initial();
        if game.moves(&start).is_empty() {
            return Ok(());
        }
        match strategy {
            // The seed's root shapes: a walk of one ply below each reply compiles the kernels
            // every depth to 10 uses.
            Strategy::V1 | Strategy::V2 | Strategy::V4 => {
                minimax::solve(exec, game, &start, 3, *strategy)?;
            }
            // An empty window ends each walk at its first step: the kernels of walks to depths
            // 1–8 and 9–16 are compiled and nothing is searched.
            _ => {
                for depth in [1, 9] {
                    exec.search_windows(game, &[start], &[(0, 0)], depth)?;
                }
            }
        }
        Ok(())
    }

    fn choose(&mut self, game: &G, state: &G::State) -> Result<G::Move> {
        let best = if self.gpu.is_some() {
            self.choose_gpu(game, state)?
        } else {
            let (depth, stop) = match self.limit {
                Limit::Depth(d) => (d, self.stop.clone()),
                Limit::Time(t) => (MAX_DEPTH, self.stop.with_deadline(Instant::now() + t)),
            };
            // A timed player with the game's exact solver plays its move where the solver
            // expects to find one in the time (a fixed depth stays a search of that depth).
            if let (Limit::Time(t), Some((learned, _))) = (self.limit, &self.learned) {
                if let Some(mv) = learned.exact_move(state, t, &stop) {
                    self.last_depth = 0;
                    self.last_nodes = 0;
                    self.last_value = None;
                    return Ok(mv);
                }
            }
            // The table is kept from move to move: its entries are value bounds of positions
            // by the depth searched below them, true whatever the root (an engine's next
            // search starts two plies down the last one's tree).
            let table = &mut self.table;
            let (found, nodes) = match &self.learned {
                Some((learned, cut)) => search_cpu(learned, state, (depth, *cut), &stop, table),
                None => search_cpu(game, state, (depth, None), &stop, table),
            };
            self.last_depth = found.depth;
            self.last_nodes = nodes;
            self.last_value = Some(found.solution.value);
            found.solution.best
        };
        best.ok_or_else(|| Error::Unsupported("no legal move: the game is over".into()))
    }
}

/// One CPU search by iterative deepening to `depth` at most, its children ordered by `game`'s
/// score, with `table` (kept from move to move by the player) and `probcut`: the deepest
/// finished iteration and the nodes visited.
fn search_cpu<H: Game>(
    game: &H,
    state: &H::State,
    (depth, probcut): (u32, Option<ProbCut>),
    stop: &Stop,
    table: &mut TranspositionTable<H::State>,
) -> (Deepened<H::Move>, u64) {
    let mut options = SearchOptions {
        order: Some(order_by_score::<H>),
        table: Some(table),
        probcut,
        ..SearchOptions::default()
    };
    let found = solve_iterative(game, state, depth, stop, &mut options);
    (found, options.nodes)
}

/// Games whose positions fit a learned player's [`ProbCut`] margin.
const FITTING_GAMES: u32 = 8;
/// Random plies that open each of those games.
const FITTING_OPENING: u32 = 6;
/// Every this many plies a position of those games is taken...
const FITTING_EVERY: usize = 5;
/// ...but none of their last plies.
const FITTING_HORIZON: usize = 12;
/// Plies after which such a game is left (a game of kings may never end).
const FITTING_PLIES: u32 = 200;

/// Positions of the kind a learned player meets: [`FITTING_GAMES`] games of
/// [`FITTING_OPENING`] random plies (seeded: the same every time), then the evaluation's own
/// one-ply choices to the end (or [`FITTING_PLIES`]), every [`FITTING_EVERY`]th position but
/// the last [`FITTING_HORIZON`].
fn fitting_positions<H: Game>(game: &H) -> Vec<H::State> {
    let mut positions = Vec::new();
    for seed in 0..FITTING_GAMES {
        let mut rng = cubesearch_core::rng::XorShift32::for_worker(seed + 1, 0);
        let mut state = game.initial();
        let mut line = Vec::new();
        for ply in 0..FITTING_PLIES {
            let moves = game.moves(&state);
            if moves.is_empty() {
                break;
            }
            let mv = if ply < FITTING_OPENING {
                moves[rng.below(moves.len() as u32) as usize]
            } else {
                // The best for the mover: the lowest score for the opponent.
                *moves
                    .iter()
                    .min_by_key(|&&m| game.score(&game.apply(&state, m)))
                    .expect("a move")
            };
            state = game.apply(&state, mv);
            line.push(state);
        }
        // Not the last plies: a search that reaches the end of the game scores it as no
        // evaluation does, and those gaps say nothing of the evaluation's errors.
        let kept = line.len().saturating_sub(FITTING_HORIZON);
        positions.extend(line[..kept].iter().step_by(FITTING_EVERY));
    }
    positions
}
