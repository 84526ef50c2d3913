//! The perft pipeline: per root move, expand the first plies on the host until there is enough
//! parallel work, hand the subtrees to an executor, and add the counts up.
//!
//! ```
//! use cubesearch_core::{Backend, Game};
//! use cubesearch_games::reversi::Reversi;
//! use cubesearch_search::{perft::perft_divide, Executor};
//!
//! let (mut exec, _) = Executor::new(Backend::Auto)?;
//! let result = perft_divide(&mut exec, &Reversi, &Reversi.initial(), 4, |_, _| {})?;
//! assert_eq!(result.nodes, 244); // docs/RULES.md's table
//! assert_eq!(result.divide.len(), 4);
//! # Ok::<(), cubesearch_core::Error>(())
//! ```

use cubesearch_core::{Game, Perft, Result};
use cubesearch_games::perft::expand;

/// perft of one position, with the count under each root move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerftResult<M> {
    /// Move paths of the full depth.
    pub nodes: u64,
    /// Per root move, in canonical order.
    pub divide: Vec<(M, u64)>,
}

/// perft(`depth`) of `root` through `exec`, one launch per root move; `progress(done, total)` is
/// called after each.
pub fn perft_divide<G: Game, E: Perft<G>>(
    exec: &mut E,
    game: &G,
    root: &G::State,
    depth: u32,
    mut progress: impl FnMut(usize, usize),
) -> Result<PerftResult<G::Move>> {
    if depth == 0 {
        return Ok(PerftResult {
            nodes: 1,
            divide: Vec::new(),
        });
    }
    let moves = game.moves(root);
    if moves.is_empty() {
        return Ok(PerftResult {
            nodes: G::PERFT_TERMINAL_LEAF,
            divide: Vec::new(),
        });
    }
    let mut divide = Vec::with_capacity(moves.len());
    for (i, &mv) in moves.iter().enumerate() {
        let nodes = perft_split(exec, game, &game.apply(root, mv), depth - 1)?;
        divide.push((mv, nodes));
        progress(i + 1, moves.len());
    }
    Ok(PerftResult {
        nodes: divide.iter().map(|(_, n)| n).sum(),
        divide,
    })
}

/// perft(`depth`) of `state`: plies are expanded on the host while fewer subtrees exist than the
/// executor's [`Perft::preferred_roots`], then the executor counts the rest.
pub fn perft_split<G: Game, E: Perft<G>>(
    exec: &mut E,
    game: &G,
    state: &G::State,
    depth: u32,
) -> Result<u64> {
    let mut frontier = vec![*state];
    let mut leaves = 0;
    let mut remaining = depth;
    let target = exec.preferred_roots();
    while remaining > 1 && !frontier.is_empty() && frontier.len() < target {
        let (next, terminal) = expand(game, &frontier, 1);
        frontier = next;
        leaves += terminal;
        remaining -= 1;
    }
    Ok(leaves + exec.perft(game, &frontier, remaining)?.iter().sum::<u64>())
}
