//! The learning pass: a finished game's path (or, learning forward, the last move) moves each
//! weight it read toward its TD(0) target, at once (atomic adds) or asked of the launch's
//! averaged sums, with temporal coherence's rates where asked.

use super::config::{Lanes, LookupShape, NetTable, PlayConfig, WeightBuffers, LANES};
use super::lanes::{held_cell, plane_weight_used, Held};
use super::lanes::{held_value, hold, lane_index, plane_index, plane_round, plane_total};
use crate::exact::{div_rn, unfused};
use crate::ntuple::{lookup_index, partial_sums, stage_base, StochasticCells};
use crate::stochastic::DeviceStochasticGame;
use cubecl::prelude::*;

/// V(state): the sum of the weights of every lookup of `net`, in the network's order
/// ([`crate::ntuple`]).
#[cube]
pub fn value<G: DeviceStochasticGame>(
    state: &G::State,
    weights: &Array<Atomic<f32>>,
    net: &NetTable,
    #[comptime] shape: LookupShape,
) -> f32 {
    let (len, bits) = comptime!((shape.len, shape.bits));
    let mut sums = partial_sums();
    let stage = stage_base::<StochasticCells<G>>(state, &net.lut, net.lookups, len);
    for q in 0..net.lookups / 4u32 {
        let mut w = Array::<f32>::new(4usize);
        #[unroll]
        for k in 0..4u32 {
            let i =
                lookup_index::<StochasticCells<G>>(state, &net.lut, 4u32 * q + k, stage, len, bits);
            w[k as usize] = weights[i].load();
        }
        sums.add(w[0], w[1], w[2], w[3]);
    }
    sums.total()
}

