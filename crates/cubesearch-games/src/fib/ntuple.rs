//! 2584 and 2048 as n-tuple networks read them: 16 cells (row by row from the top-left) holding
//! tile indices, the square's 8 symmetries, and views made by turning and mirroring the packed
//! board with shifts and masks ([`Board::symmetric_views`]): a whole 2048 board a view word,
//! half a 2584 board.

use super::board::view_cells_per_word;
use super::{Board, BoardOf, HalfLanes, Sliding, TileRule};
use cubesearch_core::StochasticGame;
use cubesearch_learn::{square_symmetries, TupleBoard};

const SQUARE: [[u8; 16]; 8] = square_symmetries::<4, 16>();

/// The seed's three 4-tuples (outer row, inner row, 2×2 corner square): the default.
const SEED: &[&[u8]] = &[&[0, 1, 2, 3], &[4, 5, 6, 7], &[0, 1, 4, 5]];

/// Four 6-tuples (2×3 rectangles and 3+3 steps along the edge, after Jaśkowski's and Yeh et
/// al.'s 2048 players; TDL2048+'s `4x6patt`): 16⁶ weights each for 2048, 256 MiB in all.
const SIX: &[&[u8]] = &[
    &[0, 1, 2, 3, 4, 5],
    &[4, 5, 6, 7, 8, 9],
    &[0, 1, 2, 4, 5, 6],
    &[4, 5, 6, 8, 9, 10],
];

/// Eight 6-tuples (Matsuzaki's, TDL2048+'s `8x6patt`): 512 MiB for 2048. At equal time on one
/// H200 from an optimistic start it played better than `4x6patt` on half the games
/// (docs/BENCHMARKS.md, row "`--shapes 8x6patt` against 4x6patt").
const EIGHT_SIX: &[&[u8]] = &[
    &[0, 1, 2, 4, 5, 6],
    &[4, 5, 6, 7, 8, 9],
    &[0, 1, 2, 3, 4, 5],
    &[2, 3, 4, 5, 6, 9],
    &[0, 1, 2, 5, 9, 10],
    &[3, 4, 5, 6, 7, 8],
    &[1, 3, 4, 5, 6, 7],
    &[0, 1, 4, 8, 9, 10],
];

/// The seed's three 4-tuples, the default network of both games.
pub fn seed_shapes() -> Vec<Vec<u8>> {
    SEED.iter().map(|s| s.to_vec()).collect()
}

/// The four 6-tuples (`6tuple`).
pub fn six_tuple_shapes() -> Vec<Vec<u8>> {
    SIX.iter().map(|s| s.to_vec()).collect()
}

