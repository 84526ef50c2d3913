//! The split strategy: null-window tests (MTD(f)) whose upper tree, pruned as alpha-beta would,
//! is built on the host and whose frontier the executor searches in batches. Where the upper
//! tree ends and in what order it grows is a [`SplitTree`]: by default every move in canonical
//! order to a fixed ply; a game's own tree (Reversi's exact endgame) orders moves best-first and
//! ends where subtrees suit the executor.

use super::cpu::{alphabeta, SearchOptions};
use super::{Solution, INFINITY};
use cubesearch_core::{Game, Result, SubtreeSearch};
use std::collections::HashMap;

/// Bounds (lower, upper) on the values of positions (with their ply) that earlier tests found:
/// MTD(f)'s memory, without which every test would search the whole tree again.
type Bounds<S> = HashMap<(S, u32), (i32, i32)>;

/// The shape of the split strategy's upper tree.
pub trait SplitTree<G: Game> {
    /// Plies the executor searches below each frontier node.
    fn leaf_depth(&self) -> u32;
    /// Whether `state`, at `ply` below the root, is a frontier node the executor searches (never
    /// the root).
    fn is_frontier(&self, state: &G::State, ply: u32) -> bool;
    /// The moves of `state` at `ply` in the order the tree tries them; none for a leaf the host
    /// scores with [`Game::score`].
    fn moves(&self, game: &G, state: &G::State, ply: u32) -> Vec<G::Move>;
}

/// The plain split: every move in canonical order, the frontier at ply `split`, searched to
/// `depth` in all.
struct PlySplit {
    depth: u32,
    split: u32,
}

impl<G: Game> SplitTree<G> for PlySplit {
    fn leaf_depth(&self) -> u32 {
        self.depth - self.split
    }

    fn is_frontier(&self, _: &G::State, ply: u32) -> bool {
        ply == self.split && ply < self.depth
    }

    fn moves(&self, game: &G, state: &G::State, ply: u32) -> Vec<G::Move> {
        if ply < self.depth {
            game.moves(state)
        } else {
            Vec::new()
        }
    }
}

/// One position of the split strategy's upper tree.
struct TestNode<S> {
    state: S,
    ply: u32,
    /// The test at this node: is its value ≥ `gamma`? (Its children ask 1 − gamma.)
    gamma: i32,
    /// Every child position in the tree's order; the first `expanded` are in `children`.
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
struct NullWindowTest<'g, G: Game, T> {
    game: &'g G,
    tree: &'g T,
    nodes: Vec<TestNode<G::State>>,
    /// Frontier nodes waiting for the executor.
    queue: Vec<usize>,
    /// Positions visited: upper tree and executor.
    visited: u64,
    /// The largest batch handed to the executor.
    widest: usize,
    /// Batches handed to the executor.
    launches: usize,
    bounds: Bounds<G::State>,
}

impl<'g, G: Game, T: SplitTree<G>> NullWindowTest<'g, G, T> {
    /// The test "is `root`'s value ≥ `gamma`?", expected to pass (`expect`) or fail, with the
    /// bounds earlier tests found.
    fn new(
        game: &'g G,
        tree: &'g T,
        root: &G::State,
        (gamma, expect): (i32, bool),
        bounds: Bounds<G::State>,
    ) -> Self {
        let mut test = Self {
            game,
            tree,
            nodes: Vec::new(),
            queue: Vec::new(),
            visited: 0,
            widest: 0,
            launches: 0,
            bounds,
        };
        test.add(*root, 0, gamma, expect);
        test
    }

    /// Node `i`'s value is known: it bounds the position's value from below (it passed) or
    /// above (it failed).
    fn settle(&mut self, i: usize, value: i32) {
        let node = &mut self.nodes[i];
        node.value = Some(value);
        let bound = self
            .bounds
            .entry((node.state, node.ply))
            .or_insert((-INFINITY, INFINITY));
        if value >= node.gamma {
            bound.0 = bound.0.max(value);
        } else {
            bound.1 = bound.1.min(value);
        }
    }

    /// Adds a position expected to pass (`expect`) or fail its test; returns its index.
    fn add(&mut self, state: G::State, ply: u32, gamma: i32, expect: bool) -> usize {
        let index = self.nodes.len();
        let game = self.game;
        // A bound an earlier search found may already decide the test here (not at the root,
        // whose passing child is wanted).
        let known = match self.bounds.get(&(state, ply)) {
            Some(&(lower, _)) if ply > 0 && lower >= gamma => Some(lower),
            Some(&(_, upper)) if ply > 0 && upper < gamma => Some(upper),
            _ => None,
        };
        if let Some(value) = known {
            self.nodes.push(TestNode {
                state,
                ply,
                gamma,
                child_states: Vec::new(),
                children: Vec::new(),
                value: Some(value),
            });
            return index;
        }
        let frontier = ply > 0 && self.tree.is_frontier(&state, ply);
        let child_states: Vec<G::State> = if !frontier {
            let moves = self.tree.moves(game, &state, ply);
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
        let depth = self.tree.leaf_depth();
        let searched = exec.search_windows(self.game, &roots, &windows, depth)?;
        self.visited += searched.nodes;
        for (&i, value) in queue.iter().zip(searched.values) {
            self.settle(i, value);
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
            self.settle(i, best);
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
/// null windows. A first guess comes from a 2-ply host search. Returns the solution (nodes:
/// upper tree plus executor) and how it was split.
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
    let guess = alphabeta(
        game,
        state,
        depth.min(2),
        (-INFINITY, INFINITY),
        &mut SearchOptions::default(),
    );
    let (solution, shape) = solve_split_tree(exec, game, state, &PlySplit { depth, split }, guess)?;
    Ok((solution, SplitShape { split, ..shape }))
}

/// MTD(f) over the upper tree `tree` from the first guess `guess`: null-window tests move the
/// bounds until they meet, and the best move is the first root move (in the tree's order) that
/// passes the test at the exact value. The root must have a move.
pub fn solve_split_tree<G: Game, E: SubtreeSearch<G>, T: SplitTree<G>>(
    exec: &mut E,
    game: &G,
    state: &G::State,
    tree: &T,
    guess: i32,
) -> Result<(Solution<G::Move>, SplitShape)> {
    let mut shape = SplitShape::default();
    let mut visited = 0;
    let (mut lower, mut upper, mut g) = (-INFINITY, INFINITY, guess);
    let mut best = None;
    let mut bounds = Bounds::default();
    while lower < upper {
        // Testing ≥ g expects a pass (g is a guess or a bound just found from above); testing
        // ≥ g + 1 just above a lower bound expects a fail.
        let gamma = if g == lower { g + 1 } else { g };
        let mut test = NullWindowTest::new(game, tree, state, (gamma, gamma == g), bounds);
        let (value, passed) = test.run(exec)?;
        visited += shape.add(&test);
        bounds = std::mem::take(&mut test.bounds);
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
            let mut test = NullWindowTest::new(game, tree, state, (lower, true), bounds);
            let (_, passed) = test.run(exec)?;
            visited += shape.add(&test);
            passed.expect("the root passes the test at its own value")
        }
    };
    let solution = Solution {
        best: Some(tree.moves(game, state, 0)[index]),
        value: lower,
        nodes: Some(visited),
    };
    Ok((solution, shape))
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
    fn add<G: Game, T: SplitTree<G>>(&mut self, test: &NullWindowTest<G, T>) -> u64 {
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
