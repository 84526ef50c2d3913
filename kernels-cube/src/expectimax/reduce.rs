//! The reduction per parent (seed Algorithm 2), and the root step.
//!
//! A block is the `BLOCK` children one layer under an afterstate, unit `u` holding child
//! `u = outcome·4 + action`. [`fold_block()`] folds them in two steps: the max over each outcome's
//! 4 actions, then the probability-weighted mean over the outcomes. In shared memory everywhere;
//! with plane ops (32-unit planes) the action max is two shuffles and the outcome sum a plane
//! sum per plane, so only 4 partial sums meet in shared memory.

use super::{per_spawn, ACTIONS, BLOCK, OUTCOMES, SPAWNS};
use cubecl::prelude::*;

const _: () = assert!(OUTCOMES == 32, "the outcome sum starts at half of 32");
const _: () = assert!(ACTIONS == 4, "the action max is two pairwise steps");

/// The plane size the plane-op fold is written for.
pub const FOLD_PLANE: u32 = 32;
/// Planes in a block when folding with plane ops.
const BLOCK_PLANES: u32 = BLOCK / FOLD_PLANE;

/// One tree entry: the value (rewards along the valid prefix, plus V at a whole path) and the
/// number of valid leading digits.
#[derive(CubeType, Clone, Copy)]
pub struct Entry {
    pub value: f32,
    pub len: u32,
}

/// Folds the block whose child this unit holds (`value`, `len`) into the parent's entry,
/// returned to unit 0 (the other units get partial results). Every unit of the cube must call
/// it. An action child is valid when its len is at least `action_len`, an outcome child when at
/// least `action_len − 1`. A player node with no valid action keeps its prefix rewards (a
/// finished game is worth no more); an afterstate with no valid outcome (no empty cell) keeps
/// them too. The mean divides by the number of empty cells; the len passed up is the largest.
#[cube]
pub fn fold_block(
    value: f32,
    len: u32,
    p0: f32,
    p1: f32,
    action_len: u32,
    #[comptime] plane_ops: bool,
) -> Entry {
    if comptime!(plane_ops) {
        fold_with_planes(value, len, p0, p1, action_len)
    } else {
        fold_in_shared(value, len, p0, p1, action_len)
    }
}

/// Of two action children, the better valid one (the len is the larger either way).
#[cube]
fn better_action(a: Entry, b: Entry, action_len: u32) -> Entry {
    let take = b.len >= action_len && (a.len < action_len || b.value > a.value);
    Entry {
        value: select(take, b.value, a.value),
        len: select(b.len > a.len, b.len, a.len),
    }
}

/// The parent's entry from the summed weighted values, valid outcomes and deepest len; `lead`
/// is outcome 0's best action (its prefix rewards when nothing is valid).
#[cube]
fn mean_entry(sum: f32, valid: u32, deepest: u32, lead: f32) -> Entry {
    let empty = f32::cast_from(valid / SPAWNS);
    Entry {
        value: select(valid > 0u32, sum / empty, lead),
        len: deepest,
    }
}

#[cube]
fn fold_in_shared(value: f32, len: u32, p0: f32, p1: f32, action_len: u32) -> Entry {
    let u = UNIT_POS;
    let mut values = SharedMemory::<f32>::new(BLOCK as usize);
    let mut lens = SharedMemory::<u32>::new(BLOCK as usize);
    let mut sum = SharedMemory::<f32>::new(OUTCOMES as usize);
    let mut valid = SharedMemory::<u32>::new(OUTCOMES as usize);
    let mut deepest = SharedMemory::<u32>::new(OUTCOMES as usize);
    values[u as usize] = value;
    lens[u as usize] = len;
    sync_cube();
    // Max over the 4 actions of each outcome, into the outcome's first slot.
    let mut stride = 1u32;
    while stride < ACTIONS {
        if (u & (2u32 * stride - 1u32)) == 0u32 {
            let o = (u + stride) as usize;
            let mine = Entry {
                value: values[u as usize],
                len: lens[u as usize],
            };
            let other = Entry {
                value: values[o],
                len: lens[o],
            };
            let best = better_action(mine, other, action_len);
            values[u as usize] = best.value;
            lens[u as usize] = best.len;
        }
        sync_cube();
        stride *= 2u32;
    }
    // One slot per outcome: its weighted value when its cell was empty.
    if u < OUTCOMES {
        let v = values[(u * ACTIONS) as usize];
        let l = lens[(u * ACTIONS) as usize];
        let ok = l + 1u32 >= action_len;
        sum[u as usize] = select(ok, per_spawn::<f32>(u, p0, p1) * v, 0.0f32);
        valid[u as usize] = select(ok, 1u32, 0u32);
        deepest[u as usize] = l;
    }
    sync_cube();
    // Runtime loop counters (a mutable constant does not compile).
    let mut half = 16u32;
    while half > 0u32 {
        if u < half {
            let o = (u + half) as usize;
            let s = sum[u as usize] + sum[o];
            let n = valid[u as usize] + valid[o];
            let d = select(
                deepest[o] > deepest[u as usize],
                deepest[o],
                deepest[u as usize],
            );
            sum[u as usize] = s;
            valid[u as usize] = n;
            deepest[u as usize] = d;
        }
        sync_cube();
        half /= 2u32;
    }
    mean_entry(sum[0], valid[0], deepest[0], values[0])
}

