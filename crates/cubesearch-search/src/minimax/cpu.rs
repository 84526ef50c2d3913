//! Alpha-beta on the CPU: iterative (an explicit stack), with a move-ordering hook and a
//! transposition table; on one thread, deepening, or each root move on a thread of its own.

use super::{first_max, Solution, INFINITY};
use cubesearch_core::{Game, Stop, Window};
use std::hash::{BuildHasher, Hash};
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

/// What the table keeps of a position: its value bound at a remaining depth.
#[derive(Clone, Copy, Debug)]
struct Entry<S> {
    state: S,
    depth: u32,
    value: i32,
    bound: Bound,
}

/// A transposition table: value bounds of positions already searched, by remaining depth. A
/// fixed array of slots, one position a slot, the latest stored kept.
#[derive(Debug)]
pub struct TranspositionTable<S> {
    slots: Vec<Option<Entry<S>>>,
    /// `64 − log2(slots)`: a position's slot is the top bits of its hash.
    shift: u32,
}

impl<S: Hash + Eq + Copy> TranspositionTable<S> {
    /// A table of `capacity` positions, rounded up to a power of two (none for 0).
    pub fn new(capacity: usize) -> Self {
        let slots = if capacity == 0 {
            0
        } else {
            capacity.next_power_of_two()
        };
        Self {
            slots: vec![None; slots],
            shift: 64 - slots.max(1).trailing_zeros(),
        }
    }

    /// Forgets every position (keeps the allocation).
    pub fn clear(&mut self) {
        self.slots.fill(None);
    }

    fn slot(&self, state: &S) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let hash = foldhash::fast::FixedState::with_seed(0).hash_one(state);
        // A table of one slot shifts by 64, which `checked_shr` refuses: slot 0.
        Some(hash.checked_shr(self.shift).unwrap_or(0) as usize)
    }

    fn get(&self, state: &S) -> Option<&Entry<S>> {
        let entry = self.slots[self.slot(state)?].as_ref()?;
        (entry.state == *state).then_some(entry)
    }

    fn store(&mut self, entry: Entry<S>) {
        if let Some(slot) = self.slot(&entry.state) {
            self.slots[slot] = Some(entry);
        }
    }
}

/// Knobs of the CPU search.
pub struct SearchOptions<'a, G: Game> {
    /// Reorders moves before a node with at least two plies below it is searched (a node one
    /// ply above the leaves scores every child it searches anyway: ordering them first would
    /// score them twice).
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
    /// Cuts a node early where a shallower search says the deep one would cut ([`ProbCut`]);
    /// `None`: every value is the exact minimax value.
    pub probcut: Option<ProbCut>,
}

impl<G: Game> Default for SearchOptions<'_, G> {
    fn default() -> Self {
        Self {
            order: None,
            table: None,
            nodes: 0,
            stop: None,
            aborted: false,
            probcut: None,
        }
    }
}

/// Nodes with at least this many plies below them are tried by [`ProbCut`].
pub const PROBCUT_DEPTH: u32 = 3;
/// How much shallower [`ProbCut`]'s search is than the node's.
pub const PROBCUT_REDUCTION: u32 = 2;
/// How many standard deviations of the deep-minus-shallow values [`ProbCut::fit`]'s margin is.
const PROBCUT_DEVIATIONS: f64 = 1.5;

/// Buro's ProbCut: a node with [`PROBCUT_DEPTH`] plies or more below it is first searched
/// [`PROBCUT_REDUCTION`] plies shallower with a null window `margin` beyond its own: where
/// that value clears beta by the margin (or falls below alpha by it), the deep search would
/// very likely cut too, and the node returns beta (alpha) at once. The margin is a multiple of
/// the spread between the deep and the shallow values ([`ProbCut::fit`]): the evaluation's own
/// errors decide how bold the cut may be. It trades exactness for depth: a player reaches
/// deeper in its time (BENCHMARKS has the figures).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProbCut {
    /// How far beyond the window, in score units, the shallow value must fall.
    pub margin: i32,
}

impl ProbCut {
    /// The margin for `game`'s evaluation, measured on `positions`: 1.5 (`PROBCUT_DEVIATIONS`)
    /// times the root mean square of the deep values minus the shallow ones, depths
    /// [`PROBCUT_DEPTH`] to [`PROBCUT_DEPTH`] + 2 against [`PROBCUT_REDUCTION`] fewer. `None`
    /// when no position is unfinished.
    pub fn fit<G: Game>(game: &G, positions: &[G::State]) -> Option<Self> {
        let mut squares = 0.0;
        let mut count = 0u32;
        for state in positions.iter().filter(|s| !game.moves(s).is_empty()) {
            for depth in PROBCUT_DEPTH..PROBCUT_DEPTH + 3 {
                let value = |d| {
                    let mut options = SearchOptions::default();
                    f64::from(alphabeta(
                        game,
                        state,
                        d,
                        (-INFINITY, INFINITY),
                        &mut options,
                    ))
                };
                let gap = value(depth) - value(depth - PROBCUT_REDUCTION);
                squares += gap * gap;
                count += 1;
            }
        }
        (count > 0).then(|| ProbCut {
            margin: (PROBCUT_DEVIATIONS * (squares / f64::from(count)).sqrt()).round() as i32,
        })
    }

    /// The node's value if the shallow search cuts it.
    fn cut<G: Game>(
        self,
        game: &G,
        state: &G::State,
        depth: u32,
        (alpha, beta): Window,
        options: &mut SearchOptions<G>,
    ) -> Option<i32> {
        let shallow = depth - PROBCUT_REDUCTION;
        let high = beta.saturating_add(self.margin);
        if high < INFINITY && alphabeta(game, state, shallow, (high - 1, high), options) >= high {
            return Some(beta);
        }
        let low = alpha.saturating_sub(self.margin);
        if low > -INFINITY && alphabeta(game, state, shallow, (low, low + 1), options) <= low {
            return Some(alpha);
        }
        None
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
        if depth == 0 {
            // A leaf: its score (the table keeps no leaves, and its hash would cost more).
            return Some(game.score(&state));
        }
        let (mut alpha, mut beta) = (alpha, beta);
        if let Some(entry) = options.table.as_deref().and_then(|t| t.get(&state)) {
            if entry.depth >= depth {
                let v = entry.value;
                match entry.bound {
                    Bound::Exact => return Some(v),
                    Bound::Lower => alpha = alpha.max(v),
                    Bound::Upper => beta = beta.min(v),
                }
                if alpha >= beta {
                    return Some(v);
                }
            }
        }
        if let Some(probcut) = options.probcut.filter(|_| depth >= PROBCUT_DEPTH) {
            if let Some(value) = probcut.cut(game, &state, depth, (alpha, beta), options) {
                return Some(value);
            }
        }
        let first = moves.len();
        game.legal_moves(&state, moves);
        let count = moves.len() - first;
        if count == 0 {
            moves.truncate(first);
            return Some(game.score(&state));
        }
        if let (Some(order), true) = (options.order, depth >= 2) {
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
                table.store(Entry {
                    state: frame.state,
                    depth: frame.depth,
                    value: frame.best,
                    bound,
                });
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
