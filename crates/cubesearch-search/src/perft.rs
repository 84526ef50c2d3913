//! Perft: counting move paths, the yardstick every move generator is held to.
//!
//! On the CPU ([`perft`], [`perft_many`]) and through any executor: the pipeline ([`perft_split`],
//! [`perft_divide`]) expands the first plies on the host ([`expand`]) until there is enough
//! parallel work, hands the subtrees to an executor, and adds the counts up.

use cubesearch_core::{Game, Perft, Result};
use rayon::prelude::*;

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

/// perft(`depth`) of `state` on one thread, the last ply counted in bulk. One move buffer serves
/// the whole walk: each level appends its moves and truncates them away on return.
pub fn perft<G: Game>(game: &G, state: &G::State, depth: u32) -> u64 {
    perft_with(game, state, depth, &mut Vec::new())
}

fn perft_with<G: Game>(game: &G, state: &G::State, depth: u32, moves: &mut Vec<G::Move>) -> u64 {
    if depth == 0 {
        return 1;
    }
    let start = moves.len();
    game.legal_moves(state, moves);
    let count = moves.len() - start;
    let nodes = if count == 0 {
        G::PERFT_TERMINAL_LEAF
    } else if depth == 1 {
        count as u64
    } else {
        (start..start + count)
            .map(|i| {
                let child = game.apply(state, moves[i]);
                perft_with(game, &child, depth - 1, moves)
            })
            .sum()
    };
    moves.truncate(start);
    nodes
}

/// The positions `depth` plies below `roots`, one per move path, in canonical order, with the
/// leaves perft counts for games that end above that depth (`G::PERFT_TERMINAL_LEAF` each).
/// Each ply is expanded on all cores (rayon), in chunks whose results keep their order.
pub fn expand<G: Game>(game: &G, roots: &[G::State], depth: u32) -> (Vec<G::State>, u64) {
    /// Positions one task expands.
    const CHUNK: usize = 1 << 11;
    let mut frontier = roots.to_vec();
    let mut terminal = 0;
    for _ in 0..depth {
        let parts: Vec<(Vec<G::State>, u64)> = frontier
            .par_chunks(CHUNK)
            .map(|chunk| {
                let mut moves = Vec::new();
                let mut next = Vec::with_capacity(chunk.len() * 8);
                let mut ended = 0;
                for s in chunk {
                    moves.clear();
                    game.legal_moves(s, &mut moves);
                    if moves.is_empty() {
                        ended += G::PERFT_TERMINAL_LEAF;
                    }
                    next.extend(moves.iter().map(|&m| game.apply(s, m)));
                }
                (next, ended)
            })
            .collect();
        terminal += parts.iter().map(|(_, ended)| ended).sum::<u64>();
        frontier = parts.into_iter().flat_map(|(next, _)| next).collect();
    }
    (frontier, terminal)
}

/// perft of every root on all cores (rayon), the roots split between threads.
pub fn perft_many<G: Game>(game: &G, roots: &[G::State], depth: u32) -> Vec<u64> {
    roots.par_iter().map(|r| perft(game, r, depth)).collect()
}
