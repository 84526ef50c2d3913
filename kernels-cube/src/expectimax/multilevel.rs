//! The multi-level generation (seed 4.4): one launch per layer. A level's nodes are stored as
//! (state, len, rewards so far); node `i` of a level is child `i % fanout` of node
//! `i / fanout` of the level above, so each upper node is computed once. The roots' action
//! slots come first ([`actions_kernel()`]); then each layer takes an afterstate to its block of
//! (outcome, action) children in one kernel ([`layer_kernel()`]). A unit whose parent is invalid
//! copies the parent's len and rewards and touches no state: the subtree is skipped. The
//! deepest layer and its reduction are one kernel ([`leaf_blocks_kernel()`]), which visits only
//! the valid deepest afterstates: the kernel that makes them lists those ([`list_live()`]).

use super::reduce::fold_block;
use super::{act_in, chance_in, TreeShape};
use crate::ntuple::{layout_value, NetLayout};
use crate::stochastic::DeviceStochasticGame;
use cubecl::prelude::*;

/// A level of the tree: each node's state, its len (valid digits so far) and its rewards so far.
#[derive(CubeType, CubeLaunch)]
pub struct Level {
    /// `words` words a node.
    pub states: Array<u32>,
    /// A node's len.
    pub lens: Array<u32>,
    /// A node's rewards so far.
    pub accs: Array<f32>,
}

/// The list of live deepest afterstates: `count[0]` node numbers in `nodes`, in no order.
#[derive(CubeType, CubeLaunch)]
pub struct LiveList {
    /// How many are listed.
    pub count: Array<Atomic<u32>>,
    /// Their node numbers.
    pub nodes: Array<u32>,
}

/// Appends node `i` to the list of live deepest afterstates when it is one: `deepest` says the
/// level is the deepest, `valid` that the node is.
#[cube]
// The outer `if` is decided at compile time, the inner one on the device: they cannot merge.
#[allow(clippy::collapsible_if)]
pub fn list_live(live: &mut LiveList, i: u32, valid: bool, #[comptime] deepest: bool) {
    if comptime!(deepest) {
        if valid {
            let k = live.count[0].fetch_add(1u32);
            live.nodes[k as usize] = i;
        }
    }
}

/// Player nodes → their action slots' children (afterstates). A parent is valid when its len
/// is `full`; with `roots` the parents are the roots (len 0, no rewards). On the `deepest`
/// level the valid children are listed ([`list_live()`]).
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn actions_kernel<G: DeviceStochasticGame>(
    parents: &Level,
    children: &mut Level,
    live: &mut LiveList,
    full: u32,
    count: u32,
    #[comptime] words: usize,
    #[comptime] tree: TreeShape,
    #[comptime] roots: bool,
    #[comptime] deepest: bool,
) {
    let i = ABSOLUTE_POS as u32;
    if i < count {
        let action_slots = comptime!(tree.action_slots());
        let parent = (i / action_slots) as usize;
        // Roots are valid with nothing collected (`lens` and `accs` are not read).
        let mut len = 0u32;
        let mut acc = 0.0f32;
        if !comptime!(roots) {
            len = parents.lens[parent];
            acc = parents.accs[parent];
        }
        if len == full {
            let mut state = G::load(&parents.states, parent * words);
            let s = act_in::<G>(&mut state, i % action_slots, tree);
            if s.legal {
                G::store(&state, &mut children.states, i as usize * words);
                len += 1u32;
                acc += f32::cast_from(s.reward);
            }
        }
        list_live(live, i, len == full + 1u32, deepest);
        children.lens[i as usize] = len;
        children.accs[i as usize] = acc;
    }
}

/// What [`layer_child()`] played: how many of its two digits are valid, and the action's reward.
#[derive(CubeType, Clone, Copy)]
pub struct LayerChild {
    /// Valid digits: 0, 1 (the outcome) or 2 (and the action).
    pub digits: u32,
    /// The action's reward (0 unless both digits are valid).
    pub reward: u32,
}

