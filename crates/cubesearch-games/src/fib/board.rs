//! The packed board: sixteen cells of `BITS` bits each in one integer, in the style of
//! nneonneo's 2048.cpp.
//!
//! ```text
//!   cell index i = 4·row + col, row 0 at the top, col 0 at the left
//!
//!        col 0   col 1   col 2   col 3
//!   row 0  c0      c1      c2      c3        cell i holds bits [i·B, (i+1)·B)
//!   row 1  c4      c5      c6      c7        B = 5 for 2584 (80 bits in a u128),
//!   row 2  c8      c9      c10     c11       B = 4 for 2048 (64 bits in a u64)
//!   row 3  c12     c13     c14     c15
//!
//!   word:  [ c15 | c14 | ... | c1 | c0 ]     (most significant ... least significant)
//! ```
//!
//! So row `r` is the `4·B`-bit field at bit `4·B·r`, with its leftmost cell in the low bits: a
//! "row value" (the index into the row tables) reads `cell0 | cell1 << B | cell2 << 2B | cell3 << 3B`.
//! Columns are the rows of the transposed board (top cell in the low bits), so moving up is
//! moving the transpose left.
//!
//! A cell holds a tile *index* k (0 = empty): 2584 tile k is the k-th Fibonacci number of the
//! sequence 1, 2, 3, 5, 8, …; 2048 tile k is 2^k.

use std::fmt::Debug;
use std::hash::Hash;

/// An unsigned integer wide enough for a whole board (`u64` for 2048, `u128` for 2584).
pub trait BoardWord: Copy + Eq + Ord + Hash + Debug + Default + Send + Sync + 'static {
    /// Zero.
    const ZERO: Self;
    /// Widens a small value.
    fn from_u32(x: u32) -> Self;
    /// The low 32 bits.
    fn low_u32(self) -> u32;
    /// The low 64 bits.
    fn low_u64(self) -> u64;
    /// Widens a `u64`.
    fn from_u64(x: u64) -> Self;
    /// `self << n`.
    fn shl(self, n: u32) -> Self;
    /// `self >> n`.
    fn shr(self, n: u32) -> Self;
    /// `self | other`.
    fn or(self, other: Self) -> Self;
    /// `self & other`.
    fn and(self, other: Self) -> Self;
}

macro_rules! board_word {
    ($t:ty) => {
        impl BoardWord for $t {
            const ZERO: Self = 0;
            #[inline(always)]
            fn from_u32(x: u32) -> Self {
                x as $t
            }
            #[inline(always)]
            fn low_u32(self) -> u32 {
                self as u32
            }
            #[inline(always)]
            fn low_u64(self) -> u64 {
                self as u64
            }
            #[inline(always)]
            fn from_u64(x: u64) -> Self {
                x as $t
            }
            #[inline(always)]
            fn shl(self, n: u32) -> Self {
                self << n
            }
            #[inline(always)]
            fn shr(self, n: u32) -> Self {
                self >> n
            }
            #[inline(always)]
            fn or(self, other: Self) -> Self {
                self | other
            }
            #[inline(always)]
            fn and(self, other: Self) -> Self {
                self & other
            }
        }
    };
}
board_word!(u64);
board_word!(u128);

/// A 4×4 board packed into one word (layout in the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Board<W: BoardWord>(pub W);

impl<W: BoardWord> Board<W> {
    /// The empty board.
    pub const EMPTY: Self = Board(W::ZERO);

    /// The tile index in cell `i` (0 = empty), with `bits` bits a cell.
    #[inline(always)]
    pub fn cell(self, i: usize, bits: u32) -> u8 {
        (self.0.shr(i as u32 * bits).low_u32() & ((1 << bits) - 1)) as u8
    }

    /// The board with tile index `k` put in cell `i`, which must be empty.
    #[inline(always)]
    pub fn with_cell(self, i: usize, k: u8, bits: u32) -> Self {
        debug_assert_eq!(self.cell(i, bits), 0);
        Board(self.0.or(W::from_u32(k as u32).shl(i as u32 * bits)))
    }

    /// Every cell's tile index, cell 0 first.
    #[inline]
    pub fn cells(self, bits: u32) -> [u8; 16] {
        let mut out = [0u8; 16];
        for (i, c) in out.iter_mut().enumerate() {
            *c = self.cell(i, bits);
        }
        out
    }

