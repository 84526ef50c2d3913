//! [`DeviceTd`]: the TD(0) trainer of one device, keeping its units' games, paths and the
//! weights in device memory between launches, and streaming finished games back in order
//! (layout in the parent module).

use super::config::{Coherence, LaneExchange, LANES};
use super::kernels::{
    launch_apply, launch_play, launch_start, launch_steps, LutNet, PlayArgs, PlayBuffers,
    PlayChoices, WeightViews, RESULT_WORDS, UNIT_WORDS,
};
use crate::launch::{check_buffer, planes_fit, read, read_range, upload};
use crate::ntuple::{check_lookups, lut_words, Stages};
use crate::stochastic::GpuStochasticGame;
use cubecl::prelude::*;
use cubesearch_core::{Error, Result, Stop};

/// An n-tuple network as the device sees it: its bits a cell, its weights (the tables, one
/// after another), and every lookup in the order V sums them as its table's offset in the
/// weights and its cells (every symmetry a lookup of its own, as the host network lists them).
#[derive(Clone, Debug)]
pub struct TdNet {
    /// Bits a cell takes in a table index.
    pub bits: u32,
    /// The weight tables: every shape's, stage after stage.
    pub tables: Vec<Vec<f32>>,
    /// Each lookup's offset and cells; every lookup has the same number of cells.
    pub lookups: Vec<(u32, Vec<u8>)>,
    /// The stages, each with its own copy of the tables ([`Stages`]).
    pub stages: Stages,
    /// Temporal coherence's sums to go on from, each weight's `E` and `A`, table by table as
    /// [`Self::tables`] (`None`: every sum at zero). Read only with [`TdShape::coherence`].
    pub coherence: Option<[Vec<Vec<f32>>; 2]>,
}

/// How a device trainer spreads its work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TdShape {
    /// Games played at once (one unit each).
    pub units: u32,
    /// Most moves a unit plays in one launch.
    pub max_moves: u32,
    /// Path entries a unit keeps before learning from a game's start (see the module docs).
    pub cap: u32,
    /// How the units' updates reach the weights. Immediate (false): atomic adds straight into
    /// the weights, the seed's scheme and, with one unit, the CPU trainer exactly. It diverges
    /// when thousands of games update the same common weights at once, each from a value the
    /// others are changing (measured on an H200: 65,536 units from zero weights reached NaN).
    /// Averaged (true): a launch collects every update and its count per weight, and then
    /// each weight moves by what was asked of it, at most [`TdShape::steps_per_launch`] TD
    /// steps however many games share the weight.
    pub averaged: bool,
    /// How a game's lanes pool the weights they read ([`LaneExchange`]).
    pub lanes: LaneExchange,
    /// Averaged updates: the most TD steps a weight takes in one launch. A weight that `h`
    /// lookups asked to change moves by the sum of the changes divided by
    /// `⌈h / steps_per_launch⌉`: the sum itself while few games share it (as that many
    /// sequential steps from the same weights would move it), about `steps_per_launch`
    /// times their mean when many do. 1 is the plain mean, the most cautious; the common
    /// weights of a launch of thousands of games then learn one step where the CPU trainer
    /// takes thousands.
    pub steps_per_launch: u32,
    /// Temporal coherence (`cubesearch_learn::NTupleNetwork::enable_coherence`): each weight's
    /// change scaled by its own rate, from two sums per weight kept on the device for the
    /// trainer's life. Averaged launches scale each weight's change as they apply it;
    /// immediate ones have one unit of a game make its updates one after another in the
    /// network's order (the CPU trainer's exactly, with one game slot).
    pub coherence: bool,
    /// Averaged updates: TD(0) in the order of play (`cubesearch_learn::TdOrder::Forward`),
    /// each afterstate learning once the next move is chosen, toward that move's `reward + V`,
    /// its error taken against its value when it was chosen (`reward + V` less the reward,
    /// rounded as f32 rounds it). The path then holds one entry, and no launch waits on a
    /// long backward pass. False: backward, at the game's end or a full path.
    pub forward: bool,
}

