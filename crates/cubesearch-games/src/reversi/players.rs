//! The seed's computer players (seed 003, "Easy AI" and "Medium AI") as pure move choices: a
//! position and a random generator in, a move out. The `Player` wrappers are in
//! `seed_player.rs`.
//!
//! Both score a placement by the discs it *flips* (the seed's `capture_potential_pieces_cpu`
//! returns the captured discs; the placed disc is counted apart), and both break ties the seed's
//! way: reservoir sampling over the best moves in ascending square order (a1, b1, …, h8), the
//! `k`-th of them replacing the choice when `rng.below(k) == 0`. With no legal placement they
//! pass.

use super::board::{Board, Square};
use super::movegen::{flips, legal_moves, place};
use super::ReversiMove;
use cubesearch_core::rng::XorShift32;

/// Which of the seed's players.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// One ply: the most flips.
    Easy,
    /// Three plies: own flips − the opponent's best reply.
    Medium,
}

/// The value the seed's `predict_next_move_cpu` gives a side that has no placement while there
/// are still plies to look at (its `maxScore` starts at −100 and no move raises it).
pub const NO_PLACEMENT: i32 = -100;

/// How many plies the medium player looks at (the seed's `STEPS_THINK_AHEAD`).
pub const MEDIUM_PLIES: u32 = 3;

/// Every legal placement of `board` with the discs it flips, in ascending square order.
pub fn flip_counts(board: &Board) -> impl Iterator<Item = (Square, u32)> + '_ {
    let mut moves = legal_moves(board);
    std::iter::from_fn(move || {
        if moves == 0 {
            return None;
        }
        let square = moves.trailing_zeros() as Square;
        moves &= moves - 1;
        Some((square, flips(board, square).count_ones()))
    })
}

/// The seed's tie-break: among `scored` (in order), a uniformly drawn one of those whose score is
/// the maximum, by reservoir sampling; `Pass` if `scored` is empty.
pub fn reservoir_best(
    scored: impl IntoIterator<Item = (Square, i32)>,
    rng: &mut XorShift32,
) -> ReversiMove {
    let scored: Vec<(Square, i32)> = scored.into_iter().collect();
    let Some(best) = scored.iter().map(|&(_, s)| s).max() else {
        return ReversiMove::Pass;
    };
    let mut chosen = ReversiMove::Pass;
    let mut seen = 0;
    for &(square, score) in &scored {
        if score == best {
            seen += 1;
            if rng.below(seen) == 0 {
                chosen = ReversiMove::Place(square);
            }
        }
    }
    chosen
}

/// The easy player's move: one ply, the placement that flips the most discs, ties drawn
/// uniformly (reservoir sampling); `Pass` when no placement is legal.
pub fn easy_move(board: &Board, rng: &mut XorShift32) -> ReversiMove {
    reservoir_best(flip_counts(board).map(|(sq, n)| (sq, n as i32)), rng)
}

/// The seed's `predict_next_move_cpu(board, side to move, plies)`: the best, for the side to
/// move, of (its flips − the same value for the opponent one ply shorter); 0 with no plies left;
/// [`NO_PLACEMENT`] when plies remain but the side to move cannot place a disc.
pub fn predict(board: &Board, plies: u32) -> i32 {
    if plies == 0 {
        return 0;
    }
    flip_counts(board)
        .map(|(square, n)| n as i32 - predict(&place(board, square), plies - 1))
        .max()
        .unwrap_or(NO_PLACEMENT)
}

/// The medium player's value of placing on `square` (legal): the flips minus the opponent's
/// [`predict`] two plies deep.
pub fn medium_value(board: &Board, square: Square) -> i32 {
    flips(board, square).count_ones() as i32 - predict(&place(board, square), MEDIUM_PLIES - 1)
}

/// The medium player's move, read from the seed's sequential code (Figures 9 and 10):
///
/// * each legal placement `m` scores `flips(m) − P(after m, 2)`, where
/// * `P(b, k)` is 0 for `k = 0`, and otherwise the maximum over the placements `r` of the side
///   to move in `b` of `flips(r) − P(after r, k − 1)`, or −100 when that side has none.
///
/// So a move scores own flips − (opponent's flips − own best flips after it), a 3-ply negamax
/// of flip counts, which is "own flips − opponent's best reply". A side that must pass (or a game
/// that ends) inside the horizon counts −100 for that side, as `maxScore = -100` does in the
/// sequential code; the seed's CUDA version uses 0 there instead (`if (max == -1000) max = 0`),
/// and we follow the sequential one, the reference its Table 1 measures first. The pass itself is
/// not searched: the seed's recursion simply finds no playable square. Ties are drawn uniformly
/// by reservoir sampling, as for the easy player; `Pass` when no placement is legal.
pub fn medium_move(board: &Board, rng: &mut XorShift32) -> ReversiMove {
    let scored: Vec<(Square, i32)> = flip_counts(board)
        .map(|(square, _)| (square, medium_value(board, square)))
        .collect();
    reservoir_best(scored, rng)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reversi::board::bit;

    #[test]
    fn the_start_has_four_single_flips() {
        let counts: Vec<_> = flip_counts(&Board::start()).collect();
        assert_eq!(counts, vec![(19, 1), (26, 1), (37, 1), (44, 1)]);
    }

    #[test]
    fn no_placement_is_a_pass() {
        // Black alone on a1, White on h8: nobody can flip anything.
        let board = Board {
            player: bit(0),
            opponent: bit(63),
            to_move: crate::reversi::Colour::Black,
        };
        let mut rng = XorShift32::for_worker(1, 0);
        assert_eq!(easy_move(&board, &mut rng), ReversiMove::Pass);
        assert_eq!(medium_move(&board, &mut rng), ReversiMove::Pass);
        assert_eq!(predict(&board, 2), NO_PLACEMENT);
        assert_eq!(predict(&board, 0), 0);
    }
}
