//! The minimax / alpha-beta pipeline (the seed's study, generic over games).
//!
//! Values are negamax values from the side to move: `Game::score` at leaves (by default +1 win,
//! −1 loss, 0 unknown at the depth cut-off; a game with an evaluation scales finished games
//! above it). Strategies ([`Strategy`], by the names below):
//!
//! | name | where | shape |
//! |---|---|---|
//! | `cpu` | one CPU thread | iterative alpha-beta with the root window narrowing |
//! | `cpu-split` | all CPU cores | each root move searched with a full window on its own thread |
//! | `v1` | GPU | one cube per root move, one unit per second-level move, host picks the best |
//! | `v2` | GPU | v1 over the seed's compact stack: two words of counters a level instead of five |
//! | `v4` | GPU | as v1, and the reduction over root moves on the device: one word comes back |
//! | `frontier` | any executor | the upper plies (at most half the depth) expanded in full until some 10⁵ positions, the distinct ones searched by [`SubtreeSearch`] in one batch inside an aspiration window, the host backing the values up |
//! | `split` | any executor | null-window tests (MTD(f)) whose upper tree of depth s, pruned as alpha-beta would, is built on the host and whose frontier is searched to depth p = d − s by [`SubtreeSearch`] in one batch (Rocki & Suda's split with the pruning kept) |
//!
//! `cubesearch::minimax` shows a search on a game.

use cubesearch_core::{Error, Game, Result, SubtreeSearch, Window};
use cubesearch_kernels::alphabeta::{RootSearch, RootShape};
use std::collections::HashMap;
use std::hash::Hash;
use std::time::Instant;

/// Larger than any score (the device's `INFINITY`).
pub const INFINITY: i32 = 1 << 22;

/// Moves reordered before a node is searched (best first); it must keep every move.
pub type MoveOrder<G> = fn(&G, &<G as Game>::State, &mut [<G as Game>::Move]);

/// A bound or exact value stored for a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

/// A transposition table: value bounds of positions already searched, by remaining depth.
#[derive(Debug)]
pub struct TranspositionTable<S> {
    entries: HashMap<S, (u32, i32, Bound)>,
    capacity: usize,
}

impl<S: Hash + Eq> TranspositionTable<S> {
    /// A table holding at most `capacity` positions (cleared when full).
    pub fn new(capacity: usize) -> Self {
        Self {
            entries: HashMap::with_capacity(capacity.min(1 << 20)),
            capacity,
        }
    }

    /// Forgets every position (keeps the allocation).
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    fn store(&mut self, state: S, depth: u32, value: i32, bound: Bound) {
        if self.entries.len() >= self.capacity {
            self.entries.clear();
        }
        self.entries.insert(state, (depth, value, bound));
    }
}

/// Knobs of the CPU search.
pub struct SearchOptions<'a, G: Game> {
    /// Reorders moves before each node is searched.
    pub order: Option<MoveOrder<G>>,
    /// Remembers values of positions reached again.
    pub table: Option<&'a mut TranspositionTable<G::State>>,
    /// Nodes visited (counted by the search).
    pub nodes: u64,
    /// Stop searching once this instant has passed: the search unwinds at once and sets
    /// [`SearchOptions::aborted`]; its values are then meaningless.
    pub deadline: Option<Instant>,
    /// Set when the deadline cut the search short.
    pub aborted: bool,
}

impl<G: Game> Default for SearchOptions<'_, G> {
    fn default() -> Self {
        Self {
            order: None,
            table: None,
            nodes: 0,
            deadline: None,
            aborted: false,
        }
    }
}

/// Nodes between two looks at the clock.
const CLOCK_EVERY: u64 = 1024;

/// One level of the explicit stack.
struct Frame<S> {
    state: S,
    /// This node's moves are `moves[first..first + count]` of the shared buffer.
    first: usize,
    count: usize,
    next: usize,
    alpha: i32,
    beta: i32,
    alpha_at_entry: i32,
    best: i32,
    depth: u32,
}