    /// The board holding these tile indices (each below `2^bits`).
    pub fn from_cells(cells: &[u8; 16], bits: u32) -> Self {
        cells
            .iter()
            .enumerate()
            .fold(Self::EMPTY, |b, (i, &k)| b.with_cell(i, k, bits))
    }

    /// How many cells are empty.
    #[inline(always)]
    pub fn empty_count(self, bits: u32) -> u32 {
        if fits_one_word(bits) {
            return empty_marks(self.0.low_u64(), 16, bits).count_ones();
        }
        self.empty_cells(bits).map(u64::count_ones).iter().sum()
    }

    /// The `n`-th empty cell in cell order (`n` below [`Self::empty_count`]).
    #[inline(always)]
    pub fn nth_empty(self, n: u32, bits: u32) -> usize {
        if fits_one_word(bits) {
            return nth_mark(empty_marks(self.0.low_u64(), 16, bits), n, bits);
        }
        let [lo, hi] = self.empty_cells(bits);
        match lo.count_ones() {
            in_lo if n < in_lo => nth_mark(lo, n, bits),
            in_lo => 8 + nth_mark(hi, n - in_lo, bits),
        }
    }

    /// The empty cells of each of the [`Self::halves`]: a one at the low bit of each (no
    /// branch a cell, unlike a loop over cells).
    #[inline(always)]
    fn empty_cells(self, bits: u32) -> [u64; 2] {
        let [lo, hi] = self.halves(bits);
        [empty_marks(lo, 8, bits), empty_marks(hi, 8, bits)]
    }

    /// The largest tile index on the board.
    pub fn max_index(self, bits: u32) -> u8 {
        (0..16).map(|i| self.cell(i, bits)).max().unwrap_or(0)
    }

    /// Row `r` as a row value (see the module docs).
    #[inline(always)]
    pub fn row(self, r: usize, bits: u32) -> u32 {
        let row_bits = 4 * bits;
        self.0.shr(r as u32 * row_bits).low_u32() & ((1 << row_bits) - 1)
    }

    /// ORs a row value into row `r` (the row must be empty).
    #[inline(always)]
    pub fn or_row(self, r: usize, value: u32, bits: u32) -> Self {
        Board(self.0.or(W::from_u32(value).shl(r as u32 * 4 * bits)))
    }

    /// The board as two halves, cells 0..8 (rows 0 and 1) and cells 8..16 (rows 2 and 3),
    /// each in the low `8·bits` bits of a `u64` (at most 40): the symmetries of the square
    /// are a few masked shifts of these, the same for both games.
    #[inline(always)]
    pub fn halves(self, bits: u32) -> [u64; 2] {
        let half = 8 * bits;
        [
            self.0.low_u64() & ((1 << half) - 1),
            self.0.shr(half).low_u64(),
        ]
    }

    /// The board of two [`Self::halves`].
    #[inline(always)]
    pub fn from_halves(halves: [u64; 2], bits: u32) -> Self {
        Board(W::from_u64(halves[0]).or(W::from_u64(halves[1]).shl(8 * bits)))
    }

    /// Across the main diagonal: cell `(r, c)` takes the tile of `(c, r)`.
    #[inline(always)]
    pub fn transposed(self, bits: u32) -> Self {
        if fits_one_word(bits) {
            return Board(W::from_u64(whole_transposed(self.0.low_u64(), bits)));
        }
        let [[lo], [hi]] = transposed(Self::half_lanes([self], bits), bits);
        Self::from_halves([lo, hi], bits)
    }

    /// The [`Self::halves`] of `N` boards side by side: `[lo, hi]`, lane `i` from board `i`.
    #[inline(always)]
    pub fn half_lanes<const N: usize>(boards: [Self; N], bits: u32) -> HalfLanes<N> {
        let mut out = [[0; N]; 2];
        for (i, b) in boards.into_iter().enumerate() {
            [out[0][i], out[1][i]] = b.halves(bits);
        }
        out
    }

