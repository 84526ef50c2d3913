//! The reduction per parent (seed Algorithm 2) in shared memory, and the root step.

use super::{ACTIONS, BLOCK, OUTCOMES, SPAWNS};

const _: () = assert!(OUTCOMES == 32, "the outcome sum starts at half of 32");
use cubecl::prelude::*;

/// Cube `g` folds entries `g·BLOCK .. (g + 1)·BLOCK` (one action node's outcomes × actions) into
/// entry `g` of the level above. An action child is valid when its len is at least `action_len`
/// (an outcome child when at least `action_len − 1`). First the max over each player node's 4
/// actions (none valid: the node keeps its prefix rewards, the value of a finished game); then
/// the mean over the valid outcomes weighted by `probs[tile]` (the spawn weight over the total)
/// and divided by the number of empty cells. No valid outcome: the action itself is invalid and
/// keeps its prefix rewards. The len passed up is the children's largest.
#[cube(launch_unchecked)]
pub fn reduce_kernel(
    values: &Array<f32>,
    lens: &Array<u32>,
    probs: &Array<f32>,
    out_values: &mut Array<f32>,
    out_lens: &mut Array<u32>,
    action_len: u32,
    groups: u32,
) {
    let g = CUBE_POS as u32;
    let u = UNIT_POS;
    let mut value = SharedMemory::<f32>::new(BLOCK as usize);
    let mut len = SharedMemory::<u32>::new(BLOCK as usize);
    let mut sum = SharedMemory::<f32>::new(OUTCOMES as usize);
    let mut valid = SharedMemory::<u32>::new(OUTCOMES as usize);
    let mut deepest = SharedMemory::<u32>::new(OUTCOMES as usize);
    let live = g < groups;
    let at = (g * BLOCK + u) as usize;
    value[u as usize] = 0.0f32;
    len[u as usize] = 0u32;
    if live {
        value[u as usize] = values[at];
        len[u as usize] = lens[at];
    }
    sync_cube();
    // Max over the 4 actions of each player node, into the node's first slot.
    let mut stride = 1u32;
    while stride < ACTIONS {
        if (u & (2u32 * stride - 1u32)) == 0u32 {
            let o = (u + stride) as usize;
            let mine = len[u as usize] >= action_len;
            let other = len[o] >= action_len;
            let take = other && (!mine || value[o] > value[u as usize]);
            let v = select(take, value[o], value[u as usize]);
            let l = select(len[o] > len[u as usize], len[o], len[u as usize]);
            value[u as usize] = v;
            len[u as usize] = l;
        }
        sync_cube();
        stride *= 2u32;
    }
    // One slot per outcome: its weighted value when its cell was empty.
    if u < OUTCOMES {
        let v = value[(u * ACTIONS) as usize];
        let l = len[(u * ACTIONS) as usize];
        let ok = l + 1u32 >= action_len;
        sum[u as usize] = select(ok, probs[(u % SPAWNS) as usize] * v, 0.0f32);
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
    if live && u == 0u32 {
        let n = valid[0];
        let empty = f32::cast_from(n / SPAWNS);
        out_values[g as usize] = select(n > 0u32, sum[0] / empty, value[0]);
        out_lens[g as usize] = deepest[0];
    }
}

/// Unit `r` picks root `r`'s best action among its 4 entries (valid when len ≥ 1; the first of
/// equal values): `best[r]` (4 when none is legal), and each action's value in `actions`
/// (0 for illegal ones, flagged 0 in `legal`).
#[cube(launch_unchecked)]
pub fn root_kernel(
    values: &Array<f32>,
    lens: &Array<u32>,
    best: &mut Array<u32>,
    actions: &mut Array<f32>,
    legal: &mut Array<u32>,
    count: u32,
) {
    let r = ABSOLUTE_POS as u32;
    if r < count {
        // 4 (no action) until a legal one is seen.
        let mut pick: u32 = 4u32;
        let mut top: f32 = 0.0f32;
        for a in 0..4u32 {
            let at = (r * 4u32 + a) as usize;
            let ok = lens[at] >= 1u32;
            let v = values[at];
            if ok && (pick == 4u32 || v > top) {
                pick = a;
                top = v;
            }
            actions[at] = select(ok, v, 0.0f32);
            legal[at] = select(ok, 1u32, 0u32);
        }
        best[r as usize] = pick;
    }
}
