//! The TD(0) kernels (layout of their buffers in the parent module) and their thin launchers.

use super::storage::F16_MAX;
use crate::exact::{div_rn, unfused};
use crate::ntuple::{lookup_index, partial_sums, stage_base};
use crate::rng;
use crate::stochastic::{DeviceStochasticGame, GpuStochasticGame};
use cubecl::prelude::*;
use cubecl::server::Handle;

/// `units[..]` game slot of an idle unit.
pub const NONE: u32 = u32::MAX;
/// u32 words of one unit's entry in `units`: `[game, rng, score, moves, path length, replays
/// played, replay position held (0/1), replays' moves, progress of the game's own play]`.
pub const UNIT_WORDS: usize = 9;
/// u32 words of one result slot: `[score, moves, progress, game + 1, replays' moves]`.
pub const RESULT_WORDS: usize = 5;

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
fn update_coherent<G: DeviceStochasticGame>(
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

/// Units that play one game together ([`td_play_kernel`](fn@td_play_kernel)): lane `k` of a game reads
/// lookups `k, k + LANES, …` of every V, so a move's reads go out at once and the units
/// of a warp never wait on another game's control flow.
pub const LANES: u32 = crate::launch::PLANE;

/// How the [`LANES`] lanes of one game pool the weights they read into V.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LaneExchange {
    /// Plane shuffles, on a device whose planes are exactly [`LANES`] units (CUDA, NVIDIA's
    /// Vulkan): a cube holds several games, one a plane. Averaged updates only: the lanes of
    /// an immediate update must see each other's atomic adds, which needs a barrier.
    Plane,
    /// Shared memory and cube barriers, on every device: a cube is one game.
    Cube,
}

impl LaneExchange {
    /// Units a cube: eight games a cube with planes, one without.
    pub fn units_per_cube(self) -> u32 {
        match self {
            LaneExchange::Plane => 8 * LANES,
            LaneExchange::Cube => LANES,
        }
    }
}

/// Cell `min(lane, top)` of `state`. The lanes of a game hold its cells between them (lane
/// `c` cell `c`, up to `top`, the highest cell a lookup reads), and a lookup takes each of its
/// cells from the lane holding it ([`pooled_index`]): one shuffle, where taking a cell out of
/// a 2048 board costs about ten integer operations, and the play kernel is bound by integer
/// operations (Nsight Compute, docs/BENCHMARKS.md).
#[cube]
fn held_cell<G: DeviceStochasticGame>(state: &G::State, lane: u32, top: u32) -> u32 {
    G::cell(state, select(lane < top, lane, top))
}

/// Without planes, each lane stores the cell it holds in the cube's `cells`, where
/// [`pooled_index`] reads them; with planes nothing (the lookups shuffle).
#[cube]
fn share_cells(held: u32, lane: u32, cells: &mut SharedMemory<u32>, #[comptime] planes: bool) {
    if !planes {
        sync_cube();
        cells[lane as usize] = held;
        sync_cube();
    }
}

/// The weight index of lookup `l` of a runtime table, as [`lookup_index()`] makes it, from the
/// cells the game's lanes hold ([`held_cell`]): by plane shuffles, or from the cube's `cells`
/// ([`share_cells`]). Every lane of the game must call it (a shuffle takes all of them).
#[cube]
#[allow(clippy::too_many_arguments)]
fn pooled_index(
    held: u32,
    cells: &SharedMemory<u32>,
    lut: &Array<u32>,
    l: u32,
    stage: u32,
    #[comptime] len: u32,
    #[comptime] bits: u32,
    #[comptime] planes: bool,
) -> usize {
    let base = l * (len + 1u32);
    let mut idx = lut[base as usize] + stage;
    #[unroll]
    for j in 0..len {
        let c = lut[(base + 1u32 + j) as usize];
        let v = if planes {
            plane_shuffle(held, c)
        } else {
            cells[c as usize]
        };
        idx += v << (j * bits);
    }
    idx as usize
}

/// The weight index of lookup `l` (below `lookups`) for the lane that reads it: from the
/// lanes' cells when `pooled` (every cell a lookup reads below [`LANES`]; `held` is this
/// lane's, shared as [`share_cells`] does), else straight from the state.
#[cube]
#[allow(clippy::too_many_arguments)]
fn lane_index<G: DeviceStochasticGame>(
    state: &G::State,
    held: u32,
    cells: &SharedMemory<u32>,
    lut: &Array<u32>,
    l: u32,
    stage: u32,
    #[comptime] len: u32,
    #[comptime] bits: u32,
    #[comptime] planes: bool,
    #[comptime] pooled: bool,
) -> usize {
    if pooled {
        pooled_index(held, cells, lut, l, stage, len, bits, planes)
    } else {
        lookup_index::<G>(state, lut, l, stage, len, bits)
    }
}

/// V(state) read by the [`LANES`] lanes of one game and pooled so that every lane gets
/// [`value()`]'s bits: partial sum `k` adds lookups `k, k + 4, …` in order (each lane of a
/// plane keeps the sum of its lane number mod 4, gathered by shuffles; with a cube every lane
/// adds all of them from shared memory), then `(s₀ + s₁) + (s₂ + s₃)`, which the two
/// butterfly steps give in every lane (an add of the same two values in either order rounds
/// alike). Averaged launches read `frozen` as `F` (the weights do not change until the apply
/// kernel runs), immediate ones `live` atomically: the launch's own updates change it. Every lane of the game must call it, with the same `state`.
#[cube]
#[allow(clippy::too_many_arguments)]
fn lane_value<G: DeviceStochasticGame, F: Float>(
    state: &G::State,
    frozen: &Array<F>,
    live: &Array<Atomic<f32>>,
    lut: &Array<u32>,
    lookups: u32,
    lane: u32,
    pool: &mut SharedMemory<f32>,
    cells: &mut SharedMemory<u32>,
    top: u32,
    #[comptime] len: u32,
    #[comptime] bits: u32,
    #[comptime] averaged: bool,
    #[comptime] planes: bool,
    #[comptime] pooled: bool,
) -> f32 {
    let stage = stage_base::<G>(state, lut, lookups, len);
    let mut held = 0u32;
    if pooled {
        held = held_cell::<G>(state, lane, top);
        share_cells(held, lane, cells, planes);
    }
    held_value::<G, F>(
        state, held, stage, frozen, live, lut, lookups, lane, pool, cells, len, bits, averaged,
        planes, pooled,
    )
}