/// [`TdShape::for_device`]'s steps a launch for averaged updates
/// ([`TdShape::steps_per_launch`]). Measured on an H100, 2048 4x6patt from zero weights,
/// 1,000,000 games at 32,768 and 65,536 games at once: the greedy mean of the last games was
/// 20 k and 17 k at 1 step, 47 k and 31 k at 4, 131 k and 136 k at 16, 23 k and 43 k at 64,
/// and 256 steps diverged. Through the 2048 agent's recipe (optimistic start, then temporal
/// coherence at alpha 0.1) 10 steps, 1 / alpha, learned as 16 did.
pub const STEPS_PER_LAUNCH: u32 = 16;

/// From this many units on, [`TdShape::for_device`] averages the updates.
pub const AVERAGED_FROM_UNITS: u32 = 1024;

impl TdShape {
    /// The shape for a network of `lookups` lookups and states of `state_words` words: `units`
    /// games at once (default: 64 on a loop-limited device, 65536 otherwise), averaged updates
    /// from [`AVERAGED_FROM_UNITS`] on, every launch a window of 16 moves a unit. On a device
    /// whose driver stops a unit's loops after `loop_budget` back-edges (lavapipe), a launch
    /// stays inside it: a move costs about `4·lookups` back-edges (V of four afterstates, the
    /// lookup loop is not unrolled so that the kernel compiles quickly), a learned path entry
    /// `3·lookups`, and a launch learns at most `cap + max_moves` entries. Paths take at most
    /// 1 GiB (wgpu's largest buffer is smaller than CUDA's), an entry counted as at least 16
    /// bytes (so every state of up to 3 words gets the same cap). A game's lanes pool as
    /// `exchange` says (`Plane` where the device has planes of [`LANES`] units:
    /// [`crate::launch::planes_fit`]) when the updates are averaged, else through the cube.
    pub fn for_device(
        units: Option<u32>,
        lookups: u32,
        state_words: usize,
        loop_budget: Option<u32>,
        exchange: LaneExchange,
    ) -> Self {
        let units = units.unwrap_or(if loop_budget.is_some() { 64 } else { 65536 });
        let averaged = units >= AVERAGED_FROM_UNITS;
        let (max_moves, cap) = match loop_budget {
            Some(budget) => {
                let per_move = 4 * lookups + 12;
                let per_entry = 3 * lookups + 4;
                let max_moves = 32;
                let spare = (budget as u64 * 9 / 10)
                    .saturating_sub(max_moves as u64 * (per_move + per_entry) as u64);
                (max_moves, (spare / per_entry as u64).clamp(16, 4096) as u32)
            }
            None => (if averaged { 16 } else { 4096 }, 4096),
        };
        let entry_bytes = ((state_words as u64 + 1) * 4).max(16);
        let cap_in_a_gib = ((1u64 << 30) / (units as u64 * entry_bytes)).clamp(64, 4096) as u32;
        TdShape {
            units,
            max_moves,
            cap: cap.min(cap_in_a_gib),
            averaged,
            lanes: if averaged {
                exchange
            } else {
                LaneExchange::Cube
            },
            steps_per_launch: STEPS_PER_LAUNCH,
            coherence: false,
            forward: false,
        }
    }
}

/// The games a stream plays and learns from: `first..first + games` of a run seeded `seed`
/// (game `g` draws from worker `g`'s xorshift32), `step` per weight per unit of TD error.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stream {
    /// The first game's number.
    pub first: u32,
    /// How many games.
    pub games: u32,
    /// The run's seed.
    pub seed: u32,
    /// The learning rate.
    pub step: f32,
}

/// One finished game of a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TdGame {
    /// The sum of the rewards.
    pub score: u32,
    /// Moves played.
    pub moves: u32,
    /// How far the game got: the device game's `progress` of its last position.
    pub progress: u32,
}

