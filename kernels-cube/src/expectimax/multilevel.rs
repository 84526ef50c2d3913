//! The multi-level generation (seed 4.4): one launch per layer. A level's nodes are stored as
//! (state, len, rewards so far); node `i` of a level is child `i % fanout` of node
//! `i / fanout` of the level above, so each upper node is computed once. The roots' action
//! slots come first ([`actions_kernel()`]); then each layer takes an afterstate to its block of
//! (outcome, action) children in one kernel ([`layer_kernel()`]). A unit whose parent is invalid
//! copies the parent's len and rewards and touches no state: the subtree is skipped. The
//! deepest layer and its reduction are one kernel ([`leaf_blocks_kernel()`]), which visits only
//! the valid deepest afterstates: the kernel that makes them lists those ([`list_live()`]).
//!
//! Sliding the same tiles from different cells often ends in the same board, so most deepest
//! afterstates of a root are transpositions: in 2584's benchmark boards at three layers, 7.1
//! live ones a distinct key. [`transpositions_kernel()`] finds them in a hash table, keyed by
//! what the entry depends on (the root, the rewards so far and the state): the leaf kernel
//! searches one afterstate of each key, and the others point to it ([`COPY`]), so the fold
//! above reads its entry. The CPU search's transposition table keys its chance nodes the same
//! way, and the entries are bit for bit those a search of every afterstate would give.

use super::reduce::{fold_block, COPY};
use super::{act_in, chance_in, TreeShape, DISTINCT, LIVE};
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

/// The list of live deepest afterstates: `count[LIVE]` node numbers in `nodes`, in no order;
/// and the transposition table, which the kernel making the deepest level clears.
#[derive(CubeType, CubeLaunch)]
pub struct LiveList {
    /// The search's counters ([`COUNTERS`](super::COUNTERS) words).
    pub count: Array<Atomic<u32>>,
    /// Their node numbers.
    pub nodes: Array<u32>,
    /// [`Transpositions::table`], no larger than the deepest level.
    pub table: Array<u32>,
}

/// The live deepest afterstates sorted by key ([`transpositions_kernel()`]).
#[derive(CubeType, CubeLaunch)]
pub struct Transpositions {
    /// Open addressing: a slot holds a node number + 1 (0: empty); a power of two of them,
    /// all zero before the search.
    pub table: Array<Atomic<u32>>,
    /// The first node found of each key, `count[DISTINCT]` of them: the ones searched.
    pub distinct: Array<u32>,
}