/// [`lane_value`] of a state whose stage's tables start at weight `stage`, this lane holding
/// its cell `held` (shared as [`share_cells`] does) when `pooled`: `state` itself is read only
/// without `pooled`.
#[cube]
#[allow(clippy::too_many_arguments)]
fn held_value<G: DeviceStochasticGame, F: Float>(
    state: &G::State,
    held: u32,
    stage: u32,
    frozen: &Array<F>,
    live: &Array<Atomic<f32>>,
    lut: &Array<u32>,
    lookups: u32,
    lane: u32,
    pool: &mut SharedMemory<f32>,
    cells: &mut SharedMemory<u32>,
    #[comptime] len: u32,
    #[comptime] bits: u32,
    #[comptime] averaged: bool,
    #[comptime] planes: bool,
    #[comptime] pooled: bool,
) -> f32 {
    let mut own = 0.0f32;
    let mut sums = partial_sums();
    let mut first = 0u32;
    while first < lookups {
        let l = first + lane;
        let mut w = 0.0f32;
        // Lanes past the last lookup make the last one's index too: every lane shuffles.
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
            if averaged {
                w = f32::cast_from(frozen[i]);
            } else {
                w = live[i].load();
            }
        }
        let here = lookups - first;
        if planes {
            own = plane_round(own, w, lane, here);
        } else {
            sync_cube();
            pool[lane as usize] = w;
            sync_cube();
            let quads = select(here < LANES, here, LANES) / 4u32;
            for q in 0..quads {
                let at = (4u32 * q) as usize;
                sums.add(pool[at], pool[at + 1], pool[at + 2], pool[at + 3]);
            }
        }
        first += LANES;
    }
    if planes {
        plane_total(own)
    } else {
        sums.total()
    }
}

/// One round of a plane's lookups (lane `i` holding lookup `i`'s weight `w`, `here` of them
/// in the round) added to this lane's partial sum `own`: lane `k` of each four adds lookups
/// `k, k + 4, …` in order, as the CPU's partial sums do.
#[cube]
fn plane_round(own: f32, w: f32, lane: u32, here: u32) -> f32 {
    let mut sum = own;
    #[unroll]
    for j in 0..LANES / 4 {
        let x = plane_shuffle(w, (lane & 3u32) + 4u32 * j);
        if 4u32 * j < here {
            sum += x;
        }
    }
    sum
}

/// V from the four partial sums of [`plane_round`]: `(s₀ + s₁) + (s₂ + s₃)`, in every lane.
#[cube]
fn plane_total(own: f32) -> f32 {
    let pair = own + plane_shuffle_xor(own, 1u32);
    pair + plane_shuffle_xor(pair, 2u32)
}

/// `x` as lane 0 of the game has it, in every lane.
#[cube]
fn from_lane0(x: u32, lane: u32, slot: &mut SharedMemory<u32>, #[comptime] planes: bool) -> u32 {
    if planes {
        plane_broadcast(x, 0u32)
    } else {
        sync_cube();
        if lane == 0u32 {
            slot[0] = x;
        }
        sync_cube();
        slot[0]
    }
}

