//! Perft on the CPU: counting move paths, the yardstick every move generator is held to.

use cubesearch_core::Game;
use rayon::prelude::*;

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
    const CHUNK: usize = 2048;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nim::{Nim, NimState};

    /// perft on Nim has a closed form at depth 1 (objects on the board) and, for one heap of n,
    /// perft(n, d) = Σ_k perft(n − k, d − 1): compositions of at most n into d positive parts.
    #[test]
    fn nim_single_heap_counts_compositions() {
        let s = NimState::new(&[5]).unwrap();
        assert_eq!(perft(&Nim, &s, 1), 5);
        // Ordered ways to remove ≤ 5 objects in exactly 2 positive takes: Σ_{a=1}^{4} (5 − a) = 10.
        assert_eq!(perft(&Nim, &s, 2), 10);
        // Exactly 3 positive parts summing to ≤ 5: C(5, 3) = 10.
        assert_eq!(perft(&Nim, &s, 3), 10);
    }

    #[test]
    fn expand_then_sum_equals_perft() {
        let s = NimState::seed_board(3).unwrap();
        for depth in 1..=4 {
            for split in 0..=depth {
                let (frontier, terminal) = expand(&Nim, &[s], split);
                let total: u64 = perft_many(&Nim, &frontier, depth - split)
                    .iter()
                    .sum::<u64>()
                    + terminal;
                assert_eq!(total, perft(&Nim, &s, depth), "depth {depth} split {split}");
            }
        }
    }
}
