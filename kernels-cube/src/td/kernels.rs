//! The TD(0) kernels (layout of their buffers in the parent module) and their thin launchers.

use super::config::lanes_of_unit;
use super::config::{
    Coherence, GameBuffers, GameBuffersLaunch, LaneExchange, LaneLookups, Lanes, LookupShape,
    MoveChoice, NetTable, NetTableLaunch, PlayConfig, PlayRun, PlayRunLaunch, WeightBuffers,
    WeightBuffersLaunch, LANES,
};
use super::lanes::{from_lane0, hold, lane_row};
pub use super::learn::{coherence_rate, update, value};
use super::learn::{lane_accumulate, learn, learn_planes, PathSpan};
use super::moves::{greedy_move, no_best, GROUP};
use crate::exact::{div_rn, unfused};
use crate::rng;
use crate::stochastic::{DeviceStochasticGame, GpuStochasticGame};
use cubecl::prelude::*;
use cubecl::server::Handle;

/// `units[..]` game slot of an idle unit.
pub const NONE: u32 = u32::MAX;
/// `units[..]` game slot of a unit that has not played yet in this stream: in the stream's
/// first launch, unit `u` below `PlayRun::fresh` takes game `u` (so the first games go one a
/// unit, in order, whatever order the units run in); the others take tickets.
pub const FRESH: u32 = u32::MAX - 1;
/// u32 words of one unit's entry in `units`: `[game, rng, score, moves, path length]`.
pub const UNIT_WORDS: usize = 5;
/// u32 words of one result slot: `[score, moves, progress, game + 1]`.
pub const RESULT_WORDS: usize = 4;

/// Applies the averaged updates of a launch: each weight asked for `hits` changes moves by their
/// sum divided by `⌈hits / steps⌉` (see [`super::TdShape::steps_per_launch`]; with `steps` 1
/// their mean), and both go back to zero. Unit `i` owns weight `i`. With temporal coherence,
/// each weight's change is scaled by [`coherence_rate()`] of its sums, which then take the
/// change.
#[cube(launch_unchecked)]
pub fn td_apply_kernel(
    weights: &mut WeightBuffers,
    total: u32,
    steps: u32,
    copies: u32,
    #[comptime] coherence: Coherence,
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
            let hc = weights.hits[at].load();
            if hc > 0u32 {
                let pc = weights.pending[at].load();
                sum = select(h == 0u32, pc, sum + pc);
                h += hc;
                weights.pending[at].fetch_add(-pc);
                weights.hits[at].fetch_sub(hc);
            }
        }
        if h > 0u32 {
            // ⌈h / steps⌉, h ≥ 1.
            let asked = div_rn(sum, f32::cast_from((h - 1u32) / steps + 1u32));
            let mut change = asked;
            if comptime!(coherence == Coherence::On) {
                let (e, a) = (weights.sums[i], weights.sizes[i]);
                // Rounded before it is added, as the weight's add rounds it (`steps < 2^31`: a
                // zero the compiler cannot see).
                change = unfused(asked * coherence_rate(e, a), steps >> 31u32);
                weights.sums[i] = e + asked;
                weights.sizes[i] = a + f32::abs(asked);
            }
            weights.live[i].fetch_add(change);
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
    net: &NetTable,
    paths: &Array<u32>,
    rounds: u32,
    total: u32,
    step: f32,
    #[comptime] shape: LookupShape,
    #[comptime] words: usize,
) {
    let i = ABSOLUTE_POS as u32;
    if i < total {
        let stride = (words + 1) as u32;
        let at = (i * stride) as usize;
        let after = G::load(paths, at);
        let v = value::<G>(&after, weights, net, shape);
        let mut target = 0.0f32;
        if (i % rounds) + 1u32 < rounds {
            let next_at = at + stride as usize;
            let next = G::load(paths, next_at);
            target =
                f32::cast_from(paths[next_at + words]) + value::<G>(&next, weights, net, shape);
        }
        update::<G>(&after, weights, net, step * (target - v), 0u32, 1u32, shape);
    }
}