/// Negamax with alpha-beta of `state` to `depth` plies in the window (`alpha`, `beta`), written
/// as a loop over an explicit stack (the seed's iterative form).
pub fn alphabeta<G: Game>(
    game: &G,
    state: &G::State,
    depth: u32,
    alpha: i32,
    beta: i32,
    options: &mut SearchOptions<G>,
) -> i32 {
    let mut moves: Vec<G::Move> = Vec::new();
    let mut stack: Vec<Frame<G::State>> = Vec::with_capacity(depth as usize + 1);
    // Enters a node: a value at once (leaf, finished game, table hit) or a new frame.
    let enter = |state: G::State,
                 depth: u32,
                 alpha: i32,
                 beta: i32,
                 moves: &mut Vec<G::Move>,
                 stack: &mut Vec<Frame<G::State>>,
                 options: &mut SearchOptions<G>|
     -> Option<i32> {
        options.nodes += 1;
        if let Some(deadline) = options.deadline {
            if options.aborted
                || (options.nodes.is_multiple_of(CLOCK_EVERY) && Instant::now() >= deadline)
            {
                // Unwind: every node from here on is a leaf of no value, and nothing is stored.
                options.aborted = true;
                return Some(0);
            }
        }
        let (mut alpha, mut beta) = (alpha, beta);
        if let Some(table) = options.table.as_deref() {
            if let Some(&(d, v, bound)) = table.entries.get(&state) {
                if d >= depth {
                    match bound {
                        Bound::Exact => return Some(v),
                        Bound::Lower => alpha = alpha.max(v),
                        Bound::Upper => beta = beta.min(v),
                    }
                    if alpha >= beta {
                        return Some(v);
                    }
                }
            }
        }
        let first = moves.len();
        if depth > 0 {
            game.legal_moves(&state, moves);
        }
        let count = moves.len() - first;
        if count == 0 {
            moves.truncate(first);
            return Some(game.score(&state));
        }
        if let Some(order) = options.order {
            order(game, &state, &mut moves[first..]);
        }
        stack.push(Frame {
            state,
            first,
            count,
            next: 0,
            alpha,
            beta,
            alpha_at_entry: alpha,
            best: -INFINITY,
            depth,
        });
        None
    };
    let mut returned = enter(*state, depth, alpha, beta, &mut moves, &mut stack, options);
    while let Some(top) = stack.last_mut() {
        if let Some(value) = returned.take() {
            let value = -value;
            top.best = top.best.max(value);
            top.alpha = top.alpha.max(value);
        }
        if top.next < top.count && top.alpha < top.beta {
            let mv = moves[top.first + top.next];
            top.next += 1;
            let child = game.apply(&top.state, mv);
            let (d, a, b) = (top.depth - 1, -top.beta, -top.alpha);
            returned = enter(child, d, a, b, &mut moves, &mut stack, options);
        } else {
            let frame = stack.pop().expect("a frame is on the stack");
            moves.truncate(frame.first);
            if let (Some(table), false) = (options.table.as_deref_mut(), options.aborted) {
                let bound = if frame.best <= frame.alpha_at_entry {
                    Bound::Upper
                } else if frame.best >= frame.beta {
                    Bound::Lower
                } else {
                    Bound::Exact
                };
                table.store(frame.state, frame.depth, frame.best, bound);
            }
            returned = Some(frame.best);
        }
    }
    returned.expect("the root returns a value")
}

/// A search result at the root.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution<M> {
    /// The best move (the first of equals in canonical order); `None` when the game is over or
    /// the depth is 0.
    pub best: Option<M>,
    /// The root's negamax value.
    pub value: i32,
    /// Positions visited, where the strategy counts them (every one but v4).
    pub nodes: Option<u64>,
}

impl<M> Solution<M> {
    /// The root taken as it is, when there is nothing to search (the game is over, or the
    /// depth is 0): its score, no move, one node.
    pub fn unsearched<G: Game<Move = M>>(game: &G, state: &G::State) -> Self {
        Solution {
            best: None,
            value: game.score(state),
            nodes: Some(1),
        }
    }
}

/// Best root move on one thread: alpha-beta with the root window narrowing as moves are searched.
pub fn solve_sequential<G: Game>(
    game: &G,
    state: &G::State,
    depth: u32,
    options: &mut SearchOptions<G>,
) -> Solution<G::Move> {
    let moves = game.moves(state);
    if moves.is_empty() || depth == 0 {
        return Solution::unsearched(game, state);
    }
    let mut best = (None, -INFINITY);
    for mv in moves {
        let child = game.apply(state, mv);
        // A null window above the best so far: a move must beat it strictly to replace it.
        let value = -alphabeta(game, &child, depth - 1, -INFINITY, -best.1, options);
        if value > best.1 {
            best = (Some(mv), value);
        }
    }
    Solution {
        best: best.0,
        value: best.1,
        nodes: Some(options.nodes),
    }
}

/// A [`MoveOrder`] for any game: children by their static score, best for the mover first
/// (lowest for the opponent), canonical order among equals. Worth its cost where `Game::score`
/// is a real evaluation and the search is a few plies deep.
pub fn order_by_score<G: Game>(game: &G, state: &G::State, moves: &mut [G::Move]) {
    moves.sort_by_cached_key(|&m| game.score(&game.apply(state, m)));
}

/// What an iterative-deepening search found.
#[derive(Clone, Debug, PartialEq)]
pub struct Deepened<M> {
    /// The result of the deepest search that finished.
    pub solution: Solution<M>,
    /// Its depth (0 when the root has no move).
    pub depth: u32,
}

