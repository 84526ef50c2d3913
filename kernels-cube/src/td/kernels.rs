//! The TD(0) kernels (layout of their buffers in the parent module) and their thin launchers.

use super::storage::F16_MAX;
use crate::ntuple::{lookup_index, partial_sums};
use crate::rng;
use crate::stochastic::{DeviceStochasticGame, GpuStochasticGame};
use cubecl::prelude::*;
use cubecl::server::Handle;

/// `units[..]` game slot of an idle unit.
pub const NONE: u32 = u32::MAX;
/// u32 words of one unit's entry in `units`.
pub const UNIT_WORDS: usize = 5;
/// u32 words of one result slot: `[score, moves, progress, game + 1]`.
pub const RESULT_WORDS: usize = 4;

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
    for q in 0..lookups / 4u32 {
        let l = 4u32 * q;
        let w0 = weights[lookup_index::<G>(state, lut, l, len, bits)].load();
        let w1 = weights[lookup_index::<G>(state, lut, l + 1u32, len, bits)].load();
        let w2 = weights[lookup_index::<G>(state, lut, l + 2u32, len, bits)].load();
        let w3 = weights[lookup_index::<G>(state, lut, l + 3u32, len, bits)].load();
        sums.add(w0, w1, w2, w3);
    }
    sums.total()
}

/// V(state) read from the training weights: plain loads from `frozen` when a launch averages
/// its updates (the weights do not change until the apply kernel runs), else atomic loads from
/// `live`, which the launch's own updates change. CUDA compiles an atomic load to an atomic
/// add of zero, a round trip to L2 for each weight a move reads. `frozen` holds the weights as
/// `F` ([`super::WeightStorage`]); the sum is f32 whatever they are stored as, in [`value()`]'s
/// order.
#[cube]
#[allow(clippy::too_many_arguments)]
fn training_value<G: DeviceStochasticGame, F: Float>(
    state: &G::State,
    frozen: &Array<F>,
    live: &Array<Atomic<f32>>,
    lut: &Array<u32>,
    lookups: u32,
    #[comptime] len: u32,
    #[comptime] bits: u32,
    #[comptime] averaged: bool,
) -> f32 {
    if averaged {
        let mut sums = partial_sums();
        for q in 0..lookups / 4u32 {
            let l = 4u32 * q;
            let w0 = f32::cast_from(frozen[lookup_index::<G>(state, lut, l, len, bits)]);
            let w1 = f32::cast_from(frozen[lookup_index::<G>(state, lut, l + 1u32, len, bits)]);
            let w2 = f32::cast_from(frozen[lookup_index::<G>(state, lut, l + 2u32, len, bits)]);
            let w3 = f32::cast_from(frozen[lookup_index::<G>(state, lut, l + 3u32, len, bits)]);
            sums.add(w0, w1, w2, w3);
        }
        sums.total()
    } else {
        value::<G>(state, live, lut, lookups, len, bits)
    }
}

/// `x` unchanged, as a value no compiler can fuse into a later add: CUDA (and other GPU
/// compilers) contract `a·b + c` into one fused multiply-add, rounded once where the CPU rounds
/// the product and the sum each. `zero` must be 0 but unknown to the compiler (derived from a
/// kernel argument), so the product must be rounded to its bits first.
#[cube]
pub fn unfused(x: f32, zero: u32) -> f32 {
    f32::reinterpret(u32::reinterpret(x) ^ zero)
}

/// Adds `delta` to every weight V(state) reads.
#[cube]
pub fn update<G: DeviceStochasticGame>(
    state: &G::State,
    weights: &Array<Atomic<f32>>,
    lut: &Array<u32>,
    delta: f32,
    lookups: u32,
    #[comptime] len: u32,
    #[comptime] bits: u32,
) {
    for l in 0..lookups {
        weights[lookup_index::<G>(state, lut, l, len, bits)].fetch_add(delta);
    }
}

/// Adds `delta` to the pending change of every weight V(state) reads, and counts the hit
/// (the averaged update, see [`super::TdShape::averaged`]).
#[cube]
#[allow(clippy::too_many_arguments)]
fn accumulate<G: DeviceStochasticGame>(
    state: &G::State,
    pending: &Array<Atomic<f32>>,
    hits: &Array<Atomic<u32>>,
    lut: &Array<u32>,
    delta: f32,
    lookups: u32,
    #[comptime] len: u32,
    #[comptime] bits: u32,
) {
    for l in 0..lookups {
        let i = lookup_index::<G>(state, lut, l, len, bits);
        pending[i].fetch_add(delta);
        hits[i].fetch_add(1u32);
    }
}

