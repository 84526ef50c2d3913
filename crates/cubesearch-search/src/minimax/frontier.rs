//! The frontier strategy: the upper plies expanded in full, the distinct frontier searched in one
//! batch inside an aspiration window.

use super::split::SplitShape;
use super::upper::UpperTree;
use super::{first_max, Solution, INFINITY};
use cubesearch_core::{Game, Result, SubtreeSearch, Window};
use std::collections::HashMap;
use std::hash::Hash;

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
    let options = FrontierOptions {
        frontier: FRONTIER_PER_BATCH * exec.preferred_batch(),
        aspiration: ASPIRATION,
    };
    solve_frontier_with(exec, game, state, depth, options)
}

/// The frontier strategy's two sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrontierOptions {
    /// Frontier positions to aim for (the upper tree stops at half the depth regardless).
    pub frontier: usize,
    /// Half the width of the first window.
    pub aspiration: i32,
}

/// [`solve_frontier`] with the frontier's size and the first window's half-width given.
pub fn solve_frontier_with<G: Game, E: SubtreeSearch<G>>(
    exec: &mut E,
    game: &G,
    state: &G::State,
    depth: u32,
    options: FrontierOptions,
) -> Result<(Solution<G::Move>, SplitShape)> {
    let FrontierOptions {
        frontier,
        aspiration,
    } = options;
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
pub(super) fn distinct<S: Copy + Eq + Hash>(states: &[S]) -> (Vec<S>, Vec<usize>) {
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