/// Iterative deepening on one thread: depths 1, 2, … up to `max_depth`, each a root search with
/// the previous iteration's best move tried first and `options` (move order, transposition table)
/// shared by all iterations. With a `deadline`, an iteration that runs past it is dropped and the
/// last finished one answers; no iteration starts once half the time is gone (the next would
/// rarely finish). Depth 1 always finishes, so there is always a move.
pub fn solve_iterative<G: Game>(
    game: &G,
    state: &G::State,
    max_depth: u32,
    deadline: Option<Instant>,
    options: &mut SearchOptions<G>,
) -> Deepened<G::Move> {
    let mut moves = game.moves(state);
    if moves.is_empty() || max_depth == 0 {
        return Deepened {
            solution: Solution::unsearched(game, state),
            depth: 0,
        };
    }
    if let Some(order) = options.order {
        order(game, state, &mut moves);
    }
    let start = Instant::now();
    let mut done: Option<Deepened<G::Move>> = None;
    for depth in 1..=max_depth {
        if let (Some(deadline), Some(_)) = (deadline, &done) {
            let now = Instant::now();
            if now >= deadline || now - start >= (deadline - start) / 2 {
                break;
            }
        }
        // The first iteration always finishes: it is the move of last resort.
        options.deadline = if done.is_some() { deadline } else { None };
        options.aborted = false;
        let mut best = (None, -INFINITY);
        for &mv in &moves {
            let child = game.apply(state, mv);
            let value = -alphabeta(game, &child, depth - 1, -INFINITY, -best.1, options);
            if options.aborted {
                break;
            }
            if value > best.1 {
                best = (Some(mv), value);
            }
        }
        if options.aborted {
            break;
        }
        // The best move leads the next iteration.
        if let Some(b) = best.0 {
            let at = moves.iter().position(|&m| m == b).expect("a root move");
            moves[..=at].rotate_right(1);
        }
        done = Some(Deepened {
            solution: Solution {
                best: best.0,
                value: best.1,
                nodes: Some(options.nodes),
            },
            depth,
        });
    }
    options.deadline = None;
    let mut found = done.expect("depth 1 always finishes");
    found.solution.nodes = Some(options.nodes);
    found
}

/// The CPU baseline on all cores: each root move searched with a full window on its own task.
pub fn solve_root_split<G: Game>(game: &G, state: &G::State, depth: u32) -> Solution<G::Move> {
    use rayon::prelude::*;
    let moves = game.moves(state);
    if moves.is_empty() || depth == 0 {
        return Solution::unsearched(game, state);
    }
    let results: Vec<(i32, u64)> = moves
        .par_iter()
        .map(|&mv| {
            let mut options = SearchOptions::default();
            let v = -alphabeta(
                game,
                &game.apply(state, mv),
                depth - 1,
                -INFINITY,
                INFINITY,
                &mut options,
            );
            (v, options.nodes)
        })
        .collect();
    let (index, value) = first_max(results.iter().map(|r| r.0));
    Solution {
        best: Some(moves[index]),
        value,
        nodes: Some(results.iter().map(|r| r.1).sum()),
    }
}

/// The index and value of the first maximum.
pub fn first_max(values: impl Iterator<Item = i32>) -> (usize, i32) {
    values.enumerate().fold(
        (0, i32::MIN),
        |(bi, bv), (i, v)| if v > bv { (i, v) } else { (bi, bv) },
    )
}

/// Most positions an [`UpperTree`] holds (a few hundred MiB of host memory).
pub const MAX_UPPER_TREE: usize = 1 << 24;

/// The upper plies of one or more searches, built on the host level by level. Its frontier is
/// searched elsewhere (a device), and [`UpperTree::back_up`] finishes the minimax.
pub struct UpperTree<S> {
    states: Vec<S>,
    /// Children of node i: `children[i]`; a frontier or finished node has none.
    children: Vec<std::ops::Range<usize>>,
    /// The nodes whose values come from outside.
    frontier: std::ops::Range<usize>,
    /// Plies expanded.
    pub plies: u32,
}