/// Every unit starts fresh: its first game is its own number, or a ticket ([`FRESH`]).
#[cube(launch_unchecked)]
pub fn td_start_kernel(units: &mut Array<u32>, unit_count: u32) {
    let u = ABSOLUTE_POS as u32;
    if u < unit_count {
        let at = u as usize * UNIT_WORDS;
        units[at] = FRESH;
        for k in 1..UNIT_WORDS {
            units[at + k] = 0u32;
        }
    }
}

/// A game slot's game in registers while a launch plays it.
#[derive(CubeType, Clone, Copy)]
struct Slot {
    /// The game number (`NONE` while idle).
    game: u32,
    /// Its generator.
    rng: u32,
    /// Its score and moves so far.
    score: u32,
    moves: u32,
    /// Path entries stored.
    plen: u32,
}

/// Takes the next game number, `base + counters[0]++` (lane 0 counts, every lane learns
/// the number), if it is below `limit` ([`start_game`]); else the game slot idles (`NONE`).
/// The host moves `base` past the numbers taken below the limit, so a number taken past it is
/// handed out again.
#[cube]
fn take_game<G: DeviceStochasticGame>(
    games: &mut GameBuffers,
    run: &PlayRun,
    lanes: &mut Lanes,
    slot: &mut Slot,
    state: &mut G::State,
    #[comptime] config: PlayConfig,
) {
    let mut ticket = 0u32;
    if lanes.lane == 0u32 {
        ticket = games.counters[0].fetch_add(1u32);
    }
    let next = run.base + from_lane0(ticket, lanes, config);
    if next < run.limit {
        start_game::<G>(next, run, slot, state);
    } else {
        slot.game = NONE;
    }
}

/// Game `number` in the slot: its generator and start position.
#[cube]
fn start_game<G: DeviceStochasticGame>(
    number: u32,
    run: &PlayRun,
    slot: &mut Slot,
    state: &mut G::State,
) {
    slot.game = number;
    slot.rng = rng::worker_state(run.seed, run.first + number);
    let start = G::initial(&mut slot.rng);
    G::assign(state, &start);
}