/// A launch's share of the game stream: the result ring of `slots` slots, fresh counters, and
/// the game numbers units may take (`base` on, below `limit`; see
/// [`td_play_kernel`](super::kernels::td_play_kernel)).
struct Window<'a> {
    results: &'a cubecl::server::Handle,
    slots: u32,
    counters: &'a cubecl::server::Handle,
    base: u32,
    limit: u32,
    /// Games the fresh units take one a unit ([`FRESH`](super::kernels::FRESH)).
    fresh: u32,
}

/// Most copies of the averaged sums ([`DeviceTd::sum_copies`]).
pub const MAX_SUM_COPIES: u32 = 4;
/// What the copies of the averaged sums may take together, in bytes ([`sum_copies`]).
const SUM_COPIES_BYTES: u64 = 256 << 20;

/// The copies of the averaged sums for a network of `weight_count` weights
/// ([`DeviceTd::sum_copies`]).
fn sum_copies(shape: TdShape, weight_count: usize, largest_buffer: u64) -> u32 {
    let one = weight_count as u64 * 4;
    if !shape.averaged || one == 0 {
        return 1;
    }
    let fit = (SUM_COPIES_BYTES / (2 * one)).min(largest_buffer / one);
    fit.clamp(1, MAX_SUM_COPIES as u64) as u32
}

/// A TD(0) trainer of game `G` on one device: the weights and every unit's game live in device
/// memory.
pub struct DeviceTd<R: Runtime, G: GpuStochasticGame> {
    pub(super) client: ComputeClient<R>,
    shape: TdShape,
    sizes: Vec<usize>,
    net: LutNet,
    pub(super) weights: cubecl::server::Handle,
    /// Averaged updates: the changes asked of each weight in a launch, and their count, in
    /// `copies` copies of the weights' length ([`DeviceTd::sum_copies`]).
    pending: cubecl::server::Handle,
    hits: cubecl::server::Handle,
    copies: u32,
    /// Temporal coherence: each weight's sum of changes and sum of their sizes (one-element
    /// placeholders without it).
    coherence: (cubecl::server::Handle, cubecl::server::Handle),
    /// One f32 standing in for the weight view a launch does not use (plain or atomic).
    pub(super) placeholder: cubecl::server::Handle,
    lut: cubecl::server::Handle,
    lut_len: usize,
    states: cubecl::server::Handle,
    units: cubecl::server::Handle,
    paths: cubecl::server::Handle,
    /// Unit steps played, and unit steps launched (units × moves per launch), so far.
    steps: (u64, u64),
    _game: std::marker::PhantomData<G>,
}