/// The backward TD(0) pass over `count` path entries starting at entry `first`, the last
/// afterstate moved toward `target`. Immediate: each update goes into the weights and the
/// next target reads them back (the CPU trainer exactly). Averaged: each update goes into
/// `pending`/`hits`, and the next target is the value the update would have given,
/// `v + lookups · Δ`.
#[cube]
#[allow(clippy::too_many_arguments)]
fn learn<G: DeviceStochasticGame, F: Float>(
    frozen: &Array<F>,
    weights: &Array<Atomic<f32>>,
    pending: &Array<Atomic<f32>>,
    hits: &Array<Atomic<u32>>,
    lut: &Array<u32>,
    paths: &Array<u32>,
    first: u32,
    count: u32,
    target0: f32,
    step: f32,
    lookups: u32,
    #[comptime] len: u32,
    #[comptime] bits: u32,
    #[comptime] words: usize,
    #[comptime] averaged: bool,
) {
    let stride = (words + 1) as u32;
    let mut target = target0;
    let mut i = count;
    while i > 0u32 {
        i -= 1u32;
        let at = ((first + i) * stride) as usize;
        let after = G::load(paths, at);
        let reward = f32::cast_from(paths[at + words]);
        let v = training_value::<G, F>(&after, frozen, weights, lut, lookups, len, bits, averaged);
        let delta = step * (target - v);
        if averaged {
            accumulate::<G>(&after, pending, hits, lut, delta, lookups, len, bits);
            // `lookups < 2^31`: a zero the compiler cannot see is one.
            let change = unfused(f32::cast_from(lookups) * delta, lookups >> 31u32);
            target = reward + v + change;
        } else {
            update::<G>(&after, weights, lut, delta, lookups, len, bits);
            target = reward + value::<G>(&after, weights, lut, lookups, len, bits);
        }
    }
}