/// Each game slot (its [`LANES`] lanes together, pooling as the config says: see
/// [`LaneExchange`]) plays up to `max_moves` moves, learning from each game when it ends (see
/// the module docs) and taking the next game number below `limit` (games `first + base ..`).
/// Every lane of a game keeps the whole game in registers and makes the same choices, since
/// every V comes to each lane with the same bits; lane 0 alone counts and writes what the host
/// reads, and every lane writes (and reads back) the same path words.
#[cube(launch_unchecked)]
pub fn td_play_kernel<G: DeviceStochasticGame>(
    weights: &mut WeightBuffers,
    net: &NetTable,
    games: &mut GameBuffers,
    run: &PlayRun,
    #[comptime] config: PlayConfig,
) {
    let u = ABSOLUTE_POS as u32 / LANES;
    let mut lanes = lanes_of_unit();
    if u < run.units {
        let words = comptime!(config.words);
        // This game's copy of the averaged sums (`sum_copies` in the runtime).
        let spread = (u % run.copies) * run.copy_stride;
        let at = u as usize * UNIT_WORDS;
        let stride = (words + 1) as u32;
        let mut slot = Slot {
            game: games.units[at],
            rng: games.units[at + 1],
            score: games.units[at + 2],
            moves: games.units[at + 3],
            plen: games.units[at + 4],
        };
        let here = u as usize * words;
        let mut state = G::load(&games.states, here);
        // Read only by the one-lookup plane paths (unused loads fold away elsewhere).
        let row = lane_row(net, lanes.lane, config);
        let mut budget = run.max_moves;
        if slot.game == FRESH {
            // The stream's first games, one a unit in unit order; a unit past them idles.
            slot.game = NONE;
            if u < run.fresh {
                start_game::<G>(u, run, &mut slot, &mut state);
            }
        }
        if slot.game == NONE {
            take_game::<G>(games, run, &mut lanes, &mut slot, &mut state, config);
        }
        while budget > 0u32 && slot.game != NONE {
            budget -= 1u32;
            // The greedy action: the first best `reward + V(afterstate)`.
            let mut chosen = state;
            let mut best = no_best();
            greedy_move::<G>(
                &state,
                &mut chosen,
                &mut best,
                weights,
                net,
                &row,
                &mut lanes,
                config,
            );
            let path_at = slot_path_entry(u, 0u32, run.cap, stride);
            if comptime!(config.forward()) {
                // TD(0) in the order of play (`TdShape::forward`): the afterstate before this
                // move, the path's one entry, learns toward this move's `reward + V` (0 once
                // the game ends), its error taken against its value when it was chosen.
                if slot.plen == 1u32 {
                    let before = G::load(&games.paths, path_at);
                    let valued = f32::reinterpret(games.paths[path_at + words]);
                    let delta = run.step * (select(best.found, best.value, 0.0f32) - valued);
                    let held = hold::<G>(&before, net, &mut lanes, config);
                    lane_accumulate::<G>(
                        &before, &held, weights, net, delta, spread, &lanes, config,
                    );
                }
                slot.plen = 0u32;
            } else if !best.found || slot.plen == run.cap {
                // The stored path is learned when the game ends (toward 0), or when it fills
                // the game's `cap` entries (toward the value of the move about to be stored).
                let span = PathSpan {
                    first: u * run.cap,
                    count: slot.plen,
                    target: select(best.found, best.value, 0.0f32),
                };
                if comptime!(
                    config.planes() && config.held() && config.averaged() && config.one_lookup()
                ) {
                    learn_planes::<G>(
                        weights,
                        net,
                        &row,
                        &games.paths,
                        span,
                        run.step,
                        spread,
                        lanes.lane,
                        config,
                    );
                } else {
                    learn::<G>(
                        weights,
                        net,
                        &games.paths,
                        span,
                        run.step,
                        spread,
                        &mut lanes,
                        config,
                    );
                }
                slot.plen = 0u32;
            }
            if best.found {
                let entry = slot_path_entry(u, slot.plen, run.cap, stride);
                G::store(&chosen, &mut games.paths, entry);
                if comptime!(config.forward()) {
                    // Its value when chosen, for its error once the next move is chosen.
                    let valued = best.value - f32::cast_from(best.reward);
                    games.paths[entry + words] = u32::reinterpret(valued);
                } else {
                    games.paths[entry + words] = best.reward;
                }
                slot.plen += 1u32;
                slot.score += best.reward;
                slot.moves += 1u32;
                G::assign(&mut state, &chosen);
                G::sample_chance(&mut state, &mut slot.rng);
            } else {
                if lanes.lane == 0u32 {
                    let r = (slot.game % run.slots) as usize * RESULT_WORDS;
                    games.results[r] = slot.score;
                    games.results[r + 1] = slot.moves;
                    games.results[r + 2] = G::progress(&state);
                    games.results[r + 3] = slot.game + 1u32;
                    games.counters[1].fetch_add(1u32);
                }
                slot.score = 0u32;
                slot.moves = 0u32;
                take_game::<G>(games, run, &mut lanes, &mut slot, &mut state, config);
            }
        }
        if lanes.lane == 0u32 {
            if budget < run.max_moves {
                games.counters[2].fetch_add(run.max_moves - budget);
            }
            G::store(&state, &mut games.states, here);
            games.units[at] = slot.game;
            games.units[at + 1] = slot.rng;
            games.units[at + 2] = slot.score;
            games.units[at + 3] = slot.moves;
            games.units[at + 4] = slot.plen;
        }
    }
}

