//! The learning pass: a finished game's path (or, learning forward, the last move) moves each
//! weight it read toward its TD(0) target, at once (atomic adds) or asked of the launch's
//! averaged sums, with temporal coherence's rates where asked.

use super::lanes::{
    held_cell, held_value, lane_index, plane_index, plane_round, plane_total, plane_weight_used,
    share_cells, LANES,
};
use crate::exact::{div_rn, unfused};
use crate::ntuple::{lookup_index, partial_sums, stage_base};
use crate::stochastic::DeviceStochasticGame;
use cubecl::prelude::*;

/// V(state): the sum of the weights of every lookup of the runtime table `lut`, in the
/// network's order ([`crate::ntuple`]).
#[cube]
pub fn value<G: DeviceStochasticGame>(
    state: &G::State,
    weights: &Array<Atomic<f32>>,
    lut: &Array<u32>,
    lookups: u32,
    #[comptime] len: u32,
    #[comptime] bits: u32,
) -> f32 {
    let mut sums = partial_sums();
    let stage = stage_base::<G>(state, lut, lookups, len);
    for q in 0..lookups / 4u32 {
        let l = 4u32 * q;
        let w0 = weights[lookup_index::<G>(state, lut, l, stage, len, bits)].load();
        let w1 = weights[lookup_index::<G>(state, lut, l + 1u32, stage, len, bits)].load();
        let w2 = weights[lookup_index::<G>(state, lut, l + 2u32, stage, len, bits)].load();
        let w3 = weights[lookup_index::<G>(state, lut, l + 3u32, stage, len, bits)].load();
        sums.add(w0, w1, w2, w3);
    }
    sums.total()
}

/// Adds `delta` to the weights of lookups `first, first + stride, …` of V(state): every weight
/// V reads for a unit alone (`0, 1`), a lane's share for a game's lane (`lane, LANES`).
#[cube]
#[allow(clippy::too_many_arguments)]
pub fn update<G: DeviceStochasticGame>(
    state: &G::State,
    weights: &Array<Atomic<f32>>,
    lut: &Array<u32>,
    delta: f32,
    lookups: u32,
    first: u32,
    stride: u32,
    #[comptime] len: u32,
    #[comptime] bits: u32,
) {
    let stage = stage_base::<G>(state, lut, lookups, len);
    let mut l = first;
    while l < lookups {
        weights[lookup_index::<G>(state, lut, l, stage, len, bits)].fetch_add(delta);
        l += stride;
    }
}

/// Temporal coherence's rate for a weight whose changes sum to `sum` and whose changes' sizes
/// sum to `size`: `|sum| / size`, 1 before any change, never above 1 (units updating one
/// weight at once may store one's sum beside another's size; `cubesearch_learn::coherence_rate`).
#[cube]
pub fn coherence_rate(sum: f32, size: f32) -> f32 {
    let mut rate = 1.0f32;
    if size > 0.0f32 {
        rate = f32::min(div_rn(f32::abs(sum), size), 1.0f32);
    }
    rate
}

/// Asks `delta` of the weight of every lookup of V(state), one after another in the network's
/// order, with temporal coherence: each moves by `delta ·` [`coherence_rate()`] of its sums,
/// which then take the change. One unit of a game runs it, as the CPU does (two lookups
/// sharing a weight see each other's change), where [`update`] spreads the lookups over
/// the lanes.
#[cube]
#[allow(clippy::too_many_arguments)]
pub(super) fn update_coherent<G: DeviceStochasticGame>(
    state: &G::State,
    weights: &Array<Atomic<f32>>,
    sums: &mut Array<f32>,
    sizes: &mut Array<f32>,
    lut: &Array<u32>,
    delta: f32,
    lookups: u32,
    #[comptime] len: u32,
    #[comptime] bits: u32,
) {
    let stage = stage_base::<G>(state, lut, lookups, len);
    // `delta` is a product the sums' adds must not fuse with (`lookups < 2^31`: a hidden zero).
    let delta = unfused(delta, lookups >> 31u32);
    for l in 0..lookups {
        let i = lookup_index::<G>(state, lut, l, stage, len, bits);
        let (e, a) = (sums[i], sizes[i]);
        weights[i].fetch_add(delta * coherence_rate(e, a));
        sums[i] = e + delta;
        sizes[i] = a + f32::abs(delta);
    }
}