/// The lanes of one game add `delta` to the pending change of every weight V(state) reads,
/// and count the hit (the averaged update, see [`super::TdShape::averaged`]); `held` and
/// `stage` as [`held_value`] takes them.
#[cube]
#[allow(clippy::too_many_arguments)]
fn lane_accumulate<G: DeviceStochasticGame>(
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
fn ask_change(pending: &Array<Atomic<f32>>, hits: &Array<Atomic<u32>>, at: usize, delta: f32) {
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
fn learn<G: DeviceStochasticGame, F: Float>(
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
fn averaged_target(reward: f32, v: f32, delta: f32, lookups: u32) -> f32 {
    // `lookups < 2^31`: a zero the compiler cannot see is one.
    let change = unfused(f32::cast_from(lookups) * delta, lookups >> 31u32);
    reward + v + change
}

/// This lane's row of the lookup table ([`lut_words`](crate::ntuple::lut_words)): lookup
/// `lane`'s table offset, then the `len` cells it reads; past the last lookup the last one's
/// (every lane shuffles). A network of at most [`LANES`] lookups gives each lane one lookup for
/// the whole launch, so the row is read once into registers ([`plane_index`]) instead of at
/// every index: 7 loads an index for a 6-tuple, which NVIDIA's Vulkan compiler did not merge.
#[cube]
fn lane_row(lut: &Array<u32>, lane: u32, lookups: u32, #[comptime] len: u32) -> Array<u32> {
    let l = select(lane < lookups, lane, lookups - 1u32);
    let base = l * (len + 1u32);
    let mut row = Array::<u32>::new(comptime!((len + 1) as usize));
    #[unroll]
    for j in 0..len + 1 {
        row[j as usize] = lut[(base + j) as usize];
    }
    row
}

/// The weight index of this lane's lookup ([`lane_row`]) of the state whose cells the lanes
/// hold (`held`, through planes) in the stage whose tables start at `stage`: what
/// [`pooled_index`] makes of it. [`held_value`]'s index for a network of at most [`LANES`]
/// lookups in an averaged launch, apart from its read and sum ([`plane_round`],
/// [`plane_total`]), so that a load can be asked for well before its weight is added, and the
/// index kept for the change. Loads with it are unconditional, as [`grouped_weight`]'s is; a
/// lane past the last lookup reads the last one's weight, which its caller drops
/// ([`plane_weight_used`]).
#[cube]
fn plane_index(
    held: u32,
    row: &Array<u32>,
    stage: u32,
    #[comptime] len: u32,
    #[comptime] bits: u32,
) -> usize {
    let mut idx = row[0] + stage;
    #[unroll]
    for j in 0..len {
        idx += plane_shuffle(held, row[(j + 1) as usize]) << (j * bits);
    }
    idx as usize
}

/// A weight read at [`plane_index`] as V adds it: 0 past the last lookup.
#[cube]
fn plane_weight_used(w: f32, lane: u32, lookups: u32) -> f32 {
    select(lane < lookups, w, 0.0f32)
}

/// [`learn`] for an averaged launch whose lanes pool through planes, the network at most
/// [`LANES`] lookups (one weight a lane): each entry's weight is asked for before the entry
/// after it (learned first) is summed and makes its changes, so its load waits behind that
/// work instead of in front of its own sum. The weights do not change within an averaged
/// launch, so the values read ahead are the ones [`learn`] reads; the changes are asked in
/// the same order; every bit is the same.
#[cube]
#[allow(clippy::too_many_arguments)]
fn learn_planes<G: DeviceStochasticGame, F: Float>(
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

/// Applies the averaged updates of a launch: each weight asked for `hits` changes moves by their
/// sum divided by `⌈hits / steps⌉` (see [`super::TdShape::steps_per_launch`]; with `steps` 1
/// their mean), and both go back to zero. Unit `i` owns weight `i`. With
/// `copied`, the launches read an `F` copy of the weights ([`super::WeightStorage::F16`]), and
/// each changed weight is written there too, saturated as
/// [`to_f16`](super::storage::to_f16) saturates it (no weight may read as infinity). With
/// `coherent`, temporal coherence scales each weight's change by [`coherence_rate()`] of its
/// sums, which then take the change.
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn td_apply_kernel<F: Float>(
    weights: &mut Array<Atomic<f32>>,
    pending: &mut Array<Atomic<f32>>,
    hits: &mut Array<Atomic<u32>>,
    copy: &mut Array<F>,
    sums: &mut Array<f32>,
    sizes: &mut Array<f32>,
    total: u32,
    steps: u32,
    copies: u32,
    #[comptime] copied: bool,
    #[comptime] coherent: bool,
) {
    let i = ABSOLUTE_POS;
    if i < total as usize {
        // The copies' sums in copy order, each copy emptied (nothing else runs: subtracting
        // what was read leaves exactly zero). A copy no game added to is left out, so that
        // one copy's sum keeps its bits (an added zero would turn -0 into +0).
        let mut h = 0u32;
        let mut sum = 0.0f32;
        for c in 0..copies {
            let at = i + (c * total) as usize;
            let hc = hits[at].load();
            if hc > 0u32 {
                let pc = pending[at].load();
                sum = select(h == 0u32, pc, sum + pc);
                h += hc;
                pending[at].fetch_add(-pc);
                hits[at].fetch_sub(hc);
            }
        }
        if h > 0u32 {
            // ⌈h / steps⌉, h ≥ 1.
            let asked = div_rn(sum, f32::cast_from((h - 1u32) / steps + 1u32));
            let mut change = asked;
            if coherent {
                let (e, a) = (sums[i], sizes[i]);
                // Rounded before the f16 copy's add below, as the weight's add rounds it
                // (`steps < 2^31`: a zero the compiler cannot see).
                change = unfused(asked * coherence_rate(e, a), steps >> 31u32);
                sums[i] = e + asked;
                sizes[i] = a + f32::abs(asked);
            }
            // The add returns the weight before it; nothing else runs, so the weight after it
            // is that plus the change, rounded as the add rounded it.
            let before = weights[i].fetch_add(change);
            if copied {
                copy[i] = F::cast_from((before + change).clamp(-F16_MAX, F16_MAX));
            }
        }
    }
}

/// The seed's parallel weight update (4.5): unit `i` takes time step `t = i % rounds` of game
/// `i / rounds` in `paths` (`[afterstate, reward]` entries, `rounds` a game) and moves
/// V(s'_t) toward `r_{t+1} + V(s'_{t+1})` (0 after the last step) with the weights as it finds
/// them, all steps at once. No unit loops more than `lookups` times, so lavapipe runs it whole.
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn td_steps_kernel<G: DeviceStochasticGame>(
    weights: &mut Array<Atomic<f32>>,
    lut: &Array<u32>,
    paths: &Array<u32>,
    rounds: u32,
    total: u32,
    step: f32,
    lookups: u32,
    #[comptime] len: u32,
    #[comptime] bits: u32,
    #[comptime] words: usize,
) {
    let i = ABSOLUTE_POS as u32;
    if i < total {
        let stride = (words + 1) as u32;
        let at = (i * stride) as usize;
        let after = G::load(paths, at);
        let v = value::<G>(&after, weights, lut, lookups, len, bits);
        let mut target = 0.0f32;
        if (i % rounds) + 1u32 < rounds {
            let next_at = at + stride as usize;
            let next = G::load(paths, next_at);
            target = f32::cast_from(paths[next_at + words])
                + value::<G>(&next, weights, lut, lookups, len, bits);
        }
        update::<G>(
            &after,
            weights,
            lut,
            step * (target - v),
            lookups,
            0u32,
            1u32,
            len,
            bits,
        );
    }
}

/// Every unit starts idle: its first game comes from the play kernel's counter.
#[cube(launch_unchecked)]
pub fn td_start_kernel(units: &mut Array<u32>, unit_count: u32) {
    let u = ABSOLUTE_POS as u32;
    if u < unit_count {
        let at = u as usize * UNIT_WORDS;
        units[at] = NONE;
        for k in 1..UNIT_WORDS {
            units[at + k] = 0u32;
        }
    }
}

/// Takes the next game number, `base + counters[0]++` (lane 0 counts, every lane learns
/// the number), if it is below `limit`: the game's generator and start position; else the
/// game slot idles (`NONE`). The host moves `base` past the numbers taken below the limit, so
/// a number taken past it is handed out again.
#[cube]
#[allow(clippy::too_many_arguments)]
fn take_game<G: DeviceStochasticGame>(
    counters: &mut Array<Atomic<u32>>,
    base: u32,
    limit: u32,
    seed: u32,
    first: u32,
    lane: u32,
    slot: &mut SharedMemory<u32>,
    game: &mut u32,
    rng: &mut u32,
    state: &mut G::State,
    #[comptime] planes: bool,
) {
    let mut ticket = 0u32;
    if lane == 0u32 {
        ticket = counters[0].fetch_add(1u32);
    }
    let next = base + from_lane0(ticket, lane, slot, planes);
    if next < limit {
        *game = next;
        *rng = rng::worker_state(seed, first + next);
        let fresh = G::initial(rng);
        G::assign(state, &fresh);
    } else {
        *game = NONE;
    }
}

/// The best move so far among a state's candidates: found or not, its `reward + V`, its
/// action and reward.
#[derive(CubeType, Clone, Copy)]
struct Best {
    found: bool,
    value: f32,
    action: u32,
    reward: u32,
}

/// Candidate action `a`, made by lane `a` of the plane ([`spread_moves`]): its legality, reward
/// and stage come from that lane, and this lane's cell of the afterstate is `held`; a legal
/// one is valued and kept in `best` if better (the first of equal values).
#[cube]
#[allow(clippy::too_many_arguments)]
fn consider_spread<G: DeviceStochasticGame, F: Float>(
    own: &G::State,
    a: u32,
    held: u32,
    legal: u32,
    reward: u32,
    stage: u32,
    best: &mut Best,
    frozen: &Array<F>,
    live: &Array<Atomic<f32>>,
    lut: &Array<u32>,
    lookups: u32,
    lane: u32,
    pool: &mut SharedMemory<f32>,
    cells: &mut SharedMemory<u32>,
    #[comptime] len: u32,
    #[comptime] bits: u32,
    #[comptime] averaged: bool,
) {
    if plane_shuffle(legal, a) == 1u32 {
        let r = plane_shuffle(reward, a);
        // `own` stands in for afterstate `a`: with the cells pooled it is not read.
        let v = f32::cast_from(r)
            + held_value::<G, F>(
                own,
                held,
                plane_shuffle(stage, a),
                frozen,
                live,
                lut,
                lookups,
                lane,
                pool,
                cells,
                len,
                bits,
                averaged,
                true,
                true,
            );
        if !best.found || v > best.value {
            best.found = true;
            best.value = v;
            best.action = a;
            best.reward = r;
        }
    }
}

/// [`consider_spread`] for a V of one round of lookups whose weight `w` this lane already
/// read (at [`plane_index`], for afterstate `a`): the sum [`held_value`] makes of it.
#[cube]
fn consider_read(
    a: u32,
    w: f32,
    legal: u32,
    reward: u32,
    best: &mut Best,
    lane: u32,
    lookups: u32,
) {
    if plane_shuffle(legal, a) == 1u32 {
        let r = plane_shuffle(reward, a);
        let v = f32::cast_from(r)
            + plane_total(plane_round(
                0.0,
                plane_weight_used(w, lane, lookups),
                lane,
                lookups,
            ));
        if !best.found || v > best.value {
            best.found = true;
            best.value = v;
            best.action = a;
            best.reward = r;
        }
    }
}

/// The greedy move from `own` (a copy of the state, which becomes this lane's afterstate) of a
/// game of four actions whose lanes hold the cells through planes: lane `k` plays action
/// `k mod 4` only, where every lane used to play all four (the moves are most
/// of the kernel's integer work, Nsight Compute, docs/BENCHMARKS.md). The lanes of a group of
/// four hold the four afterstates; in round `r` each lane takes cell `group + r` of its own
/// afterstate and the group's lane `group + a` hands it to the lane `group + r`, which holds
/// that cell (`held_cell`: cells past `top` read as `top`). The values are the sequential
/// loop's, in its order. With one round of lookups a V in an averaged launch (`one_round`),
/// the four afterstates' weights are asked for together before any is added
/// ([`consider_read`]), instead of each V waiting for its own.
#[cube]
#[allow(clippy::too_many_arguments)]
fn spread_moves<G: DeviceStochasticGame, F: Float>(
    own: &mut G::State,
    frozen: &Array<F>,
    live: &Array<Atomic<f32>>,
    lut: &Array<u32>,
    row: &Array<u32>,
    lookups: u32,
    lane: u32,
    top: u32,
    pool: &mut SharedMemory<f32>,
    cells: &mut SharedMemory<u32>,
    #[comptime] len: u32,
    #[comptime] bits: u32,
    #[comptime] averaged: bool,
    #[comptime] one_round: bool,
) -> Best {
    let mine = lane & 3u32;
    let group = lane - mine;
    let acted = G::act(own, mine);
    let legal = select(acted.legal, 1u32, 0u32);
    let stage = stage_base::<G>(own, lut, lookups, len);
    let mut h0 = 0u32;
    let mut h1 = 0u32;
    let mut h2 = 0u32;
    let mut h3 = 0u32;
    #[unroll]
    for r in 0..4u32 {
        let x = G::cell(own, select(group + r < top, group + r, top));
        let y0 = plane_shuffle(x, group);
        let y1 = plane_shuffle(x, group + 1u32);
        let y2 = plane_shuffle(x, group + 2u32);
        let y3 = plane_shuffle(x, group + 3u32);
        let here = mine == r;
        h0 = select(here, y0, h0);
        h1 = select(here, y1, h1);
        h2 = select(here, y2, h2);
        h3 = select(here, y3, h3);
    }
    let mut best = Best {
        found: false,
        value: 0.0f32,
        action: 0u32,
        reward: 0u32,
    };
    if comptime!(one_round && averaged) {
        // Lanes past the last lookup read the last one's weight too (dropped in the sum).
        let w0 =
            f32::cast_from(frozen[plane_index(h0, row, plane_shuffle(stage, 0u32), len, bits)]);
        let w1 =
            f32::cast_from(frozen[plane_index(h1, row, plane_shuffle(stage, 1u32), len, bits)]);
        let w2 =
            f32::cast_from(frozen[plane_index(h2, row, plane_shuffle(stage, 2u32), len, bits)]);
        let w3 =
            f32::cast_from(frozen[plane_index(h3, row, plane_shuffle(stage, 3u32), len, bits)]);
        consider_read(0u32, w0, legal, acted.reward, &mut best, lane, lookups);
        consider_read(1u32, w1, legal, acted.reward, &mut best, lane, lookups);
        consider_read(2u32, w2, legal, acted.reward, &mut best, lane, lookups);
        consider_read(3u32, w3, legal, acted.reward, &mut best, lane, lookups);
    } else {
        consider_spread::<G, F>(
            own,
            0u32,
            h0,
            legal,
            acted.reward,
            stage,
            &mut best,
            frozen,
            live,
            lut,
            lookups,
            lane,
            pool,
            cells,
            len,
            bits,
            averaged,
        );
        consider_spread::<G, F>(
            own,
            1u32,
            h1,
            legal,
            acted.reward,
            stage,
            &mut best,
            frozen,
            live,
            lut,
            lookups,
            lane,
            pool,
            cells,
            len,
            bits,
            averaged,
        );
        consider_spread::<G, F>(
            own,
            2u32,
            h2,
            legal,
            acted.reward,
            stage,
            &mut best,
            frozen,
            live,
            lut,
            lookups,
            lane,
            pool,
            cells,
            len,
            bits,
            averaged,
        );
        consider_spread::<G, F>(
            own,
            3u32,
            h3,
            legal,
            acted.reward,
            stage,
            &mut best,
            frozen,
            live,
            lut,
            lookups,
            lane,
            pool,
            cells,
            len,
            bits,
            averaged,
        );
    }
    best
}

/// Lanes of a group: with planes, a game's lanes play its four actions in four groups, group
/// `a` (lanes `GROUP·a ..`) action `a` ([`grouped_moves`]).
const GROUP: u32 = LANES / 4;
// `grouped_moves` pairs lane `j < 4` of a group with lane `j + 4`, and holds four cells a lane.
const _: () = assert!(LANES == 32 && GROUP == 8);

/// The weight index of lookup `l` for a lane of a group whose lanes hold the group's cells
/// ([`grouped_moves`]): lane `j` of the group (the group's first lane is `base`) cells
/// `4j .. 4j + 3`, a byte each, in `held`; each cell of the lookup is one shuffle.
#[cube]
fn grouped_index(
    held: u32,
    base: u32,
    lut: &Array<u32>,
    l: u32,
    stage: u32,
    #[comptime] len: u32,
    #[comptime] bits: u32,
) -> usize {
    let row = l * (len + 1u32);
    let mut idx = lut[row as usize] + stage;
    #[unroll]
    for k in 0..len {
        let c = lut[(row + 1u32 + k) as usize];
        let four = plane_shuffle(held, base + (c >> 2u32));
        idx += ((four >> ((c & 3u32) * 8u32)) & 0xFFu32) << (k * bits);
    }
    idx as usize
}

/// Lane `j`'s weight of the round of lookups from `first` ([`grouped_moves`]): lookup
/// `first + j`, or past the last lookup the last one's (which the sum leaves out). The load is
/// unconditional so that nothing waits for it before the sum that adds it (a weight loaded
/// only where it counts became a predicated move straight after the load, where the warp
/// waited: Nsight Compute, docs/BENCHMARKS.md).
#[cube]
#[allow(clippy::too_many_arguments)]
fn grouped_weight<F: Float>(
    held: u32,
    base: u32,
    j: u32,
    first: u32,
    stage: u32,
    frozen: &Array<F>,
    live: &Array<Atomic<f32>>,
    lut: &Array<u32>,
    lookups: u32,
    #[comptime] len: u32,
    #[comptime] bits: u32,
    #[comptime] averaged: bool,
) -> f32 {
    let l = first + j;
    // Lanes past the last lookup make the last one's index too: every lane shuffles.
    let i = grouped_index(
        held,
        base,
        lut,
        select(l < lookups, l, lookups - 1u32),
        stage,
        len,
        bits,
    );
    if averaged {
        f32::cast_from(frozen[i])
    } else {
        live[i].load()
    }
}

/// The greedy move from `own` (a copy of the state, which becomes this lane's afterstate) of a
/// game of four actions whose lanes hold its cells through planes (cells below [`LANES`], a
/// byte each): group `a` of [`GROUP`] lanes plays action `a` and reads its V, lane `j` of the
/// group lookups `j, j + GROUP, …`, so every lane reads a weight in every round, where
/// [`spread_moves`]' one V at a time over the whole plane leaves lanes idle when the lookups
/// are not a multiple of [`LANES`] (it pools each V over the plane, but skips an illegal
/// action's V, and makes fewer cells a lane: [`LutNet::grouped`] picks). Lane
/// `j < 4` of a group keeps V's partial sum `j`: lookups `j, j + 4, …` in order, its own
/// weight and then lane `j + 4`'s each round; two butterfly steps then give
/// `(s₀ + s₁) + (s₂ + s₃)`, the sequential loop's bits (an add of the same two values in either
/// order rounds alike). Every lane then takes the four candidates from the groups' first lanes
/// and keeps the first best.
#[cube]
#[allow(clippy::too_many_arguments)]
fn grouped_moves<G: DeviceStochasticGame, F: Float>(
    own: &mut G::State,
    frozen: &Array<F>,
    live: &Array<Atomic<f32>>,
    lut: &Array<u32>,
    lookups: u32,
    lane: u32,
    top: u32,
    #[comptime] len: u32,
    #[comptime] bits: u32,
    #[comptime] averaged: bool,
    #[comptime] rounds: u32,
) -> Best {
    let j = lane % GROUP;
    let base = lane - j;
    let acted = G::act(own, lane / GROUP);
    let legal = select(acted.legal, 1u32, 0u32);
    let stage = stage_base::<G>(own, lut, lookups, len);
    let mut held = 0u32;
    #[unroll]
    for k in 0..4u32 {
        let c = 4u32 * j + k;
        held |= G::cell(own, select(c < top, c, top)) << (8u32 * k);
    }
    // Every round's weight is asked for before any is added (`rounds` is known when the kernel
    // is compiled), so that the loads wait together rather than one after another. An illegal
    // action's weights are read too (its sum is never used): a read only where the weights
    // count would wait for them where they are asked.
    let mut w = Array::<f32>::new(comptime!(rounds as usize));
    #[unroll]
    for r in 0..rounds {
        w[r as usize] = grouped_weight::<F>(
            held,
            base,
            j,
            r * GROUP,
            stage,
            frozen,
            live,
            lut,
            lookups,
            len,
            bits,
            averaged,
        );
    }
    let mut sum = 0.0f32;
    #[unroll]
    for r in 0..rounds {
        let l = r * GROUP + j;
        let paired = plane_shuffle(w[r as usize], lane ^ (GROUP / 2u32));
        if j < 4u32 {
            if l < lookups {
                sum += w[r as usize];
            }
            if l + 4u32 < lookups {
                sum += paired;
            }
        }
    }
    let pair = sum + plane_shuffle_xor(sum, 1u32);
    let value = f32::cast_from(acted.reward) + (pair + plane_shuffle_xor(pair, 2u32));
    let mut best = Best {
        found: false,
        value: 0.0f32,
        action: 0u32,
        reward: 0u32,
    };
    #[unroll]
    for a in 0..4u32 {
        let from = a * GROUP;
        let v = plane_shuffle(value, from);
        let reward = plane_shuffle(acted.reward, from);
        if plane_shuffle(legal, from) == 1u32 && (!best.found || v > best.value) {
            best.found = true;
            best.value = v;
            best.action = a;
            best.reward = reward;
        }
    }
    best
}

/// Each game slot (its [`LANES`] lanes together, pooling as `planes` says: see
/// [`LaneExchange`]) plays up to `max_moves` moves, learning from each game when it ends (see
/// the module docs) and taking the next game number below `limit` (games `first + base ..`).
/// Every lane of a game keeps the whole game in registers and makes the same choices, since
/// every V comes to each lane with the same bits; lane 0 alone counts and writes what the host
/// reads, and every lane writes (and reads back) the same path words and replay position.
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments, clippy::collapsible_if)]
pub fn td_play_kernel<G: DeviceStochasticGame, F: Float>(
    frozen: &Array<F>,
    weights: &mut Array<Atomic<f32>>,
    pending: &mut Array<Atomic<f32>>,
    hits: &mut Array<Atomic<u32>>,
    sums: &mut Array<f32>,
    sizes: &mut Array<f32>,
    lut: &Array<u32>,
    states: &mut Array<u32>,
    units: &mut Array<u32>,
    paths: &mut Array<u32>,
    results: &mut Array<u32>,
    counters: &mut Array<Atomic<u32>>,
    step: f32,
    seed: u32,
    first: u32,
    base: u32,
    limit: u32,
    slots: u32,
    unit_count: u32,
    max_moves: u32,
    cap: u32,
    lookups: u32,
    top: u32,
    restarts: u32,
    restart_at: u32,
    copies: u32,
    copy_stride: u32,
    #[comptime] len: u32,
    #[comptime] bits: u32,
    #[comptime] words: usize,
    #[comptime] actions: u32,
    #[comptime] averaged: bool,
    #[comptime] planes: bool,
    #[comptime] coherent: bool,
    #[comptime] pooled: bool,
    #[comptime] replaying: bool,
    #[comptime] group_rounds: u32,
    #[comptime] one_round: bool,
    #[comptime] forward: bool,
) {
    let u = ABSOLUTE_POS as u32 / LANES;
    let lane = UNIT_POS % LANES;
    let mut pool = SharedMemory::<f32>::new(LANES as usize);
    let mut cells = SharedMemory::<u32>::new(LANES as usize);
    let mut slot = SharedMemory::<u32>::new(1usize);
    if u < unit_count {
        // This game's copy of the averaged sums (`sum_copies` in the runtime).
        let spread = (u % copies) * copy_stride;
        let at = u as usize * UNIT_WORDS;
        let stride = (words + 1) as u32;
        let mut game = units[at];
        let mut rng = units[at + 1];
        let mut score = units[at + 2];
        let mut moves = units[at + 3];
        let mut plen = units[at + 4];
        // Replays (`TdShape::restart`): how many this game played, whether it holds the
        // position to replay from (beside its position in `states`), their moves, and where
        // the game's own play ended. Without them (comptime) these stay 0 and their code
        // folds away.
        let mut replays = 0u32;
        let mut marked = 0u32;
        let mut replayed = 0u32;
        let mut reached = 0u32;
        if comptime!(replaying) {
            replays = units[at + 5];
            marked = units[at + 6];
            replayed = units[at + 7];
            reached = units[at + 8];
        }
        let here = 2 * u as usize * words;
        let mark_at = here + words;
        let mut state = G::load(states, here);
        // Read only by the one-round plane paths (unused loads fold away elsewhere).
        let row = lane_row(lut, lane, lookups, len);
        let mut budget = max_moves;
        if game == NONE {
            take_game::<G>(
                counters, base, limit, seed, first, lane, &mut slot, &mut game, &mut rng,
                &mut state, planes,
            );
        }
        while budget > 0u32 && game != NONE {
            budget -= 1u32;
            // The greedy action: the first best `reward + V(afterstate)`. The moves are most of
            // the kernel's integer work (and, inlined, of its code): one a lane when they are
            // spread over the lanes, by groups or not (the lane that made the chosen afterstate
            // then hands it to the others), else four a lane, the chosen afterstate kept rather
            // than made again.
            let mut found = false;
            let mut best_v = 0.0f32;
            let mut best_after = state;
            let mut best_reward = 0u32;
            if comptime!(group_rounds > 0) {
                let mut own = state;
                let best = grouped_moves::<G, F>(
                    &mut own,
                    frozen,
                    weights,
                    lut,
                    lookups,
                    lane,
                    top,
                    len,
                    bits,
                    averaged,
                    group_rounds,
                );
                if best.found {
                    found = true;
                    best_v = best.value;
                    best_reward = best.reward;
                    let chosen = G::from_lane(&own, best.action * GROUP);
                    G::assign(&mut best_after, &chosen);
                }
            } else if comptime!(planes && pooled && actions == 4) {
                let mut own = state;
                let best = spread_moves::<G, F>(
                    &mut own, frozen, weights, lut, &row, lookups, lane, top, &mut pool,
                    &mut cells, len, bits, averaged, one_round,
                );
                if best.found {
                    found = true;
                    best_v = best.value;
                    best_reward = best.reward;
                    let chosen = G::from_lane(&own, best.action);
                    G::assign(&mut best_after, &chosen);
                }
            } else {
                for a in 0..actions {
                    let mut after = state;
                    let s = G::act(&mut after, a);
                    if s.legal {
                        let v = f32::cast_from(s.reward)
                            + lane_value::<G, F>(
                                &after, frozen, weights, lut, lookups, lane, &mut pool, &mut cells,
                                top, len, bits, averaged, planes, pooled,
                            );
                        if !found || v > best_v {
                            best_v = v;
                            G::assign(&mut best_after, &after);
                            best_reward = s.reward;
                            found = true;
                        }
                    }
                }
            }
            if comptime!(forward) {
                // TD(0) in the order of play (`TdShape::forward`): the afterstate before this
                // move, the path's one entry, learns toward this move's `reward + V` (0 once
                // the game ends), its error taken against its value when it was chosen.
                if plen == 1u32 {
                    let at = (u * cap * stride) as usize;
                    let before = G::load(paths, at);
                    let chosen = f32::reinterpret(paths[at + words]);
                    let delta = step * (select(found, best_v, 0.0f32) - chosen);
                    let stage = stage_base::<G>(&before, lut, lookups, len);
                    let mut held = 0u32;
                    if pooled {
                        held = held_cell::<G>(&before, lane, top);
                        share_cells(held, lane, &mut cells, planes);
                    }
                    lane_accumulate::<G>(
                        &before, held, stage, pending, hits, lut, delta, lookups, lane, spread,
                        &cells, len, bits, planes, pooled,
                    );
                }
                plen = 0u32;
            } else if !found || plen == cap {
                // The stored path is learned when the game ends (toward 0), or when it fills
                // the game's `cap` entries (toward the value of the move about to be stored).
                if comptime!(planes && pooled && averaged && one_round) {
                    learn_planes::<G, F>(
                        frozen,
                        pending,
                        hits,
                        lut,
                        &row,
                        paths,
                        u * cap,
                        plen,
                        select(found, best_v, 0.0f32),
                        step,
                        lookups,
                        lane,
                        spread,
                        top,
                        len,
                        bits,
                        words,
                    );
                } else {
                    learn::<G, F>(
                        frozen,
                        weights,
                        pending,
                        hits,
                        sums,
                        sizes,
                        lut,
                        paths,
                        u * cap,
                        plen,
                        select(found, best_v, 0.0f32),
                        step,
                        lookups,
                        lane,
                        spread,
                        &mut pool,
                        &mut cells,
                        top,
                        len,
                        bits,
                        words,
                        averaged,
                        planes,
                        coherent,
                        pooled,
                    );
                }
                plen = 0u32;
            }
            if found {
                let entry = ((u * cap + plen) * stride) as usize;
                G::store(&best_after, paths, entry);
                if comptime!(forward) {
                    // Its value when chosen, for its error once the next move is chosen.
                    let chosen = best_v - f32::cast_from(best_reward);
                    paths[entry + words] = u32::reinterpret(chosen);
                } else {
                    paths[entry + words] = best_reward;
                }
                plen += 1u32;
                if replays == 0u32 {
                    score += best_reward;
                    moves += 1u32;
                } else {
                    replayed += 1u32;
                }
                G::assign(&mut state, &best_after);
                G::sample_chance(&mut state, &mut rng);
                // Nested: a kernel's `&&` evaluates both sides, and most moves need not look.
                if comptime!(replaying) {
                    if marked == 0u32 {
                        if G::stage_progress(&state) >= restart_at {
                            // Every lane writes the same words, and reads back its own.
                            marked = 1u32;
                            G::store(&state, states, mark_at);
                        }
                    }
                }
            } else {
                if replays == 0u32 {
                    reached = G::progress(&state);
                }
                let mut again = false;
                if comptime!(replaying) {
                    again = marked == 1u32 && replays < restarts;
                }
                if again {
                    replays += 1u32;
                    let mark = G::load(states, mark_at);
                    G::assign(&mut state, &mark);
                } else {
                    if lane == 0u32 {
                        let r = (game % slots) as usize * RESULT_WORDS;
                        results[r] = score;
                        results[r + 1] = moves;
                        results[r + 2] = reached;
                        results[r + 3] = game + 1u32;
                        results[r + 4] = replayed;
                        counters[1].fetch_add(1u32);
                    }
                    score = 0u32;
                    moves = 0u32;
                    replays = 0u32;
                    marked = 0u32;
                    replayed = 0u32;
                    take_game::<G>(
                        counters, base, limit, seed, first, lane, &mut slot, &mut game, &mut rng,
                        &mut state, planes,
                    );
                }
            }
        }
        if lane == 0u32 {
            if budget < max_moves {
                counters[2].fetch_add(max_moves - budget);
            }
            G::store(&state, states, here);
            units[at] = game;
            units[at + 1] = rng;
            units[at + 2] = score;
            units[at + 3] = moves;
            units[at + 4] = plen;
            if comptime!(replaying) {
                units[at + 5] = replays;
                units[at + 6] = marked;
                units[at + 7] = replayed;
                units[at + 8] = reached;
            }
        }
    }
}

/// A device buffer and its length in elements.
pub(crate) type Buffer<'a> = (&'a Handle, usize);

/// A network as the TD kernels read it: the runtime lookup table ([`crate::ntuple::lut_words`])
/// of `lookups` lookups of `len` cells, `bits` bits a cell.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LutNet {
    pub lookups: u32,
    pub len: u32,
    pub bits: u32,
    /// The highest cell a lookup reads: below [`LANES`], a game's lanes hold the cells
    /// ([`held_cell`]).
    pub top: u32,
}

