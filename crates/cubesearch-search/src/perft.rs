//! The perft pipeline: expand the first plies on the host until there is enough parallel work,
//! hand the subtrees to an executor, and add the counts up (per root move for `--divide`).

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

/// Subtrees wanted per launch: enough to fill a large GPU or all CPU cores.
const TARGET_SUBTREES: usize = 1 << 16;

/// perft(`depth`) of `root` through `exec`, splitting below each root move until about
/// [`TARGET_SUBTREES`] subtrees exist.
pub fn perft_divide<G: Game, E: Perft<G>>(
    exec: &mut E,
    game: &G,
    root: &G::State,
    depth: u32,
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
    // Expand one ply at a time while the frontier is small and plies remain for the executor.
    let children: Vec<G::State> = moves.iter().map(|&m| game.apply(root, m)).collect();
    let mut split = 0;
    let mut width = children.len();
    while split + 1 < depth && width < TARGET_SUBTREES {
        let (frontier, _) = expand(game, &children[0], split + 1);
        split += 1;
        width = frontier.len().max(1) * children.len();
    }
    let mut all = Vec::new();
    let mut owners = Vec::new();
    let mut terminal = vec![0u64; children.len()];
    for (i, child) in children.iter().enumerate() {
        let (frontier, leaves) = expand(game, child, split);
        terminal[i] = leaves;
        owners.extend(std::iter::repeat_n(i, frontier.len()));
        all.extend(frontier);
    }
    let counts = exec.perft(game, &all, depth - 1 - split)?;
    let mut per_move = terminal;
    for (owner, count) in owners.into_iter().zip(counts) {
        per_move[owner] += count;
    }
    Ok(PerftResult {
        nodes: per_move.iter().sum(),
        divide: moves.into_iter().zip(per_move).collect(),
    })
}
