//! What an n-tuple network needs of a game: [`TupleBoard`], positions that are a fixed number
//! of small cells, with the board symmetries that share a tuple's weights; [`TupleGame`] is a
//! stochastic game whose states are such boards.
//!
//! A state is read through each symmetry `s` as a *view*: view `s` shows at cell `c` the
//! state's cell `SYMMETRIES[s][c]`. A network looks each tuple shape up in every view, so one
//! table serves all the symmetric places of a pattern. For speed the trainer reads views
//! packed into `u64` words, `CELL_BITS` bits a cell, `CELLS_PER_WORD` cells a word, first cell
//! lowest, several states side by side:
//!
//! ```text
//!   view s, word w, lane i  =  cells w·K .. (w+1)·K of state i seen through s   (K = CELLS_PER_WORD)
//!                              [ cell (w+1)·K−1 | ... | cell w·K+1 | cell w·K ]
//! ```
//!
//! [`pack_views`] makes them from [`TupleBoard::cells`]; a game with a faster way (such as turning
//! and mirroring a packed board with shifts and masks) overrides
//! [`TupleBoard::views`], and `check_views` in the tests holds it to `pack_views`.

use cubesearch_core::StochasticGame;
use std::fmt::Debug;
use std::hash::Hash;

/// The packed views of `N` states side by side (see the module docs).
pub trait ViewWords<const N: usize>: Copy {
    /// Word `w` of view `s`, one lane a state.
    fn word(&self, s: usize, w: usize) -> &[u64; N];
}

impl<const N: usize, const W: usize, const S: usize> ViewWords<N> for [[[u64; N]; W]; S] {
    #[inline(always)]
    fn word(&self, s: usize, w: usize) -> &[u64; N] {
        &self[s][w]
    }
}

/// What an n-tuple network reads of a game's positions (see the module docs): any game whose
/// positions are a fixed number of small cells, one-player with chance ([`TupleGame`]) or
/// two-player.
pub trait TupleBoard: Send + Sync + 'static {
    /// A position.
    type Board: Copy + Eq + Hash + Debug + Send + Sync + 'static;
    /// The game's name: a network, and its weights file, are for one game.
    const GAME: &'static str;
    /// Cells of a position.
    const CELLS: usize;
    /// Bits a cell value takes (values are below `2^CELL_BITS`).
    const CELL_BITS: u32;
    /// The symmetries, identity first: view `s` shows at cell `c` the position's cell
    /// `SYMMETRIES[s][c]`. Each is a permutation of `0..CELLS`.
    const SYMMETRIES: &'static [&'static [u8]];
    /// Cells a packed view word holds (at most `64 / CELL_BITS`).
    const CELLS_PER_WORD: usize;
    /// Named sets of tuple shapes (`train --shapes NAME`), the default first: each a list of
    /// shapes, a shape a list of cells.
    const SHAPES: &'static [(&'static str, &'static [&'static [u8]])];
    /// Progress values worth counting in play statistics ("games reaching ..."), smallest
    /// first.
    const MILESTONES: &'static [u32];

    /// The packed views of `N` positions (`[[[u64; N]; words]; symmetries]` for [`pack_views`]).
    type Views<const N: usize>: ViewWords<N>;

    /// The cell values of `board`, cell 0 first, into `out` (`CELLS` long).
    fn cells(&self, board: &Self::Board, out: &mut [u8]);

    /// The packed views of `boards` (see the module docs): [`pack_views`], or a faster twin.
    fn views<const N: usize>(&self, boards: [Self::Board; N]) -> Self::Views<N>;

    /// How far a game got, a number that never falls (such as the largest value on the board);
    /// reported for every finished game and counted against [`TupleBoard::MILESTONES`].
    fn progress(&self, board: &Self::Board) -> u32;

    /// What a multi-stage network's thresholds compare (see [`crate::NTupleNetwork`]'s stages),
    /// a number that never falls along a game: [`TupleBoard::progress`] unless the game says
    /// otherwise (2048 and 2584: the sum of the two largest tiles, so that a stage can start
    /// once both a 16384 and an 8192 are on the board, as Yeh et al.'s multi-stage TD does).
    fn stage_progress(&self, board: &Self::Board) -> u32 {
        self.progress(board)
    }
}

/// A stochastic game whose states an n-tuple network reads: its states are the network's
/// boards.
pub trait TupleGame: StochasticGame + TupleBoard<Board = <Self as StochasticGame>::State> {}

impl<G> TupleGame for G where G: StochasticGame + TupleBoard<Board = <G as StochasticGame>::State> {}

/// The packed views of `states` built cell by cell from [`TupleBoard::cells`] and
/// [`TupleBoard::SYMMETRIES`]: `W` words a view (`W · CELLS_PER_WORD ≥ CELLS`), `S` views
/// (`S = SYMMETRIES.len()`).
pub fn pack_views<G: TupleBoard, const N: usize, const W: usize, const S: usize>(
    game: &G,
    states: [G::Board; N],
) -> [[[u64; N]; W]; S] {
    debug_assert_eq!(S, G::SYMMETRIES.len());
    debug_assert!(W * G::CELLS_PER_WORD >= G::CELLS);
    let mut views = [[[0u64; N]; W]; S];
    let mut cells = vec![0u8; G::CELLS];
    for (i, state) in states.iter().enumerate() {
        game.cells(state, &mut cells);
        for (view, symmetry) in views.iter_mut().zip(G::SYMMETRIES) {
            for (c, &from) in symmetry.iter().enumerate() {
                let (w, at) = (c / G::CELLS_PER_WORD, c % G::CELLS_PER_WORD);
                view[w][i] |= (cells[from as usize] as u64) << (at as u32 * G::CELL_BITS);
            }
        }
    }
    views
}

/// The 8 symmetries of a `SIDE × SIDE` board whose cells are numbered row by row from the
/// top-left (`CELLS = SIDE²`), in [`TupleBoard::SYMMETRIES`] form: symmetry `s` is `s % 4`
/// clockwise quarter turns, then a left-right mirror when `s ≥ 4`; entry `[s][p]` is where
/// cell `p` goes. A game lists them as `&[&SQUARE[0], …, &SQUARE[7]]` with
/// `const SQUARE: [[u8; 16]; 8] = square_symmetries::<4, 16>();`.
pub const fn square_symmetries<const SIDE: usize, const CELLS: usize>() -> [[u8; CELLS]; 8] {
    assert!(SIDE * SIDE == CELLS && CELLS <= 256);
    let mut out = [[0u8; CELLS]; 8];
    let mut s = 0;
    while s < 8 {
        let mut p = 0;
        while p < CELLS {
            let (mut r, mut c) = (p / SIDE, p % SIDE);
            let mut turns = s % 4;
            while turns > 0 {
                // A clockwise quarter turn: (r, c) → (c, SIDE − 1 − r).
                let nr = c;
                c = SIDE - 1 - r;
                r = nr;
                turns -= 1;
            }
            if s >= 4 {
                c = SIDE - 1 - c;
            }
            out[s][p] = (SIDE * r + c) as u8;
            p += 1;
        }
        s += 1;
    }
    out
}