impl LutNet {
    /// Whether the lanes of a game choose its moves by groups ([`grouped_moves`]): with planes,
    /// four actions and the cells held by the lanes (below [`LANES`], at most 8 bits), where
    /// groups read every candidate in fewer rounds of weight loads than whole planes do one V
    /// after another ([`spread_moves`]). 2584's seed network (24 lookups: 3 rounds against 4)
    /// gained 1.09 × on an H200, 2048's `4x6patt` (32: 4 against 4) ran at 0.95 ×
    /// (docs/BENCHMARKS.md). Decided here, so that no other kernel variant is compiled for it.
    fn grouped(&self, lanes: LaneExchange, actions: usize) -> bool {
        lanes == LaneExchange::Plane
            && actions == 4
            && self.top < LANES
            && self.bits <= 8
            && self.lookups.div_ceil(GROUP) < 4 * self.lookups.div_ceil(LANES)
    }

    /// The rounds of [`GROUP`] lookups a grouped move reads ([`grouped_moves`]), 0 where the
    /// moves do not go by groups ([`LutNet::grouped`]): the play kernel is compiled for it.
    fn group_rounds(&self, lanes: LaneExchange, actions: usize) -> u32 {
        if self.grouped(lanes, actions) {
            self.lookups.div_ceil(GROUP)
        } else {
            0
        }
    }
}

