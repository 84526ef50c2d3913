//! Expectimax of 2584/2048 on the device (seed 4.4), generic over the tile rule
//! ([`DeviceTiles`]): no kernel has a game-specific branch.
//!
//! The tree of an X-layer search from one root is addressed by paths of digits: the root
//! action `a0` (4), then X times a chance outcome `o = cell·S + tile` (16·S, S spawn tiles) and
//! an action. Digit position `j`: `a0` is 0, `o_k` is `2k − 1`, `a_k` is `2k`. A path's *entry*
//! is `(value, len)`: `len` counts its leading valid digits (an action is valid when it moves
//! the board, an outcome when its cell is empty; everything under an invalid digit is invalid)
//! and `value` is the rewards collected along the valid prefix, plus V(afterstate) when the
//! whole path is valid. Entries are in path order (the deepest digits fastest), so sibling
//! leaves are contiguous:
//!
//! * [`naive`]: one unit per root-to-leaf path replays its whole path (seed Algorithm 1) and
//!   writes its entry;
//! * [`multilevel`]: one kernel per depth, each node computed once from its parent, and units
//!   under an invalid parent doing nothing but copying its entry. The kernel making the deepest
//!   afterstates lists the live (valid) ones; the last kernel plays each listed afterstate's
//!   `4·16·S` leaves in one cube and folds them there, so the leaf entries (the largest level)
//!   never reach memory and no cube visits a dead subtree.
//!
//! [`reduce`] folds each block of `4·16·S` sibling entries into its parent's entry (seed
//! Algorithm 2): the max over the 4 actions of each player node (a node with no valid action
//! keeps its prefix rewards: a finished game is worth no more), then the probability-weighted
//! mean over the chance outcomes, in shared memory or with plane ops where the device has
//! 32-unit planes. The last fold and the root step are one kernel: it picks each root's best
//! action and writes all its results in one buffer. Only the roots go up and the per-root
//! results come down, in one read; the spawn tiles and probabilities are kernel arguments, the
//! network's weights are uploaded once ([`launch::DeviceNetwork`]) and its lookups compiled into
//! the kernels ([`NetLayout`]), and a search's buffers are kept for the next
//! ([`launch::Workspace`]).

pub mod launch;
pub mod multilevel;
pub mod naive;
pub mod reduce;

use crate::fib::moves::row_cell;
use crate::fib::{DeviceTiles, FibBoard};
use cubecl::prelude::*;

/// Actions a player node has (left, right, up, down).
pub const ACTIONS: u32 = 4;
/// Spawn tiles a chance outcome chooses from (both games spawn one of two tiles).
pub const SPAWNS: u32 = 2;
/// Chance outcomes of an afterstate: 16 cells × [`SPAWNS`] tiles, valid or not.
pub const OUTCOMES: u32 = 16 * SPAWNS;
/// Children of one action node one layer down: [`OUTCOMES`] × [`ACTIONS`], one reduction block.
pub const BLOCK: u32 = OUTCOMES * ACTIONS;
/// What chance outcome `o`'s spawn tile has of two per-tile values (its tile, its
/// probability): `first` for even outcomes, `second` for odd ones. The spawn tiles and
/// probabilities are kernel arguments, so no buffer holds them.
#[cube]
pub fn per_spawn<E: CubePrimitive>(o: u32, first: E, second: E) -> E {
    let tile = o % SPAWNS;
    select(tile == 0u32, first, second)
}

/// A network's lookups as compile-time data: each lookup's table offset in the weights and its
/// cells, in the host network's order. Kernels are compiled for one layout, so building an index
/// is constant shifts and masks and nothing is read but the weight itself.
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
pub struct NetLayout {
    lookups: Vec<(u32, Vec<u8>)>,
}

impl NetLayout {
    /// A layout of `(table offset, cells)` lookups.
    pub fn new(lookups: Vec<(u32, Vec<u8>)>) -> Self {
        Self { lookups }
    }

    /// How many lookups an evaluation sums.
    pub fn len(&self) -> usize {
        self.lookups.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.lookups.is_empty()
    }

    fn offset(&self, l: usize) -> u32 {
        self.lookups[l].0
    }

    fn cells(&self, l: usize) -> Vec<u8> {
        self.lookups[l].1.clone()
    }
}

/// V(board) of an n-tuple network laid out as `layout`: lookup `l`'s index is its cells' tile
/// indices, `bits` bits each, first cell lowest, summed as the host network sums them: lookup
/// `l` into partial sum `l mod 4`, then `(s₀ + s₁) + (s₂ + s₃)` (a multiple of 4 lookups).
#[cube]
pub fn network_value<T: DeviceTiles>(
    board: &FibBoard,
    weights: &Array<f32>,
    #[comptime] layout: NetLayout,
) -> f32 {
    let s0 = sum_lookups::<T>(board, weights, 0.0f32, layout.clone(), 0usize);
    let s1 = sum_lookups::<T>(board, weights, 0.0f32, layout.clone(), 1usize);
    let s2 = sum_lookups::<T>(board, weights, 0.0f32, layout.clone(), 2usize);
    let s3 = sum_lookups::<T>(board, weights, 0.0f32, layout, 3usize);
    (s0 + s1) + (s2 + s3)
}

/// `acc` plus the weights of lookups `l, l + 4, l + 8, …` in order. A recursion on
/// compile-time values, so it unrolls: every cell and offset is a constant.
#[cube]
fn sum_lookups<T: DeviceTiles>(
    board: &FibBoard,
    weights: &Array<f32>,
    acc: f32,
    #[comptime] layout: NetLayout,
    #[comptime] l: usize,
) -> f32 {
    let mut v = acc;
    if comptime!(l < layout.len()) {
        let idx = tuple_index::<T>(board, 0u32, comptime!(layout.cells(l)), 0usize);
        let w = weights[(idx + comptime!(layout.offset(l))) as usize];
        v = sum_lookups::<T>(board, weights, acc + w, layout, comptime!(l + 4));
    }
    v
}

/// `acc` with cells `j..` of `cells` added, `bits` bits each from bit `j·bits` (a compile-time
/// recursion, as [`sum_lookups()`]).
#[cube]
fn tuple_index<T: DeviceTiles>(
    board: &FibBoard,
    acc: u32,
    #[comptime] cells: Vec<u8>,
    #[comptime] j: usize,
) -> u32 {
    let mut idx = acc;
    if comptime!(j < cells.len()) {
        let tile = fixed_cell::<T>(board, comptime!(cells[j] as u32));
        let at = acc | (tile << (T::bits() * comptime!(j as u32)));
        idx = tuple_index::<T>(board, at, cells, comptime!(j + 1));
    }
    idx
}

/// The tile index in cell `c` (`4·row + col`), `c` known at compile time.
#[cube]
fn fixed_cell<T: DeviceTiles>(board: &FibBoard, #[comptime] c: u32) -> u32 {
    let mut row = board.r0;
    if comptime!(c / 4 == 1) {
        row = board.r1;
    }
    if comptime!(c / 4 == 2) {
        row = board.r2;
    }
    if comptime!(c / 4 == 3) {
        row = board.r3;
    }
    row_cell::<T>(row, comptime!(c % 4))
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
