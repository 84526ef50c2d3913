//! Reversi as an n-tuple network reads it ([`TupleBoard`]): 64 cells, a1 = 0 … h8 = 63, each
//! empty (0), the side to move's (1) or the other side's (2), in the board's 8 symmetries;
//! stages by the discs on the board, as Logistello's and Edax's pattern evaluations have.
//!
//! The shapes (`8tuple`), 8 cells each, every one looked up in all 8 symmetries:
//!
//! | shape | cells |
//! |---|---|
//! | edge | rank 1 |
//! | rank 2, rank 3, rank 4 | the ranks in from the edge (by symmetry, every rank and file) |
//! | main diagonal | a1–h8 |
//! | short diagonal and corner | b1–h7 and a1 |
//! | corner 2 × 4 | a1–d1, a2–d2 |
//! | corner 3 × 3 but c3 | a1–c1, a2–c2, a3–b3 |
//!
//! And `edax`, Edax's patterns of several sizes (up to 10 cells), for a network fitted to
//! labelled positions (`train reversi --fit DATA --shapes edax`; the trainers that play games
//! take shapes of one size): corner 3 × 3, corner 2 × 5, the edge with its two X-squares,
//! ranks 2 to 4, and the diagonals of 8 down to 4 cells.

use super::{final_score, is_finished, Board, Reversi};
use cubesearch_core::Game;
#[cfg(doc)]
use cubesearch_learn::pack_views;
use cubesearch_learn::selfplay::TwoPlayerTupleGame;
use cubesearch_learn::{square_symmetries, TupleBoard};

/// Score units a disc of the network's value is worth (`alphabeta:weights=W`): alpha-beta's
/// scores are integers, and a 64th of a disc keeps the network's order of nearly equal
/// positions.
pub const SCORE_PER_DISC: f32 = 64.0;

const SQUARE: [[u8; 64]; 8] = square_symmetries::<8, 64>();

/// Edax's Othello patterns (Logistello's, with the corner 2 × 5 and the short diagonals):
/// corner 3 × 3, corner 2 × 5, the edge with its two X-squares, ranks 2 to 4, and the
/// diagonals of 8 down to 4 cells.
const EDAX: &[&[u8]] = &[
    &[0, 1, 2, 8, 9, 10, 16, 17, 18],
    &[0, 1, 2, 3, 4, 8, 9, 10, 11, 12],
    &[0, 1, 2, 3, 4, 5, 6, 7, 9, 14],
    &[8, 9, 10, 11, 12, 13, 14, 15],
    &[16, 17, 18, 19, 20, 21, 22, 23],
    &[24, 25, 26, 27, 28, 29, 30, 31],
    &[0, 9, 18, 27, 36, 45, 54, 63],
    &[1, 10, 19, 28, 37, 46, 55],
    &[2, 11, 20, 29, 38, 47],
    &[3, 12, 21, 30, 39],
    &[3, 10, 17, 24],
];

const EIGHT: &[&[u8]] = &[
    &[0, 1, 2, 3, 4, 5, 6, 7],
    &[8, 9, 10, 11, 12, 13, 14, 15],
    &[16, 17, 18, 19, 20, 21, 22, 23],
    &[24, 25, 26, 27, 28, 29, 30, 31],
    &[0, 9, 18, 27, 36, 45, 54, 63],
    &[0, 1, 10, 19, 28, 37, 46, 55],
    &[0, 1, 2, 3, 8, 9, 10, 11],
    &[0, 1, 2, 8, 9, 10, 16, 17],
];

impl TupleBoard for Reversi {
    type Board = Board;
    const GAME: &'static str = <Self as Game>::NAME;
    const CELLS: usize = 64;
    const CELL_BITS: u32 = 2;
    const SYMMETRIES: &'static [&'static [u8]] = &[
        &SQUARE[0], &SQUARE[1], &SQUARE[2], &SQUARE[3], &SQUARE[4], &SQUARE[5], &SQUARE[6],
        &SQUARE[7],
    ];
    const CELLS_PER_WORD: usize = 32;
    const SHAPES: &'static [(&'static str, &'static [&'static [u8]])] =
        &[("8tuple", EIGHT), ("edax", EDAX)];
    const MILESTONES: &'static [u32] = &[];
    type Views<const N: usize> = [[[u64; N]; 2]; 8];

    fn cells(&self, board: &Board, out: &mut [u8]) {
        for (square, cell) in out.iter_mut().enumerate() {
            let bit = 1u64 << square;
            *cell = if board.player & bit != 0 {
                1
            } else if board.opponent & bit != 0 {
                2
            } else {
                0
            };
        }
    }

    /// The 8 views by bitboard turns and mirrors, the two colours' bits interleaved into
    /// 2-bit cells: a few dozen operations a view where [`pack_views`] takes one a cell.
    #[inline(always)]
    fn views<const N: usize>(&self, boards: [Board; N]) -> Self::Views<N> {
        let mut views = [[[0u64; N]; 2]; 8];
        for (i, board) in boards.iter().enumerate() {
            for (s, view) in views.iter_mut().enumerate() {
                let (player, opponent) = (seen_in(s, board.player), seen_in(s, board.opponent));
                for (w, word) in view.iter_mut().enumerate() {
                    let half = |bits: u64| (bits >> (32 * w)) as u32;
                    word[i] = spread(half(player)) | spread(half(opponent)) << 1;
                }
            }
        }
        views
    }

    /// The discs on the board, which never fall.
    fn progress(&self, board: &Board) -> u32 {
        (board.player | board.opponent).count_ones()
    }
}