/// The buffers of [`td_play_kernel`](fn@td_play_kernel), in its order.
pub(crate) struct PlayBuffers<'a> {
    pub frozen: Buffer<'a>,
    pub live: Buffer<'a>,
    pub pending: Buffer<'a>,
    pub hits: Buffer<'a>,
    /// Temporal coherence's two sums per weight (placeholders without it).
    pub sums: Buffer<'a>,
    pub sizes: Buffer<'a>,
    pub lut: Buffer<'a>,
    pub states: Buffer<'a>,
    pub units: Buffer<'a>,
    pub paths: Buffer<'a>,
    pub results: Buffer<'a>,
    pub counters: Buffer<'a>,
}

/// The scalar arguments of [`td_play_kernel`](fn@td_play_kernel), in its order.
pub(crate) struct PlayArgs {
    pub step: f32,
    pub seed: u32,
    pub first: u32,
    pub base: u32,
    pub limit: u32,
    pub slots: u32,
    pub units: u32,
    pub max_moves: u32,
    pub cap: u32,
    pub restarts: u32,
    pub restart_at: u32,
    pub averaged: bool,
    pub lanes: LaneExchange,
    pub coherent: bool,
    pub forward: bool,
    /// Copies of the averaged sums, and the weights' count between two copies.
    pub copies: u32,
    pub copy_stride: u32,
}

