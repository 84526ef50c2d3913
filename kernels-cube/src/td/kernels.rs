//! The TD(0) kernels (layout of their buffers in the parent module) and their thin launchers.

use super::storage::F16_MAX;
use crate::exact::{div_rn, unfused};
use crate::ntuple::stage_base;
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

use super::lanes::{from_lane0, held_cell, lane_row, lane_value, share_cells, LaneExchange, LANES};
pub use super::learn::{coherence_rate, update, value};
use super::learn::{lane_accumulate, learn, learn_planes};
use super::moves::{grouped_moves, spread_moves, GROUP};

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
    /// The rounds of [`GROUP`] lookups a grouped move reads ([`grouped_moves`]), or 0 where the
    /// lanes of a game do not choose its moves by groups; the play kernel is compiled for it.
    /// Groups go with planes, four actions and the cells held by the lanes (below [`LANES`], at
    /// most 8 bits), where they read every candidate in fewer rounds of weight loads than whole
    /// planes do one V after another ([`spread_moves`]). 2584's seed network (24 lookups: 3
    /// rounds against 4) gained 1.09 × on an H200, 2048's `4x6patt` (32: 4 against 4) ran at
    /// 0.95 × (docs/BENCHMARKS.md).
    fn group_rounds(&self, lanes: LaneExchange, actions: usize) -> u32 {
        let rounds = self.lookups.div_ceil(GROUP);
        let grouped = lanes == LaneExchange::Plane
            && actions == 4
            && self.top < LANES
            && self.bits <= 8
            && rounds < 4 * self.lookups.div_ceil(LANES);
        if grouped {
            rounds
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
