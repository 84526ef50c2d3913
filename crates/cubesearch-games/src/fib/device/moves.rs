//! Slides, spawns and the small board queries of 2584/2048 on the device (layout in the parent
//! module). Directions are numbered as the host's `Dir::ALL`: 0 left, 1 right, 2 up, 3 down.

use super::{DeviceTiles, FibBoard};
use cubecl::prelude::*;
use cubesearch_kernels::rng;

/// Direction numbers (the host's `Dir::ALL` order).
pub const LEFT: u32 = 0;
/// Toward column 3.
pub const RIGHT: u32 = 1;
/// Toward row 0.
pub const UP: u32 = 2;
/// Toward row 3.
pub const DOWN: u32 = 3;

/// One row slid toward cell 0: the new row value and the points it scored.
#[derive(CubeType, Clone, Copy)]
pub struct RowSlide {
    /// The row value after the slide.
    pub row: u32,
    /// The sum of the values of the tiles the merges made.
    pub reward: u32,
}

/// A board after a slide.
#[derive(CubeType, Clone, Copy)]
pub struct Slide {
    /// The board after the slide (equal to the input when nothing moved).
    pub board: FibBoard,
    /// The points the slide scored.
    pub reward: u32,
    /// Whether the slide changed the board (only then is the direction legal).
    pub moved: bool,
}

/// The running state of [`slide_row`]: the row built so far, its length, its last tile and
/// whether that tile may still merge (it was not made by a merge in this move).
#[derive(CubeType, Clone, Copy)]
struct RowAcc {
    out: u32,
    len: u32,
    prev: u32,
    open: bool,
    reward: u32,
}

/// Feeds tile `k` (0 = empty, skipped) to the row being built, as the host's `slide_row` does.
#[cube]
fn push<T: DeviceTiles>(acc: &mut RowAcc, k: u32) {
    let bits = T::bits();
    if k != 0u32 {
        let m = T::merge(acc.prev, k);
        if acc.open && m != 0u32 {
            // The merged tile replaces the last one (`m > prev` for both rules).
            let out = acc.out + ((m - acc.prev) << ((acc.len - 1u32) * bits));
            let reward = acc.reward + T::value(m);
            acc.out = out;
            acc.reward = reward;
            acc.prev = m;
            acc.open = false;
        } else {
            let out = acc.out | (k << (acc.len * bits));
            let len = acc.len + 1u32;
            acc.out = out;
            acc.len = len;
            acc.prev = k;
            acc.open = true;
        }
    }
}

/// Tile index `j` (0..4) of a row value.
#[cube]
pub fn row_cell<T: DeviceTiles>(row: u32, j: u32) -> u32 {
    let bits = T::bits();
    (row >> (j * bits)) & ((1u32 << bits) - 1u32)
}

/// A row slid toward cell 0 (left, or up along a column).
#[cube]
pub fn slide_row<T: DeviceTiles>(row: u32) -> RowSlide {
    let mut acc = RowAcc {
        out: 0u32,
        len: 0u32,
        prev: 0u32,
        open: false,
        reward: 0u32,
    };
    push::<T>(&mut acc, row_cell::<T>(row, 0u32));
    push::<T>(&mut acc, row_cell::<T>(row, 1u32));
    push::<T>(&mut acc, row_cell::<T>(row, 2u32));
    push::<T>(&mut acc, row_cell::<T>(row, 3u32));
    RowSlide {
        row: acc.out,
        reward: acc.reward,
    }
}

/// A row value with its cells in the opposite order.
#[cube]
pub fn reverse_row<T: DeviceTiles>(row: u32) -> u32 {
    let bits = T::bits();
    row_cell::<T>(row, 3u32)
        | (row_cell::<T>(row, 2u32) << bits)
        | (row_cell::<T>(row, 1u32) << (2u32 * bits))
        | (row_cell::<T>(row, 0u32) << (3u32 * bits))
}

/// Column `c` of four rows as a row value, top cell in the low bits.
#[cube]
fn column<T: DeviceTiles>(r0: u32, r1: u32, r2: u32, r3: u32, c: u32) -> u32 {
    let bits = T::bits();
    row_cell::<T>(r0, c)
        | (row_cell::<T>(r1, c) << bits)
        | (row_cell::<T>(r2, c) << (2u32 * bits))
        | (row_cell::<T>(r3, c) << (3u32 * bits))
}