#[cube]
fn fold_with_planes(value: f32, len: u32, p0: f32, p1: f32, action_len: u32) -> Entry {
    let u = UNIT_POS;
    // Max over the 4 actions: after two butterfly steps every unit of an outcome holds it.
    let mut best = Entry { value, len };
    let mut mask = 1u32;
    while mask < ACTIONS {
        let other = Entry {
            value: plane_shuffle_xor(best.value, mask),
            len: plane_shuffle_xor(best.len, mask),
        };
        let better = better_action(best, other, action_len);
        best.value = better.value;
        best.len = better.len;
        mask *= 2u32;
    }
    // The outcome's first unit speaks for it.
    let action = u % ACTIONS;
    let speaks = action == 0u32 && best.len + 1u32 >= action_len;
    let outcome = u / ACTIONS;
    let sum = plane_sum(select(
        speaks,
        per_spawn::<f32>(outcome, p0, p1) * best.value,
        0.0f32,
    ));
    let valid = plane_sum(select(speaks, 1u32, 0u32));
    let deepest = plane_max(best.len);
    let mut sums = SharedMemory::<f32>::new(BLOCK_PLANES as usize);
    let mut valids = SharedMemory::<u32>::new(BLOCK_PLANES as usize);
    let mut deepests = SharedMemory::<u32>::new(BLOCK_PLANES as usize);
    let lane = u % FOLD_PLANE;
    if lane == 0u32 {
        let p = (u / FOLD_PLANE) as usize;
        sums[p] = sum;
        valids[p] = valid;
        deepests[p] = deepest;
    }
    sync_cube();
    let mut total = 0.0f32;
    let mut count = 0u32;
    let mut depth = 0u32;
    #[unroll]
    for p in 0..BLOCK_PLANES {
        total += sums[p as usize];
        count += valids[p as usize];
        depth = select(deepests[p as usize] > depth, deepests[p as usize], depth);
    }
    mean_entry(total, count, depth, best.value)
}

/// The entry of afterstate block `first .. first + BLOCK` folded ([`fold_block()`]), returned
/// to unit 0. Under an invalid afterstate every child copied its entry (len below the
/// afterstate's `action_len − 2`); the branch is uniform, and the cube takes that entry with no
/// fold.
#[cube]
pub fn fold_afterstate(
    values: &Array<f32>,
    lens: &Array<u32>,
    first: usize,
    p0: f32,
    p1: f32,
    action_len: u32,
    #[comptime] plane_ops: bool,
) -> Entry {
    let mut value = values[first];
    let mut len = lens[first];
    if len + 2u32 >= action_len {
        let at = first + UNIT_POS as usize;
        let parent = fold_block(values[at], lens[at], p0, p1, action_len, plane_ops);
        value = parent.value;
        len = parent.len;
    }
    Entry { value, len }
}

/// Cube `g` folds entries `g·BLOCK .. (g + 1)·BLOCK` (one afterstate's outcomes × actions) into
/// entry `g` of the level above ([`fold_afterstate()`]). The grid has at least `groups` cubes;
/// those past it do nothing.
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn reduce_kernel(
    values: &Array<f32>,
    lens: &Array<u32>,
    out_values: &mut Array<f32>,
    out_lens: &mut Array<u32>,
    p0: f32,
    p1: f32,
    action_len: u32,
    groups: u32,
    #[comptime] plane_ops: bool,
) {
    let g = CUBE_POS as u32;
    if g < groups {
        let first = (g * BLOCK) as usize;
        let parent = fold_afterstate(values, lens, first, p0, p1, action_len, plane_ops);
        if UNIT_POS == 0u32 {
            out_values[g as usize] = parent.value;
            out_lens[g as usize] = parent.len;
        }
    }
}