impl<R: TileRule> TupleBoard for Sliding<R> {
    type Board = <Self as StochasticGame>::State;
    const GAME: &'static str = <Self as StochasticGame>::NAME;
    const CELLS: usize = 16;
    const CELL_BITS: u32 = R::BITS;
    const SYMMETRIES: &'static [&'static [u8]] = &[
        &SQUARE[0], &SQUARE[1], &SQUARE[2], &SQUARE[3], &SQUARE[4], &SQUARE[5], &SQUARE[6],
        &SQUARE[7],
    ];
    const CELLS_PER_WORD: usize = view_cells_per_word(R::BITS);
    const MILESTONES: &'static [u32] = R::MILESTONES;
    const SHAPES: &'static [(&'static str, &'static [&'static [u8]])] = &[
        ("seed", SEED),
        ("4tuple", SEED),
        ("6tuple", SIX),
        ("4x6patt", SIX),
        ("8x6patt", EIGHT_SIX),
    ];
    type Views<const N: usize> = [HalfLanes<N>; 8];

    fn cells(&self, state: &BoardOf<R>, out: &mut [u8]) {
        out.copy_from_slice(&state.cells(R::BITS));
    }

    #[inline(always)]
    fn views<const N: usize>(&self, states: [BoardOf<R>; N]) -> [HalfLanes<N>; 8] {
        Board::symmetric_views(states, R::BITS)
    }

    fn progress(&self, state: &BoardOf<R>) -> u32 {
        self.max_tile(*state)
    }

    /// The sum of the two largest tiles, which never falls (a tile leaves only into a larger
    /// one): Yeh et al.'s stages are `--stages 16384,24576` (a 16384, or two 8192s about to
    /// make one; then a 16384 and an 8192).
    fn stage_progress(&self, state: &BoardOf<R>) -> u32 {
        self.two_largest_sum(*state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fib::{symmetry_cell, Fib, Pow2};
    use cubesearch_core::rng::XorShift32;
    use cubesearch_core::StochasticGame;

    fn views_match<R: TileRule>() {
        let game = Sliding::<R>::new();
        let mut rng = XorShift32::for_worker(11, 0);
        let mut states = Vec::new();
        for _ in 0..40 {
            let cells = std::array::from_fn(|_| rng.below(1 << R::BITS) as u8);
            states.push(Board::from_cells(&cells, R::BITS));
        }
        states.push(game.initial(&mut rng));
        cubesearch_learn::testing::check_views(&game, &states);
    }

    #[test]
    fn packed_views_show_the_symmetric_cells() {
        views_match::<Fib>();
        views_match::<Pow2>();
        for (s, symmetry) in SQUARE.iter().enumerate() {
            for (p, &to) in symmetry.iter().enumerate() {
                assert_eq!(to as usize, symmetry_cell(s, p));
            }
        }
    }

    /// Stages compare the sum of the two largest tiles: Yeh et al.'s three stages are
    /// `16384,24576` (a 16384, then a 16384 and an 8192), and the sum never falls in a game.
    #[test]
    fn stages_follow_the_two_largest_tiles() {
        use cubesearch_learn::NTupleNetwork;
        let game = Sliding::<Pow2>::new();
        let net = NTupleNetwork::staged::<Sliding<Pow2>>(&seed_shapes(), &[16384, 24576]).unwrap();
        // Tile indices: 13 is 8192, 14 is 16384.
        for (tiles, sum, stage) in [
            (&[1, 13, 12][..], 8192 + 4096, 0),
            (&[13, 13, 1], 16384, 1),
            (&[14, 1, 1], 16384 + 2, 1),
            (&[14, 12, 12, 12], 16384 + 4096, 1),
            (&[14, 13, 1], 24576, 2),
            (&[15, 1], 32768 + 2, 2),
            (&[], 0, 0),
        ] {
            let mut cells = [0u8; 16];
            cells[..tiles.len()].copy_from_slice(tiles);
            let board = Board::from_cells(&cells, Pow2::BITS);
            assert_eq!(game.stage_progress(&board), sum, "{tiles:?}");
            assert_eq!(net.stage(&game, &board), stage, "{tiles:?}");
        }
        // That the sum never falls along a game is checked over the random games of
        // `fib::tests::random_games_match_the_value_reference`.
    }

    #[test]
    fn named_shapes_are_the_game_s_own() {
        use cubesearch_learn::{default_shapes, shapes_for};
        type G = Sliding<Pow2>;
        assert_eq!(default_shapes::<G>(), seed_shapes());
        assert_eq!(shapes_for::<G>("6tuple").unwrap(), six_tuple_shapes());
        assert_eq!(shapes_for::<G>("4x6patt").unwrap(), six_tuple_shapes());
        let eight = shapes_for::<G>("8x6patt").unwrap();
        assert_eq!(eight.len(), 8);
        assert!(eight
            .iter()
            .all(|s| s.len() == 6 && s.iter().all(|&c| c < 16)));
        assert_eq!(eight[7], vec![0, 1, 4, 8, 9, 10]);
        assert_eq!(shapes_for::<G>(" 4tuple ").unwrap(), seed_shapes());
        assert_eq!(shapes_for::<G>("0,1;2").unwrap(), vec![vec![0, 1], vec![2]]);
        let err = shapes_for::<G>("7tuple").unwrap_err().to_string();
        assert!(err.contains("seed, 4tuple, 6tuple"), "{err}");
    }
}
