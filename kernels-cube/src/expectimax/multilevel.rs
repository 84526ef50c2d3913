//! The multi-level generation (seed 4.4): one launch per layer. A level's nodes are stored as
//! (board, len, rewards so far); node `i` of a level is child `i % fanout` of node
//! `i / fanout` of the level above, so each upper node is computed once. The roots' 4 actions
//! come first ([`actions_kernel()`]); then each layer takes an afterstate to its `BLOCK`
//! (outcome, action) children in one kernel ([`layer_kernel()`]). A unit whose parent is invalid
//! copies the parent's len and rewards and touches no board: the subtree is skipped. The
//! deepest layer and its reduction are one kernel ([`leaf_blocks_kernel()`]), which visits only
//! the valid deepest afterstates: the kernel that makes them lists those ([`list_live()`]).

use super::reduce::fold_block;
use super::{network_value, per_spawn, NetLayout, ACTIONS, BLOCK, SPAWNS};
use crate::fib::moves::{empty_count, put_in_empty, set_board, slide};
use crate::fib::{DeviceTiles, FibBoard};
use cubecl::prelude::*;

/// Appends node `i` to the list of live deepest afterstates (`live_count[0]` of them in
/// `live`, in no particular order) when it is one: `deepest` says the level is the deepest,
/// `valid` that the node is.
#[cube]
// The outer `if` is decided at compile time, the inner one on the device: they cannot merge.
#[allow(clippy::collapsible_if)]
pub fn list_live(
    live_count: &mut Array<Atomic<u32>>,
    live: &mut Array<u32>,
    i: u32,
    valid: bool,
    #[comptime] deepest: bool,
) {
    if comptime!(deepest) {
        if valid {
            let k = live_count[0].fetch_add(1u32);
            live[k as usize] = i;
        }
    }
}

/// Player nodes → their 4 action children (afterstates). A parent is valid when its len is
/// `full`; with `roots` the parents are the roots (len 0, no rewards). On the `deepest` level
/// the valid children are listed ([`list_live()`]).
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn actions_kernel<T: DeviceTiles>(
    boards: &Array<u32>,
    lens: &Array<u32>,
    accs: &Array<f32>,
    out_boards: &mut Array<u32>,
    out_lens: &mut Array<u32>,
    out_accs: &mut Array<f32>,
    live_count: &mut Array<Atomic<u32>>,
    live: &mut Array<u32>,
    full: u32,
    count: u32,
    #[comptime] words: usize,
    #[comptime] roots: bool,
    #[comptime] deepest: bool,
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
        list_live(live_count, live, i, len == full + 1u32, deepest);
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
/// `i / BLOCK` ([`layer_child()`]). A parent is valid when its len is `full`. On the `deepest`
/// level the valid children are listed ([`list_live()`]).
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn layer_kernel<T: DeviceTiles>(
    boards: &Array<u32>,
    lens: &Array<u32>,
    accs: &Array<f32>,
    out_boards: &mut Array<u32>,
    out_lens: &mut Array<u32>,
    out_accs: &mut Array<f32>,
    live_count: &mut Array<Atomic<u32>>,
    live: &mut Array<u32>,
    t0: u32,
    t1: u32,
    full: u32,
    count: u32,
    #[comptime] words: usize,
    #[comptime] deepest: bool,
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
        list_live(live_count, live, i, len == full + 2u32, deepest);
        out_lens[i as usize] = len;
        out_accs[i as usize] = acc;
    }
}

/// The last layer in one pass, over the listed live afterstates of the deepest action level
/// (`live_count[0]` of them in `live`): cube `c` takes the `c`-th, the `c + CUBE_COUNT`-th, …,
/// and for each its unit `u` plays child `u` ([`layer_child()`]) and scores the leaf (rewards +
/// V(afterstate)); the cube folds its `BLOCK` leaves ([`fold_block()`]) into the afterstate's
/// entry, in place (`accs`, `lens`). The leaf entries, the largest level, never reach device
/// memory, and an invalid afterstate already holds its entry (its rewards and len): no cube
/// visits it.
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn leaf_blocks_kernel<T: DeviceTiles>(
    boards: &Array<u32>,
    lens: &mut Array<u32>,
    accs: &mut Array<f32>,
    live_count: &Array<u32>,
    live: &Array<u32>,
    weights: &Array<f32>,
    t0: u32,
    t1: u32,
    p0: f32,
    p1: f32,
    full: u32,
    #[comptime] words: usize,
    #[comptime] layout: NetLayout,
    #[comptime] plane_ops: bool,
) {
    let u = UNIT_POS;
    let count = live_count[0];
    // The bound is the same for the whole cube, so every unit meets the fold's barriers.
    let mut k = CUBE_POS as u32;
    while k < count {
        let at = live[k as usize] as usize;
        let mut value = accs[at];
        let child = layer_child::<T>(&T::load(boards, at * words), u, t0, t1);
        let len = full + child.digits;
        if child.digits == 2u32 {
            value += f32::cast_from(child.reward)
                + network_value::<T>(&child.board, weights, comptime!(layout.clone()));
        }
        let parent = fold_block(value, len, p0, p1, full + 2u32, plane_ops);
        if u == 0u32 {
            accs[at] = parent.value;
            lens[at] = parent.len;
        }
        // Every unit has read this afterstate's entry and shared slots before the next one.
        sync_cube();
        k += CUBE_COUNT as u32;
    }
}