/// The first word of path entry `entry` of game slot `u` (`cap` entries a slot, `stride`
/// words an entry).
#[cube]
fn slot_path_entry(u: u32, entry: u32, cap: u32, stride: u32) -> usize {
    ((u * cap + entry) * stride) as usize
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
    /// The highest cell a lookup reads: below [`LANES`], a game's lanes hold the cells.
    pub top: u32,
}

impl LutNet {
    /// The lookups' shape every index is compiled for.
    pub fn shape(&self) -> LookupShape {
        LookupShape {
            len: self.len,
            bits: self.bits,
        }
    }

    /// How a game of `actions` actions whose lanes pool as `lanes` chooses its moves. Groups go
    /// with planes, four actions and the cells held by the lanes (below [`LANES`], at most 8
    /// bits), where they read every candidate in fewer rounds of weight loads than whole
    /// planes do one V after another (spread). 2584's seed network (24 lookups: 3 rounds
    /// against 4) gains from groups, 2048's `4x6patt` (32: 4 against 4) from spread moves
    /// (docs/BENCHMARKS.md, rows "Four groups of eight lanes choose the move" and "Spread
    /// moves (4x6patt), against grouped").
    fn moves(&self, lanes: LaneExchange, actions: u32) -> MoveChoice {
        let rounds = self.lookups.div_ceil(GROUP);
        let planes_four = lanes == LaneExchange::Plane && actions == 4 && self.top < LANES;
        if planes_four && self.bits <= 8 && rounds < 4 * self.lookups.div_ceil(LANES) {
            MoveChoice::Grouped { rounds }
        } else if planes_four {
            MoveChoice::Spread
        } else {
            MoveChoice::EachLane
        }
    }

    /// The play kernel's config for a game of `words`-word states and `actions` actions.
    pub fn play_config(&self, args: &PlayChoices, words: usize, actions: u32) -> PlayConfig {
        use super::config::{Cells, Order, Update};
        PlayConfig {
            lookup: self.shape(),
            words,
            actions,
            update: if args.averaged {
                Update::Averaged
            } else {
                Update::Immediate
            },
            lanes: args.lanes,
            cells: if self.top < LANES {
                Cells::Held
            } else {
                Cells::FromState
            },
            moves: self.moves(args.lanes, actions),
            per_lane: if self.lookups <= LANES {
                LaneLookups::One
            } else {
                LaneLookups::Several
            },
            order: if args.forward {
                Order::Forward
            } else {
                Order::Backward
            },
            coherence: if args.coherent {
                Coherence::On
            } else {
                Coherence::Off
            },
        }
    }

    /// The table as a kernel argument.
    ///
    /// # Safety
    /// `lut` holds this network's lookup table, `lut.1` words.
    unsafe fn arg<R: Runtime>(&self, lut: Buffer) -> NetTableLaunch<R> {
        // SAFETY: the caller's promise.
        NetTableLaunch::new(unsafe { arg(lut) }, self.lookups, self.top)
    }
}

/// The shape choices a launch is compiled for, beside the network's.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PlayChoices {
    pub averaged: bool,
    pub lanes: LaneExchange,
    pub coherent: bool,
    pub forward: bool,
}

/// The buffers of the TD kernels' weights, in [`WeightBuffers`]' order.
pub(crate) struct WeightViews<'a> {
    pub frozen: Buffer<'a>,
    pub live: Buffer<'a>,
    pub pending: Buffer<'a>,
    pub hits: Buffer<'a>,
    /// Temporal coherence's two sums per weight (placeholders without it).
    pub sums: Buffer<'a>,
    pub sizes: Buffer<'a>,
}

impl<'a> WeightViews<'a> {
    /// As a kernel argument.
    ///
    /// # Safety
    /// Each buffer holds at least its length in elements of its field's type.
    unsafe fn arg<R: Runtime>(&self) -> WeightBuffersLaunch<R> {
        // SAFETY: the caller's promise.
        unsafe {
            WeightBuffersLaunch::new(
                arg(self.frozen),
                arg(self.live),
                arg(self.pending),
                arg(self.hits),
                arg(self.sums),
                arg(self.sizes),
            )
        }
    }
}

