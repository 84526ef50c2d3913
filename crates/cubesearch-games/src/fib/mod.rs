//! 2584 and 2048: sliding-tile games with chance, in one implementation.
//!
//! [`Sliding<R>`] plays any [`TileRule`]: [`Fib`] gives 2584 (Fibonacci tiles 1, 2, 3, 5, 8, …;
//! two tiles merge when both are 1 or when their indices differ by one) and [`Pow2`] gives 2048
//! (powers of two; equal tiles merge). Boards are one integer ([`board`] draws the layout);
//! moves are row-table lookups ([`tables`]): left and right read a row, up and down a column (a
//! row of the transposed board).
//!
//! A move slides every row (column) toward one side; merges resolve from that side first and a
//! tile made by a merge does not merge again in the same move; the reward is the sum of the
//! values of the tiles the merges made. A move that changes nothing is illegal; with no legal
//! move the game is over. After each move a tile spawns on a uniformly random empty cell
//! (2584: 1 with p = 0.75, 3 with p = 0.25; 2048: 2 with p = 0.9, 4 with p = 0.1); a game
//! starts with two spawned tiles.
//!
//! Randomness: a spawn draws the cell as `rng.below(empty cells)` (the n-th empty cell in cell
//! order) and then the tile as `rng.below(total weight)` against the rule's spawn weights.
//!
//! Beside the rules: [`device`] (the device twin, `GpuStochasticGame for Sliding<R>`), the
//! n-tuple cells and shapes ([`seed_shapes`], [`six_tuple_shapes`]) and [`boards`] (the
//! committed benchmark boards).

pub mod board;
pub mod boards;
#[allow(missing_docs)] // `#[cube]` and `CubeType` generate items that carry no docs
pub mod device;
pub mod notation;
mod ntuple;
pub mod tables;

#[cfg(test)]
mod tests;

use std::marker::PhantomData;
use std::sync::OnceLock;

use cubesearch_core::rng::XorShift32;
use cubesearch_core::{Error, Result, StochasticGame};

pub use board::{symmetry_cell, Board, BoardWord, HalfLanes};
pub use device::GpuTiles;
pub use ntuple::{seed_shapes, six_tuple_shapes};
pub use tables::{RowMove, RowTables, Toward};

/// The tile arithmetic of one game. Tiles are stored as indices `1..2^BITS` (0 = empty).
pub trait TileRule:
    Clone + Copy + std::fmt::Debug + Default + PartialEq + Eq + Send + Sync + 'static
{
    /// The integer a whole board fits in.
    type Word: BoardWord;
    /// The game's command-line name.
    const NAME: &'static str;
    /// Bits a cell (a tile index is below `2^BITS`).
    const BITS: u32;
    /// Spawned tiles as `(index, weight)`: tile `index` spawns with probability
    /// `weight / SPAWN_TOTAL`.
    const SPAWNS: &'static [(u8, u32)];
    /// The sum of the spawn weights.
    const SPAWN_TOTAL: u32;
    /// Tile values shown in play statistics ("share of games reaching ..."), smallest first.
    const MILESTONES: &'static [u32];

    /// The tile index that tiles `a` and `b` (both non-zero) merge into, if they merge.
    fn merge(a: u8, b: u8) -> Option<u8>;
    /// The value of tile index `k` (0 for an empty cell).
    fn value(k: u8) -> u32;
    /// The row tables of this rule, built once.
    fn tables() -> &'static RowTables;

    /// The index of the tile with this value, if it is one (0 is the empty cell).
    fn index_of(value: u64) -> Option<u8> {
        (0..1u32 << Self::BITS)
            .map(|k| k as u8)
            .find(|&k| Self::value(k) as u64 == value)
    }
}

/// Fibonacci tile values by index: 0 (empty), 1, 2, 3, 5, 8, … (32 indices fit 5 bits).
pub const FIB_VALUES: [u32; 32] = {
    let mut v = [0u32; 32];
    v[1] = 1;
    v[2] = 2;
    let mut k = 3;
    while k < 32 {
        v[k] = v[k - 1] + v[k - 2];
        k += 1;
    }
    v
};

/// The 2584 rule: Fibonacci tiles, 5 bits a cell in a u128.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fib;

