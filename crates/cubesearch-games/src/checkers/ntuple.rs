//! Checkers as an n-tuple network reads it ([`TupleBoard`]): the 32 dark squares as cells from
//! the side to move's seat (cell `c` is standard square `c + 1` with Black to move, `32 − c`
//! with White: the mover's men start on cells 0–11 and move toward 31), each empty (0), the
//! mover's man (1) or king (2), the other side's man (3) or king (4). No symmetry keeps the
//! board's dark squares and the mover's direction, so every shape is looked up once. Stages by
//! pieces captured.
//!
//! The shapes (`6tuple`), 6 cells each: every 2-row × 3-square window (rows numbered from the
//! mover's back rank, each row's 4 squares left to right, windows at squares 0–2 and 1–3), and
//! each back rank with the 2 squares in front of its double corner.

use super::board::GEOMETRY;
use super::{Checkers, CheckersState, Side};
use cubesearch_core::Game;
use cubesearch_learn::selfplay::TwoPlayerTupleGame;
use cubesearch_learn::{pack_views, TupleBoard};

const SIX: &[&[u8]] = &[
    &[0, 1, 2, 4, 5, 6],
    &[1, 2, 3, 5, 6, 7],
    &[4, 5, 6, 8, 9, 10],
    &[5, 6, 7, 9, 10, 11],
    &[8, 9, 10, 12, 13, 14],
    &[9, 10, 11, 13, 14, 15],
    &[12, 13, 14, 16, 17, 18],
    &[13, 14, 15, 17, 18, 19],
    &[16, 17, 18, 20, 21, 22],
    &[17, 18, 19, 21, 22, 23],
    &[20, 21, 22, 24, 25, 26],
    &[21, 22, 23, 25, 26, 27],
    &[24, 25, 26, 28, 29, 30],
    &[25, 26, 27, 29, 30, 31],
    &[0, 1, 2, 3, 4, 5],
    &[26, 27, 28, 29, 30, 31],
];

impl TupleBoard for Checkers {
    type Board = CheckersState;
    const GAME: &'static str = <Self as Game>::NAME;
    const CELLS: usize = 32;
    const CELL_BITS: u32 = 3;
    const SYMMETRIES: &'static [&'static [u8]] = &[&[
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
        25, 26, 27, 28, 29, 30, 31,
    ]];
    const CELLS_PER_WORD: usize = 21;
    const SHAPES: &'static [(&'static str, &'static [&'static [u8]])] = &[("6tuple", SIX)];
    const MILESTONES: &'static [u32] = &[];
    type Views<const N: usize> = [[[u64; N]; 2]; 1];

    fn cells(&self, state: &CheckersState, out: &mut [u8]) {
        let (mine, theirs) = state.sides();
        let white = state.side() == Side::White;
        for (c, cell) in out.iter_mut().enumerate() {
            let number = if white { 32 - c } else { c + 1 };
            let bit = 1u32 << GEOMETRY.index[number - 1];
            let king = u8::from(state.kings & bit != 0);
            *cell = if mine & bit != 0 {
                1 + king
            } else if theirs & bit != 0 {
                3 + king
            } else {
                0
            };
        }
    }

    fn views<const N: usize>(&self, states: [CheckersState; N]) -> Self::Views<N> {
        pack_views(self, states)
    }

    /// Pieces captured so far, which never fall.
    fn progress(&self, state: &CheckersState) -> u32 {
        24 - (state.white | state.black).count_ones()
    }
}

impl TwoPlayerTupleGame for Checkers {
    /// A stage every 4 captures, 5 in all.
    const STAGES: &'static [u32] = &[4, 8, 12, 16];
}

/// Score units a unit of the network's value (a won game is 1) is worth (`alphabeta:weights=W`).
pub const SCORE_PER_UNIT: f32 = 500.0;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkers::Rules;
    use cubesearch_core::rng::XorShift32;
    use cubesearch_learn::selfplay::{learn_game, SelfPlay};
    use cubesearch_learn::testing::check_views;
    use cubesearch_learn::NTupleNetwork;
    use cubesearch_search::testing::random_positions;

    #[test]
    fn views_are_the_cells_and_the_mover_sits_at_cell_0() {
        let game = Checkers::new(Rules::American);
        let mut rng = XorShift32::for_worker(2, 0);
        check_views(&game, &random_positions(&game, 60, 40, 2));
        // At the start both sides see the same board from their seat: their 12 men on cells
        // 0–11, the other side's on 20–31.
        let mut cells = [0u8; 32];
        let start = game.initial();
        for state in [start, game.apply(&start, game.moves(&start)[0])] {
            game.cells(&state, &mut cells);
            let mine = cells.iter().filter(|&&v| v == 1).count();
            assert_eq!(mine, 12);
        }
        game.cells(&start, &mut cells);
        assert!(cells[..12].iter().all(|&v| v == 1), "{cells:?}");
        assert!(cells[20..].iter().all(|&v| v == 3), "{cells:?}");
        let net = NTupleNetwork::staged::<Checkers>(
            &cubesearch_learn::default_shapes::<Checkers>(),
            Checkers::STAGES,
        )
        .unwrap();
        for _ in 0..20 {
            learn_game(&game, &net, start, SelfPlay::default(), &mut rng);
        }
        assert!(net.value(&game, start).is_finite());
    }
}