/// Appends node `i` to the list of live deepest afterstates when it is one, and clears slot
/// `i` of the transposition table: `deepest` says the level is the deepest, `valid` that the
/// node is.
#[cube]
pub fn list_live(live: &mut LiveList, i: u32, valid: bool, #[comptime] deepest: bool) {
    if comptime!(deepest) {
        if valid {
            let k = live.count[LIVE].fetch_add(1u32);
            live.nodes[k as usize] = i;
        }
        if (i as usize) < live.table.len() {
            live.table[i as usize] = 0u32;
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

/// The last layer in one pass, over the distinct live afterstates of the deepest action level
/// (`counters[DISTINCT]` of them in `distinct`): cube `c` takes the `c`-th, the
/// `c + CUBE_COUNT`-th, …, and for each its unit `u` plays child `u` ([`layer_child()`]) and
/// scores the leaf (rewards + V(afterstate)); the cube folds its block of leaves
/// ([`fold_block()`]) into the afterstate's entry, in place (`accs`, `lens`). The leaf entries,
/// the largest level, never reach device memory, and an invalid afterstate already holds its
/// entry (its rewards and len): no cube visits it.
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn leaf_blocks_kernel<G: DeviceStochasticGame>(
    level: &mut Level,
    counters: &Array<u32>,
    distinct: &Array<u32>,
    weights: &Array<f32>,
    recips: &Array<f32>,
    full: u32,
    #[comptime] words: usize,
    #[comptime] tree: TreeShape,
    #[comptime] layout: NetLayout,
    #[comptime] plane_ops: bool,
) {
    let u = UNIT_POS;
    let count = counters[DISTINCT];
    // The bound is the same for the whole cube, so every unit meets the fold's barriers.
    let mut k = CUBE_POS as u32;
    while k < count {
        let at = distinct[k as usize] as usize;
        let mut value = level.accs[at];
        let mut child = G::load(&level.states, at * words);
        let step = layer_child::<G>(&mut child, u, tree);
        let len = full + step.digits;
        if step.digits == 2u32 {
            // `(rewards + r) + V`, the naive kernel's and the CPU's order.
            value += f32::cast_from(step.reward);
            value += layout_value::<G>(&child, weights, comptime!(layout.clone()));
        }
        let parent = fold_block::<G>(value, len, recips, full + 2u32, tree, plane_ops);
        if u == 0u32 {
            level.accs[at] = parent.value;
            level.lens[at] = parent.len;
        }
        // Every unit has read this afterstate's entry and shared slots before the next one.
        sync_cube();
        k += CUBE_COUNT as u32;
    }
}

/// Murmur3's finaliser: every input bit moves every output bit.
#[cube]
fn mix(word: u32) -> u32 {
    let mut h = word ^ (word >> 16u32);
    h *= 0x85eb_ca6bu32;
    h ^= h >> 13u32;
    h *= 0xc2b2_ae35u32;
    h ^ (h >> 16u32)
}

/// The hash of deepest node `node`'s key: its root (`per_root` nodes a root), its rewards so
/// far and its state's words.
#[cube]
fn key_hash(level: &Level, node: u32, per_root: u32, #[comptime] words: usize) -> u32 {
    let mut h = mix(node / per_root);
    h = mix(h ^ u32::reinterpret(level.accs[node as usize]));
    #[unroll]
    for w in 0..words {
        h = mix(h ^ level.states[node as usize * words + w]);
    }
    h
}

/// Whether deepest nodes `a` and `b` have the same key ([`key_hash()`]).
#[cube]
fn same_key(level: &Level, a: u32, b: u32, per_root: u32, #[comptime] words: usize) -> bool {
    let mut same = a / per_root == b / per_root
        && u32::reinterpret(level.accs[a as usize]) == u32::reinterpret(level.accs[b as usize]);
    #[unroll]
    for w in 0..words {
        same = same && level.states[a as usize * words + w] == level.states[b as usize * words + w];
    }
    same
}

/// Slots a key's probe tries before its node is searched as if distinct: the table may be
/// smaller than the level, and a transposition searched twice only costs time.
pub const PROBES: u32 = 64;

/// Sorts the listed live deepest afterstates of `level` (`per_root` nodes a root) by key: the
/// first of each key to take a table slot goes to `found.distinct`, the others' lens point to
/// it ([`COPY`]); a node whose probe meets [`PROBES`] other keys goes to `found.distinct` too.
/// Which one comes first varies from run to run; their entries are the same bits. The
/// table's slots are a power of two; units stride over the list.
#[cube(launch_unchecked)]
pub fn transpositions_kernel(
    level: &mut Level,
    live: &mut LiveList,
    found: &mut Transpositions,
    per_root: u32,
    #[comptime] words: usize,
) {
    let count = live.count[LIVE].load();
    let mask = found.table.len() as u32 - 1u32;
    let mut k = ABSOLUTE_POS as u32;
    while k < count {
        let node = live.nodes[k as usize];
        let mut slot = key_hash(level, node, per_root, words) & mask;
        let mut probes = 0u32;
        let mut first = node;
        while probes < PROBES {
            let mut holder = found.table[slot as usize].compare_exchange_weak(0u32, node + 1u32);
            if holder == 0u32 {
                // Taken, unless a weak exchange failed for nothing (WGSL's may): the slot says.
                holder = found.table[slot as usize].load();
            }
            if holder == node + 1u32 {
                probes = PROBES;
            } else if holder != 0u32 {
                if same_key(level, node, holder - 1u32, per_root, words) {
                    first = holder - 1u32;
                    probes = PROBES;
                } else {
                    slot = (slot + 1u32) & mask;
                    probes += 1u32;
                }
            }
        }
        if first == node {
            let at = live.count[DISTINCT].fetch_add(1u32);
            found.distinct[at as usize] = node;
        } else {
            // Keys compare states and rewards, never lens: this write races no reader.
            level.lens[node as usize] = COPY | first;
        }
        k += CUBE_COUNT as u32 * CUBE_DIM;
    }
}