/// One line slid toward cell 0 (`high == false`) or cell 3.
#[cube]
fn slide_line<T: DeviceTiles>(line: u32, high: bool) -> RowSlide {
    let s = slide_row::<T>(select(high, reverse_row::<T>(line), line));
    RowSlide {
        row: select(high, reverse_row::<T>(s.row), s.row),
        reward: s.reward,
    }
}

/// The board slid toward `dir` ([`LEFT`], [`RIGHT`], [`UP`], [`DOWN`]): the new board, the
/// reward and whether anything moved. Equals the host's `Sliding::slide`.
#[cube]
pub fn slide<T: DeviceTiles>(board: &FibBoard, dir: u32) -> Slide {
    let vertical = dir >= UP;
    let high = dir == RIGHT || dir == DOWN;
    let b0 = board.r0;
    let b1 = board.r1;
    let b2 = board.r2;
    let b3 = board.r3;
    // The lines to slide: rows, or the columns (the transposed board) for up and down.
    let l0 = select(vertical, column::<T>(b0, b1, b2, b3, 0u32), b0);
    let l1 = select(vertical, column::<T>(b0, b1, b2, b3, 1u32), b1);
    let l2 = select(vertical, column::<T>(b0, b1, b2, b3, 2u32), b2);
    let l3 = select(vertical, column::<T>(b0, b1, b2, b3, 3u32), b3);
    let s0 = slide_line::<T>(l0, high);
    let s1 = slide_line::<T>(l1, high);
    let s2 = slide_line::<T>(l2, high);
    let s3 = slide_line::<T>(l3, high);
    // Transposing again brings columns back to rows.
    let n0 = select(
        vertical,
        column::<T>(s0.row, s1.row, s2.row, s3.row, 0u32),
        s0.row,
    );
    let n1 = select(
        vertical,
        column::<T>(s0.row, s1.row, s2.row, s3.row, 1u32),
        s1.row,
    );
    let n2 = select(
        vertical,
        column::<T>(s0.row, s1.row, s2.row, s3.row, 2u32),
        s2.row,
    );
    let n3 = select(
        vertical,
        column::<T>(s0.row, s1.row, s2.row, s3.row, 3u32),
        s3.row,
    );
    let moved = n0 != b0 || n1 != b1 || n2 != b2 || n3 != b3;
    Slide {
        board: FibBoard {
            r0: n0,
            r1: n1,
            r2: n2,
            r3: n3,
        },
        reward: s0.reward + s1.reward + s2.reward + s3.reward,
        moved,
    }
}

/// The empty cells of one row value as four bits, bit `j` for cell `j`.
///
/// ```text
///  a row, B bits a cell:  cell3 | cell2 | cell1 | cell0      (bits 3B.. | 2B.. | B.. | 0..)
///  or-ed down (B ≤ 5):    bit jB set when cell j is not 0
///  empty:                 !that & (1 | 1<<B | 1<<2B | 1<<3B)
///  gathered:              bit jB times 2^((3-j)(B-1)) lands on bit 3(B-1) + j; the other
///                         products land on bits of their own, so nothing carries
/// ```
#[cube]
fn row_empty_bits<T: DeviceTiles>(row: u32) -> u32 {
    let bits = T::bits();
    let any = row | (row >> 1u32) | (row >> 2u32) | (row >> 3u32);
    let any = any | select(bits > 4u32, row >> 4u32, 0u32);
    let lowest = 1u32 | (1u32 << bits) | (1u32 << (2u32 * bits)) | (1u32 << (3u32 * bits));
    let step = bits - 1u32;
    let gather = 1u32 | (1u32 << step) | (1u32 << (2u32 * step)) | (1u32 << (3u32 * step));
    (((!any & lowest) * gather) >> (3u32 * step)) & 0xFu32
}

/// The empty cells as a 16-bit mask, bit `i` for cell `i` (`4·row + col`). Counting them and
/// finding the `n`-th are then a popcount and four halvings ([`nth_set_bit`](fn@nth_set_bit)), where a walk
/// over the sixteen cells was a chain of sixteen dependent steps in every move (Nsight
/// Compute).
#[cube]
pub fn empty_mask<T: DeviceTiles>(board: &FibBoard) -> u32 {
    row_empty_bits::<T>(board.r0)
        | (row_empty_bits::<T>(board.r1) << 4u32)
        | (row_empty_bits::<T>(board.r2) << 8u32)
        | (row_empty_bits::<T>(board.r3) << 12u32)
}

