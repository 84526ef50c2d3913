//! Monte Carlo tree search with the tree on the CPU and the simulations on any [`Playouts`]
//! executor (the seed's checkers design, generic over games).
//!
//! One iteration selects a batch of leaves by UCT (`w/n + c·sqrt(ln N / n)`, with a virtual loss
//! on every node a pending simulation passes through so the batch spreads over many leaves),
//! expands each leaf, simulates `leaf` random games from every leaf on the executor, and
//! backpropagates with a draw as half a win (scores kept ×2, in integers).
//!
//! CPU and device overlap: a worker thread runs batch k on the executor while this thread selects
//! batch k + 1. The schedule is fixed (select k + 1, then collect k), so with a playout budget
//! and a fixed seed the search, and the move it picks, is the same on every backend.

use cubesearch_core::rng::mix32;
use cubesearch_core::{Game, Outcome, Playouts, Result, WinDrawCounts};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long a search may run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Budget {
    /// Wall-clock time per move.
    Time(Duration),
    /// Simulated games per move (deterministic).
    Playouts(u64),
}

/// Search settings.
#[derive(Clone, Debug, PartialEq)]
pub struct MctsConfig {
    /// Per-move budget.
    pub budget: Budget,
    /// UCT exploration constant.
    pub c: f64,
    /// Random games per selected leaf.
    pub leaf: u32,
    /// Leaves selected per batch.
    pub batch: usize,
    /// Seed of the simulations.
    pub seed: u32,
}

impl Default for MctsConfig {
    fn default() -> Self {
        Self {
            budget: Budget::Time(Duration::from_secs(1)),
            c: std::f64::consts::SQRT_2,
            leaf: 32,
            batch: 256,
            seed: 1,
        }
    }
}

/// What a search did, for reports and benchmarks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchStats {
    /// Random games simulated.
    pub playouts: u64,
    /// Batches sent to the executor.
    pub batches: u64,
    /// Nodes in the tree at the end.
    pub nodes: usize,
    /// Wall-clock time of the search.
    pub seconds: f64,
    /// Time this thread spent waiting for the executor: the part of the device time the tree
    /// work did not hide.
    pub wait_seconds: f64,
}

#[derive(Debug)]
struct Node<G: Game> {
    state: G::State,
    /// The move that led here from the parent.
    mv: Option<G::Move>,
    parent: Option<usize>,
    /// Children are `first_child .. first_child + child_count` once expanded.
    first_child: usize,
    child_count: usize,
    expanded: bool,
    outcome: Outcome,
    visits: u64,
    /// Score ×2 (win 2, draw 1) for the player who moved into this node.
    score2: u64,
    /// Simulations in flight through this node, each counted as a loss until it returns.
    virtual_visits: u64,
}

// Every field is Copy; a derive would wrongly ask for `G: Clone`.
impl<G: Game> Clone for Node<G> {
    fn clone(&self) -> Self {
        Self { ..*self }
    }
}

/// A search tree that survives between moves.
pub struct Mcts<G: Game> {
    nodes: Vec<Node<G>>,
    root: usize,
    config: MctsConfig,
    batches_run: u64,
}

/// One leaf waiting for its simulations, with the nodes it passed through.
struct Pending {
    path: Vec<usize>,
}

impl<G: Game> Mcts<G> {
    /// A tree rooted at `state`.
    pub fn new(game: &G, state: G::State, config: MctsConfig) -> Self {
        let root = Node::<G> {
            state,
            mv: None,
            parent: None,
            first_child: 0,
            child_count: 0,
            expanded: false,
            outcome: game.outcome(&state),
            visits: 0,
            score2: 0,
            virtual_visits: 0,
        };
        Self {
            nodes: vec![root],
            root: 0,
            config,
            batches_run: 0,
        }
    }

    /// The position at the root.
    pub fn root_state(&self) -> G::State {
        self.nodes[self.root].state
    }

    /// The settings.
    pub fn config(&self) -> &MctsConfig {
        &self.config
    }