impl<S: Copy> UpperTree<S> {
    /// Expands every root `plies` plies, or fewer: expansion stops once the frontier holds
    /// `target` positions (after at least one ply) or `max_plies` is reached. Fails, rather
    /// than exhaust memory, once the tree would pass [`MAX_UPPER_TREE`] positions.
    pub fn build<G: Game<State = S>>(
        game: &G,
        roots: &[S],
        max_plies: u32,
        target: usize,
    ) -> Result<Self> {
        let mut states = roots.to_vec();
        let mut children = vec![0..0; roots.len()];
        let mut level = 0..roots.len();
        let mut plies = 0;
        while plies < max_plies && (plies == 0 || level.len() < target) {
            let start = states.len();
            for i in level.clone() {
                if states.len() > MAX_UPPER_TREE {
                    return Err(Error::Unsupported(format!(
                        "the host's part of this search ({plies}+ plies from {} positions) passes {MAX_UPPER_TREE} positions: search less deep, or on a device whose loops are not limited",
                        roots.len()
                    )));
                }
                let first = states.len();
                let parent = states[i];
                states.extend(
                    game.moves(&parent)
                        .into_iter()
                        .map(|m| game.apply(&parent, m)),
                );
                children[i] = first..states.len();
            }
            children.resize(states.len(), 0..0);
            level = start..states.len();
            plies += 1;
        }
        Ok(Self {
            states,
            children,
            frontier: level,
            plies,
        })
    }

    /// Positions in the tree, frontier included.
    pub fn len(&self) -> usize {
        self.states.len()
    }

    /// Whether the tree holds no position.
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// The positions to search further.
    pub fn frontier(&self) -> &[S] {
        &self.states[self.frontier.clone()]
    }

    /// Negamax values of every node, given the frontier's values (in [`UpperTree::frontier`]
    /// order); nodes without children above the frontier are finished games, scored exactly.
    pub fn back_up<G: Game<State = S>>(&self, game: &G, frontier_values: &[i32]) -> Vec<i32> {
        let mut value = vec![0i32; self.states.len()];
        value[self.frontier.clone()].copy_from_slice(frontier_values);
        // Children always come after their parent.
        for i in (0..self.frontier.start).rev() {
            value[i] = if self.children[i].is_empty() {
                game.score(&self.states[i])
            } else {
                self.children[i]
                    .clone()
                    .map(|c| -value[c])
                    .max()
                    .expect("children exist")
            };
        }
        value
    }

    /// The root moves' values (for the side to move at root `r`) from the node values.
    pub fn root_move_values(&self, values: &[i32], r: usize) -> Vec<i32> {
        self.children[r].clone().map(|c| -values[c]).collect()
    }
}

/// One position of the split strategy's upper tree.
struct TestNode<S> {
    state: S,
    ply: u32,
    /// The test at this node: is its value ≥ `gamma`? (Its children ask 1 − gamma.)
    gamma: i32,
    /// Every child position in canonical order; the first `expanded` are in `children`.
    child_states: Vec<S>,
    children: Vec<usize>,
    /// The fail-soft result once known.
    value: Option<i32>,
}

/// One null-window test of the split strategy, "is the root's value ≥ gamma?", as a tree of
/// such tests: a node expected to pass needs one child that fails, so only its first child is
/// expanded; a node expected to fail needs every child to pass, so all are. The nodes at ply
/// `split` are searched by the executor with the window (gamma − 1, gamma) in rounds; a node
/// whose first child did not decide it gets its remaining children in the next round.
struct NullWindowTest<'g, G: Game> {
    game: &'g G,
    nodes: Vec<TestNode<G::State>>,
    depth: u32,
    split: u32,
    /// Frontier nodes waiting for the executor.
    queue: Vec<usize>,
    /// Positions visited: upper tree and executor.
    visited: u64,
    /// The largest batch handed to the executor.
    widest: usize,
    /// Batches handed to the executor.
    launches: usize,
}

impl<'g, G: Game> NullWindowTest<'g, G> {
    /// The test "is `root`'s value ≥ `gamma`?", expected to pass (`expect`) or fail.
    fn new(game: &'g G, root: &G::State, depth: u32, split: u32, gamma: i32, expect: bool) -> Self {
        let mut test = Self {
            game,
            nodes: Vec::new(),
            depth,
            split,
            queue: Vec::new(),
            visited: 0,
            widest: 0,
            launches: 0,
        };
        test.add(*root, 0, gamma, expect);
        test
    }

    /// Adds a position expected to pass (`expect`) or fail its test; returns its index.
    fn add(&mut self, state: G::State, ply: u32, gamma: i32, expect: bool) -> usize {
        let index = self.nodes.len();
        let game = self.game;
        let frontier = ply == self.split && ply < self.depth;
        let child_states: Vec<G::State> = if ply < self.depth && !frontier {
            let moves = game.moves(&state);
            moves.into_iter().map(|m| game.apply(&state, m)).collect()
        } else {
            Vec::new()
        };
        let finished = child_states.is_empty() && !frontier;
        self.nodes.push(TestNode {
            state,
            ply,
            gamma,
            child_states,
            children: Vec::new(),
            value: finished.then(|| game.score(&state)),
        });
        if frontier {
            // The executor searches it (and counts it).
            self.queue.push(index);
            return index;
        }
        self.visited += 1;
        if !finished {
            self.expand(index, if expect { 1 } else { usize::MAX }, !expect);
        }
        index
    }