/// Adds `delta` to the weights of lookups `first, first + stride, …` of V(state): every weight
/// V reads for a unit alone (`0, 1`), a lane's share for a game's lane (`lane, LANES`).
#[cube]
pub fn update<G: DeviceStochasticGame>(
    state: &G::State,
    weights: &Array<Atomic<f32>>,
    net: &NetTable,
    delta: f32,
    first: u32,
    stride: u32,
    #[comptime] shape: LookupShape,
) {
    let (len, bits) = comptime!((shape.len, shape.bits));
    let stage = stage_base::<StochasticCells<G>>(state, &net.lut, net.lookups, len);
    let mut l = first;
    while l < net.lookups {
        weights[lookup_index::<StochasticCells<G>>(state, &net.lut, l, stage, len, bits)]
            .fetch_add(delta);
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
fn update_coherent<G: DeviceStochasticGame>(
    state: &G::State,
    weights: &mut WeightBuffers,
    net: &NetTable,
    delta: f32,
    #[comptime] shape: LookupShape,
) {
    let (len, bits) = comptime!((shape.len, shape.bits));
    let stage = stage_base::<StochasticCells<G>>(state, &net.lut, net.lookups, len);
    // `delta` is a product the sums' adds must not fuse with (`lookups < 2^31`: a hidden zero).
    let delta = unfused(delta, net.lookups >> 31u32);
    for l in 0..net.lookups {
        let i = lookup_index::<StochasticCells<G>>(state, &net.lut, l, stage, len, bits);
        let (e, a) = (weights.sums[i], weights.sizes[i]);
        weights.live[i].fetch_add(delta * coherence_rate(e, a));
        weights.sums[i] = e + delta;
        weights.sizes[i] = a + f32::abs(delta);
    }
}

/// The lanes of one game add `delta` to the pending change of every weight V(state) reads,
/// and count the hit (the averaged update, see `TdShape::averaged`), in the copy of the sums
/// from weight `spread` on; `held` as [`hold`] makes it.
#[cube]
#[allow(clippy::too_many_arguments)]
pub(super) fn lane_accumulate<G: DeviceStochasticGame>(
    state: &G::State,
    held: &Held,
    weights: &WeightBuffers,
    net: &NetTable,
    delta: f32,
    spread: u32,
    lanes: &Lanes,
    #[comptime] config: PlayConfig,
) {
    let lookups = net.lookups;
    let mut first = 0u32;
    while first < lookups {
        let l = first + lanes.lane;
        let i = lane_index::<G>(
            state,
            held,
            lanes,
            net,
            select(l < lookups, l, lookups - 1u32),
            config,
        );
        if l < lookups {
            ask_change(weights, i + spread as usize, delta);
        }
        first += LANES;
    }
}

/// One averaged change: `delta` added to the pending change of weight slot `at` (a weight's
/// index plus its copy's offset), and the hit counted.
#[cube]
pub(super) fn ask_change(weights: &WeightBuffers, at: usize, delta: f32) {
    weights.pending[at].fetch_add(delta);
    weights.hits[at].fetch_add(1u32);
}

/// A stretch of a game slot's path to learn from: `count` entries from entry `first`, the
/// last afterstate moving toward `target`.
#[derive(CubeType, Clone, Copy)]
pub(super) struct PathSpan {
    pub(super) first: u32,
    pub(super) count: u32,
    pub(super) target: f32,
}

/// The backward TD(0) pass over `span`, by the lanes of one game. Immediate: each update goes
/// into the weights and the next target reads them back (the CPU trainer exactly; with
/// temporal coherence lane 0 alone makes an entry's updates, one after another). Averaged:
/// each update goes into the launch's sums (the copy from weight `spread` on), and the next
/// target is the value the update would have given, `v + lookups · Δ`.
#[cube]
#[allow(clippy::too_many_arguments)]
pub(super) fn learn<G: DeviceStochasticGame>(
    weights: &mut WeightBuffers,
    net: &NetTable,
    paths: &Array<u32>,
    span: PathSpan,
    step: f32,
    spread: u32,
    lanes: &mut Lanes,
    #[comptime] config: PlayConfig,
) {
    let words = comptime!(config.words);
    let stride = (words + 1) as u32;
    let mut target = span.target;
    let mut i = span.count;
    while i > 0u32 {
        i -= 1u32;
        let at = ((span.first + i) * stride) as usize;
        let after = G::load(paths, at);
        let reward = f32::cast_from(paths[at + words]);
        // The stage and the lanes' cells of `after`, for each read and update of its weights.
        let held = hold::<G>(&after, net, lanes, config);
        let v = held_value::<G>(&after, &held, weights, net, lanes, config);
        let delta = step * (target - v);
        if comptime!(config.averaged()) {
            lane_accumulate::<G>(&after, &held, weights, net, delta, spread, lanes, config);
            target = averaged_target(reward, v, delta, net.lookups);
        } else {
            if comptime!(config.coherent()) {
                if lanes.lane == 0u32 {
                    update_coherent::<G>(&after, weights, net, delta, comptime!(config.lookup));
                }
            } else {
                update::<G>(
                    &after,
                    &weights.live,
                    net,
                    delta,
                    lanes.lane,
                    LANES,
                    comptime!(config.lookup),
                );
            }
            // A read after the barrier sees every lane's add.
            sync_storage();
            target = reward + held_value::<G>(&after, &held, weights, net, lanes, config);
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
/// [`LANES`] lookups (one weight a lane, its lookup `row`): each entry's weight is asked for
/// before the entry after it (learned first) is summed and makes its changes, so its load waits
/// behind that work instead of in front of its own sum. The weights do not change within an
/// averaged launch, so the values read ahead are the ones [`learn`] reads; the changes are
/// asked in the same order; every bit is the same.
#[cube]
#[allow(clippy::too_many_arguments)]
pub(super) fn learn_planes<G: DeviceStochasticGame>(
    weights: &WeightBuffers,
    net: &NetTable,
    row: &Array<u32>,
    paths: &Array<u32>,
    span: PathSpan,
    step: f32,
    spread: u32,
    lane: u32,
    #[comptime] config: PlayConfig,
) {
    if span.count > 0u32 {
        let (len, words) = comptime!((config.lookup.len, config.words));
        let stride = (words + 1) as u32;
        let lookups = net.lookups;
        let mut target = span.target;
        let mut e = span.count - 1u32;
        let mut at = ((span.first + e) * stride) as usize;
        let entry = G::load(paths, at);
        let stage = stage_base::<StochasticCells<G>>(&entry, &net.lut, lookups, len);
        let cell = held_cell::<G>(&entry, lane, net.top);
        let mut i = plane_index(cell, row, stage, config);
        let mut w = weights.frozen[i];
        let mut left = true;
        while left {
            let reward = f32::cast_from(paths[at + words]);
            // The entry before (or this one again at the path's start), asked for now.
            let before = select(e > 0u32, e - 1u32, 0u32);
            let next_at = ((span.first + before) * stride) as usize;
            let next = G::load(paths, next_at);
            let next_stage = stage_base::<StochasticCells<G>>(&next, &net.lut, lookups, len);
            let next_cell = held_cell::<G>(&next, lane, net.top);
            let next_i = plane_index(next_cell, row, next_stage, config);
            let next_w = weights.frozen[next_i];
            let v = plane_total(plane_round(
                0.0,
                plane_weight_used(w, lane, lookups),
                lane,
                lookups,
            ));
            let delta = step * (target - v);
            // `lane_accumulate`'s change, at the index the read used.
            if lane < lookups {
                ask_change(weights, i + spread as usize, delta);
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