/// Turns `state`, an afterstate, into its child `u = outcome·A + action` one layer down, in
/// place: packed outcome slot `u / A` (a game may put its possible outcomes first, so that in
/// a block of them whole planes are idle and skip the work), then action slot `u % A`. The
/// state is the child only when both digits are valid.
#[cube]
pub fn layer_child<G: DeviceStochasticGame>(
    state: &mut G::State,
    u: u32,
    #[comptime] tree: TreeShape,
) -> LayerChild {
    let action_slots = comptime!(tree.action_slots());
    let mut digits = 0u32;
    let mut reward = 0u32;
    if chance_in::<G>(state, u / action_slots, tree, true) {
        digits = 1u32;
        let s = act_in::<G>(state, u % action_slots, tree);
        if s.legal {
            digits = 2u32;
            reward = s.reward;
        }
    }
    LayerChild { digits, reward }
}

/// Afterstates → the afterstates one layer down: unit `i` is child `i % B` of afterstate
/// `i / B` (`B` the block, [`layer_child()`]). A parent is valid when its len is `full`. On
/// the `deepest` level the valid children are listed ([`list_live()`]).
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn layer_kernel<G: DeviceStochasticGame>(
    parents: &Level,
    children: &mut Level,
    live: &mut LiveList,
    full: u32,
    count: u32,
    #[comptime] words: usize,
    #[comptime] tree: TreeShape,
    #[comptime] deepest: bool,
) {
    let i = ABSOLUTE_POS as u32;
    if i < count {
        let block = comptime!(tree.block());
        let parent = (i / block) as usize;
        let mut len = parents.lens[parent];
        let mut acc = parents.accs[parent];
        if len == full {
            let mut child = G::load(&parents.states, parent * words);
            let step = layer_child::<G>(&mut child, i % block, tree);
            len += step.digits;
            acc += f32::cast_from(step.reward);
            if step.digits == 2u32 {
                G::store(&child, &mut children.states, i as usize * words);
            }
        }
        list_live(live, i, len == full + 2u32, deepest);
        children.lens[i as usize] = len;
        children.accs[i as usize] = acc;
    }
}

/// The last layer in one pass, over the listed live afterstates of the deepest action level
/// (`live_count[0]` of them in `live`): cube `c` takes the `c`-th, the `c + CUBE_COUNT`-th, …,
/// and for each its unit `u` plays child `u` ([`layer_child()`]) and scores the leaf (rewards +
/// V(afterstate)); the cube folds its block of leaves ([`fold_block()`]) into the afterstate's
/// entry, in place (`accs`, `lens`). The leaf entries, the largest level, never reach device
/// memory, and an invalid afterstate already holds its entry (its rewards and len): no cube
/// visits it.
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn leaf_blocks_kernel<G: DeviceStochasticGame>(
    states: &Array<u32>,
    lens: &mut Array<u32>,
    accs: &mut Array<f32>,
    live_count: &Array<u32>,
    live: &Array<u32>,
    weights: &Array<f32>,
    recips: &Array<f32>,
    full: u32,
    #[comptime] words: usize,
    #[comptime] tree: TreeShape,
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
        let mut child = G::load(states, at * words);
        let step = layer_child::<G>(&mut child, u, tree);
        let len = full + step.digits;
        if step.digits == 2u32 {
            // `(rewards + r) + V`, the naive kernel's and the CPU's order.
            value += f32::cast_from(step.reward);
            value += layout_value::<G>(&child, weights, comptime!(layout.clone()));
        }
        let parent = fold_block::<G>(value, len, recips, full + 2u32, tree, plane_ops);
        if u == 0u32 {
            accs[at] = parent.value;
            lens[at] = parent.len;
        }
        // Every unit has read this afterstate's entry and shared slots before the next one.
        sync_cube();
        k += CUBE_COUNT as u32;
    }
}