/// `bits` as view `s` shows them: view `s` holds at square `c` the board's square
/// `SYMMETRIES[s][c]`, which is the board transposed (s = 1, 3, 5, 7), then flipped top to
/// bottom (s = 1, 2, 6, 7), then mirrored left to right (s = 2, 3, 4, 7).
#[inline(always)]
fn seen_in(s: usize, mut bits: u64) -> u64 {
    if matches!(s, 1 | 3 | 5 | 7) {
        bits = transposed(bits);
    }
    if matches!(s, 1 | 2 | 6 | 7) {
        bits = bits.swap_bytes();
    }
    if matches!(s, 2 | 3 | 4 | 7) {
        bits = bits.reverse_bits().swap_bytes();
    }
    bits
}

/// The board mirrored in its a1–h8 diagonal: square (rank r, file f) to (f, r).
#[inline(always)]
fn transposed(mut x: u64) -> u64 {
    let t = 0x0f0f_0f0f_0000_0000 & (x ^ (x << 28));
    x ^= t ^ (t >> 28);
    let t = 0x3333_0000_3333_0000 & (x ^ (x << 14));
    x ^= t ^ (t >> 14);
    let t = 0x5500_5500_5500_5500 & (x ^ (x << 7));
    x ^ t ^ (t >> 7)
}

/// Bit `i` of `x` at bit `2i`.
#[inline(always)]
fn spread(x: u32) -> u64 {
    let mut x = u64::from(x);
    x = (x | x << 16) & 0x0000_ffff_0000_ffff;
    x = (x | x << 8) & 0x00ff_00ff_00ff_00ff;
    x = (x | x << 4) & 0x0f0f_0f0f_0f0f_0f0f;
    x = (x | x << 2) & 0x3333_3333_3333_3333;
    (x | x << 1) & 0x5555_5555_5555_5555
}

impl TwoPlayerTupleGame for Reversi {
    /// Stages every 8 discs from 16: 7 in all.
    const STAGES: &'static [u32] = &[16, 24, 32, 40, 48, 56];

    /// The final disc difference for the side to move.
    fn final_value(&self, board: &Board) -> f32 {
        debug_assert!(is_finished(board));
        final_score(board) as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cubesearch_core::rng::XorShift32;
    use cubesearch_learn::selfplay::{best_move, learn_game, SelfPlay};
    use cubesearch_learn::testing::check_views;
    use cubesearch_learn::NTupleNetwork;
    use cubesearch_search::testing::random_positions;

    fn positions() -> Vec<Board> {
        random_positions(&Reversi, 40, 50, 5)
    }

    #[test]
    fn views_are_the_cells_in_each_symmetry() {
        check_views(&Reversi, &positions());
    }

    /// The network's value of a position is the same in all 8 symmetries of the board: every
    /// shape is looked up in every symmetry.
    #[test]
    fn a_position_and_its_mirror_are_worth_the_same() {
        let net = NTupleNetwork::staged::<Reversi>(
            &cubesearch_learn::default_shapes::<Reversi>(),
            Reversi::STAGES,
        )
        .unwrap();
        let mut rng = XorShift32::for_worker(1, 0);
        for _ in 0..200 {
            learn_game(
                &Reversi,
                &net,
                Reversi.initial(),
                SelfPlay::default(),
                &mut rng,
            );
        }
        let mirror = |b: &Board| Board {
            player: b.player.swap_bytes(),
            opponent: b.opponent.swap_bytes(),
            to_move: b.to_move,
        };
        for b in positions() {
            let (v, w) = (net.value(&Reversi, b), net.value(&Reversi, mirror(&b)));
            assert!((v - w).abs() <= 1e-3 * v.abs().max(1.0), "{v} against {w}");
        }
        assert!(net.value(&Reversi, Reversi.initial()).is_finite());
        assert!(best_move(&Reversi, &net, &Reversi.initial()).is_some());
    }
}