impl<R: Runtime, G: GpuStochasticGame> DeviceTd<R, G> {
    /// Uploads `net` and allocates the units' games and paths.
    pub fn new(client: &ComputeClient<R>, net: &TdNet, shape: TdShape) -> Result<Self> {
        let Some((lut, len)) = lut_words(&net.lookups, &net.stages) else {
            return Err(Error::Unsupported(
                "the GPU trainer needs tuple shapes that all have the same number of cells".into(),
            ));
        };
        if shape.units == 0
            || shape.max_moves == 0
            || shape.cap == 0
            || !(1..1 << 31).contains(&shape.steps_per_launch)
        {
            return Err(Error::Unsupported(format!(
                "bad GPU trainer shape {shape:?}: units, moves per launch and path length must \
                 be positive, steps per launch 1 to 2^31 - 1"
            )));
        }
        if shape.lanes == LaneExchange::Plane && !(shape.averaged && planes_fit(client)) {
            return Err(Error::Unsupported(format!(
                "a game's lanes pool through planes only with averaged updates (from \
                 {AVERAGED_FROM_UNITS} units on) on a device with planes of {LANES} units"
            )));
        }
        if shape.forward && !shape.averaged {
            return Err(Error::Unsupported(format!(
                "forward TD (--td-order forward) on a GPU needs averaged updates, from \
                 {AVERAGED_FROM_UNITS} games at once (--units); {} games at once",
                shape.units
            )));
        }
        // Every check before the weights are copied into one buffer.
        let weight_count: usize = net.tables.iter().map(Vec::len).sum();
        if weight_count > u32::MAX as usize {
            return Err(Error::Unsupported(format!(
                "{weight_count} weights: the GPU trainer indexes at most 2^32"
            )));
        }
        check_lookups(&net.lookups, net.bits, &net.stages, weight_count)?;
        let units = shape.units as usize;
        let path_words = units * shape.cap as usize * (G::STATE_WORDS + 1);
        check_buffer(client, "the network's weights", weight_count as u64 * 4)?;
        check_buffer(client, "the games' paths", path_words as u64 * 4)?;
        let sizes: Vec<usize> = net.tables.iter().map(Vec::len).collect();
        let same_sizes =
            |tables: &[Vec<f32>]| tables.iter().map(Vec::len).eq(sizes.iter().copied());
        let coherence = match &net.coherence {
            Some(sums) if shape.coherence && !sums.iter().all(|s| same_sizes(s)) => {
                return Err(Error::Unsupported(
                    "temporal coherence's sums must have the weight tables' sizes".into(),
                ))
            }
            Some(sums) if shape.coherence => sums.each_ref().map(|s| s.concat()),
            _ => [0, 1].map(|_| vec![0.0f32; Self::sums_len(shape, weight_count)]),
        };
        let flat: Vec<f32> = net.tables.concat();
        let copies = sum_copies(
            shape,
            weight_count,
            client.properties().memory.max_page_size,
        );
        let pending_len = Self::pending_len(shape, weight_count, copies);
        let [sums, sum_sizes] = coherence.map(|c| client.create_from_slice(f32::as_bytes(&c)));
        Ok(Self {
            client: client.clone(),
            shape,
            sizes,
            net: LutNet {
                lookups: net.lookups.len() as u32,
                len,
                bits: net.bits,
                top: net
                    .lookups
                    .iter()
                    .flat_map(|l| &l.1)
                    .map(|&c| c as u32)
                    .max()
                    .unwrap_or(0),
            },
            weights: client.create_from_slice(f32::as_bytes(&flat)),
            pending: client.create_from_slice(f32::as_bytes(&vec![0.0f32; pending_len])),
            hits: upload(client, &vec![0u32; pending_len]),
            copies,
            coherence: (sums, sum_sizes),
            placeholder: client.create_from_slice(f32::as_bytes(&[0.0f32])),
            lut_len: lut.len(),
            lut: upload(client, &lut),
            states: client.empty(units * G::STATE_WORDS * 4),
            units: client.empty(units * UNIT_WORDS * 4),
            paths: client.empty(path_words.max(1) * 4),
            steps: (0, 0),
            _game: std::marker::PhantomData,
        })
    }

    /// How many copies of the averaged sums (`pending` and `hits`) an averaged launch spreads its
    /// atomic adds over, unit `u` adding into copy `u mod copies` and the apply kernel adding the
    /// copies in order: up to [`MAX_SUM_COPIES`] while they take at most 256 MiB together and
    /// each fits the device's largest buffer, else 1. With one copy, the few weights that every
    /// game reads (2584's early-game patterns) draw so many adds to one address that its L2 slice
    /// bounds the play kernel: Nsight Compute counted 3.3 × the mean slice's atomics there, and
    /// the kernel took 0.55 × the time without the adds. On an H200, 2 copies took 2584's kernel
    /// from 3.24 ms to 1.88 ms, 4 and 8 to 1.86 ms, while the apply kernel, which reads every
    /// copy, took 16, 24, 44 and 88 µs (docs/BENCHMARKS.md, row "Four copies of the averaged
    /// sums"). 2584's 3 M weights get 4 copies; 4x6patt's 67 M one, and its slices are even
    /// (1.2 × the mean).
    pub fn sum_copies(&self) -> u32 {
        self.copies
    }

    /// The launch shape.
    pub fn shape(&self) -> TdShape {
        self.shape
    }

    /// The device's client.
    pub fn client(&self) -> &ComputeClient<R> {
        &self.client
    }

    /// Weights in all tables.
    pub fn weight_count(&self) -> usize {
        self.sizes.iter().sum()
    }