    /// Searches within the budget and returns the most visited root move (`None` if the game is
    /// over).
    pub fn search<E: Playouts<G> + Send>(
        &mut self,
        game: &G,
        exec: &mut E,
    ) -> Result<(Option<G::Move>, SearchStats)> {
        let start = Instant::now();
        let mut stats = SearchStats::default();
        if self.nodes[self.root].outcome != Outcome::Ongoing {
            return Ok((None, stats));
        }
        self.expand(game, self.root);
        let leaf = self.config.leaf.max(1);
        let budget = self.config.budget;
        let done = |stats: &SearchStats| match budget {
            Budget::Time(t) => start.elapsed() >= t,
            Budget::Playouts(n) => stats.playouts >= n,
        };
        let result = std::thread::scope(|scope| -> Result<()> {
            let (to_worker, jobs) = mpsc::channel::<(Vec<G::State>, u32)>();
            let (to_search, results) = mpsc::channel::<Result<Vec<WinDrawCounts>>>();
            scope.spawn(move || {
                for (roots, seed) in jobs {
                    if to_search
                        .send(exec.playouts(game, &roots, leaf, seed))
                        .is_err()
                    {
                        break;
                    }
                }
            });
            let mut in_flight: Option<Vec<Pending>> = None;
            loop {
                // Select the next batch while the previous one simulates.
                let next = if done(&stats) {
                    None
                } else {
                    let planned = self.planned_batch(&stats);
                    let (batch, roots, terminal) = self.select_batch(game, planned);
                    for (pending, outcome) in terminal {
                        self.backpropagate_outcome(&pending, outcome, leaf as u64);
                        stats.playouts += leaf as u64;
                    }
                    if roots.is_empty() {
                        None
                    } else {
                        let seed = mix32(self.config.seed ^ mix32(self.batches_run as u32));
                        self.batches_run += 1;
                        to_worker
                            .send((roots, seed))
                            .expect("the simulation worker is alive");
                        Some(batch)
                    }
                };
                if let Some(batch) = in_flight.take() {
                    let waited = Instant::now();
                    let counts = results.recv().expect("the simulation worker answers")?;
                    stats.wait_seconds += waited.elapsed().as_secs_f64();
                    for (pending, c) in batch.iter().zip(counts) {
                        self.backpropagate(pending, c);
                        stats.playouts += c.games;
                    }
                    stats.batches += 1;
                }
                match next {
                    Some(batch) => in_flight = Some(batch),
                    None if in_flight.is_none() => break,
                    None => {}
                }
                if in_flight.is_none() && done(&stats) {
                    break;
                }
            }
            Ok(())
        });
        result?;
        stats.nodes = self.nodes.len();
        stats.seconds = start.elapsed().as_secs_f64();
        Ok((self.best_move(), stats))
    }

    /// Leaves in the next batch: the configured batch, trimmed to what a playout budget has left.
    fn planned_batch(&self, stats: &SearchStats) -> usize {
        match self.config.budget {
            Budget::Playouts(n) => {
                let left = n
                    .saturating_sub(stats.playouts)
                    .div_ceil(self.config.leaf.max(1) as u64);
                (left as usize).clamp(1, self.config.batch.max(1))
            }
            Budget::Time(_) => self.config.batch.max(1),
        }
    }

    /// The root moves with their visits and win rate for the side to move at the root.
    pub fn root_moves(&self) -> Vec<(G::Move, u64, f64)> {
        let root = &self.nodes[self.root];
        (root.first_child..root.first_child + root.child_count)
            .map(|i| {
                let n = &self.nodes[i];
                (
                    n.mv.expect("children have moves"),
                    n.visits,
                    n.score2 as f64 / (2.0 * n.visits.max(1) as f64),
                )
            })
            .collect()
    }

    /// Visits at the root (completed simulations through it).
    pub fn root_visits(&self) -> u64 {
        self.nodes[self.root].visits
    }

    /// The most visited root move, ties to the better score then the earlier move.
    pub fn best_move(&self) -> Option<G::Move> {
        let root = &self.nodes[self.root];
        (root.first_child..root.first_child + root.child_count)
            .max_by(|&a, &b| {
                let (a, b) = (&self.nodes[a], &self.nodes[b]);
                a.visits
                    .cmp(&b.visits)
                    .then(a.score2.cmp(&b.score2))
                    .then(std::cmp::Ordering::Greater)
            })
            .and_then(|i| self.nodes[i].mv)
    }

    /// Moves the root to the child reached by `mv`, keeping its subtree; a position not in the
    /// tree starts a fresh one.
    pub fn advance(&mut self, game: &G, mv: G::Move) {
        let root = &self.nodes[self.root];
        let child = (root.first_child..root.first_child + root.child_count)
            .find(|&i| self.nodes[i].mv == Some(mv));
        match child {
            Some(child) => self.reroot(child),
            None => {
                let state = game.apply(&self.nodes[self.root].state, mv);
                *self = Self::new(game, state, self.config.clone());
            }
        }
    }

    /// Copies the subtree under `new_root` into a fresh arena, breadth first, so that children
    /// stay contiguous.
    fn reroot(&mut self, new_root: usize) {
        let mut kept: Vec<Node<G>> = Vec::new();
        let mut old_of = vec![new_root];
        let mut head = 0;
        while head < old_of.len() {
            let old = old_of[head];
            let mut node = self.nodes[old].clone();
            node.parent = if head == 0 { None } else { node.parent };
            if node.expanded {
                let first = old_of.len();
                old_of.extend(node.first_child..node.first_child + node.child_count);
                node.first_child = first;
            }
            kept.push(node);
            head += 1;
        }
        // Parents: each child's parent is the kept index of the node that listed it.
        for i in 0..kept.len() {
            if kept[i].expanded {
                let (first, count) = (kept[i].first_child, kept[i].child_count);
                for child in &mut kept[first..first + count] {
                    child.parent = Some(i);
                }
            }
        }
        self.nodes = kept;
        self.root = 0;
    }

