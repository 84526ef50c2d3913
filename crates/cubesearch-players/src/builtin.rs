//! The players every game has: `random`, flat Monte Carlo (`flat`) and MCTS (`mcts`), each
//! searching on the executor its spec asks for.

use crate::learned::ValueLeaves;
use crate::player::{MoveLimits, Player, SearchReport};
use cubesearch_core::rng::{mix32, XorShift32};
use cubesearch_core::{Error, Game, Result, Stop};
use cubesearch_core::{Playouts, WinDrawCounts};
use cubesearch_kernels::GpuGame;
use cubesearch_search::mcts::{
    centipawns, first_best, flat_scores, Budget, Mcts, MctsConfig, SearchStats,
};
use cubesearch_search::Executor;
use std::time::{Duration, Instant};

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
    pub(crate) k: u32,
    pub(crate) time: Option<Duration>,
    pub(crate) exec: Executor,
    pub(crate) label: String,
    pub(crate) seed: u32,
    pub(crate) batches: u32,
    /// The host's request for the move now, checked between batches.
    pub(crate) stop: Stop,
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
            let scores = flat_scores(&mut self.exec, game, state, self.k, seed)?;
            if totals.is_empty() {
                totals = scores;
            } else {
                for (total, (_, s)) in totals.iter_mut().zip(scores) {
                    total.1 += s;
                }
            }
            if self.time.is_none_or(|t| start.elapsed() >= t) || self.stop.is_raised() {
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
        if let Some(stop) = &limits.stop {
            self.stop = stop.clone();
        }
    }
}

/// MCTS keeping its tree from move to move.
pub struct MctsPlayer<G: Game> {
    pub(crate) config: MctsConfig,
    pub(crate) exec: Simulations<G>,
    pub(crate) label: String,
    pub(crate) spec: String,
    pub(crate) tree: Option<Mcts<G>>,
    pub(crate) last: Option<SearchStats>,
    /// The host's request for the move now, checked between batches.
    pub(crate) stop: Stop,
}

impl<G: Game> MctsPlayer<G> {
    /// `budget` as the search counts it: a playout budget of valued leaves (`mcts:weights=W`)
    /// counts leaves, each of which the search counts as its `leaf` simulations, so that
    /// `playouts=2000` expands 2000 leaves there as it plays 2000 games elsewhere.
    pub(crate) fn counted(&self, budget: Budget) -> Budget {
        match (budget, &self.exec) {
            (Budget::Playouts(n), Simulations::Values(_)) => {
                Budget::Playouts(n.saturating_mul(u64::from(self.config.leaf)))
            }
            (budget, _) => budget,
        }
    }
}

impl<G: GpuGame> Player<G> for MctsPlayer<G> {
    fn name(&self) -> String {
        format!("{} ({})", self.spec, self.label)
    }
    fn choose(&mut self, game: &G, state: &G::State) -> Result<G::Move> {
        let reuse = matches!(&self.tree, Some(t) if t.root_state() == *state);
        if !reuse {
            self.tree = Some(Mcts::new(*state, self.config.clone()));
        }
        let tree = self.tree.as_mut().expect("a tree was just made");
        let (mv, stats) = tree.search_until(&mut self.exec, game, &self.stop)?;
        self.last = Some(stats);
        mv.ok_or_else(|| Error::Unsupported("no legal move: the game is over".into()))
    }
    fn prepare(&mut self, game: &G) -> Result<()> {
        let start = game.initial();
        let on_device = matches!(&self.exec, Simulations::Playouts(e) if !e.is_cpu());
        if !on_device || game.moves(&start).is_empty() {
            return Ok(());
        }
        // One batch of a throwaway tree compiles the playout kernel.
        let config = MctsConfig {
            budget: Budget::Playouts(1),
            trees: 1,
            ..self.config.clone()
        };
        Mcts::new(start, config).search_until(&mut self.exec, game, &Stop::new())?;
        Ok(())
    }
    fn observe(&mut self, game: &G, before: &G::State, mv: G::Move) {
        match &mut self.tree {
            Some(tree) if tree.root_state() == *before => tree.advance(game, mv),
            _ => self.tree = None,
        }
    }
    fn last_search(&self) -> Option<SearchReport> {
        // Valued leaves are reported as the budget counts them: a leaf each.
        let per_leaf = match self.exec {
            Simulations::Values(_) => u64::from(self.config.leaf.max(1)),
            Simulations::Playouts(_) => 1,
        };
        self.last.as_ref().map(|s| SearchReport {
            nodes: s.nodes as u64,
            playouts: Some(s.playouts / per_leaf),
            depth: None,
            score: s.win_rate.map(centipawns),
        })
    }
    fn set_limits(&mut self, limits: &MoveLimits) {
        if let Some(playouts) = limits.nodes {
            self.config.budget = self.counted(Budget::Playouts(playouts.max(1)));
        } else if let Some(time) = limits.time {
            self.config.budget = Budget::Time(time);
        }
        if let Some(tree) = &mut self.tree {
            tree.set_budget(self.config.budget);
        }
        if let Some(stop) = &limits.stop {
            self.stop = stop.clone();
        }
    }
}

/// What an MCTS player's leaves are worth: random games on an executor, or a learned
/// evaluation read on the CPU (`mcts:weights=W`).
pub enum Simulations<G: Game> {
    /// Random playouts.
    Playouts(Executor),
    /// The learned evaluation's value.
    Values(ValueLeaves<G>),
}

impl<G: GpuGame> Playouts<G> for Simulations<G> {
    fn playouts(
        &mut self,
        game: &G,
        roots: &[G::State],
        per_root: u32,
        seed: u32,
    ) -> Result<Vec<WinDrawCounts>> {
        match self {
            Simulations::Playouts(exec) => exec.playouts(game, roots, per_root, seed),
            Simulations::Values(leaves) => leaves.playouts(game, roots, per_root, seed),
        }
    }
}