    /// Length of the `pending` and `hits` buffers: one per weight in each of `copies` copies
    /// when averaging, else a placeholder of one.
    fn pending_len(shape: TdShape, weight_count: usize, copies: u32) -> usize {
        if shape.averaged {
            weight_count * copies as usize
        } else {
            1
        }
    }

    /// Length of each of temporal coherence's buffers: one per weight with it, else a
    /// placeholder of one.
    fn sums_len(shape: TdShape, weight_count: usize) -> usize {
        if shape.coherence {
            weight_count
        } else {
            1
        }
    }

    /// The share of launched unit steps that played a move, ended a game or started a replay
    /// of it: below 1 when units idle at the end of a batch (waiting for its longest games) or
    /// a launch ends partway. `None` before the first launch.
    pub fn occupancy(&self) -> Option<f64> {
        (self.steps.1 > 0).then(|| self.steps.0 as f64 / self.steps.1 as f64)
    }

    /// Plays and learns from the games of `stream`. Returns the games in order.
    pub fn play_batch(&mut self, stream: Stream) -> Result<Vec<TdGame>> {
        self.play_batch_until(stream, &Stop::new())
    }

    /// [`DeviceTd::play_batch`], stopping after the first launch that ends with `stop` raised:
    /// the games finished before the oldest one still in flight come back, in order; the rest
    /// are dropped (what they learned stays).
    pub fn play_batch_until(&mut self, stream: Stream, stop: &Stop) -> Result<Vec<TdGame>> {
        let mut finished = Vec::new();
        self.play_games(stream, stop, &mut |g| {
            finished.push(g);
            Ok(())
        })?;
        Ok(finished)
    }

    /// [`DeviceTd::play_batch_until`] handing each game to `on_game` as soon as it and every
    /// earlier game have finished, so a long run reports as it goes. The units take game
    /// numbers as they free up, up to a ring of result slots ahead of the oldest game not yet
    /// handed over: only the run's last games leave units idle.
    pub fn play_games(
        &mut self,
        stream: Stream,
        stop: &Stop,
        on_game: &mut dyn FnMut(TdGame) -> Result<()>,
    ) -> Result<()> {
        self.play_games_pausing(stream, stop, on_game, &mut |_| Ok(()))
    }