/// A buffer as a kernel argument.
///
/// # Safety
/// The buffer holds at least `len` elements of the kernel parameter's type.
unsafe fn arg<R: Runtime>((handle, len): Buffer) -> ArrayArg<R> {
    unsafe { ArrayArg::from_raw_parts(handle.clone(), len) }
}

/// [`td_start_kernel`] over `units` units.
///
/// # Safety
/// `units` holds `units.1 ≥ count · UNIT_WORDS` words.
pub(crate) unsafe fn launch_start<R: Runtime>(
    client: &ComputeClient<R>,
    units: Buffer,
    count: u32,
) {
    let (cubes, dim) = crate::launch::grid(client, count as usize);
    // SAFETY: units past `count` do nothing; unit u writes only its own slots.
    unsafe {
        td_start_kernel::launch_unchecked::<R>(client, cubes, dim, arg(units), count);
    }
}

/// One launch of [`td_play_kernel`](fn@td_play_kernel) over `args.units` games of [`LANES`] units each, reading
/// the weights as `F`.
///
/// # Safety
/// The buffers are as the parent module lays them out for `args` and `net`: a unit slot and
/// two states per unit, `cap` path entries of `STATE_WORDS + 1` words per unit, `slots` result slots,
/// 3 counters, the lookup table of `net`, and weights (and, averaging, pending and hits; with
/// coherence, in an immediate launch, the two sums) at every index the table makes; the view a
/// launch does not use may be one element long; `net.top` is the highest cell the table reads.
/// [`LaneExchange::Plane`] only on a device with planes of [`LANES`] units and averaged updates.
pub(crate) unsafe fn launch_play<R: Runtime, G: GpuStochasticGame, F: Float + CubeElement>(
    client: &ComputeClient<R>,
    b: &PlayBuffers,
    args: &PlayArgs,
    net: LutNet,
) {
    let per_cube = args.lanes.units_per_cube();
    let threads = args.units as usize * LANES as usize;
    let cubes = crate::launch::cube_count(client, threads.div_ceil(per_cube as usize));
    let dim = CubeDim::new_1d(per_cube);
    // SAFETY: see the function's contract; game u writes only its own slots, the result slot
    // of its game, and weights at the indices of the table; a cube holds whole games.
    unsafe {
        td_play_kernel::launch_unchecked::<G::Device, F, R>(
            client,
            cubes,
            dim,
            arg(b.frozen),
            arg(b.live),
            arg(b.pending),
            arg(b.hits),
            arg(b.sums),
            arg(b.sizes),
            arg(b.lut),
            arg(b.states),
            arg(b.units),
            arg(b.paths),
            arg(b.results),
            arg(b.counters),
            args.step,
            args.seed,
            args.first,
            args.base,
            args.limit,
            args.slots,
            args.units,
            args.max_moves,
            args.cap,
            net.lookups,
            net.top,
            args.restarts,
            args.restart_at,
            args.copies,
            args.copy_stride,
            net.len,
            net.bits,
            G::STATE_WORDS,
            G::ACTIONS.len() as u32,
            args.averaged,
            args.lanes == LaneExchange::Plane,
            args.coherent,
            net.top < LANES,
            args.restarts > 0,
            net.group_rounds(args.lanes, G::ACTIONS.len()),
            net.lookups <= LANES,
            args.forward,
        );
    }
}