/// Words of one root's result: the best action with the legal actions' bits, then the 4
/// action values (f32 bits).
pub const ROOT_WORDS: u32 = 1 + ACTIONS;

/// A root's best action so far, taken over its action entries in order.
#[derive(CubeType)]
struct RootPick {
    /// The best legal action (4 until one is seen), its value, and the legal actions' bits.
    best: u32,
    top: f32,
    legal: u32,
}

/// No action taken yet.
#[cube]
fn no_pick() -> RootPick {
    RootPick {
        best: 4u32,
        top: 0.0f32,
        legal: 0u32,
    }
}

/// Takes action `a`'s entry (legal when its len ≥ 1; the first of equal values wins) and writes
/// its value word (0 for an illegal action).
#[cube]
fn take_action(pick: &mut RootPick, out: &mut Array<u32>, r: u32, a: u32, entry: Entry) {
    let ok = entry.len >= 1u32;
    if ok && (pick.best == 4u32 || entry.value > pick.top) {
        pick.best = a;
        pick.top = entry.value;
    }
    pick.legal |= select(ok, 1u32 << a, 0u32);
    out[(r * ROOT_WORDS + 1u32 + a) as usize] = u32::reinterpret(select(ok, entry.value, 0.0f32));
}

/// Root `r`'s first word: `best | legal << 4`.
#[cube]
fn finish_root(pick: &RootPick, out: &mut Array<u32>, r: u32) {
    out[(r * ROOT_WORDS) as usize] = pick.best | (pick.legal << 4u32);
}

/// Root `r`'s results in `out[5r..5r + 5]`: `best | legal << 4` (best 4 when no action is
/// legal, bit `a` of `legal` set when action `a` is), then each action's value as f32 bits (0
/// for an illegal one). One buffer, so the host reads every result at once. Unit 0 of the grid
/// also clears the live-list counter for the next search (the multilevel leaf kernel, which
/// reads it, is done).
///
/// [`root_kernel()`] takes the 4 action entries of each root as they are (a search with no
/// chance level left); [`root_fold_kernel()`] first folds each action's block of children, so
/// the last reduction and the root step are one launch.
#[cube(launch_unchecked)]
pub fn root_kernel(
    values: &Array<f32>,
    lens: &Array<u32>,
    out: &mut Array<u32>,
    live_count: &mut Array<u32>,
    count: u32,
) {
    let r = ABSOLUTE_POS as u32;
    if r == 0u32 {
        live_count[0] = 0u32;
    }
    if r < count {
        let mut pick = no_pick();
        for a in 0..ACTIONS {
            let at = (r * ACTIONS + a) as usize;
            let entry = Entry {
                value: values[at],
                len: lens[at],
            };
            take_action(&mut pick, out, r, a, entry);
        }
        finish_root(&pick, out, r);
    }
}

/// Cube `r` folds root `r`'s 4 blocks of action children ([`fold_afterstate()`]) and writes its
/// results as [`root_kernel()`] does.
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn root_fold_kernel(
    values: &Array<f32>,
    lens: &Array<u32>,
    out: &mut Array<u32>,
    live_count: &mut Array<u32>,
    p0: f32,
    p1: f32,
    action_len: u32,
    count: u32,
    #[comptime] plane_ops: bool,
) {
    let r = CUBE_POS as u32;
    if ABSOLUTE_POS == 0 {
        live_count[0] = 0u32;
    }
    if r < count {
        let mut pick = no_pick();
        for a in 0..ACTIONS {
            let first = ((r * ACTIONS + a) * BLOCK) as usize;
            let entry = fold_afterstate(values, lens, first, p0, p1, action_len, plane_ops);
            if UNIT_POS == 0u32 {
                take_action(&mut pick, out, r, a, entry);
            }
            // The next fold reuses the shared slots this one read.
            sync_cube();
        }
        if UNIT_POS == 0u32 {
            finish_root(&pick, out, r);
        }
    }
}
