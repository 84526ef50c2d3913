//! The multi-level generation (seed 4.4): one launch per depth. A level's nodes are stored as
//! (board, len, rewards so far); node `i` of a level is child `i % fanout` of node
//! `i / fanout` of the level above, so each upper node is computed once. A unit whose parent is
//! invalid copies the parent's len and rewards and touches no board: the subtree is skipped.
//! The deepest level and its reduction are one kernel ([`leaf_blocks_kernel`]).

use super::reduce::fold_block;
use super::{network_value, put_tile, spawn_tile, ACTIONS, OUTCOMES, SPAWNS};
use crate::fib::moves::{cell, slide};
use crate::fib::DeviceTiles;
use cubecl::prelude::*;

/// Player nodes → their 4 action children (afterstates). A parent is valid when its len is
/// `full`.
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn actions_kernel<T: DeviceTiles>(
    boards: &Array<u32>,
    lens: &Array<u32>,
    accs: &Array<f32>,
    out_boards: &mut Array<u32>,
    out_lens: &mut Array<u32>,
    out_accs: &mut Array<f32>,
    full: u32,
    count: u32,
    #[comptime] words: usize,
) {
    let i = ABSOLUTE_POS as u32;
    if i < count {
        let parent = (i / ACTIONS) as usize;
        let mut len = lens[parent];
        let mut acc = accs[parent];
        if len == full {
            let board = T::load(boards, parent * words);
            let s = slide::<T>(&board, i % ACTIONS);
            if s.moved {
                T::store(&s.board, out_boards, i as usize * words);
                len += 1u32;
                acc += f32::cast_from(s.reward);
            }
        }
        out_lens[i as usize] = len;
        out_accs[i as usize] = acc;
    }
}

/// Afterstates → their chance outcomes (cell `o / S`, spawn tile `o % S`).
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn outcomes_kernel<T: DeviceTiles>(
    boards: &Array<u32>,
    lens: &Array<u32>,
    accs: &Array<f32>,
    out_boards: &mut Array<u32>,
    out_lens: &mut Array<u32>,
    out_accs: &mut Array<f32>,
    t0: u32,
    t1: u32,
    full: u32,
    count: u32,
    #[comptime] words: usize,
) {
    let i = ABSOLUTE_POS as u32;
    if i < count {
        let parent = (i / OUTCOMES) as usize;
        let o = i % OUTCOMES;
        let mut len = lens[parent];
        if len == full {
            let mut board = T::load(boards, parent * words);
            let c = o / SPAWNS;
            if cell::<T>(&board, c) == 0u32 {
                put_tile::<T>(&mut board, c, spawn_tile(o, t0, t1));
                T::store(&board, out_boards, i as usize * words);
                len += 1u32;
            }
        }
        out_lens[i as usize] = len;
        out_accs[i as usize] = accs[parent];
    }
}

/// The last layer in one pass: cube `g` takes afterstate `g` of the deepest action level, and
/// its unit `u = outcome·4 + action` places that outcome's tile, plays that action and scores the
/// leaf (rewards + V(afterstate)); the cube folds its `BLOCK` leaves into entry `g`
/// ([`fold_block`]). The leaf entries, the level's largest, never reach device memory, and a cube
/// under an invalid afterstate only copies its entry.
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn leaf_blocks_kernel<T: DeviceTiles>(
    boards: &Array<u32>,
    lens: &Array<u32>,
    accs: &Array<f32>,
    weights: &Array<f32>,
    lookups: &Array<u32>,
    out_values: &mut Array<f32>,
    out_lens: &mut Array<u32>,
    t0: u32,
    t1: u32,
    p0: f32,
    p1: f32,
    lookup_count: u32,
    full: u32,
    groups: u32,
    #[comptime] words: usize,
    #[comptime] plane_ops: bool,
) {
    let u = UNIT_POS;
    // Cubes stride over the afterstates, so a launch holds no more cubes than the device runs
    // at once.
    let mut g = CUBE_POS as u32;
    while g < groups {
        let at = g as usize;
        let mut value = accs[at];
        let mut len = lens[at];
        // The whole cube shares afterstate g, so this branch is uniform: under an invalid one
        // the cube only copies its entry, with no fold.
        if len == full {
            let mut board = T::load(boards, at * words);
            let o = u / ACTIONS;
            let c = o / SPAWNS;
            if cell::<T>(&board, c) == 0u32 {
                put_tile::<T>(&mut board, c, spawn_tile(o, t0, t1));
                len += 1u32;
                let s = slide::<T>(&board, u % ACTIONS);
                if s.moved {
                    len += 1u32;
                    value += f32::cast_from(s.reward)
                        + network_value::<T>(&s.board, weights, lookups, lookup_count);
                }
            }
            let parent = fold_block(value, len, p0, p1, full + 2u32, plane_ops);
            if u == 0u32 {
                out_values[at] = parent.value;
                out_lens[at] = parent.len;
            }
        } else if u == 0u32 {
            out_values[at] = value;
            out_lens[at] = len;
        }
        g += CUBE_COUNT as u32;
    }
}