    /// `N` boards under each symmetry of the square, for reading n-tuples: `views[s]` holds
    /// the boards' view `s`, which has in cell `p` the tile of cell `symmetry_cell(s, p)`, so
    /// a tuple's cells seen through symmetry `s` are its own cells of view `s`. The same
    /// masked shifts on every lane, which the compiler makes vector instructions. Each view
    /// comes in [`view_cells_per_word`] cells a word: whole boards in word 0 (word 1 zero)
    /// where a board fits a `u64` (2048), else [`Self::halves`] (2584).
    #[inline(always)]
    pub fn symmetric_views<const N: usize>(boards: [Self; N], bits: u32) -> [HalfLanes<N>; 8] {
        if fits_one_word(bits) {
            let mut b = [0; N];
            for (x, board) in b.iter_mut().zip(boards) {
                *x = board.0.low_u64();
            }
            let t = each(b, |x| whole_transposed(x, bits));
            let (hb, ht) = (
                each(b, |x| whole_mirrored(x, bits)),
                each(t, |x| whole_mirrored(x, bits)),
            );
            let flip = |lanes| each(lanes, |x| whole_flipped(x, bits));
            let zero = [0; N];
            return [
                [b, zero],
                [flip(t), zero],
                [flip(hb), zero],
                [ht, zero],
                [hb, zero],
                [t, zero],
                [flip(b), zero],
                [flip(ht), zero],
            ];
        }
        let b = Self::half_lanes(boards, bits);
        let t = transposed(b, bits);
        // Mirroring costs more than flipping, and the two commute: mirror twice, flip four
        // times.
        let (hb, ht) = (mirrored(b, bits), mirrored(t, bits));
        [
            b,
            flipped(t, bits),
            flipped(hb, bits),
            ht,
            hb,
            t,
            flipped(b, bits),
            flipped(ht, bits),
        ]
    }

    /// The board seen through symmetry `s` (0..8): the tile of cell `p` moves to cell
    /// `symmetry_cell(s, p)`.
    pub fn transformed(self, s: usize, bits: u32) -> Self {
        let cells = self.cells(bits);
        let mut out = [0u8; 16];
        for (p, &k) in cells.iter().enumerate() {
            out[symmetry_cell(s, p)] = k;
        }
        Self::from_cells(&out, bits)
    }
}

/// The bits of the cells among the first `cells` (8: a half board, 16: a whole one) that
/// `pick` chooses (a constant once inlined with constant arguments).
#[inline(always)]
fn cell_mask(cells: usize, bits: u32, pick: impl Fn(usize) -> bool) -> u64 {
    (0..cells)
        .filter(|&p| pick(p))
        .fold(0, |m, p| m | ((1 << bits) - 1) << (p as u32 * bits))
}

/// [`cell_mask`] on a half board (cells 0..8).
#[inline(always)]
fn half_mask(bits: u32, pick: impl Fn(usize) -> bool) -> u64 {
    cell_mask(8, bits, pick)
}

/// [`cell_mask`] on a whole board.
#[inline(always)]
fn whole_mask(bits: u32, pick: impl Fn(usize) -> bool) -> u64 {
    cell_mask(16, bits, pick)
}

/// Left to right, on the first `cells` cells of `x` (whole rows): cell `(r, c)` takes the
/// tile of `(r, 3 − c)`.
#[inline(always)]
fn mirrored_rows(x: u64, cells: usize, bits: u32) -> u64 {
    let (c0, c1) = (
        cell_mask(cells, bits, |p| p % 4 == 0),
        cell_mask(cells, bits, |p| p % 4 == 1),
    );
    (x & c0) << (3 * bits) | (x & c1) << bits | (x >> bits) & c1 | (x >> (3 * bits)) & c0
}

/// Whether a board of `bits`-bit cells fits one `u64` (2048's 4 bits; not 2584's 5).
#[inline(always)]
const fn fits_one_word(bits: u32) -> bool {
    16 * bits <= 64
}

/// Cells a word of [`Board::symmetric_views`] holds: 16 where a board fits a `u64`, else 8.
pub const fn view_cells_per_word(bits: u32) -> usize {
    if fits_one_word(bits) {
        16
    } else {
        8
    }
}

/// `f` on every lane (a plain loop: it inlines and vectorises where `array::map` may not).
#[inline(always)]
fn each<const N: usize>(mut lanes: [u64; N], f: impl Fn(u64) -> u64) -> [u64; N] {
    for x in &mut lanes {
        *x = f(*x);
    }
    lanes
}

/// The empty cells among the first `cells` of `x`: a one at the low bit of each.
#[inline(always)]
fn empty_marks(x: u64, cells: u32, bits: u32) -> u64 {
    let low_bits = (0..cells).fold(0u64, |m, p| m | 1 << (p * bits));
    !(1..bits).fold(x, |any, k| any | x >> k) & low_bits
}

