//! The exact endgame with an executor's help: the host grows the null-window tests of the
//! split strategy (MTD(f), [`solve_split_tree`]) in the solver's move order, and hands every
//! node of at most [`DeviceOptions::leaf_empties`] empties, in batches, to the executor's
//! subtree search run to the end of the game (on a GPU the device's negamax: canonical order,
//! no table). Every leaf the executor reaches is a finished game, so the values are exact.

use super::{midgame, moves, order, sort_depth, Solved, Window, MIDGAME_WIDE};
use crate::reversi::board::{Board, Square};
use crate::reversi::eval::WIN_SCALE;
use crate::reversi::{Reversi, ReversiMove};
use cubesearch_core::{Game, Result, SubtreeSearch};
use cubesearch_search::minimax::{solve_split_tree, SplitShape, SplitTree};

/// How [`solve_on`] divides the work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceOptions {
    /// Nodes of at most this many empties go to the executor.
    pub leaf_empties: u32,
}

impl Default for DeviceOptions {
    fn default() -> Self {
        Self { leaf_empties: 10 }
    }
}

/// The upper tree: moves in the solver's order, ending at `leaf_empties`.
struct EndgameTree {
    leaf_empties: u32,
}

impl SplitTree<Reversi> for EndgameTree {
    fn leaf_depth(&self) -> u32 {
        // A pass at most before every disc placed, then the finished game.
        2 * self.leaf_empties + 1
    }

    fn is_frontier(&self, board: &Board, _: u32) -> bool {
        board.empty().count_ones() <= self.leaf_empties
    }

    fn moves(&self, game: &Reversi, board: &Board, _: u32) -> Vec<ReversiMove> {
        let (p, o) = (board.player, board.opponent);
        let mine = moves(p, o);
        if mine == 0 {
            return game.moves(board);
        }
        // The tests search null windows only.
        let depth = sort_depth(board.empty().count_ones(), Window::Null);
        let mut list = [(0, 0); 32];
        let n = order(p, o, mine, 0, depth, &mut list);
        list[..n]
            .iter()
            .map(|&(_, sq)| ReversiMove::Place(sq as Square))
            .collect()
    }
}

/// The exact value of `board` and a best move, the nodes of at most `options.leaf_empties`
/// empties searched by `exec` (any executor: the CPU's is the oracle of a device's), and how
/// the work was cut (tests, batches, the widest batch). Nodes count the host's tree and the
/// executor's.
pub fn solve_on<E: SubtreeSearch<Reversi>>(
    exec: &mut E,
    board: &Board,
    options: &DeviceOptions,
) -> Result<(Solved, SplitShape)> {
    if Reversi.moves(board).is_empty() {
        let solved = Solved {
            value: crate::reversi::final_score(board),
            best: None,
            nodes: 1,
        };
        return Ok((solved, SplitShape::default()));
    }
    let tree = EndgameTree {
        leaf_empties: options.leaf_empties,
    };
    let (solution, shape) = solve_split_tree(exec, &Reversi, board, &tree, first_guess(board))?;
    let solved = Solved {
        value: solution.value / WIN_SCALE,
        best: solution.best,
        nodes: solution.nodes.unwrap_or(0),
    };
    Ok((solved, shape))
}

/// MTD(f)'s first guess, an even disc difference times `WIN_SCALE`: a 4-ply midgame search,
/// its evaluation read as discs (on positions of 14 to 16 empties the exact value is about a
/// tenth of it: off by 9 discs on average, where 0 is off by 21).
fn first_guess(board: &Board) -> i32 {
    let value = midgame(board.player, board.opponent, 4, -MIDGAME_WIDE, MIDGAME_WIDE);
    if value.abs() >= WIN_SCALE {
        // A finished game is already in discs times WIN_SCALE.
        return value;
    }
    let discs = (value as f64 / EVALUATION_PER_DISC / 2.0).round() as i32 * 2;
    discs * WIN_SCALE
}

/// Evaluation units per disc of final difference (fitted on 100 positions of 14 to 16 empties).
const EVALUATION_PER_DISC: f64 = 10.4;
