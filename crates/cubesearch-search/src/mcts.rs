//! Monte Carlo tree search with the tree on the CPU and the simulations on any [`Playouts`]
//! executor (the seed's design, generic over games).
//!
//! One iteration selects a batch of leaves by UCT (`w/n + c·sqrt(ln N / n)`, with a virtual loss
//! on every node a pending simulation passes through so the batch spreads over many leaves),
//! expands each leaf, simulates `leaf` random games from every leaf on the executor, and
//! backpropagates with a draw as half a win (scores kept ×2, in integers).
//!
//! Root parallelism: `trees` independent trees of the same position select their leaves on as
//! many CPU threads, and their batches go to the device in one launch; the move played is the one
//! with the most visits summed over the trees. (The trees differ through their simulations: each
//! leaf's games are drawn from its own slot of the launch.)
//!
//! CPU and device overlap: a worker thread runs batch k on the executor while the trees select
//! batch k + 1. The schedule is fixed (select k + 1, then collect k), so with a playout budget
//! and a fixed seed the search, and the move it picks, is the same on every backend.
//!
//! `cubesearch::mcts` shows a search on a game.

use cubesearch_core::rng::mix32;
use cubesearch_core::{Game, Outcome, Playouts, Result, Stop, WinDrawCounts};
use rayon::prelude::*;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long a search may run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Budget {
    /// Wall-clock time per move.
    Time(Duration),
    /// Simulated games per move (deterministic, the same on every backend): exactly this many,
    /// or fewer than `leaf × trees` more, since every selected leaf runs `leaf` games.
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
    /// Leaves selected per batch by each tree.
    pub batch: usize,
    /// Independent trees searched side by side (root parallelism), one CPU thread each. Feeding
    /// a GPU, [`device_trees`] is the measured best.
    pub trees: usize,
    /// Seed of the simulations.
    pub seed: u32,
}

/// Trees that keep a GPU fed from this host: one a core but one, which is left to the thread
/// that drives the device. On a 16-core H200 host, 15 trees simulate 1.37e8 playouts/s in the
/// seed's MCTS benchmark and 16 only 8.5e7 (docs/BENCHMARKS.md, row "MCTS on a GPU: 15
/// trees").
pub fn device_trees() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .saturating_sub(1)
        .max(1)
}