    /// Expands up to `count` more children of node `i`, each expected to pass (`expect`) or fail.
    fn expand(&mut self, i: usize, count: usize, expect: bool) {
        let node = &self.nodes[i];
        let (first, ply, gamma) = (node.children.len(), node.ply, node.gamma);
        let last = (first.saturating_add(count)).min(node.child_states.len());
        for k in first..last {
            let state = self.nodes[i].child_states[k];
            let child = self.add(state, ply + 1, 1 - gamma, expect);
            self.nodes[i].children.push(child);
        }
    }

    /// Hands the queued frontier to the executor.
    fn search_frontier<E: SubtreeSearch<G>>(&mut self, exec: &mut E) -> Result<()> {
        let queue = std::mem::take(&mut self.queue);
        self.widest = self.widest.max(queue.len());
        self.launches += 1;
        let roots: Vec<G::State> = queue.iter().map(|&i| self.nodes[i].state).collect();
        let windows: Vec<(i32, i32)> = queue
            .iter()
            .map(|&i| (self.nodes[i].gamma - 1, self.nodes[i].gamma))
            .collect();
        let remaining = self.depth - self.split;
        let searched = exec.search_windows(self.game, &roots, &windows, remaining)?;
        self.visited += searched.nodes;
        for (&i, value) in queue.iter().zip(searched.values) {
            self.nodes[i].value = Some(value);
        }
        Ok(())
    }

    /// Node `i`'s result if its children decide it; otherwise expands what it still needs.
    fn resolve(&mut self, i: usize) -> Option<i32> {
        if let Some(value) = self.nodes[i].value {
            return Some(value);
        }
        let mut best = -INFINITY;
        let mut pending = false;
        for k in 0..self.nodes[i].children.len() {
            match self.resolve(self.nodes[i].children[k]) {
                Some(value) => best = best.max(-value),
                None => pending = true,
            }
        }
        if pending {
            return None;
        }
        let node = &self.nodes[i];
        if best >= node.gamma || node.children.len() == node.child_states.len() {
            self.nodes[i].value = Some(best);
            return Some(best);
        }
        // The first child did not pass the node: every other child must now be tried.
        self.expand(i, usize::MAX, true);
        None
    }

    /// Runs rounds until the root is decided; returns its fail-soft value and the first root
    /// child that passed the root (if it did).
    fn run<E: SubtreeSearch<G>>(&mut self, exec: &mut E) -> Result<(i32, Option<usize>)> {
        loop {
            if !self.queue.is_empty() {
                self.search_frontier(exec)?;
            }
            if let Some(value) = self.resolve(0) {
                let gamma = self.nodes[0].gamma;
                let passed = self.nodes[0]
                    .children
                    .iter()
                    .position(|&c| self.nodes[c].value.is_some_and(|v| -v >= gamma));
                return Ok((value, passed));
            }
        }
    }
}

/// The split strategy, built to keep alpha-beta's pruning above the executor (after Rocki &
/// Suda's split, with the upper tree searched as null-window tests, MTD(f)): each test expands
/// only the upper-tree nodes alpha-beta would visit with good move ordering, to ply `s` (grown
/// from the branching factor so that about [`SubtreeSearch::preferred_batch`] frontier positions exist, leaving at
/// least one ply to the executor), and hands the frontier to the executor in one batch with
/// null windows. A first guess comes from a 2-ply host search; tests move the bounds until they
/// meet, and the best move is the first root move that passes the test at the exact value.
/// Returns the solution (nodes: upper tree plus executor) and how it was split.
pub fn solve_split<G: Game, E: SubtreeSearch<G>>(
    exec: &mut E,
    game: &G,
    state: &G::State,
    depth: u32,
) -> Result<(Solution<G::Move>, SplitShape)> {
    let moves = game.moves(state);
    if moves.is_empty() || depth == 0 {
        return Ok((Solution::unsearched(game, state), SplitShape::default()));
    }
    let split = split_depth(moves.len(), depth, exec.preferred_batch());
    let mut shape = SplitShape {
        split,
        ..SplitShape::default()
    };
    let mut visited = 0;
    let guess = alphabeta(
        game,
        state,
        depth.min(2),
        -INFINITY,
        INFINITY,
        &mut SearchOptions::default(),
    );
    let (mut lower, mut upper, mut g) = (-INFINITY, INFINITY, guess);
    let mut best = None;
    while lower < upper {
        // Testing ≥ g expects a pass (g is a guess or a bound just found from above); testing
        // ≥ g + 1 just above a lower bound expects a fail.
        let gamma = if g == lower { g + 1 } else { g };
        let mut test = NullWindowTest::new(game, state, depth, split, gamma, gamma == g);
        let (value, passed) = test.run(exec)?;
        visited += shape.add(&test);
        if value >= gamma {
            lower = value;
            best = passed.map(|k| (gamma, k));
        } else {
            upper = value;
        }
        g = value;
    }
    // The first root move that passes the test at the exact value is the first best move.
    let index = match best {
        Some((gamma, k)) if gamma == lower => k,
        _ => {
            let mut test = NullWindowTest::new(game, state, depth, split, lower, true);
            let (_, passed) = test.run(exec)?;
            visited += shape.add(&test);
            passed.expect("the root passes the test at its own value")
        }
    };
    let solution = Solution {
        best: Some(moves[index]),
        value: lower,
        nodes: Some(visited),
    };
    Ok((solution, shape))
}

