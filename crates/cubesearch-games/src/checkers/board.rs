//! Board geometry and the packed state, shared bit for bit with the device.
//!
//! Squares are indexed as in the seed (rotated so that every diagonal step is ±1 or ±7 modulo 32);
//! the diagram shows, for each dark square, its bit index, with the standard number (1–32, used
//! in all text) in brackets. Black sits at the top and moves down; White moves up.
//!
//! ```text
//!        a       b       c       d       e       f       g       h
//!  8         11 [1]          5 [2]         31 [3]         25 [4]
//!  7  10 [5]          4 [6]         30 [7]         24 [8]
//!  6          3 [9]         29[10]         23[11]         17[12]
//!  5   2[13]         28[14]         22[15]         16[16]
//!  4         27[17]         21[18]         15[19]          9[20]
//!  3  26[21]         20[22]         14[23]          8[24]
//!  2         19[25]         13[26]          7[27]          1[28]
//!  1  18[29]         12[30]          6[31]          0[32]
//! ```
//!
//! The index of the square in column x (0 = a) and row y (0 = row 1) is (4y − 3x + 18) mod 32, so
//! a step up-right adds 1, up-left adds 7, down-left subtracts 1 and down-right subtracts 7.
//!
//! A position is four u32 words: `white`, `black` and `kings` bitboards over those indices, and
//! `info`:
//! ```text
//!  bits 31..24  23..16      15..8                 7..2   1        0
//!      [unused] [draw limit] [plies since capture] [0]    [rules]  [side to move]
//! ```
//! side to move: 0 Black, 1 White; rules: 0 longest, 1 american; draw limit 1..=255: the game
//! is drawn once that many plies passed without a capture.

/// Diagonal directions in canonical order: up-right, up-left, down-left, down-right.
pub const DIRECTIONS: [(i32, i32); 4] = [(1, 1), (-1, 1), (-1, -1), (1, -1)];

/// The bit index of the dark square at column `x`, row `y` (0-based, row 0 is White's back row).
pub const fn index_of(x: i32, y: i32) -> u8 {
    (4 * y - 3 * x + 18).rem_euclid(32) as u8
}

/// Whether (x, y) is a dark square on the board.
pub const fn on_board(x: i32, y: i32) -> bool {
    x >= 0 && x < 8 && y >= 0 && y < 8 && (x + y) % 2 == 0
}

/// Column and row of standard square `number` (1..=32).
pub const fn coords_of_number(number: u8) -> (i32, i32) {
    let r = (number as i32 - 1) / 4;
    let c = (number as i32 - 1) % 4;
    let y = 7 - r;
    let x = if r % 2 == 0 { 2 * c + 1 } else { 2 * c };
    (x, y)
}

/// Geometry tables, built once.
pub struct Geometry {
    /// Bit index of standard square n at `index[n - 1]`.
    pub index: [u8; 32],
    /// Standard number of the square at each bit index.
    pub number: [u8; 32],
    /// Row (0..8) of each bit index.
    pub row: [u8; 32],
    /// The neighbour of each bit index in each direction, or `NONE`.
    pub neighbour: [[u8; 4]; 32],
}

/// No square.
pub const NONE: u8 = 0xFF;

const fn build() -> Geometry {
    let mut g = Geometry {
        index: [0; 32],
        number: [0; 32],
        row: [0; 32],
        neighbour: [[NONE; 4]; 32],
    };
    let mut n = 1u8;
    while n <= 32 {
        let (x, y) = coords_of_number(n);
        let i = index_of(x, y) as usize;
        g.index[n as usize - 1] = i as u8;
        g.number[i] = n;
        g.row[i] = y as u8;
        let mut d = 0;
        while d < 4 {
            let (dx, dy) = DIRECTIONS[d];
            if on_board(x + dx, y + dy) {
                g.neighbour[i][d] = index_of(x + dx, y + dy);
            }
            d += 1;
        }
        n += 1;
    }
    g
}

/// The board's geometry.
pub const GEOMETRY: Geometry = build();

/// Bits of White's back row (row 1), where Black's men are crowned.
pub const ROW_1: u32 = row_mask(0);
/// Bits of Black's back row (row 8), where White's men are crowned.
pub const ROW_8: u32 = row_mask(7);

const fn row_mask(y: i32) -> u32 {
    let mut mask = 0u32;
    let mut x = 0;
    while x < 8 {
        if on_board(x, y) {
            mask |= 1 << index_of(x, y);
        }
        x += 1;
    }
    mask
}

/// Which side moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// Black: starts on squares 1–12 and moves first.
    Black,
    /// White: starts on squares 21–32.
    White,
}

/// Which captures may be chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Rules {
    /// Only the capture sequences that take the most pieces (the seed's rule).
    #[default]
    Longest,
    /// Any capture sequence (English draughts / American checkers).
    American,
}

/// A checkers position (see the module docs for the layout).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CheckersState {
    /// White's pieces.
    pub white: u32,
    /// Black's pieces.
    pub black: u32,
    /// Kings of either colour.
    pub kings: u32,
    /// Side to move, rules, plies since the last capture and the draw limit.
    pub info: u32,
}

impl CheckersState {
    /// Packs the `info` word.
    pub fn pack_info(side: Side, rules: Rules, plies: u32, limit: u32) -> u32 {
        (side == Side::White) as u32
            | ((rules == Rules::American) as u32) << 1
            | plies.min(255) << 8
            | limit.clamp(1, 255) << 16
    }

    /// The side to move.
    pub fn side(&self) -> Side {
        if self.info & 1 == 0 {
            Side::Black
        } else {
            Side::White
        }
    }

    /// The rule set this position is played under.
    pub fn rules(&self) -> Rules {
        if self.info & 2 == 0 {
            Rules::Longest
        } else {
            Rules::American
        }
    }

    /// Plies played since the last capture.
    pub fn quiet_plies(&self) -> u32 {
        (self.info >> 8) & 0xFF
    }

    /// Plies without a capture after which the game is drawn.
    pub fn draw_limit(&self) -> u32 {
        (self.info >> 16) & 0xFF
    }

    /// The pieces of the side to move and of its opponent.
    pub fn sides(&self) -> (u32, u32) {
        match self.side() {
            Side::Black => (self.black, self.white),
            Side::White => (self.white, self.black),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_matches_the_seed_diagram() {
        // The seed's rotated indexing, row 8 down to row 1.
        let seed = [
            [11, 5, 31, 25],
            [10, 4, 30, 24],
            [3, 29, 23, 17],
            [2, 28, 22, 16],
            [27, 21, 15, 9],
            [26, 20, 14, 8],
            [19, 13, 7, 1],
            [18, 12, 6, 0],
        ];
        for n in 1..=32u8 {
            let r = (n as usize - 1) / 4;
            let c = (n as usize - 1) % 4;
            assert_eq!(GEOMETRY.index[n as usize - 1], seed[r][c], "square {n}");
            assert_eq!(GEOMETRY.number[seed[r][c] as usize], n);
        }
        // Every step is ±1 or ±7 modulo 32.
        for i in 0..32usize {
            for (d, step) in [1u8, 7, 31, 25].into_iter().enumerate() {
                let n = GEOMETRY.neighbour[i][d];
                if n != NONE {
                    assert_eq!(n, (i as u8 + step) % 32);
                }
            }
        }
        assert_eq!(ROW_1.count_ones(), 4);
        assert_eq!(ROW_8, 1 << 11 | 1 << 5 | 1 << 31 | 1 << 25);
    }
}