/// The position of the `n`-th set bit (from 0, lowest first) of a 16-bit `mask` that has more
/// than `n`: halve the range four times, keeping the half the bit is in.
#[cube]
pub fn nth_set_bit(mask: u32, n: u32) -> u32 {
    let mut pos = 0u32;
    let mut left = n;
    let low = ((mask >> pos) & 0xFFu32).count_ones();
    if left >= low {
        pos += 8u32;
        left -= low;
    }
    let low = ((mask >> pos) & 0xFu32).count_ones();
    if left >= low {
        pos += 4u32;
        left -= low;
    }
    let low = ((mask >> pos) & 0x3u32).count_ones();
    if left >= low {
        pos += 2u32;
        left -= low;
    }
    let low = (mask >> pos) & 0x1u32;
    if left >= low {
        pos += 1u32;
    }
    pos
}

/// The tile index in cell `i` (0..16, `4·row + col`).
#[cube]
pub fn cell<T: DeviceTiles>(board: &FibBoard, i: u32) -> u32 {
    let r = i / 4u32;
    let row = select(
        r == 0u32,
        board.r0,
        select(r == 1u32, board.r1, select(r == 2u32, board.r2, board.r3)),
    );
    row_cell::<T>(row, i % 4u32)
}

/// Spawns a tile as the host's `Sliding::spawn` does: the cell is `below(empty)` (the n-th
/// empty cell in cell order), then the tile is `below(spawn_total)` against the spawn weights.
/// A full board is left alone and draws nothing.
#[cube]
pub fn spawn<T: DeviceTiles>(board: &mut FibBoard, rng: &mut u32) {
    let empty = empty_mask::<T>(board);
    let count = empty.count_ones();
    if count > 0u32 {
        let nth = rng::below(rng, count);
        let tile = T::spawn_tile(rng::below(rng, T::spawn_total()));
        put_tile::<T>(board, nth_set_bit(empty, nth), tile);
    }
}

/// Puts tile index `tile` in cell `c` (which must be empty).
#[cube]
pub fn put_tile<T: DeviceTiles>(board: &mut FibBoard, c: u32, tile: u32) {
    let r = c / 4u32;
    let bit = tile << ((c % 4u32) * T::bits());
    let n0 = board.r0 | select(r == 0u32, bit, 0u32);
    let n1 = board.r1 | select(r == 1u32, bit, 0u32);
    let n2 = board.r2 | select(r == 2u32, bit, 0u32);
    let n3 = board.r3 | select(r == 3u32, bit, 0u32);
    board.r0 = n0;
    board.r1 = n1;
    board.r2 = n2;
    board.r3 = n3;
}

/// The empty board.
#[cube]
pub fn empty_board() -> FibBoard {
    FibBoard {
        r0: 0u32,
        r1: 0u32,
        r2: 0u32,
        r3: 0u32,
    }
}

/// A starting board as the host's `initial` draws it: two spawns on the empty board.
#[cube]
pub fn initial<T: DeviceTiles>(rng: &mut u32) -> FibBoard {
    let mut board = empty_board();
    spawn::<T>(&mut board, rng);
    spawn::<T>(&mut board, rng);
    board
}

/// Overwrites `board` with `from` (field by field, as generic device values change in place).
#[cube]
pub fn set_board(board: &mut FibBoard, from: &FibBoard) {
    let n0 = from.r0;
    let n1 = from.r1;
    let n2 = from.r2;
    let n3 = from.r3;
    board.r0 = n0;
    board.r1 = n1;
    board.r2 = n2;
    board.r3 = n3;
}

/// The sum of the values of the board's two largest tiles (twice the largest when two cells
/// hold it; empty cells are worth 0).
#[cube]
pub fn two_largest_sum<T: DeviceTiles>(board: &FibBoard) -> u32 {
    let mut first = 0u32;
    let mut second = 0u32;
    #[unroll]
    for i in 0..16u32 {
        let c = cell::<T>(board, i);
        let top = c > first;
        second = select(top, first, select(c > second, c, second));
        first = select(top, c, first);
    }
    select(first == 0u32, 0u32, T::value(first)) + select(second == 0u32, 0u32, T::value(second))
}

/// The largest tile index on the board.
#[cube]
pub fn max_index<T: DeviceTiles>(board: &FibBoard) -> u32 {
    let mut m = 0u32;
    #[unroll]
    for i in 0..16u32 {
        let c = cell::<T>(board, i);
        m = select(c > m, c, m);
    }
    m
}
