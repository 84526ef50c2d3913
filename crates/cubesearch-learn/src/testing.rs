//! Checks for a game's [`TupleGame`] implementation, for its tests.

use crate::game::{TupleGame, ViewWords};

/// Holds `game`'s packed views ([`TupleGame::views`]) of `states`, four at a time, to its cells
/// read through its symmetries: view `s` must show at cell `c` the value of cell
/// `SYMMETRIES[s][c]`, `CELL_BITS` bits a cell, `CELLS_PER_WORD` cells a word. Panics with the
/// first difference.
pub fn check_views<G: TupleGame>(game: &G, states: &[G::State]) {
    let mask = (1u64 << G::CELL_BITS) - 1;
    let mut cells = vec![0u8; G::CELLS];
    for four in states.chunks(4) {
        let lanes: [G::State; 4] = std::array::from_fn(|i| four[i % four.len()]);
        let views = game.views(lanes);
        for (i, state) in lanes.iter().enumerate() {
            game.cells(state, &mut cells);
            for (s, symmetry) in G::SYMMETRIES.iter().enumerate() {
                for (c, &from) in symmetry.iter().enumerate() {
                    let (w, at) = (c / G::CELLS_PER_WORD, c % G::CELLS_PER_WORD);
                    let seen = views.word(s, w)[i] >> (at as u32 * G::CELL_BITS) & mask;
                    assert_eq!(
                        seen, cells[from as usize] as u64,
                        "{}: view {s} shows {seen} at cell {c} of {state:?}, but cell {from} holds {}",
                        G::NAME, cells[from as usize]
                    );
                }
            }
        }
    }
}

/// A bare test game: 16 cells of `BITS` bits on a 4×4 square, no moves.
#[cfg(test)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Cells16Game<const BITS: u32>;

/// A state of [`Cells16Game`]: its cell values.
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Cells16(pub [u8; 16]);

#[cfg(test)]
const SQUARE: [[u8; 16]; 8] = crate::game::square_symmetries::<4, 16>();

#[cfg(test)]
impl<const BITS: u32> cubesearch_core::StochasticGame for Cells16Game<BITS> {
    type State = Cells16;
    type Action = u8;
    const NAME: &'static str = "cells16";
    const ACTIONS: &'static [u8] = &[0];
    fn afterstate(&self, _: &Cells16, _: u8) -> Option<(Cells16, u32)> {
        None
    }
    fn chance_outcomes(&self, after: &Cells16, out: &mut Vec<(Cells16, u32)>) {
        out.push((*after, 1));
    }
    fn sample_chance(&self, after: &Cells16, _: &mut cubesearch_core::rng::XorShift32) -> Cells16 {
        *after
    }
    fn initial(&self, _: &mut cubesearch_core::rng::XorShift32) -> Cells16 {
        Cells16([0; 16])
    }
    fn parse_position(&self, text: &str) -> cubesearch_core::Result<Cells16> {
        Err(cubesearch_core::Error::parse(format!(
            "no positions: {text}"
        )))
    }
    fn format_position(&self, s: &Cells16) -> String {
        format!("{:?}", s.0)
    }
    fn format_action(&self, a: u8) -> String {
        a.to_string()
    }
}

#[cfg(test)]
impl<const BITS: u32> TupleGame for Cells16Game<BITS> {
    const CELLS: usize = 16;
    const CELL_BITS: u32 = BITS;
    const SYMMETRIES: &'static [&'static [u8]] = &[
        &SQUARE[0], &SQUARE[1], &SQUARE[2], &SQUARE[3], &SQUARE[4], &SQUARE[5], &SQUARE[6],
        &SQUARE[7],
    ];
    const CELLS_PER_WORD: usize = 8;
    const MILESTONES: &'static [u32] = &[];
    const SHAPES: &'static [(&'static str, &'static [&'static [u8]])] =
        &[("rows", &[&[0, 1, 2, 3], &[4, 5, 6, 7]])];
    type Views<const N: usize> = [[[u64; N]; 2]; 8];

    fn cells(&self, state: &Cells16, out: &mut [u8]) {
        out.copy_from_slice(&state.0);
    }
    fn views<const N: usize>(&self, states: [Cells16; N]) -> Self::Views<N> {
        crate::game::pack_views(self, states)
    }
    fn progress(&self, state: &Cells16) -> u32 {
        state.0.iter().copied().max().unwrap_or(0) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_views_show_the_symmetric_cells() {
        let mut rng = cubesearch_core::rng::XorShift32::for_worker(3, 0);
        let states: Vec<Cells16> = (0..9)
            .map(|_| Cells16(std::array::from_fn(|_| rng.below(32) as u8)))
            .collect();
        check_views(&Cells16Game::<5>, &states);
        // The eight symmetries are distinct permutations; a quarter turn sends the top-left
        // corner to the top-right one.
        let mut seen = std::collections::HashSet::new();
        for s in SQUARE {
            let mut sorted = s;
            sorted.sort();
            assert_eq!(sorted, std::array::from_fn(|i| i as u8));
            assert!(seen.insert(s));
        }
        assert_eq!((SQUARE[1][0], SQUARE[4][0], SQUARE[4][4]), (3, 3, 7));
    }
}
