//! 2584 and 2048 as n-tuple networks read them: 16 cells (row by row from the top-left) holding
//! tile indices, the square's 8 symmetries, and views made by turning and mirroring the packed
//! board with shifts and masks ([`Board::symmetric_views`]): half a board a view word.

use super::{Board, BoardOf, HalfLanes, Sliding, TileRule};
use cubesearch_learn::{square_symmetries, TupleGame};

const SQUARE: [[u8; 16]; 8] = square_symmetries::<4, 16>();

impl<R: TileRule> TupleGame for Sliding<R> {
    const CELLS: usize = 16;
    const CELL_BITS: u32 = R::BITS;
    const SYMMETRIES: &'static [&'static [u8]] = &[
        &SQUARE[0], &SQUARE[1], &SQUARE[2], &SQUARE[3], &SQUARE[4], &SQUARE[5], &SQUARE[6],
        &SQUARE[7],
    ];
    const CELLS_PER_WORD: usize = 8;
    const MILESTONES: &'static [u32] = R::MILESTONES;
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
}