impl TileRule for Fib {
    type Word = u128;
    const NAME: &'static str = "2584";
    const BITS: u32 = 5;
    const SPAWNS: &'static [(u8, u32)] = &[(1, 3), (3, 1)];
    const SPAWN_TOTAL: u32 = 4;
    const MILESTONES: &'static [u32] = &[
        233, 377, 610, 987, 1597, 2584, 4181, 6765, 10946, 17711, 28657, 46368,
    ];

    #[inline]
    fn merge(a: u8, b: u8) -> Option<u8> {
        let m = if a == 1 && b == 1 {
            2
        } else if a.abs_diff(b) == 1 {
            a.max(b) + 1
        } else {
            return None;
        };
        (m < 32).then_some(m)
    }

    #[inline]
    fn value(k: u8) -> u32 {
        FIB_VALUES[k as usize]
    }

    fn tables() -> &'static RowTables {
        static TABLES: OnceLock<RowTables> = OnceLock::new();
        TABLES.get_or_init(RowTables::build::<Self>)
    }
}

/// The 2048 rule: power-of-two tiles, 4 bits a cell in a u64 (tiles up to 32768).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pow2;

impl TileRule for Pow2 {
    type Word = u64;
    const NAME: &'static str = "2048";
    const BITS: u32 = 4;
    const SPAWNS: &'static [(u8, u32)] = &[(1, 9), (2, 1)];
    const SPAWN_TOTAL: u32 = 10;
    const MILESTONES: &'static [u32] = &[256, 512, 1024, 2048, 4096, 8192, 16384, 32768];

    #[inline]
    fn merge(a: u8, b: u8) -> Option<u8> {
        (a == b && a < 15).then_some(a + 1)
    }

    #[inline]
    fn value(k: u8) -> u32 {
        if k == 0 {
            0
        } else {
            1 << k
        }
    }

    fn tables() -> &'static RowTables {
        static TABLES: OnceLock<RowTables> = OnceLock::new();
        TABLES.get_or_init(RowTables::build::<Self>)
    }
}

/// A player action: the direction the tiles slide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    /// Toward column 0.
    Left,
    /// Toward column 3.
    Right,
    /// Toward row 0.
    Up,
    /// Toward row 3.
    Down,
}

impl Dir {
    /// Every direction in canonical order.
    pub const ALL: [Dir; 4] = [Dir::Left, Dir::Right, Dir::Up, Dir::Down];

    /// The notation: `left`, `right`, `up`, `down`.
    pub const fn name(self) -> &'static str {
        match self {
            Dir::Left => "left",
            Dir::Right => "right",
            Dir::Up => "up",
            Dir::Down => "down",
        }
    }
}

/// Slides every row of `b` toward `side` ([`RowTables::moves`] gives `moves`): the new board
/// and the reward.
#[inline(always)]
fn slide_rows<R: TileRule>(
    b: BoardOf<R>,
    moves: &[[RowMove; 2]],
    side: Toward,
) -> (BoardOf<R>, u32) {
    let mut out = Board::EMPTY;
    let mut reward = 0;
    for r in 0..4 {
        let m = moves[b.row(r, R::BITS) as usize][side as usize];
        out = out.or_row(r, m.row, R::BITS);
        reward += m.reward;
    }
    (out, reward)
}

/// Slides every column of the board whose transpose is `transposed` toward `side` (along a
/// column, cell 0 is the top): the rows of the transpose.
#[inline(always)]
fn slide_columns<R: TileRule>(
    transposed: BoardOf<R>,
    moves: &[[RowMove; 2]],
    side: Toward,
) -> (BoardOf<R>, u32) {
    let (out, reward) = slide_rows::<R>(transposed, moves, side);
    (out.transposed(R::BITS), reward)
}

/// A sliding-tile game under rule `R`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sliding<R>(PhantomData<R>);

/// 2584.
pub type Game2584 = Sliding<Fib>;
/// 2048.
pub type Game2048 = Sliding<Pow2>;

/// A board of game `Sliding<R>`.
pub type BoardOf<R> = Board<<R as TileRule>::Word>;

impl<R: TileRule> Sliding<R> {
    /// The game (building its row tables on first use).
    pub const fn new() -> Self {
        Sliding(PhantomData)
    }

    /// Slides every row or column of `b` toward `dir`: the new board and the reward, whether
    /// or not anything moved.
    #[inline]
    pub fn slide(&self, b: BoardOf<R>, dir: Dir) -> (BoardOf<R>, u32) {
        let moves = R::tables().moves(R::BITS);
        match dir {
            Dir::Left => slide_rows::<R>(b, moves, Toward::Low),
            Dir::Right => slide_rows::<R>(b, moves, Toward::High),
            Dir::Up => slide_columns::<R>(b.transposed(R::BITS), moves, Toward::Low),
            Dir::Down => slide_columns::<R>(b.transposed(R::BITS), moves, Toward::High),
        }
    }