/// The lanes of one game add `delta` to the pending change of every weight V(state) reads,
/// and count the hit (the averaged update, see [`super::TdShape::averaged`]); `held` and
/// `stage` as [`held_value`] takes them.
#[cube]
#[allow(clippy::too_many_arguments)]
pub(super) fn lane_accumulate<G: DeviceStochasticGame>(
    state: &G::State,
    held: u32,
    stage: u32,
    pending: &Array<Atomic<f32>>,
    hits: &Array<Atomic<u32>>,
    lut: &Array<u32>,
    delta: f32,
    lookups: u32,
    lane: u32,
    spread: u32,
    cells: &SharedMemory<u32>,
    #[comptime] len: u32,
    #[comptime] bits: u32,
    #[comptime] planes: bool,
    #[comptime] pooled: bool,
) {
    let mut first = 0u32;
    while first < lookups {
        let l = first + lane;
        let i = lane_index::<G>(
            state,
            held,
            cells,
            lut,
            select(l < lookups, l, lookups - 1u32),
            stage,
            len,
            bits,
            planes,
            pooled,
        );
        if l < lookups {
            ask_change(pending, hits, i + spread as usize, delta);
        }
        first += LANES;
    }
}

/// One averaged change: `delta` added to the pending change of weight slot `at` (a weight's
/// index plus its copy's offset), and the hit counted.
#[cube]
pub(super) fn ask_change(
    pending: &Array<Atomic<f32>>,
    hits: &Array<Atomic<u32>>,
    at: usize,
    delta: f32,
) {
    pending[at].fetch_add(delta);
    hits[at].fetch_add(1u32);
}

/// The backward TD(0) pass over `count` path entries starting at entry `first`, the last
/// afterstate moved toward `target`, by the lanes of one game. Immediate: each update goes
/// into the weights and the next target reads them back (the CPU trainer exactly; with
/// temporal coherence lane 0 alone makes an entry's updates, one after another). Averaged:
/// each update goes into `pending`/`hits`, and the next target is the value the update would
/// have given, `v + lookups · Δ`.
#[cube]
#[allow(clippy::too_many_arguments)]
pub(super) fn learn<G: DeviceStochasticGame, F: Float>(
    frozen: &Array<F>,
    weights: &Array<Atomic<f32>>,
    pending: &Array<Atomic<f32>>,
    hits: &Array<Atomic<u32>>,
    sums: &mut Array<f32>,
    sizes: &mut Array<f32>,
    lut: &Array<u32>,
    paths: &Array<u32>,
    first: u32,
    count: u32,
    target0: f32,
    step: f32,
    lookups: u32,
    lane: u32,
    spread: u32,
    pool: &mut SharedMemory<f32>,
    cells: &mut SharedMemory<u32>,
    top: u32,
    #[comptime] len: u32,
    #[comptime] bits: u32,
    #[comptime] words: usize,
    #[comptime] averaged: bool,
    #[comptime] planes: bool,
    #[comptime] coherent: bool,
    #[comptime] pooled: bool,
) {
    let stride = (words + 1) as u32;
    let mut target = target0;
    let mut i = count;
    while i > 0u32 {
        i -= 1u32;
        let at = ((first + i) * stride) as usize;
        let after = G::load(paths, at);
        let reward = f32::cast_from(paths[at + words]);
        // The stage and the lanes' cells of `after`, for each read and update of its weights.
        let stage = stage_base::<G>(&after, lut, lookups, len);
        let mut held = 0u32;
        if pooled {
            held = held_cell::<G>(&after, lane, top);
            share_cells(held, lane, cells, planes);
        }
        let v = held_value::<G, F>(
            &after, held, stage, frozen, weights, lut, lookups, lane, pool, cells, len, bits,
            averaged, planes, pooled,
        );
        let delta = step * (target - v);
        if averaged {
            lane_accumulate::<G>(
                &after, held, stage, pending, hits, lut, delta, lookups, lane, spread, cells, len,
                bits, planes, pooled,
            );
            target = averaged_target(reward, v, delta, lookups);
        } else {
            if coherent {
                if lane == 0u32 {
                    update_coherent::<G>(
                        &after, weights, sums, sizes, lut, delta, lookups, len, bits,
                    );
                }
            } else {
                update::<G>(&after, weights, lut, delta, lookups, lane, LANES, len, bits);
            }
            // A read after the barrier sees every lane's add.
            sync_storage();
            target = reward
                + held_value::<G, F>(
                    &after, held, stage, frozen, weights, lut, lookups, lane, pool, cells, len,
                    bits, averaged, planes, pooled,
                );
        }
    }
}

