//! Move generation over two bitboards, in a handful of verbs:
//!
//! * [`shift`] moves every disc one step in a [`Direction`], dropping those that leave the board;
//! * [`run`] follows, from some seeds, the unbroken line of opponent discs in one direction;
//! * a move is an empty square just past such a run started from the player's discs
//!   ([`legal_moves`]);
//! * a move flips a run started from the new disc when the player's disc closes it ([`flips`]).
//!
//! Every loop below has a fixed trip count; the device twin writes the same steps unrolled.

use super::board::{bit, Board, Square, FILE_A, FILE_H};

/// One of the eight compass directions: a shift of the square index and the squares a step may
/// land on (a step east must not wrap from file h onto file a of the next rank).
#[derive(Clone, Copy, Debug)]
pub struct Direction {
    /// Up the index (`true`: towards h8) or down.
    up: bool,
    /// How far the index moves.
    by: u32,
    /// The squares a step can land on.
    lands: u64,
}

/// The eight directions: E, W, N, S, NE, SW, NW, SE.
pub const DIRECTIONS: [Direction; 8] = [
    Direction {
        up: true,
        by: 1,
        lands: !FILE_A,
    },
    Direction {
        up: false,
        by: 1,
        lands: !FILE_H,
    },
    Direction {
        up: true,
        by: 8,
        lands: !0,
    },
    Direction {
        up: false,
        by: 8,
        lands: !0,
    },
    Direction {
        up: true,
        by: 9,
        lands: !FILE_A,
    },
    Direction {
        up: false,
        by: 9,
        lands: !FILE_H,
    },
    Direction {
        up: true,
        by: 7,
        lands: !FILE_H,
    },
    Direction {
        up: false,
        by: 7,
        lands: !FILE_A,
    },
];

/// Every disc of `discs` one step towards `dir`; discs that would leave the board vanish.
#[inline]
pub fn shift(discs: u64, dir: Direction) -> u64 {
    let moved = if dir.up {
        discs << dir.by
    } else {
        discs >> dir.by
    };
    moved & dir.lands
}

/// The opponent discs that lie on an unbroken line from one of `seeds` towards `dir`
/// (a line on an 8×8 board holds at most six discs between two ends).
#[inline]
pub fn run(seeds: u64, opponent: u64, dir: Direction) -> u64 {
    let mut line = shift(seeds, dir) & opponent;
    for _ in 0..5 {
        line |= shift(line, dir) & opponent;
    }
    line
}

/// The squares where `board`'s side to move may place a disc.
pub fn legal_moves(board: &Board) -> u64 {
    let empty = board.empty();
    DIRECTIONS.iter().fold(0, |moves, &dir| {
        moves | shift(run(board.player, board.opponent, dir), dir) & empty
    })
}

/// The discs a disc placed on `square` turns over.
pub fn flips(board: &Board, square: Square) -> u64 {
    DIRECTIONS.iter().fold(0, |flipped, &dir| {
        let line = run(bit(square), board.opponent, dir);
        let closed = shift(line, dir) & board.player != 0;
        if closed {
            flipped | line
        } else {
            flipped
        }
    })
}

/// The position after the side to move places a disc on `square` (a legal move), seen from the
/// other side.
pub fn place(board: &Board, square: Square) -> Board {
    let flipped = flips(board, square);
    Board {
        player: board.opponent & !flipped,
        opponent: board.player | flipped | bit(square),
        to_move: board.to_move.other(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_do_not_wrap_around_the_edges() {
        let h1 = bit(7);
        assert_eq!(shift(h1, DIRECTIONS[0]), 0); // east of h1
        assert_eq!(shift(bit(8), DIRECTIONS[1]), 0); // west of a2
        assert_eq!(shift(bit(63), DIRECTIONS[2]), 0); // north of h8
        assert_eq!(shift(bit(0), DIRECTIONS[3]), 0); // south of a1
        assert_eq!(shift(bit(0), DIRECTIONS[4]), bit(9)); // a1 → b2
    }

    #[test]
    fn the_start_has_four_symmetric_moves() {
        let moves = legal_moves(&Board::start());
        // d3, c4, f5, e6
        assert_eq!(moves, bit(19) | bit(26) | bit(37) | bit(44));
        let after = place(&Board::start(), 19);
        assert_eq!(after.opponent.count_ones(), 4);
        assert_eq!(after.player.count_ones(), 1);
    }
}