/// Frontier positions per [`SubtreeSearch::preferred_batch`] that the frontier strategy aims
/// for: enough subtrees to fill a device many times over, so the longest ones do not leave it
/// idle.
pub const FRONTIER_PER_BATCH: usize = 64;

/// Half the width of the frontier strategy's first window, in evaluation units, around the
/// value the same frontier gives two plies shallower.
pub const ASPIRATION: i32 = 16;

/// The frontier strategy: the upper plies expanded in full on the host, level by level, until
/// the frontier holds about [`FRONTIER_PER_BATCH`] × [`SubtreeSearch::preferred_batch`]
/// positions or half the depth is reached (at least one ply); the distinct frontier positions
/// (transpositions searched once) go to the executor in one batch, and the host backs their
/// fail-soft values up the full-width upper tree. It gives up alpha-beta's pruning in the upper
/// plies for one launch of many independent subtrees, the shape a GPU wants, and wins some of
/// it back with an aspiration window: the frontier is first searched two plies shallower, and
/// the real search runs in ±[`ASPIRATION`] around that value (every frontier node in the root's
/// window, negated on odd plies), again from the bound found in a window four times as wide
/// each time the value falls outside.
/// Returns the solution (nodes: upper tree plus executor) and its shape: the plies expanded,
/// the batches, and the subtrees a batch (`widest`).
pub fn solve_frontier<G: Game, E: SubtreeSearch<G>>(
    exec: &mut E,
    game: &G,
    state: &G::State,
    depth: u32,
) -> Result<(Solution<G::Move>, SplitShape)> {
    let frontier = FRONTIER_PER_BATCH * exec.preferred_batch();
    solve_frontier_with(exec, game, state, depth, frontier, ASPIRATION)
}

/// [`solve_frontier`] with the frontier's size (`frontier` positions, or half the depth) and
/// the first window's half-width (`aspiration`) given.
pub fn solve_frontier_with<G: Game, E: SubtreeSearch<G>>(
    exec: &mut E,
    game: &G,
    state: &G::State,
    depth: u32,
    frontier: usize,
    aspiration: i32,
) -> Result<(Solution<G::Move>, SplitShape)> {
    let moves = game.moves(state);
    if moves.is_empty() || depth == 0 {
        return Ok((Solution::unsearched(game, state), SplitShape::default()));
    }
    let tree = UpperTree::build(
        game,
        std::slice::from_ref(state),
        (depth / 2).max(1),
        frontier,
    )?;
    let (distinct, slot) = distinct(tree.frontier());
    let mut shape = SplitShape {
        split: tree.plies,
        widest: distinct.len(),
        ..SplitShape::default()
    };
    let mut nodes = (tree.len() - tree.frontier().len()) as u64;
    // The node values of the upper tree with the frontier searched `plies` deep, the root in
    // `window`.
    let mut search = |plies: u32, (alpha, beta): Window| -> Result<Vec<i32>> {
        let window = if tree.plies % 2 == 0 {
            (alpha, beta)
        } else {
            (-beta, -alpha)
        };
        let windows = vec![window; distinct.len()];
        let searched = exec.search_windows(game, &distinct, &windows, plies)?;
        nodes += searched.nodes;
        shape.launches += 1;
        let frontier_values: Vec<i32> = slot.iter().map(|&i| searched.values[i]).collect();
        Ok(tree.back_up(game, &frontier_values))
    };
    let below = depth - tree.plies;
    let mut width = aspiration.max(1);
    let mut window = if below >= 2 {
        let guess = search(below - 2, (-INFINITY, INFINITY))?[0];
        (guess - width, guess + width)
    } else {
        (-INFINITY, INFINITY)
    };
    // Fail-soft: a value at or below alpha bounds the true one from above, at or above beta
    // from below (the next window starts there, four times as wide); inside, it is exact, as
    // is every root move's value that equals it.
    let values = loop {
        let values = search(below, window)?;
        width = width.saturating_mul(4);
        match values[0] {
            v if v <= window.0 => window = (v.saturating_sub(width).max(-INFINITY), v + 1),
            v if v >= window.1 => window = (v - 1, v.saturating_add(width).min(INFINITY)),
            _ => break values,
        }
    };
    let (index, value) = first_max(tree.root_move_values(&values, 0).into_iter());
    let solution = Solution {
        best: Some(moves[index]),
        value,
        nodes: Some(nodes),
    };
    Ok((solution, shape))
}