/// The cell of the `n`-th mark of `marks` (as [`empty_marks`] marks cells), counting from cell 0.
#[inline(always)]
fn nth_mark(mut marks: u64, n: u32, bits: u32) -> usize {
    for _ in 0..n {
        marks &= marks - 1;
    }
    (marks.trailing_zeros() / bits) as usize
}

/// Left to right, on a whole board in a `u64`: cell `(r, c)` takes the tile of `(r, 3 − c)`.
#[inline(always)]
fn whole_mirrored(x: u64, bits: u32) -> u64 {
    mirrored_rows(x, 16, bits)
}

/// Top to bottom, on a whole board in a `u64`: row `r` takes row `3 − r` (rows 0, 1 and 2, 3
/// change places, then the rows within each pair).
#[inline(always)]
fn whole_flipped(x: u64, bits: u32) -> u64 {
    let row = 4 * bits;
    let low = whole_mask(bits, |p| p < 8);
    let x = x >> (2 * row) | (x & low) << (2 * row);
    let even = whole_mask(bits, |p| p / 4 % 2 == 0);
    (x >> row) & even | (x & even) << row
}

/// Across the main diagonal, on a whole board in a `u64`: each 2×2 block transposes in place
/// (cells 1 and 4 swap, 3 cells apart), then the top right block and the bottom left one
/// change places (6 cells apart).
#[inline(always)]
fn whole_transposed(x: u64, bits: u32) -> u64 {
    let inner = whole_mask(bits, |p| matches!(p, 1 | 3 | 9 | 11));
    let x =
        x & !(inner | inner << (3 * bits)) | (x & inner) << (3 * bits) | (x >> (3 * bits)) & inner;
    let block = whole_mask(bits, |p| matches!(p, 2 | 3 | 6 | 7));
    x & !(block | block << (6 * bits)) | (x & block) << (6 * bits) | (x >> (6 * bits)) & block
}

/// Half boards of `N` boards side by side (see [`Board::half_lanes`]).
pub type HalfLanes<const N: usize> = [[u64; N]; 2];

/// `f` on every lane of both halves (a plain loop: it inlines and vectorises where
/// `array::map` may not).
#[inline(always)]
fn each_lane<const N: usize>(mut halves: HalfLanes<N>, f: impl Fn(u64) -> u64) -> HalfLanes<N> {
    for x in halves.as_flattened_mut() {
        *x = f(*x);
    }
    halves
}

/// Left to right, on half lanes: cell `(r, c)` takes the tile of `(r, 3 − c)`.
#[inline(always)]
fn mirrored<const N: usize>(halves: HalfLanes<N>, bits: u32) -> HalfLanes<N> {
    each_lane(halves, |x| mirrored_rows(x, 8, bits))
}

/// Top to bottom, on half lanes: row `r` takes row `3 − r`.
#[inline(always)]
fn flipped<const N: usize>(halves: HalfLanes<N>, bits: u32) -> HalfLanes<N> {
    let row = 4 * bits;
    let [lo, hi] = each_lane(halves, |x| x >> row | (x & ((1 << row) - 1)) << row);
    [hi, lo]
}

/// Across the main diagonal, on half lanes: each half's two 2×2 blocks transpose in place,
/// then the top right block and the bottom left one change places.
#[inline(always)]
fn transposed<const N: usize>(halves: HalfLanes<N>, bits: u32) -> HalfLanes<N> {
    // Cells 1 and 4, and 3 and 6, of a half swap places: 3 cells apart.
    let upper = half_mask(bits, |p| p == 1 || p == 3);
    let keep = half_mask(bits, |p| p == 0 || p == 2 || p == 5 || p == 7);
    let [lo, hi] = each_lane(halves, |x| {
        x & keep | (x & upper) << (3 * bits) | (x >> (3 * bits)) & upper
    });
    let left = half_mask(bits, |p| p % 4 < 2);
    let mut out = [lo, hi];
    for i in 0..N {
        out[0][i] = lo[i] & left | (hi[i] & left) << (2 * bits);
        out[1][i] = hi[i] & !left | (lo[i] & !left) >> (2 * bits);
    }
    out
}