    fn expand(&mut self, game: &G, index: usize) {
        if self.nodes[index].expanded || self.nodes[index].outcome != Outcome::Ongoing {
            return;
        }
        let state = self.nodes[index].state;
        let first = self.nodes.len();
        for mv in game.moves(&state) {
            let child = game.apply(&state, mv);
            self.nodes.push(Node {
                state: child,
                mv: Some(mv),
                parent: Some(index),
                first_child: 0,
                child_count: 0,
                expanded: false,
                outcome: game.outcome(&child),
                visits: 0,
                score2: 0,
                virtual_visits: 0,
            });
        }
        let count = self.nodes.len() - first;
        let node = &mut self.nodes[index];
        node.first_child = first;
        node.child_count = count;
        node.expanded = true;
    }

    /// Selects up to `count` leaves: the ones needing simulations (with their states), and the
    /// finished games among them, whose result is known without simulating.
    #[allow(clippy::type_complexity)]
    fn select_batch(
        &mut self,
        game: &G,
        count: usize,
    ) -> (Vec<Pending>, Vec<G::State>, Vec<(Pending, Outcome)>) {
        let mut batch = Vec::with_capacity(count);
        let mut roots = Vec::with_capacity(count);
        let mut terminal = Vec::new();
        for _ in 0..count {
            let mut path = vec![self.root];
            let mut node = self.root;
            while self.nodes[node].expanded && self.nodes[node].child_count > 0 {
                node = self.select_child(node);
                path.push(node);
            }
            // A leaf seen before is expanded, and one of its (unvisited) children simulated.
            if self.nodes[node].visits + self.nodes[node].virtual_visits > 0
                && self.nodes[node].outcome == Outcome::Ongoing
            {
                self.expand(game, node);
                node = self.select_child(node);
                path.push(node);
            }
            for &n in &path {
                self.nodes[n].virtual_visits += self.config.leaf as u64;
            }
            let outcome = self.nodes[node].outcome;
            if outcome == Outcome::Ongoing {
                roots.push(self.nodes[node].state);
                batch.push(Pending { path });
            } else {
                terminal.push((Pending { path }, outcome));
            }
        }
        (batch, roots, terminal)
    }

    /// UCT over `parent`'s children, virtual visits counted as losses; unvisited children first.
    fn select_child(&self, parent: usize) -> usize {
        let p = &self.nodes[parent];
        let parent_visits = (p.visits + p.virtual_visits).max(1) as f64;
        let log_n = parent_visits.ln();
        let mut best = p.first_child;
        let mut best_value = f64::NEG_INFINITY;
        for i in p.first_child..p.first_child + p.child_count {
            let c = &self.nodes[i];
            let n = c.visits + c.virtual_visits;
            let value = if n == 0 {
                f64::INFINITY
            } else {
                c.score2 as f64 / (2.0 * n as f64) + self.config.c * (log_n / n as f64).sqrt()
            };
            if value > best_value {
                best_value = value;
                best = i;
            }
        }
        best
    }

    /// Adds a leaf's results along its path. `counts` are for the side to move at the leaf; each
    /// node keeps scores for the player who moved into it.
    fn backpropagate(&mut self, pending: &Pending, counts: WinDrawCounts) {
        let leaf = self.config.leaf as u64;
        // The leaf's mover is the one who moved into the leaf: it scores the leaf side's losses.
        let mut score2 = 2 * counts.losses() + counts.draws;
        for &n in pending.path.iter().rev() {
            let node = &mut self.nodes[n];
            node.virtual_visits -= leaf;
            node.visits += counts.games;
            node.score2 += score2;
            score2 = 2 * counts.games - score2;
        }
    }

    /// Backpropagates `games` copies of a known outcome (a finished game at the leaf).
    fn backpropagate_outcome(&mut self, pending: &Pending, outcome: Outcome, games: u64) {
        let counts = match outcome {
            Outcome::Win => WinDrawCounts {
                wins: games,
                draws: 0,
                games,
            },
            Outcome::Draw => WinDrawCounts {
                wins: 0,
                draws: games,
                games,
            },
            _ => WinDrawCounts {
                wins: 0,
                draws: 0,
                games,
            },
        };
        self.backpropagate(pending, counts);
    }
}

/// Flat Monte Carlo: `k` random games after every root move, in one batch; the move with the most
/// wins minus losses for the side to move wins. `None` if the game is over.
pub fn flat_monte_carlo<G: Game, E: Playouts<G>>(
    game: &G,
    exec: &mut E,
    state: &G::State,
    k: u32,
    seed: u32,
) -> Result<Option<(G::Move, i64)>> {
    let moves = game.moves(state);
    let children: Vec<G::State> = moves.iter().map(|&m| game.apply(state, m)).collect();
    let counts = exec.playouts(game, &children, k, seed)?;
    // Results are for the side to move after the root move: the root's side scores their losses.
    Ok(moves
        .into_iter()
        .zip(counts)
        .map(|(m, c)| (m, c.losses() as i64 - c.wins as i64))
        .fold(None, |best: Option<(G::Move, i64)>, (m, v)| match best {
            Some((_, bv)) if bv >= v => best,
            _ => Some((m, v)),
        }))
}