/// The distinct positions of `states` in order of first appearance, and for each state its
/// position's index among them.
fn distinct<S: Copy + Eq + Hash>(states: &[S]) -> (Vec<S>, Vec<usize>) {
    let mut seen: HashMap<S, usize> = HashMap::with_capacity(states.len());
    let mut distinct = Vec::new();
    let slot = states
        .iter()
        .map(|&s| {
            *seen.entry(s).or_insert_with(|| {
                distinct.push(s);
                distinct.len() - 1
            })
        })
        .collect();
    (distinct, slot)
}

/// How a split or frontier search ran.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SplitShape {
    /// The split ply s (the plies the host expanded).
    pub split: u32,
    /// Null-window tests run (split).
    pub tests: usize,
    /// Batches handed to the executor over all tests.
    pub launches: usize,
    /// The largest batch.
    pub widest: usize,
}

impl SplitShape {
    /// Counts one finished test in; returns the positions it visited.
    fn add<G: Game>(&mut self, test: &NullWindowTest<G>) -> u64 {
        self.tests += 1;
        self.launches += test.launches;
        self.widest = self.widest.max(test.widest);
        test.visited
    }
}

/// The split ply: an even s < depth (both of a test's node kinds then sit at the frontier in
/// equal numbers, b^(s/2) each) with b^(s/2) nearest the executor's preferred batch in ratio.
fn split_depth(branching: usize, depth: u32, target: usize) -> u32 {
    let b = branching.max(2) as f64;
    let half = ((target.max(2) as f64).ln() / b.ln()).round().max(1.0) as u32;
    (2 * half).clamp(1, depth.saturating_sub(1).max(1))
}

/// A minimax strategy (see the module docs for what each does).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// `cpu`: one CPU thread, the root window narrowing.
    Cpu,
    /// `cpu-split`: every root move on its own CPU task, full windows.
    CpuSplit,
    /// `v1`: one cube per root move, one unit per second-level move.
    V1,
    /// `v2`: v1 over the seed's compact stack.
    V2,
    /// `v4`: v1 with the reduction over root moves on the device.
    V4,
    /// `split`: MTD(f) null-window tests over a pruned host tree, the frontier in one batch.
    Split,
    /// `frontier`: the upper plies in full on the host, distinct subtrees in one batch.
    Frontier,
}

impl Strategy {
    /// Every strategy, in the order the module docs list them.
    pub const ALL: [Strategy; 7] = [
        Strategy::Cpu,
        Strategy::CpuSplit,
        Strategy::V1,
        Strategy::V2,
        Strategy::V4,
        Strategy::Split,
        Strategy::Frontier,
    ];