    /// [`DeviceTd::play_games`], calling `between` after every launch that leaves games to
    /// play, with the device idle and the games in flight kept: it may read and replace the
    /// weights ([`DeviceTd::read_tables`], [`DeviceTd::write_tables`]), as several GPUs do to
    /// share what they learned without draining their streams.
    pub fn play_games_pausing(
        &mut self,
        stream: Stream,
        stop: &Stop,
        on_game: &mut dyn FnMut(TdGame) -> Result<()>,
        between: &mut dyn FnMut(&mut Self) -> Result<()>,
    ) -> Result<()> {
        let Stream {
            first,
            games,
            seed,
            step,
        } = stream;
        if games == 0 {
            return Ok(());
        }
        let client = &self.client.clone();
        let shape = self.shape;
        let units = shape.units as usize;
        // SAFETY: `units` has a slot of UNIT_WORDS words for each of `shape.units` units.
        unsafe { launch_start(client, (&self.units, units * UNIT_WORDS), shape.units) };
        // Sixteen slots a unit: a game may run sixteen average games longer than the others
        // before a unit waits for it.
        let slots = (shape.units.saturating_mul(16)).min(games);
        let results = upload(client, &vec![0u32; slots as usize * RESULT_WORDS]);
        // Game numbers below `base` are taken; games below `delivered` handed over.
        let (mut base, mut delivered, mut finished) = (0u32, 0u32, 0u32);
        let mut first_launch = true;
        loop {
            let limit = games.min(delivered.saturating_add(slots));
            // The first launch hands the first games out one a unit, in unit order; tickets
            // start after them.
            let fresh = match std::mem::take(&mut first_launch) {
                true => shape.units.min(limit),
                false => 0,
            };
            base += fresh;
            let counters = upload(client, &[0u32, 0, 0]);
            let window = Window {
                results: &results,
                slots,
                counters: &counters,
                base,
                limit,
                fresh,
            };
            self.launch(&window, step, seed, first);
            let c = read::<R, u32>(client, counters)?;
            base += c[0].min(limit - base);
            finished += c[1];
            self.steps.0 += c[2] as u64;
            self.steps.1 += units as u64 * shape.max_moves as u64;
            let late = stop.is_raised();
            // Hand over the finished games from the oldest on, up to the first still in
            // flight: a look at the oldest slot first, then the finished ones after it. A run
            // cut short drops the games after that one, finished or not: keeping the short
            // games that happened to end would bias the last scores low.
            while delivered < finished {
                let start = delivered % slots;
                let total = slots as usize * RESULT_WORDS;
                let oldest = read_range::<R, u32>(
                    client,
                    results.clone(),
                    start as usize * RESULT_WORDS,
                    RESULT_WORDS,
                    total,
                )?;
                if oldest[3] != delivered + 1 {
                    break;
                }
                let n = (slots - start).min(finished - delivered);
                let ring = read_range::<R, u32>(
                    client,
                    results.clone(),
                    start as usize * RESULT_WORDS,
                    n as usize * RESULT_WORDS,
                    total,
                )?;
                let ready = ring
                    .chunks_exact(RESULT_WORDS)
                    .enumerate()
                    .take_while(|(k, slot)| slot[3] == delivered + *k as u32 + 1)
                    .count();
                for slot in ring.chunks_exact(RESULT_WORDS).take(ready) {
                    on_game(TdGame {
                        score: slot[0],
                        moves: slot[1],
                        progress: slot[2],
                    })?;
                }
                delivered += ready as u32;
                if ready < n as usize {
                    break;
                }
            }
            if delivered >= games || late {
                return Ok(());
            }
            if c[2] == 0 {
                // Every launch plays a move in each busy unit: no progress means the kernel
                // did not run (a compile failure leaves buffers untouched).
                return Err(Error::Device {
                    backend: R::name(client),
                    why: "the TD kernel made no progress (did it fail to compile?)".into(),
                });
            }
            between(self)?;
        }
    }

    /// One launch of the play kernel over every unit, and in an averaged run the apply kernel
    /// after it.
    fn launch(&self, window: &Window, step: f32, seed: u32, first: u32) {
        let client = &self.client;
        let shape = self.shape;
        let units = shape.units as usize;
        let words = G::STATE_WORDS;
        let weight_count = self.weight_count();
        let pending_len = Self::pending_len(shape, weight_count, self.copies);
        let sums_len = Self::sums_len(shape, weight_count);
        let placeholder = (&self.placeholder, 1);
        let weights = (&self.weights, weight_count);
        // Averaged launches read the weights plainly and never write them; immediate ones
        // update them atomically. Each binds the view it does not use to the placeholder.
        let (frozen, live) = match shape.averaged {
            true => (weights, placeholder),
            false => (placeholder, weights),
        };
        let mut views = WeightViews {
            frozen,
            live,
            pending: (&self.pending, pending_len),
            hits: (&self.hits, pending_len),
            sums: (&self.coherence.0, sums_len),
            sizes: (&self.coherence.1, sums_len),
        };
        let buffers = PlayBuffers {
            lut: (&self.lut, self.lut_len),
            states: (&self.states, units * words),
            units: (&self.units, units * UNIT_WORDS),
            paths: (&self.paths, units * shape.cap as usize * (words + 1)),
            results: (window.results, window.slots as usize * RESULT_WORDS),
            counters: (window.counters, 3),
        };
        let args = PlayArgs {
            step,
            seed,
            first,
            base: window.base,
            limit: window.limit,
            slots: window.slots,
            units: shape.units,
            max_moves: shape.max_moves,
            cap: shape.cap,
            copies: self.copies,
            copy_stride: weight_count as u32,
            fresh: window.fresh,
        };
        let choices = PlayChoices {
            averaged: shape.averaged,
            lanes: shape.lanes,
            coherent: shape.coherence,
            forward: shape.forward,
        };
        let config = self
            .net
            .play_config(&choices, words, G::ACTIONS.len() as u32);
        // SAFETY: the buffers were made for this shape and network (`new`), the ring holds
        // `slots` slots and the counters 3 words; the lookup table's indices are inside the
        // weights (`check_lookups`), and the unused view is read by no unit.
        unsafe { launch_play::<R, G>(client, &views, &buffers, &args, self.net, config) };
        if shape.averaged {
            (views.frozen, views.live) = (placeholder, weights);
            let coherence = match shape.coherence {
                true => Coherence::On,
                false => Coherence::Off,
            };
            // SAFETY: the weights hold `weight_count` elements, pending and hits `copies` times
            // as many, and the sums `weight_count` with coherence (`sums_len`).
            unsafe {
                launch_apply::<R>(
                    client,
                    &views,
                    weight_count as u32,
                    shape.steps_per_launch,
                    self.copies,
                    coherence,
                )
            };
        }
    }