/// Applies the averaged updates of a launch: each weight moves by the mean of the changes
/// asked of it, `pending / hits`, and both go back to zero. Unit `i` owns weight `i`. With
/// `copied`, the launches read an `F` copy of the weights ([`super::WeightStorage::F16`]), and
/// each changed weight is written there too, saturated as
/// [`to_f16`](super::storage::to_f16) saturates it (no weight may read as infinity).
#[cube(launch_unchecked)]
pub fn td_apply_kernel<F: Float>(
    weights: &mut Array<Atomic<f32>>,
    pending: &mut Array<Atomic<f32>>,
    hits: &mut Array<Atomic<u32>>,
    copy: &mut Array<F>,
    total: u32,
    #[comptime] copied: bool,
) {
    let i = ABSOLUTE_POS;
    if i < total as usize {
        let h = hits[i].load();
        if h > 0u32 {
            let sum = pending[i].load();
            let change = sum / f32::cast_from(h);
            // The add returns the weight before it; nothing else runs, so the weight after it
            // is that plus the change, rounded as the add rounded it.
            let before = weights[i].fetch_add(change);
            if copied {
                copy[i] = F::cast_from((before + change).clamp(-F16_MAX, F16_MAX));
            }
            // Nothing else runs: subtracting what was read leaves exactly zero.
            pending[i].fetch_add(-sum);
            hits[i].fetch_sub(h);
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
        units[at + 1] = 0u32;
        units[at + 2] = 0u32;
        units[at + 3] = 0u32;
        units[at + 4] = 0u32;
    }
}

/// Takes the next game number, `base + counters[0]++`, if it is below `limit`: the game's
/// generator and start position; else the unit idles (`NONE`). The host moves `base` past the
/// numbers taken below the limit, so a number taken past it is handed out again.
#[cube]
#[allow(clippy::too_many_arguments)]
fn take_game<G: DeviceStochasticGame>(
    counters: &mut Array<Atomic<u32>>,
    base: u32,
    limit: u32,
    seed: u32,
    first: u32,
    game: &mut u32,
    rng: &mut u32,
    state: &mut G::State,
) {
    let next = base + counters[0].fetch_add(1u32);
    if next < limit {
        *game = next;
        *rng = rng::worker_state(seed, first + next);
        let fresh = G::initial(rng);
        G::assign(state, &fresh);
    } else {
        *game = NONE;
    }
}

/// Each unit plays up to `max_moves` moves, learning from each game when it ends (see the module
/// docs) and taking the next game number below `limit` (games `first + base ..`).
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn td_play_kernel<G: DeviceStochasticGame, F: Float>(
    frozen: &Array<F>,
    weights: &mut Array<Atomic<f32>>,
    pending: &mut Array<Atomic<f32>>,
    hits: &mut Array<Atomic<u32>>,
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
    #[comptime] len: u32,
    #[comptime] bits: u32,
    #[comptime] words: usize,
    #[comptime] actions: u32,
    #[comptime] averaged: bool,
) {
    let u = ABSOLUTE_POS as u32;
    if u < unit_count {
        let at = u as usize * UNIT_WORDS;
        let stride = (words + 1) as u32;
        let mut game = units[at];
        let mut rng = units[at + 1];
        let mut score = units[at + 2];
        let mut moves = units[at + 3];
        let mut plen = units[at + 4];
        let mut state = G::load(states, u as usize * words);
        let mut budget = max_moves;
        if game == NONE {
            take_game::<G>(
                counters, base, limit, seed, first, &mut game, &mut rng, &mut state,
            );
        }
        while budget > 0u32 && game != NONE {
            budget -= 1u32;
            // The greedy action: the first best `reward + V(afterstate)`.
            let mut found = false;
            let mut best_action = 0u32;
            let mut best_v = 0.0f32;
            for a in 0..actions {
                let mut after = state;
                let s = G::act(&mut after, a);
                if s.legal {
                    let v = f32::cast_from(s.reward)
                        + training_value::<G, F>(
                            &after, frozen, weights, lut, lookups, len, bits, averaged,
                        );
                    if !found || v > best_v {
                        best_v = v;
                        best_action = a;
                        found = true;
                    }
                }
            }
            // The stored path is learned when the game ends (toward 0), or when it fills the
            // unit's `cap` entries (toward the value of the move about to be stored).
            if !found || plen == cap {
                learn::<G, F>(
                    frozen,
                    weights,
                    pending,
                    hits,
                    lut,
                    paths,
                    u * cap,
                    plen,
                    select(found, best_v, 0.0f32),
                    step,
                    lookups,
                    len,
                    bits,
                    words,
                    averaged,
                );
                plen = 0u32;
            }
            if found {
                let mut after = state;
                let s = G::act(&mut after, best_action);
                let entry = ((u * cap + plen) * stride) as usize;
                G::store(&after, paths, entry);
                paths[entry + words] = s.reward;
                plen += 1u32;
                score += s.reward;
                moves += 1u32;
                G::assign(&mut state, &after);
                G::sample_chance(&mut state, &mut rng);
            } else {
                let r = (game % slots) as usize * RESULT_WORDS;
                results[r] = score;
                results[r + 1] = moves;
                results[r + 2] = G::progress(&state);
                results[r + 3] = game + 1u32;
                counters[1].fetch_add(1u32);
                score = 0u32;
                moves = 0u32;
                take_game::<G>(
                    counters, base, limit, seed, first, &mut game, &mut rng, &mut state,
                );
            }
        }
        if budget < max_moves {
            counters[2].fetch_add(max_moves - budget);
        }
        G::store(&state, states, u as usize * words);
        units[at] = game;
        units[at + 1] = rng;
        units[at + 2] = score;
        units[at + 3] = moves;
        units[at + 4] = plen;
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
}

/// The buffers of [`td_play_kernel`], in its order.
pub(crate) struct PlayBuffers<'a> {
    pub frozen: Buffer<'a>,
    pub live: Buffer<'a>,
    pub pending: Buffer<'a>,
    pub hits: Buffer<'a>,
    pub lut: Buffer<'a>,
    pub states: Buffer<'a>,
    pub units: Buffer<'a>,
    pub paths: Buffer<'a>,
    pub results: Buffer<'a>,
    pub counters: Buffer<'a>,
}

/// The scalar arguments of [`td_play_kernel`], in its order.
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
    pub averaged: bool,
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

/// One launch of [`td_play_kernel`] over `args.units` units, reading the weights as `F`.
///
/// # Safety
/// The buffers are as the parent module lays them out for `args` and `net`: a unit slot and a
/// state per unit, `cap` path entries of `STATE_WORDS + 1` words per unit, `slots` result slots,
/// 3 counters, the lookup table of `net`, and weights (and, averaging, pending and hits) at
/// every index the table makes; the view a launch does not use may be one element long.
pub(crate) unsafe fn launch_play<R: Runtime, G: GpuStochasticGame, F: Float + CubeElement>(
    client: &ComputeClient<R>,
    b: &PlayBuffers,
    args: &PlayArgs,
    net: LutNet,
) {
    let (cubes, dim) = crate::launch::grid(client, args.units as usize);
    // SAFETY: see the function's contract; unit u writes only its own slots, the result slot
    // of its game, and weights at the indices of the table.
    unsafe {
        td_play_kernel::launch_unchecked::<G::Device, F, R>(
            client,
            cubes,
            dim,
            arg(b.frozen),
            arg(b.live),
            arg(b.pending),
            arg(b.hits),
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
            net.len,
            net.bits,
            G::STATE_WORDS,
            G::ACTIONS.len() as u32,
            args.averaged,
        );
    }
}

/// [`td_apply_kernel`] over `count` weights; `copy` is the `F` copy of the weights, or a
/// placeholder when there is none.
///
/// # Safety
/// `weights`, `pending` and `hits` hold `count` elements, and `copy` does too when `copied`.
pub(crate) unsafe fn launch_apply<R: Runtime, F: Float + CubeElement>(
    client: &ComputeClient<R>,
    weights: Buffer,
    pending: Buffer,
    hits: Buffer,
    copy: Buffer,
    count: u32,
    copied: bool,
) {
    let (cubes, dim) = crate::launch::grid(client, count as usize);
    // SAFETY: unit i touches only weight i of the four buffers (the copy only when `copied`).
    unsafe {
        td_apply_kernel::launch_unchecked::<F, R>(
            client,
            cubes,
            dim,
            arg(weights),
            arg(pending),
            arg(hits),
            arg(copy),
            count,
            copied,
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