impl Default for MctsConfig {
    fn default() -> Self {
        Self {
            budget: Budget::Time(Duration::from_secs(1)),
            c: std::f64::consts::SQRT_2,
            leaf: 32,
            batch: 256,
            trees: 1,
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
    /// The chosen move's win rate for the side to move (draws half), over its visits.
    pub win_rate: Option<f64>,
}

/// A win rate as centipawns, the scale engine protocols report scores on: the Elo difference
/// it implies, 400 · log10(p / (1 − p)), within ±10,000 (a sure win or loss).
pub fn centipawns(win_rate: f64) -> i32 {
    let p = win_rate.clamp(1e-9, 1.0 - 1e-9);
    (400.0 * (p / (1.0 - p)).log10())
        .round()
        .clamp(-10_000.0, 10_000.0) as i32
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

/// A search that survives between moves: one tree, or several searched side by side.
pub struct Mcts<G: Game> {
    trees: Vec<Tree<G>>,
    config: MctsConfig,
    batches_run: u64,
    /// Seconds a selected leaf takes to simulate, as the last batch measured: kept between
    /// searches, so a timed search sizes even its first batch.
    leaf_seconds: Option<f64>,
    /// One thread a tree, kept between moves. The search loop runs on one of them, so each
    /// round's parallel select and back-up start on a thread of their own pool: handing them
    /// to the global pool from outside cost milliseconds a round in wake-ups.
    pool: Option<rayon::ThreadPool>,
}

/// One search tree: the nodes in an arena, children contiguous.
struct Tree<G: Game> {
    nodes: Vec<Node<G>>,
    root: usize,
    leaf: u32,
    c: f64,
    /// The moves of the node being expanded (kept to spare an allocation a leaf).
    moves: Vec<G::Move>,
}

/// Leaves each tree selects for a timed search's first batch, before the pace is known.
const FIRST_TIMED_BATCH: usize = 16;
/// Seconds a timed search's batch may take at the measured pace: what a `stop` waits at most.
const LONGEST_TIMED_BATCH: f64 = 0.04;

/// Leaves waiting for their simulations, each with the nodes it passed through: one flat list
/// of node indices and where each path ends, so a batch allocates twice, not once a leaf.
#[derive(Default)]
struct Paths {
    nodes: Vec<usize>,
    ends: Vec<usize>,
}

impl Paths {
    fn push(&mut self, path: &[usize]) {
        self.nodes.extend_from_slice(path);
        self.ends.push(self.nodes.len());
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    fn iter(&self) -> impl Iterator<Item = &[usize]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(&self.ends)
            .map(|(start, &end)| &self.nodes[start..end])
    }
}

/// A tree's part of one batch.
struct Selected<S> {
    /// Leaves to simulate, with their states.
    pending: Paths,
    roots: Vec<S>,
}

impl<G: Game> Mcts<G> {
    /// A search rooted at `state`.
    pub fn new(state: G::State, config: MctsConfig) -> Self {
        let trees = (0..config.trees.max(1))
            .map(|_| Tree::new(state, &config))
            .collect();
        // Without a pool of its own (one tree, or threads refused) a search runs where it is.
        let pool = (config.trees > 1)
            .then(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(config.trees)
                    .build()
            })
            .and_then(|built| built.ok());
        Self {
            trees,
            config,
            batches_run: 0,
            leaf_seconds: None,
            pool,
        }
    }

    /// The position at the root.
    pub fn root_state(&self) -> G::State {
        self.trees[0].nodes[self.trees[0].root].state
    }

    /// The settings.
    pub fn config(&self) -> &MctsConfig {
        &self.config
    }

    /// The budget of the searches from now on (the tree is kept).
    pub fn set_budget(&mut self, budget: Budget) {
        self.config.budget = budget;
    }

    /// Searches within the budget and returns the most visited root move (`None` if the game is
    /// over).
    pub fn search<E: Playouts<G> + Send>(
        &mut self,
        exec: &mut E,
        game: &G,
    ) -> Result<(Option<G::Move>, SearchStats)> {
        self.search_until(exec, game, &Stop::new())
    }

    /// [`Self::search`], ending early once `stop` is raised: the batch in flight is counted,
    /// no other starts, and the most visited root move answers (the first legal move when
    /// nothing was visited yet).
    pub fn search_until<E: Playouts<G> + Send>(
        &mut self,
        exec: &mut E,
        game: &G,
        stop: &Stop,
    ) -> Result<(Option<G::Move>, SearchStats)> {
        let start = Instant::now();
        let mut stats = SearchStats::default();
        for tree in &mut self.trees {
            tree.settle_root(game);
        }
        if self.trees[0].nodes[self.trees[0].root].outcome != Outcome::Ongoing {
            return Ok((None, stats));
        }
        for tree in &mut self.trees {
            tree.expand(game, tree.root);
        }
        let budget = self.config.budget;
        // `committed`: playouts counted plus those in flight, so no batch is planned past the
        // budget.
        let done = |committed: u64| {
            stop.is_raised()
                || match budget {
                    Budget::Time(t) => start.elapsed() >= t,
                    Budget::Playouts(n) => committed >= n,
                }
        };
        let pool = self.pool.take();
        let result = match &pool {
            Some(pool) => pool.install(|| self.search_loop(game, exec, &mut stats, &done, start)),
            None => self.search_loop(game, exec, &mut stats, &done, start),
        };
        self.pool = pool;
        result?;
        stats.nodes = self.trees.iter().map(|t| t.nodes.len()).sum();
        stats.seconds = start.elapsed().as_secs_f64();
        let best = self.best_move();
        stats.win_rate = self
            .root_moves()
            .into_iter()
            .find(|&(mv, _, _)| Some(mv) == best)
            .map(|(_, _, rate)| rate);
        Ok((best, stats))
    }

    /// Rounds of selection, simulation on `exec` (on its own thread, overlapping the next
    /// selection) and back-up until `done`; a timed search paces its batches from `started`.
    fn search_loop<E: Playouts<G> + Send>(
        &mut self,
        game: &G,
        exec: &mut E,
        stats: &mut SearchStats,
        done: &dyn Fn(u64) -> bool,
        started: Instant,
    ) -> Result<()> {
        let leaf = self.config.leaf.max(1);
        std::thread::scope(|scope| -> Result<()> {
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
            // The batch simulating: its leaves, its playouts, when it was sent.
            let mut in_flight: Option<(Vec<Paths>, u64, Instant)> = None;
            // When the worker last answered: it starts a batch sent earlier only then.
            let mut answered = started;
            loop {
                // Select the next batch while the previous one simulates.
                let committed = stats.playouts + in_flight.as_ref().map_or(0, |f| f.1);
                let in_flight_leaves = in_flight.as_ref().map_or(0, |f| f.1 / leaf as u64);
                let planned = self.planned_batch(committed, started, in_flight_leaves);
                let (next, progressed) = if done(committed) || planned == 0 {
                    (None, false)
                } else {
                    let (pending, roots, known) = self.select_batches(game, planned);
                    stats.playouts += known;
                    if roots.is_empty() {
                        (None, known > 0)
                    } else {
                        let playouts = roots.len() as u64 * leaf as u64;
                        let seed = mix32(self.config.seed ^ mix32(self.batches_run as u32));
                        self.batches_run += 1;
                        to_worker
                            .send((roots, seed))
                            .expect("the simulation worker is alive");
                        (Some((pending, playouts, Instant::now())), true)
                    }
                };
                if let Some((batch, playouts, sent)) = in_flight.take() {
                    let waited = Instant::now();
                    let counts = results.recv().expect("the simulation worker answers")?;
                    stats.wait_seconds += waited.elapsed().as_secs_f64();
                    stats.playouts += counts.iter().map(|c| c.games).sum::<u64>();
                    let now = Instant::now();
                    let took = now.duration_since(sent.max(answered)).as_secs_f64();
                    self.leaf_seconds = Some(took / (playouts / leaf as u64).max(1) as f64);
                    answered = now;
                    self.backpropagate_batches(batch, &counts);
                    stats.batches += 1;
                }
                match next {
                    Some(batch) => in_flight = Some(batch),
                    // A batch of finished games only is progress too; nothing left to select is not.
                    None if !progressed => break,
                    None => {}
                }
                if in_flight.is_none() && done(stats.playouts) {
                    break;
                }
            }
            Ok(())
        })
    }

    /// Every tree selects its share of the batch, in parallel; finished games found on the way
    /// are scored at once. Returns each tree's pending leaves, all leaf states in tree order,
    /// and the games counted without simulating.
    #[allow(clippy::type_complexity)]
    fn select_batches(&mut self, game: &G, per_tree: usize) -> (Vec<Paths>, Vec<G::State>, u64) {
        let selected: Vec<(Selected<G::State>, u64)> = self
            .trees
            .par_iter_mut()
            .map(|tree| tree.select_batch(game, per_tree))
            .collect();
        let mut pending = Vec::with_capacity(selected.len());
        let mut roots = Vec::new();
        let mut known = 0;
        for (s, k) in selected {
            roots.extend(s.roots);
            pending.push(s.pending);
            known += k;
        }
        (pending, roots, known)
    }

    /// Hands each tree its slice of the launch's results.
    fn backpropagate_batches(&mut self, batch: Vec<Paths>, counts: &[WinDrawCounts]) {
        let mut slices = Vec::with_capacity(batch.len());
        let mut rest = counts;
        for pending in &batch {
            let (mine, later) = rest.split_at(pending.len());
            slices.push(mine);
            rest = later;
        }
        self.trees
            .par_iter_mut()
            .zip(batch.into_par_iter().zip(slices))
            .for_each(|(tree, (pending, counts))| {
                for (path, &c) in pending.iter().zip(counts) {
                    tree.backpropagate(path, c);
                }
            });
    }

    /// Leaves each tree selects next: the configured batch, trimmed to what a playout budget has
    /// left after the `committed` playouts (counted or in flight), or to what a time budget
    /// has left after the batch in flight at the measured pace (0: none would end in time).
    fn planned_batch(&self, committed: u64, started: Instant, in_flight_leaves: u64) -> usize {
        let most = self.config.batch.max(1);
        let trees = self.trees.len() as u64;
        match self.config.budget {
            Budget::Playouts(n) => {
                let left = n
                    .saturating_sub(committed)
                    .div_ceil(self.config.leaf.max(1) as u64 * trees);
                (left as usize).clamp(1, most)
            }
            Budget::Time(t) => match self.leaf_seconds {
                // The first batch is small: it times the device (and pays any compiling).
                None => most.min(FIRST_TIMED_BATCH),
                Some(per_leaf) => {
                    let left = t.as_secs_f64()
                        - started.elapsed().as_secs_f64()
                        - per_leaf * in_flight_leaves as f64;
                    // No batch past LONGEST_TIMED_BATCH either: a stop waits for the one in
                    // flight.
                    let left_now = left.min(LONGEST_TIMED_BATCH);
                    let leaves = (left_now / per_leaf / trees as f64).floor();
                    if leaves < 1.0 {
                        0
                    } else {
                        (leaves as usize).min(most)
                    }
                }
            },
        }
    }

    /// The root moves with their visits and win rate for the side to move at the root, summed
    /// over the trees.
    pub fn root_moves(&self) -> Vec<(G::Move, u64, f64)> {
        self.root_totals()
            .into_iter()
            .map(|(mv, visits, score2)| (mv, visits, score2 as f64 / (2.0 * visits.max(1) as f64)))
            .collect()
    }

    /// Each root move with its visits and ×2 score summed over the trees.
    fn root_totals(&self) -> Vec<(G::Move, u64, u64)> {
        let mut totals: Vec<(G::Move, u64, u64)> = Vec::new();
        for tree in &self.trees {
            let root = &tree.nodes[tree.root];
            let children = &tree.nodes[root.first_child..root.first_child + root.child_count];
            if totals.is_empty() {
                totals = children
                    .iter()
                    .map(|n| (n.mv.expect("children have moves"), 0, 0))
                    .collect();
            }
            for (total, n) in totals.iter_mut().zip(children) {
                total.1 += n.visits;
                total.2 += n.score2;
            }
        }
        totals
    }

    /// Visits at the root (completed simulations through it), summed over the trees.
    pub fn root_visits(&self) -> u64 {
        self.trees.iter().map(|t| t.nodes[t.root].visits).sum()
    }

    /// The most visited root move, ties to the better score then the earlier move.
    pub fn best_move(&self) -> Option<G::Move> {
        self.root_totals()
            .into_iter()
            .max_by(|a, b| {
                a.1.cmp(&b.1)
                    .then(a.2.cmp(&b.2))
                    .then(std::cmp::Ordering::Greater)
            })
            .map(|(mv, _, _)| mv)
    }

    /// Moves the root to the child reached by `mv`, keeping its subtree in every tree; a
    /// position not in a tree starts that tree afresh.
    pub fn advance(&mut self, game: &G, mv: G::Move) {
        for tree in &mut self.trees {
            tree.advance(game, mv);
        }
    }
}

impl<G: Game> Tree<G> {
    /// A tree of one node; its outcome is read when a search starts ([`Tree::settle_root`]).
    fn new(state: G::State, config: &MctsConfig) -> Self {
        let root = Node::<G> {
            state,
            mv: None,
            parent: None,
            first_child: 0,
            child_count: 0,
            expanded: false,
            outcome: Outcome::Ongoing,
            visits: 0,
            score2: 0,
            virtual_visits: 0,
        };
        Self {
            nodes: vec![root],
            root: 0,
            leaf: config.leaf.max(1),
            c: config.c,
            moves: Vec::new(),
        }
    }

    /// Reads the outcome of a root not yet expanded (a new tree's, or one a move reached that
    /// the tree never expanded).
    fn settle_root(&mut self, game: &G) {
        let root = &mut self.nodes[self.root];
        if !root.expanded {
            root.outcome = game.outcome(&root.state);
        }
    }

    fn advance(&mut self, game: &G, mv: G::Move) {
        let root = &self.nodes[self.root];
        let child = (root.first_child..root.first_child + root.child_count)
            .find(|&i| self.nodes[i].mv == Some(mv));
        match child {
            Some(child) => self.reroot(child),
            None => {
                let state = game.apply(&self.nodes[self.root].state, mv);
                let (leaf, c) = (self.leaf, self.c);
                *self = Self::new(
                    state,
                    &MctsConfig {
                        leaf,
                        c,
                        ..MctsConfig::default()
                    },
                );
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
        let mut moves = std::mem::take(&mut self.moves);
        moves.clear();
        game.legal_moves(&state, &mut moves);
        for &mv in &moves {
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
        self.moves = moves;
        let count = self.nodes.len() - first;
        let node = &mut self.nodes[index];
        node.first_child = first;
        node.child_count = count;
        node.expanded = true;
    }

    /// Selects up to `count` leaves needing simulations; finished games reached on the way are
    /// scored without simulating (their games are the returned total).
    fn select_batch(&mut self, game: &G, count: usize) -> (Selected<G::State>, u64) {
        let mut selected = Selected {
            pending: Paths::default(),
            roots: Vec::with_capacity(count),
        };
        let (mut finished, mut outcomes) = (Paths::default(), Vec::new());
        let leaf = self.leaf as u64;
        let mut path = Vec::new();
        for _ in 0..count {
            path.clear();
            path.push(self.root);
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
                self.nodes[n].virtual_visits += leaf;
            }
            let outcome = self.nodes[node].outcome;
            if outcome == Outcome::Ongoing {
                selected.roots.push(self.nodes[node].state);
                selected.pending.push(&path);
            } else {
                finished.push(&path);
                outcomes.push(outcome);
            }
        }
        // Known results land after the whole batch is chosen, like the simulated ones: until
        // then their virtual losses keep spreading the batch.
        for (path, &outcome) in finished.iter().zip(&outcomes) {
            self.backpropagate_outcome(path, outcome, leaf);
        }
        (selected, leaf * outcomes.len() as u64)
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
                c.score2 as f64 / (2.0 * n as f64) + self.c * (log_n / n as f64).sqrt()
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
    fn backpropagate(&mut self, path: &[usize], counts: WinDrawCounts) {
        let leaf = self.leaf as u64;
        // The leaf's mover is the one who moved into the leaf: it scores the leaf side's losses.
        let mut score2 = 2 * counts.losses() + counts.draws;
        for &n in path.iter().rev() {
            let node = &mut self.nodes[n];
            node.virtual_visits -= leaf;
            node.visits += counts.games;
            node.score2 += score2;
            score2 = 2 * counts.games - score2;
        }
    }

    /// Backpropagates `games` copies of a known outcome (a finished game at the leaf).
    fn backpropagate_outcome(&mut self, path: &[usize], outcome: Outcome, games: u64) {
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
        self.backpropagate(path, counts);
    }
}

/// Flat Monte Carlo: `k` random games after every root move, in one batch; the move with the most
/// wins minus losses for the side to move wins. `None` if the game is over.
pub fn flat_monte_carlo<G: Game, E: Playouts<G>>(
    exec: &mut E,
    game: &G,
    state: &G::State,
    k: u32,
    seed: u32,
) -> Result<Option<(G::Move, i64)>> {
    Ok(first_best(flat_scores(exec, game, state, k, seed)?))
}

/// Each root move with wins minus losses, for the side to move, over `k` random games after it
/// (one batch, one launch on a GPU).
pub fn flat_scores<G: Game, E: Playouts<G>>(
    exec: &mut E,
    game: &G,
    state: &G::State,
    k: u32,
    seed: u32,
) -> Result<Vec<(G::Move, i64)>> {
    let moves = game.moves(state);
    let children: Vec<G::State> = moves.iter().map(|&m| game.apply(state, m)).collect();
    let counts = exec.playouts(game, &children, k, seed)?;
    // Results are for the side to move after the root move: the root's side scores their losses.
    Ok(moves
        .into_iter()
        .zip(counts)
        .map(|(m, c)| (m, c.losses() as i64 - c.wins as i64))
        .collect())
}

/// The first move with the highest score.
pub fn first_best<M: Copy>(scores: impl IntoIterator<Item = (M, i64)>) -> Option<(M, i64)> {
    scores
        .into_iter()
        .fold(None, |best: Option<(M, i64)>, (m, v)| match best {
            Some((_, bv)) if bv >= v => best,
            _ => Some((m, v)),
        })
}
