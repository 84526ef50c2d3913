//! Alpha-beta on the CPU: iterative (an explicit stack), with a move-ordering hook and a
//! transposition table; on one thread, deepening, or each root move on a thread of its own.

use super::{first_max, Solution, INFINITY};
use cubesearch_core::{Game, Stop, Window};
use std::collections::HashMap;
use std::hash::Hash;
use std::time::Instant;

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
    /// Stop searching once this is raised (or its deadline passes): the search unwinds at
    /// once and sets [`SearchOptions::aborted`]; its values are then meaningless.
    pub stop: Option<Stop>,
    /// Set when the stop cut the search short.
    pub aborted: bool,
}

impl<G: Game> Default for SearchOptions<'_, G> {
    fn default() -> Self {
        Self {
            order: None,
            table: None,
            nodes: 0,
            stop: None,
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

/// Negamax with alpha-beta of `state` to `depth` plies in `window` (alpha, beta), written
/// as a loop over an explicit stack (the seed's iterative form).
pub fn alphabeta<G: Game>(
    game: &G,
    state: &G::State,
    depth: u32,
    window: Window,
    options: &mut SearchOptions<G>,
) -> i32 {
    let (alpha, beta) = window;
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
        if let Some(stop) = &options.stop {
            if options.aborted || (options.nodes.is_multiple_of(CLOCK_EVERY) && stop.is_raised()) {
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
        let value = -alphabeta(game, &child, depth - 1, (-INFINITY, -best.1), options);
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
/// shared by all iterations. Once `stop` is raised or its deadline passes, the iteration in
/// progress is dropped and the last finished one answers; no iteration starts once half the
/// time to the deadline is gone (the next would rarely finish). Depth 1 always finishes, so
/// there is always a move.
pub fn solve_iterative<G: Game>(
    game: &G,
    state: &G::State,
    max_depth: u32,
    stop: &Stop,
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
        if done.is_some() {
            let half_gone = stop.deadline().is_some_and(|d| {
                Instant::now().saturating_duration_since(start) >= (d - start) / 2
            });
            if stop.is_raised() || half_gone {
                break;
            }
        }
        // The first iteration always finishes: it is the move of last resort.
        options.stop = done.is_some().then(|| stop.clone());
        options.aborted = false;
        let mut best = (None, -INFINITY);
        for &mv in &moves {
            let child = game.apply(state, mv);
            let value = -alphabeta(game, &child, depth - 1, (-INFINITY, -best.1), options);
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
    options.stop = None;
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
                (-INFINITY, INFINITY),
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