/// The target of the entry before this one in an averaged launch, whose weights do not move
/// within it: the reward, plus V, plus the change this entry's `delta` on each of the
/// `lookups` weights asks of V.
#[cube]
pub(super) fn averaged_target(reward: f32, v: f32, delta: f32, lookups: u32) -> f32 {
    // `lookups < 2^31`: a zero the compiler cannot see is one.
    let change = unfused(f32::cast_from(lookups) * delta, lookups >> 31u32);
    reward + v + change
}

/// [`learn`] for an averaged launch whose lanes pool through planes, the network at most
/// [`LANES`] lookups (one weight a lane): each entry's weight is asked for before the entry
/// after it (learned first) is summed and makes its changes, so its load waits behind that
/// work instead of in front of its own sum. The weights do not change within an averaged
/// launch, so the values read ahead are the ones [`learn`] reads; the changes are asked in
/// the same order; every bit is the same.
#[cube]
#[allow(clippy::too_many_arguments)]
pub(super) fn learn_planes<G: DeviceStochasticGame, F: Float>(
    frozen: &Array<F>,
    pending: &Array<Atomic<f32>>,
    hits: &Array<Atomic<u32>>,
    lut: &Array<u32>,
    row: &Array<u32>,
    paths: &Array<u32>,
    first: u32,
    count: u32,
    target0: f32,
    step: f32,
    lookups: u32,
    lane: u32,
    spread: u32,
    top: u32,
    #[comptime] len: u32,
    #[comptime] bits: u32,
    #[comptime] words: usize,
) {
    if count > 0u32 {
        let stride = (words + 1) as u32;
        let mut target = target0;
        let mut e = count - 1u32;
        let mut at = ((first + e) * stride) as usize;
        let entry = G::load(paths, at);
        let stage = stage_base::<G>(&entry, lut, lookups, len);
        let mut i = plane_index(held_cell::<G>(&entry, lane, top), row, stage, len, bits);
        let mut w = f32::cast_from(frozen[i]);
        let mut left = true;
        while left {
            let reward = f32::cast_from(paths[at + words]);
            // The entry before (or this one again at the path's start), asked for now.
            let before = select(e > 0u32, e - 1u32, 0u32);
            let next_at = ((first + before) * stride) as usize;
            let next = G::load(paths, next_at);
            let next_stage = stage_base::<G>(&next, lut, lookups, len);
            let next_i = plane_index(held_cell::<G>(&next, lane, top), row, next_stage, len, bits);
            let next_w = f32::cast_from(frozen[next_i]);
            let v = plane_total(plane_round(
                0.0,
                plane_weight_used(w, lane, lookups),
                lane,
                lookups,
            ));
            let delta = step * (target - v);
            // `lane_accumulate`'s change, at the index the read used.
            if lane < lookups {
                ask_change(pending, hits, i + spread as usize, delta);
            }
            target = averaged_target(reward, v, delta, lookups);
            left = e > 0u32;
            e = before;
            at = next_at;
            i = next_i;
            w = next_w;
        }
    }
}