    /// [`StochasticGame::afterstate`] for every direction in canonical order (one transpose of
    /// `s` serves up and down).
    #[inline(always)]
    pub fn afterstates(&self, s: BoardOf<R>) -> [Option<(BoardOf<R>, u32)>; 4] {
        let moves = R::tables().moves(R::BITS);
        let transposed = s.transposed(R::BITS);
        let legal = |(after, reward): (BoardOf<R>, u32)| (after != s).then_some((after, reward));
        [
            legal(slide_rows::<R>(s, moves, Toward::Low)),
            legal(slide_rows::<R>(s, moves, Toward::High)),
            legal(slide_columns::<R>(transposed, moves, Toward::Low)),
            legal(slide_columns::<R>(transposed, moves, Toward::High)),
        ]
    }

    /// The board with one tile spawned as the module docs describe; unchanged if it is full.
    pub fn spawn(&self, b: BoardOf<R>, rng: &mut XorShift32) -> BoardOf<R> {
        let bits = R::BITS;
        let empty = b.empty_count(bits);
        if empty == 0 {
            return b;
        }
        let nth = rng.below(empty);
        let mut pick = rng.below(R::SPAWN_TOTAL);
        let mut tile = R::SPAWNS[R::SPAWNS.len() - 1].0;
        for &(k, w) in R::SPAWNS {
            if pick < w {
                tile = k;
                break;
            }
            pick -= w;
        }
        b.with_cell(b.nth_empty(nth, bits), tile, bits)
    }

    /// The value of the largest tile on the board.
    pub fn max_tile(&self, b: BoardOf<R>) -> u32 {
        R::value(b.max_index(R::BITS))
    }

    /// The sum of the values of the two largest tiles (twice the largest when two cells hold
    /// it; an empty cell is worth 0).
    pub fn two_largest_sum(&self, b: BoardOf<R>) -> u32 {
        let (mut first, mut second) = (0, 0);
        for k in b.cells(R::BITS) {
            if k > first {
                (first, second) = (k, first);
            } else if k > second {
                second = k;
            }
        }
        R::value(first) + R::value(second)
    }

    /// The board's tile values, cell 0 first.
    pub fn values(&self, b: BoardOf<R>) -> [u32; 16] {
        b.cells(R::BITS).map(R::value)
    }
}

impl<R: TileRule> StochasticGame for Sliding<R> {
    type State = BoardOf<R>;
    type Action = Dir;

    const NAME: &'static str = R::NAME;
    const ACTIONS: &'static [Dir] = &Dir::ALL;

    #[inline]
    fn afterstate(&self, state: &Self::State, action: Dir) -> Option<(Self::State, u32)> {
        let (after, reward) = self.slide(*state, action);
        (after != *state).then_some((after, reward))
    }

    fn chance_outcomes(&self, afterstate: &Self::State, out: &mut Vec<(Self::State, u32)>) {
        let bits = R::BITS;
        for i in (0..16).filter(|&i| afterstate.cell(i, bits) == 0) {
            for &(k, w) in R::SPAWNS {
                out.push((afterstate.with_cell(i, k, bits), w));
            }
        }
    }

    #[inline(always)]
    fn all_afterstates(&self, state: &Self::State, out: &mut [Option<(Self::State, u32)>]) {
        out.copy_from_slice(&self.afterstates(*state));
    }

    fn sample_chance(&self, afterstate: &Self::State, rng: &mut XorShift32) -> Self::State {
        self.spawn(*afterstate, rng)
    }

    fn initial(&self, rng: &mut XorShift32) -> Self::State {
        let b = self.spawn(Board::EMPTY, rng);
        self.spawn(b, rng)
    }

    fn parse_position(&self, text: &str) -> Result<Self::State> {
        notation::parse_board::<R>(text)
    }

    fn format_position(&self, state: &Self::State) -> String {
        notation::format_board::<R>(*state)
    }

    fn format_action(&self, action: Dir) -> String {
        action.name().to_string()
    }

    fn parse_action(&self, text: &str) -> Result<Dir> {
        notation::parse_dir(text).ok_or_else(|| {
            Error::parse(format!(
                "bad {} move '{}': expected left, right, up or down (or l, r, u, d, or an arrow key)",
                R::NAME,
                text.trim()
            ))
        })
    }

    fn display(&self, state: &Self::State) -> String {
        notation::display_board::<R>(*state)
    }
}
