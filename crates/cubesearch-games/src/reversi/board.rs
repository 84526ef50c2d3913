//! The Reversi position: two bitboards seen from the side to move, and that side's colour.
//!
//! One bit a square, the square's index as the bit's place (the order the position text uses):
//! ```text
//!        a  b  c  d  e  f  g  h
//!    8  56 57 58 59 60 61 62 63
//!    7  48 49 50 51 52 53 54 55
//!    6  40 41 42 43 44 45 46 47
//!    5  32 33 34 35 36 37 38 39
//!    4  24 25 26 27 28 29 30 31
//!    3  16 17 18 19 20 21 22 23
//!    2   8  9 10 11 12 13 14 15
//!    1   0  1  2  3  4  5  6  7
//! ```
//! On the device a position is five u32 words:
//! `[player low, player high, opponent low, opponent high, 1 if White is to move else 0]`.

/// A square's index, 0 (a1) to 63 (h8).
pub type Square = u8;

/// Every square of file a (the board's west edge).
pub const FILE_A: u64 = 0x0101_0101_0101_0101;
/// Every square of file h (the board's east edge).
pub const FILE_H: u64 = FILE_A << 7;

/// The bitboard holding only `square`.
pub const fn bit(square: Square) -> u64 {
    1u64 << square
}

/// The two colours. Black moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Colour {
    /// `X` in the position text.
    Black,
    /// `O` in the position text.
    White,
}

impl Colour {
    /// The other colour.
    pub const fn other(self) -> Self {
        match self {
            Colour::Black => Colour::White,
            Colour::White => Colour::Black,
        }
    }
}

/// A Reversi position, relative to the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    /// Discs of the side to move.
    pub player: u64,
    /// Discs of the other side.
    pub opponent: u64,
    /// The colour of the side to move.
    pub to_move: Colour,
}

impl Board {
    /// The standard start: White on d4 and e5, Black on d5 and e4, Black to move.
    pub const fn start() -> Self {
        let white = bit(27) | bit(36); // d4, e5
        let black = bit(35) | bit(28); // d5, e4
        Board {
            player: black,
            opponent: white,
            to_move: Colour::Black,
        }
    }

    /// The discs of `colour`.
    pub const fn discs(&self, colour: Colour) -> u64 {
        if colour as u8 == self.to_move as u8 {
            self.player
        } else {
            self.opponent
        }
    }

    /// Squares nobody holds.
    pub const fn empty(&self) -> u64 {
        !(self.player | self.opponent)
    }

    /// The same discs with the other side to move (what a pass does).
    pub const fn swapped(&self) -> Self {
        Board {
            player: self.opponent,
            opponent: self.player,
            to_move: self.to_move.other(),
        }
    }
}