/// The buffers of [`td_play_kernel`](fn@td_play_kernel) besides the weights, in
/// [`GameBuffers`]' order, and the lookup table.
pub(crate) struct PlayBuffers<'a> {
    pub lut: Buffer<'a>,
    pub states: Buffer<'a>,
    pub units: Buffer<'a>,
    pub paths: Buffer<'a>,
    pub results: Buffer<'a>,
    pub counters: Buffer<'a>,
}

/// The scalar arguments of [`td_play_kernel`](fn@td_play_kernel), as [`PlayRun`] has them.
#[derive(Clone, Copy, Debug)]
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
    /// Copies of the averaged sums, and the weights' count between two copies.
    pub copies: u32,
    pub copy_stride: u32,
    /// Games the fresh units take one a unit in this launch ([`FRESH`]).
    pub fresh: u32,
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

/// One launch of [`td_play_kernel`](fn@td_play_kernel) over `args.units` games of [`LANES`]
/// units each.
///
/// # Safety
/// The buffers are as the parent module lays them out for `args` and `net`: a unit slot and
/// a state per unit, `cap` path entries of `STATE_WORDS + 1` words per unit, `slots` result
/// slots, 3 counters, the lookup table of `net`, and weights (and, averaging, pending and
/// hits; with coherence, in an immediate launch, the two sums) at every index the table makes;
/// the view a launch does not use may be one element long; `net.top` is the highest cell the
/// table reads. [`LaneExchange::Plane`] only on a device with planes of [`LANES`] units and
/// averaged updates.
pub(crate) unsafe fn launch_play<R: Runtime, G: GpuStochasticGame>(
    client: &ComputeClient<R>,
    weights: &WeightViews,
    b: &PlayBuffers,
    args: &PlayArgs,
    net: LutNet,
    config: PlayConfig,
) {
    let per_cube = config.lanes.units_per_cube();
    let threads = args.units as usize * LANES as usize;
    let cubes = crate::launch::cube_count(client, threads.div_ceil(per_cube as usize));
    let dim = CubeDim::new_1d(per_cube);
    let run = PlayRunLaunch::new(
        args.step,
        args.seed,
        args.first,
        args.base,
        args.limit,
        args.slots,
        args.units,
        args.max_moves,
        args.cap,
        args.copies,
        args.copy_stride,
        args.fresh,
    );
    // SAFETY: see the function's contract; game u writes only its own slots, the result slot
    // of its game, and weights at the indices of the table; a cube holds whole games.
    unsafe {
        let games = GameBuffersLaunch::new(
            arg(b.states),
            arg(b.units),
            arg(b.paths),
            arg(b.results),
            arg(b.counters),
        );
        td_play_kernel::launch_unchecked::<G::Device, R>(
            client,
            cubes,
            dim,
            weights.arg(),
            net.arg(b.lut),
            games,
            run,
            config,
        );
    }
}

/// [`td_apply_kernel`] over `count` weights (`weights.live` the weights, `pending` and `hits`
/// `copies` copies; the sums read with coherence).
///
/// # Safety
/// `weights.live` holds `count` elements, `pending` and `hits` `copies · count`, the sums
/// `count` with coherence.
pub(crate) unsafe fn launch_apply<R: Runtime>(
    client: &ComputeClient<R>,
    weights: &WeightViews,
    count: u32,
    steps: u32,
    copies: u32,
    coherence: Coherence,
) {
    let (cubes, dim) = crate::launch::grid(client, count as usize);
    // SAFETY: unit i touches only weight i of each buffer (the sums only with coherence).
    unsafe {
        td_apply_kernel::launch_unchecked::<R>(
            client,
            cubes,
            dim,
            weights.arg(),
            count,
            steps,
            copies,
            coherence,
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
            net.arg(lut),
            arg(paths),
            rounds,
            count,
            step,
            net.shape(),
            G::STATE_WORDS,
        );
    }
}