/// [`td_apply_kernel`] over `count` weights; `copy` is the `F` copy of the weights, or a
/// placeholder when there is none; `sums` and `sizes` temporal coherence's, read when
/// `coherent`.
///
/// # Safety
/// `weights` holds `count` elements, `pending` and `hits` `copies · count`, and `copy` `count`
/// when `copied`, the sums when `coherent`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn launch_apply<R: Runtime, F: Float + CubeElement>(
    client: &ComputeClient<R>,
    weights: Buffer,
    pending: Buffer,
    hits: Buffer,
    copy: Buffer,
    (sums, sizes): (Buffer, Buffer),
    count: u32,
    steps: u32,
    copies: u32,
    copied: bool,
    coherent: bool,
) {
    let (cubes, dim) = crate::launch::grid(client, count as usize);
    // SAFETY: unit i touches only weight i of the six buffers (the copy only when `copied`,
    // the sums only when `coherent`).
    unsafe {
        td_apply_kernel::launch_unchecked::<F, R>(
            client,
            cubes,
            dim,
            arg(weights),
            arg(pending),
            arg(hits),
            arg(copy),
            arg(sums),
            arg(sizes),
            count,
            steps,
            copies,
            copied,
            coherent,
        );
    }
}

/// [`td_steps_kernel`] over `count` path entries of `rounds` a game.
///
/// # Safety
/// `paths` holds `count` entries of `STATE_WORDS + 1` words, `count` is a multiple of
/// `rounds`, and `weights` has every index the lookup table of `net` makes.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn launch_steps<R: Runtime, G: GpuStochasticGame>(
    client: &ComputeClient<R>,
    weights: Buffer,
    lut: Buffer,
    paths: Buffer,
    rounds: u32,
    count: u32,
    step: f32,
    net: LutNet,
) {
    let (cubes, dim) = crate::launch::grid(client, count as usize);
    // SAFETY: units past `count` do nothing; unit i reads entries i and i + 1 (only when i is
    // not a game's last step) and updates weights at the indices of the table.
    unsafe {
        td_steps_kernel::launch_unchecked::<G::Device, R>(
            client,
            cubes,
            dim,
            arg(weights),
            arg(lut),
            arg(paths),
            rounds,
            count,
            step,
            net.lookups,
            net.len,
            net.bits,
            G::STATE_WORDS,
        );
    }
}