    /// Runs [`td_steps_kernel`](fn@super::kernels::td_steps_kernel) over `paths` (the
    /// `STATE_WORDS`-word afterstate and the reward of every step, `rounds` steps a game) and
    /// waits for it.
    pub fn learn_steps(&mut self, paths: &[u32], rounds: u32, step: f32) -> Result<()> {
        let words = G::STATE_WORDS;
        let total = paths.len() / (words + 1);
        if rounds == 0
            || total / rounds as usize * rounds as usize != total
            || total > u32::MAX as usize
        {
            return Err(Error::Unsupported(format!(
                "{total} steps do not make games of {rounds} rounds"
            )));
        }
        let client = &self.client;
        let paths_handle = upload(client, paths);
        let done = client.empty(4);
        // SAFETY: `paths` holds `total` entries, whole games of `rounds`; the weights hold
        // every index of the lookup table.
        unsafe {
            launch_steps::<R, G>(
                client,
                (&self.weights, self.weight_count()),
                (&self.lut, self.lut_len),
                (&paths_handle, paths.len()),
                rounds,
                total as u32,
                step,
                self.net,
            )
        };
        // Reading any buffer waits for the launch.
        read::<R, u32>(client, done).map(|_| ())
    }

    /// Replaces the device's weights (tables as [`DeviceTd::read_tables`] gives them).
    pub fn write_tables(&mut self, tables: &[Vec<f32>]) -> Result<()> {
        if tables.len() != self.sizes.len()
            || tables.iter().zip(&self.sizes).any(|(t, &n)| t.len() != n)
        {
            return Err(Error::Unsupported(
                "weights of another network shape cannot replace the device's".into(),
            ));
        }
        let flat: Vec<f32> = tables.concat();
        self.weights = self.client.create_from_slice(f32::as_bytes(&flat));
        Ok(())
    }

    /// Copies the weights back, one vector per table.
    pub fn read_tables(&self) -> Result<Vec<Vec<f32>>> {
        self.read_by_table(&self.weights)
    }

    /// Copies temporal coherence's sums back, `E` then `A`, each one vector per table as
    /// [`Self::read_tables`]; `None` without coherence.
    pub fn read_coherence(&self) -> Result<Option<[Vec<Vec<f32>>; 2]>> {
        if !self.shape.coherence {
            return Ok(None);
        }
        let (sums, sizes) = &self.coherence;
        Ok(Some([
            self.read_by_table(sums)?,
            self.read_by_table(sizes)?,
        ]))
    }

    /// A buffer of one value a weight, one vector per table.
    fn read_by_table(&self, buffer: &cubecl::server::Handle) -> Result<Vec<Vec<f32>>> {
        let flat = read::<R, f32>(&self.client, buffer.clone())?;
        let mut out = Vec::with_capacity(self.sizes.len());
        let mut at = 0;
        for &n in &self.sizes {
            out.push(flat[at..at + n].to_vec());
            at += n;
        }
        Ok(out)
    }
}
