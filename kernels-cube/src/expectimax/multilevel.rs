//! The multi-level generation (seed 4.4): one launch per layer. A level's nodes are stored as
//! (board, len, rewards so far); node `i` of a level is child `i % fanout` of node
//! `i / fanout` of the level above, so each upper node is computed once. The roots' 4 actions
//! come first ([`actions_kernel()`]); then each layer takes an afterstate to its `BLOCK`
//! (outcome, action) children in one kernel ([`layer_kernel()`]). A unit whose parent is invalid
//! copies the parent's len and rewards and touches no board: the subtree is skipped. The
//! deepest layer and its reduction are one kernel ([`leaf_blocks_kernel()`]).

use super::reduce::fold_block;
use super::{network_value, per_spawn, ACTIONS, BLOCK, SPAWNS};
use crate::fib::moves::{empty_count, put_in_empty, set_board, slide};
use crate::fib::{DeviceTiles, FibBoard};
use cubecl::prelude::*;

/// Player nodes → their 4 action children (afterstates). A parent is valid when its len is
/// `full`; with `roots` the parents are the roots (len 0, no rewards).
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
    #[comptime] roots: bool,
) {
    let i = ABSOLUTE_POS as u32;
    if i < count {
        let parent = (i / ACTIONS) as usize;
        // Roots are valid with nothing collected (`lens` and `accs` are not read).
        let mut len = 0u32;
        let mut acc = 0.0f32;
        if !comptime!(roots) {
            len = lens[parent];
            acc = accs[parent];
        }
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

/// Child `u = outcome·4 + action` of an afterstate one layer down: outcome `o = u / 4` puts
/// spawn tile `o % S` in the `(o / S)`-th empty cell (not cell `o / S`: the valid children come
/// first, so in a block of them whole planes are idle and skip the work), then the action
/// slides. `digits`: how many of the two are valid.
#[derive(CubeType)]
pub struct LayerChild {
    pub board: FibBoard,
    pub digits: u32,
    pub reward: u32,
}

#[cube]
pub fn layer_child<T: DeviceTiles>(afterstate: &FibBoard, u: u32, t0: u32, t1: u32) -> LayerChild {
    let mut board = *afterstate;
    let mut digits = 0u32;
    let mut reward = 0u32;
    let o = u / ACTIONS;
    let nth = o / SPAWNS;
    if nth < empty_count::<T>(afterstate) {
        put_in_empty::<T>(&mut board, nth, per_spawn::<u32>(o, t0, t1));
        digits = 1u32;
        let s = slide::<T>(&board, u % ACTIONS);
        if s.moved {
            digits = 2u32;
            reward = s.reward;
            set_board(&mut board, &s.board);
        }
    }
    LayerChild {
        board,
        digits,
        reward,
    }
}

/// Afterstates → the afterstates one layer down: unit `i` is child `i % BLOCK` of afterstate
/// `i / BLOCK` ([`layer_child()`]). A parent is valid when its len is `full`.
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn layer_kernel<T: DeviceTiles>(
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
        let parent = (i / BLOCK) as usize;
        let mut len = lens[parent];
        let mut acc = accs[parent];
        if len == full {
            let child = layer_child::<T>(&T::load(boards, parent * words), i % BLOCK, t0, t1);
            len += child.digits;
            acc += f32::cast_from(child.reward);
            if child.digits == 2u32 {
                T::store(&child.board, out_boards, i as usize * words);
            }
        }
        out_lens[i as usize] = len;
        out_accs[i as usize] = acc;
    }
}

/// The last layer in one pass: cube `g` takes afterstate `g` of the deepest action level, and
/// its unit `u` plays child `u` ([`layer_child()`]) and scores the leaf (rewards +
/// V(afterstate)); the cube folds its `BLOCK` leaves into entry `g` ([`fold_block()`]). The leaf
/// entries, the level's largest, never reach device memory, and a cube under an invalid
/// afterstate only copies its entry.
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
    full: u32,
    groups: u32,
    #[comptime] words: usize,
    #[comptime] lookup_count: u32,
    #[comptime] cells: u32,
    #[comptime] plane_ops: bool,
) {
    let g = CUBE_POS as u32;
    let u = UNIT_POS;
    if g < groups {
        let at = g as usize;
        let mut value = accs[at];
        let mut len = lens[at];
        // The whole cube shares afterstate g, so this branch is uniform: under an invalid one
        // the cube only copies its entry, with no fold.
        if len == full {
            let child = layer_child::<T>(&T::load(boards, at * words), u, t0, t1);
            len += child.digits;
            if child.digits == 2u32 {
                value += f32::cast_from(child.reward)
                    + network_value::<T>(&child.board, weights, lookups, lookup_count, cells);
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
    }
}