/// Where cell `p` goes under symmetry `s` of the square (0..8): `s % 4` quarter turns
/// clockwise, then a left-right mirror when `s ≥ 4`. `s = 0` is the identity.
pub const fn symmetry_cell(s: usize, p: usize) -> usize {
    let (mut r, mut c) = (p / 4, p % 4);
    let mut turns = s % 4;
    while turns > 0 {
        // A clockwise quarter turn: (r, c) → (c, 3 − r).
        let (nr, nc) = (c, 3 - r);
        r = nr;
        c = nc;
        turns -= 1;
    }
    if s >= 4 {
        c = 3 - c;
    }
    4 * r + c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_and_rows_agree() {
        let cells: [u8; 16] = std::array::from_fn(|i| (i as u8 * 7 + 3) % 32);
        let b = Board::<u128>::from_cells(&cells, 5);
        assert_eq!(b.cells(5), cells);
        assert_eq!(
            b.row(1, 5),
            cells[4] as u32
                | (cells[5] as u32) << 5
                | (cells[6] as u32) << 10
                | (cells[7] as u32) << 15
        );
        let row3 = Board::<u128>::EMPTY.or_row(3, b.row(3, 5), 5);
        assert_eq!(row3.cells(5)[12..], cells[12..]);
    }

    fn check_views<W: BoardWord>(bits: u32) {
        let mut x = 0x9e37_79b9u32;
        for _ in 0..200 {
            let cells: [u8; 16] = std::array::from_fn(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                (x % (1 << bits)) as u8
            });
            let b = Board::<W>::from_cells(&cells, bits);
            assert_eq!(Board::from_halves(b.halves(bits), bits), b);
            let views = Board::symmetric_views([b, Board::EMPTY], bits);
            for (s, [lo, hi]) in views.into_iter().enumerate() {
                assert_eq!((lo[1], hi[1]), (0, 0));
                let view = match view_cells_per_word(bits) {
                    16 => {
                        assert_eq!(hi[0], 0);
                        Board::<W>(W::from_u64(lo[0]))
                    }
                    _ => Board::<W>::from_halves([lo[0], hi[0]], bits),
                };
                let want: [u8; 16] = std::array::from_fn(|p| cells[symmetry_cell(s, p)]);
                assert_eq!(view.cells(bits), want, "symmetry {s}, {bits} bits");
            }
            let transposed: [u8; 16] = std::array::from_fn(|p| cells[4 * (p % 4) + p / 4]);
            assert_eq!(b.transposed(bits).cells(bits), transposed);
        }
    }

    fn check_empty_cells<W: BoardWord>(bits: u32) {
        let mut x = 0x2545_f491u32;
        for _ in 0..500 {
            let cells: [u8; 16] = std::array::from_fn(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                // Half the cells empty, the others any tile.
                if x & 1 == 0 {
                    0
                } else {
                    (x >> 1) as u8 % ((1 << bits) - 1) + 1
                }
            });
            let b = Board::<W>::from_cells(&cells, bits);
            let empty: Vec<usize> = (0..16).filter(|&i| cells[i] == 0).collect();
            assert_eq!(b.empty_count(bits), empty.len() as u32);
            for (n, &i) in empty.iter().enumerate() {
                assert_eq!(b.nth_empty(n as u32, bits), i, "{cells:?}");
            }
        }
    }

    #[test]
    fn empty_cells_are_counted_and_found_in_order() {
        check_empty_cells::<u64>(4);
        check_empty_cells::<u128>(5);
    }

    #[test]
    fn symmetric_views_read_the_symmetric_cells() {
        check_views::<u64>(4);
        check_views::<u128>(5);
        check_views::<u128>(4);
    }

    #[test]
    fn the_eight_symmetries_are_distinct_permutations() {
        let mut seen = std::collections::HashSet::new();
        for s in 0..8 {
            let perm: Vec<usize> = (0..16).map(|p| symmetry_cell(s, p)).collect();
            let mut sorted = perm.clone();
            sorted.sort();
            assert_eq!(sorted, (0..16).collect::<Vec<_>>());
            assert!(seen.insert(perm));
        }
        // A quarter turn sends the top-left corner to the top-right one.
        assert_eq!(symmetry_cell(1, 0), 3);
        assert_eq!(symmetry_cell(4, 0), 3);
        assert_eq!(symmetry_cell(4, 4), 7);
    }
}