    /// The name `FromStr` reads and `Display` writes: `cpu`, `cpu-split`, `v1`, …
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Cpu => "cpu",
            Strategy::CpuSplit => "cpu-split",
            Strategy::V1 => "v1",
            Strategy::V2 => "v2",
            Strategy::V4 => "v4",
            Strategy::Split => "split",
            Strategy::Frontier => "frontier",
        }
    }

    /// The seed's root-search shape of v1, v2 and v4 (`None` for the others).
    pub fn root_shape(self) -> Option<RootShape> {
        match self {
            Strategy::V1 => Some(RootShape::V1),
            Strategy::V2 => Some(RootShape::V2),
            Strategy::V4 => Some(RootShape::V4),
            _ => None,
        }
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Strategy {
    type Err = Error;

    /// A strategy by its name; the error lists every name.
    fn from_str(text: &str) -> Result<Self> {
        Strategy::ALL
            .into_iter()
            .find(|s| s.name() == text)
            .ok_or_else(|| {
                let names: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
                let (last, rest) = names.split_last().expect("strategies exist");
                Error::parse(format!(
                    "unknown strategy '{text}': {} or {last}",
                    rest.join(", ")
                ))
            })
    }
}

/// The GPU strategy a search gets unless it names one: `split` for games scored only as won,
/// drawn or lost (`MAX_SCORE` 1: MTD(f)'s null-window tests settle them in one or two batches,
/// keeping alpha-beta's pruning), `frontier` for games with a graded evaluation (where MTD(f)
/// needs many tests and its device subtrees lack move ordering; at depth 8 on the seed's
/// 8×8 board game with an evaluation the frontier strategy is hundreds of times faster,
/// docs/BENCHMARKS.md).
pub fn default_gpu_strategy<G: cubesearch_kernels::GpuGame>() -> Strategy {
    if G::MAX_SCORE <= 1 {
        Strategy::Split
    } else {
        Strategy::Frontier
    }
}

/// The seed's v1 / v2 / v4 root searches ([`Strategy::root_shape`]): one cube per root move,
/// one unit per reply. GPU executors run them; the CPU executor refuses them.
pub trait RootSearcher<G: cubesearch_kernels::GpuGame> {
    /// The best root move's index in `game.moves(root)` order and the root's value, searched to
    /// `depth` (at least 2) in `shape`.
    fn root_search(
        &mut self,
        game: &G,
        root: &G::State,
        depth: u32,
        shape: RootShape,
    ) -> Result<RootSearch>;
}

/// Bytes of stack one unit of the GPU search holds for a subtree of `depth` plies: per level the
/// position (`words` u32) and five counters, or two packed words (`packed`, v2). Bounded by the
/// depth, never by the tree.
pub fn stack_bytes(depth: u32, words: usize, packed: bool) -> usize {
    depth as usize * (words + if packed { 2 } else { 5 }) * 4
}

/// A solved root with how it was searched.
#[derive(Clone, Debug)]
pub struct Solved<M> {
    /// Best move and value.
    pub solution: Solution<M>,
    /// Units the device ran (GPU strategies).
    pub units: Option<usize>,
    /// Device memory for the search stacks, in bytes (GPU strategies).
    pub stack_memory: Option<usize>,
    /// How the split or frontier strategy ran.
    pub split: Option<SplitShape>,
}

/// Searches `state` to `depth` by `strategy` (see the module docs) on `exec`: any executor that
/// runs subtree searches (split, frontier) and the seed's root searches (v1, v2, v4; the CPU
/// executor refuses them). The CPU strategies use no executor.
pub fn solve<G, E>(
    exec: &mut E,
    game: &G,
    state: &G::State,
    depth: u32,
    strategy: Strategy,
) -> Result<Solved<G::Move>>
where
    G: cubesearch_kernels::GpuGame,
    E: SubtreeSearch<G> + RootSearcher<G>,
{
    let plain = |solution| Solved {
        solution,
        units: None,
        stack_memory: None,
        split: None,
    };
    let moves = game.moves(state);
    if moves.is_empty() || depth == 0 {
        return Ok(plain(Solution::unsearched(game, state)));
    }
    match strategy {
        Strategy::Cpu => Ok(plain(solve_sequential(
            game,
            state,
            depth,
            &mut SearchOptions::default(),
        ))),
        Strategy::CpuSplit => Ok(plain(solve_root_split(game, state, depth))),
        Strategy::V1 | Strategy::V2 | Strategy::V4 => {
            if depth < 2 {
                return Ok(plain(solve_root_split(game, state, depth)));
            }
            let shape = strategy.root_shape().expect("v1, v2 and v4 have a shape");
            let found = exec.root_search(game, state, depth, shape)?;
            let replies: usize = moves
                .iter()
                .map(|&m| game.moves(&game.apply(state, m)).len())
                .sum();
            let per_unit = stack_bytes(depth - 2, G::STATE_WORDS, shape == RootShape::V2);
            Ok(Solved {
                solution: Solution {
                    best: Some(moves[found.best as usize]),
                    value: found.value,
                    nodes: found.nodes,
                },
                units: Some(replies),
                stack_memory: Some(replies * per_unit),
                split: None,
            })
        }
        Strategy::Split | Strategy::Frontier => {
            let (solution, shape) = if strategy == Strategy::Frontier {
                solve_frontier(exec, game, state, depth)?
            } else {
                solve_split(exec, game, state, depth)?
            };
            let per_unit = stack_bytes(depth - shape.split, G::STATE_WORDS, false);
            Ok(Solved {
                solution,
                units: Some(shape.widest),
                stack_memory: Some(shape.widest * per_unit),
                split: Some(shape),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{distinct, Strategy};

    #[test]
    fn strategies_read_back_their_names_and_an_unknown_one_lists_them_all() {
        for strategy in Strategy::ALL {
            assert_eq!(strategy.name().parse::<Strategy>().unwrap(), strategy);
            assert_eq!(strategy.to_string(), strategy.name());
        }
        let err = "v3".parse::<Strategy>().unwrap_err().to_string();
        assert_eq!(
            err,
            "unknown strategy 'v3': cpu, cpu-split, v1, v2, v4, split or frontier"
        );
    }

    #[test]
    fn distinct_keeps_first_appearances_and_maps_every_state() {
        let (unique, slot) = distinct(&[7, 3, 7, 9, 3, 7]);
        assert_eq!(unique, vec![7, 3, 9]);
        assert_eq!(slot, vec![0, 1, 0, 2, 1, 0]);
    }
}
