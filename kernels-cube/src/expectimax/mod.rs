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
//!   under an invalid parent doing nothing but copying its entry. Its deepest kernel plays each
//!   afterstate's `4·16·S` leaves in one cube and folds them there, so the leaf entries (the
//!   largest level) never reach memory.
//!
//! [`reduce`] folds each block of `4·16·S` sibling entries into its parent's entry (seed
//! Algorithm 2): the max over the 4 actions of each player node (a node with no valid action
//! keeps its prefix rewards: a finished game is worth no more), then the probability-weighted
//! mean over the chance outcomes, in shared memory or with plane ops where the device has
//! 32-unit planes. The reductions leave 4 entries a root, and a last kernel picks each root's
//! best action and writes all its results in one buffer. Only the roots go up and the per-root
//! results come down, in one read; the spawn tiles and probabilities are kernel arguments, and
//! the network's weights are uploaded once ([`launch::DeviceNetwork`]).

pub mod launch;
pub mod multilevel;
pub mod naive;
pub mod reduce;

use crate::fib::moves::cell;
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

/// u32 words describing one network lookup: weight offset, cell count, up to 8 cells.
pub const LOOKUP_WORDS: u32 = 10;

/// V(board) of an n-tuple network: lookup `l` reads `lookups[10l..10l + 10]` = (offset of its
/// table in `weights`, cell count, cells), its index the cells' tile indices `bits` bits each,
/// first cell lowest. Summed in lookup order, as the host network does. The lookup count is
/// comptime and so is the cell count where every shape has the same (`cells`; 0: read each
/// lookup's), so the loops unroll and all the loads of one evaluation are in flight at once.
#[cube]
pub fn network_value<T: DeviceTiles>(
    board: &FibBoard,
    weights: &Array<f32>,
    lookups: &Array<u32>,
    #[comptime] lookup_count: u32,
    #[comptime] cells: u32,
) -> f32 {
    let bits = T::bits();
    let mut v = 0.0f32;
    #[unroll]
    for l in 0..lookup_count {
        let base = (l * LOOKUP_WORDS) as usize;
        let mut idx = 0u32;
        if comptime!(cells > 0) {
            #[unroll]
            for j in 0..cells {
                idx |= cell::<T>(board, lookups[base + 2 + j as usize]) << (bits * j);
            }
        } else {
            for j in 0..lookups[base + 1] {
                idx |= cell::<T>(board, lookups[base + 2 + j as usize]) << (bits * j);
            }
        }
        v += weights[(lookups[base] + idx) as usize];
    }
    v
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
