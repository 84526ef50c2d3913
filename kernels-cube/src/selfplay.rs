//! TD(0) self-play of a two-player game on the device: the twin of `cubesearch_learn`'s
//! `selfplay::learn_game`, move for move and draw for draw.
//!
//! Each unit plays one game at a time from the start position, both sides, and learns after
//! every move: with a chance of `explore_below / 2³²` a uniformly drawn move, else the move
//! whose position is worth least to the opponent (the first best in the canonical order),
//! then `V(s) += step · (target − V(s))` on every weight V reads, the target being minus the
//! next position's value (its final value once the game is over: [`DeviceTupleGame`]).
//! V is summed in the network's one order ([`crate::ntuple`]), so one unit's games give the
//! CPU's weights bit for bit.
//!
//! How the units' updates reach the one table they share ([`Update`]):
//! * **immediate**, below [`AVERAGED_FROM_UNITS`] units: each unit adds its change to the
//!   weights without atomics, as the CPU's threads share theirs (a weight that two units update
//!   at once may keep only one update); one unit learns the CPU's weights bit for bit;
//! * **averaged**, from [`AVERAGED_FROM_UNITS`] units on: a launch plays one move a unit and
//!   sums the changes asked of each weight, and [`selfplay_apply_kernel()`] then moves each
//!   weight by their mean. Added one by one, the like changes that thousands of games ask of
//!   the opening's weights would add up to thousands of steps: such runs diverged to NaN
//!   within 2 M games at 16,384 and 65,536 units, and so did sums capped at 16 asks a weight.
//!   A mean moves a weight that many games share far less than their sum, so averaged runs
//!   take a larger step (`cubesearch_train::selfplay::default_alpha`).
//!
//! A unit's slot in `units`: `[rng, live, wait, state words …]` ([`SLOT_HEAD`]). A launch
//! plays each unit for at most `steps` moves; a unit whose game ends takes the next while the
//! launch's `limit` of new games lasts, so the units' games run out of step. Averaging, unit
//! `u` first waits `u mod` [`STAGGER`] launches of one move, so that the units spread over
//! the whole game and every launch updates every stage's weights (in step, a stage's weights
//! would learn only in the few launches of its plies).

use crate::device_game::{DeviceGame, GpuGame, ONGOING};
use crate::exact::{div_rn, unfused};
use crate::launch::{check_buffer, grid, read, upload};
use crate::ntuple::{
    check_lookups, lookup_index_in, lut_words, padded_lut_words, partial_sums, stage_base,
    DeviceCells,
};
use crate::rng;
use crate::td::config::Update;
use crate::td::TdNet;
use cubecl::prelude::*;
use cubesearch_core::{Error, Result};

/// A two-player game's positions as an n-tuple network reads them on the device, each from
/// the side to move: the twin of the host's `TupleBoard` and `TwoPlayerTupleGame`.
#[cube]
pub trait DeviceTupleGame: DeviceGame {
    /// The value of cell `c` (the host's `TupleBoard::cells`).
    fn cell(state: &Self::State, c: u32) -> u32;
    /// What a multi-stage network's thresholds compare (the host's
    /// `TupleBoard::stage_progress`).
    fn stage_progress(state: &Self::State) -> u32;
    /// A finished game's value for the side to move (the host's
    /// `TwoPlayerTupleGame::final_value`).
    fn final_value(state: &Self::State) -> f32;
}

/// What one launch is told.
#[derive(CubeLaunch, CubeType)]
pub struct SelfPlayRun {
    /// Units playing.
    pub units: u32,
    /// Lookups of one V.
    pub lookups: u32,
    /// Moves a unit plays at most.
    pub steps: u32,
    /// Games the launch may start.
    pub limit: u32,
    /// A draw below this explores.
    pub explore_below: u32,
    /// The TD step of one weight: alpha over the lookups.
    pub step: f32,
    /// 0, unknown to the compiler ([`unfused()`]).
    pub zero: u32,
}

/// Launches over which averaged units spread their first games: about a game's moves.
pub const STAGGER: u32 = 64;

/// Units from which updates are averaged ([`Update`]).
pub const AVERAGED_FROM_UNITS: u32 = crate::td::AVERAGED_FROM_UNITS;

/// What every launch is compiled for: the lookups' cells and bits, a state's words, and how
/// updates reach the weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SelfPlayConfig {
    /// Immediate or averaged (see the module docs).
    pub update: Update,
    /// Cells a lookup reads (the longest's where `padded`).
    pub len: u32,
    /// Whether shorter lookups are padded ([`crate::ntuple::padded_lut_words`]).
    pub padded: bool,
    /// Bits a cell takes in an index.
    pub bits: u32,
    /// Words of a state.
    pub words: u32,
}

/// Words before a unit's state in its slot: its generator, whether it holds a game, and the
/// launches it still waits before its first game.
pub const SLOT_HEAD: u32 = 3;

/// Plays and learns as the module docs say.
#[cube(launch_unchecked)]
pub fn selfplay_kernel<G: DeviceTupleGame>(
    weights: &mut Array<f32>,
    asked: &mut Changes,
    lut: &Array<u32>,
    units: &mut Array<u32>,
    start: &Array<u32>,
    counters: &mut Array<Atomic<u32>>,
    run: SelfPlayRun,
    #[comptime] config: SelfPlayConfig,
) {
    let u = ABSOLUTE_POS as u32;
    if u < run.units {
        let at = (u * (config.words + SLOT_HEAD)) as usize;
        let board = at + SLOT_HEAD as usize;
        let mut draws = units[at];
        let mut live = units[at + 1];
        let mut wait = units[at + 2];
        let mut moves = 0u32;
        let mut finished = 0u32;
        let mut idle = false;
        while !idle && moves < run.steps {
            if wait > 0u32 {
                wait -= 1u32;
                idle = true;
            } else if live == 0u32 {
                // A new game, while the launch has tickets left.
                if counters[TAKEN].fetch_add(1u32) < run.limit {
                    for w in 0..config.words {
                        units[board + w as usize] = start[w as usize];
                    }
                    live = 1u32;
                } else {
                    idle = true;
                }
            } else {
                let state = G::load(units, board);
                if G::outcome(&state) == ONGOING {
                    let pick = learn_move::<G>(
                        &state, board, weights, asked, lut, units, &mut draws, &run, config,
                    );
                    let mut next = G::load(units, board);
                    G::play(&mut next, pick);
                    G::store(&next, units, board);
                    moves += 1u32;
                } else {
                    live = 0u32;
                    finished += 1u32;
                }
            }
        }
        units[at] = draws;
        units[at + 1] = live;
        units[at + 2] = wait;
        counters[FINISHED].fetch_add(finished);
        counters[MOVES].fetch_add(moves);
        counters[LIVE].fetch_add(live);
    }
}

/// A launch's counters: tickets asked for (those below the limit started a game), games
/// finished, moves played, and units holding a game at its end.
const TAKEN: usize = 0;
const FINISHED: usize = 1;
const MOVES: usize = 2;
const LIVE: usize = 3;

/// Chooses the move of `state` (stored at `units[board..]`), learns from it and returns its
/// number.
#[cube]
#[allow(clippy::too_many_arguments)]
fn learn_move<G: DeviceTupleGame>(
    state: &G::State,
    board: usize,
    weights: &mut Array<f32>,
    asked: &mut Changes,
    lut: &Array<u32>,
    units: &Array<u32>,
    draws: &mut u32,
    run: &SelfPlayRun,
    #[comptime] config: SelfPlayConfig,
) -> u32 {
    let count = G::move_count(state);
    let explore = rng::next(draws) < run.explore_below;
    let mut pick = 0u32;
    let mut target = 0.0f32;
    if explore {
        pick = rng::below(draws, count);
        let mut child = G::load(units, board);
        G::play(&mut child, pick);
        target = -value_of::<G>(&child, weights, lut, run.lookups, config);
    } else {
        for i in 0..count {
            let mut child = G::load(units, board);
            G::play(&mut child, i);
            let v = -value_of::<G>(&child, weights, lut, run.lookups, config);
            if i == 0u32 || v > target {
                target = v;
                pick = i;
            }
        }
    }
    let error = target - value::<G>(state, weights, lut, run.lookups, config);
    let delta = unfused(run.step * error, run.zero);
    let stage = stage_of::<G>(state, lut, run.lookups, config);
    for l in 0..run.lookups {
        let i = index_of::<G>(state, lut, l, stage, config);
        if comptime!(config.update == Update::Averaged) {
            asked.pending[i].fetch_add(delta);
            asked.hits[i].fetch_add(1u32);
        } else {
            weights[i] += delta;
        }
    }
    pick
}

/// The changes asked of each weight in an averaged launch: their sum, and how many lookups
/// asked.
#[derive(CubeLaunch, CubeType)]
pub struct Changes {
    /// The sum of the changes asked.
    pub pending: Array<Atomic<f32>>,
    /// Lookups that asked.
    pub hits: Array<Atomic<u32>>,
}

/// Moves each of `total` weights by the mean change asked of it in the launch before (see
/// the module docs) and empties its sums.
#[cube(launch_unchecked)]
pub fn selfplay_apply_kernel(weights: &mut Array<f32>, asked: &mut Changes, total: u32) {
    let i = ABSOLUTE_POS;
    if i < total as usize {
        let h = asked.hits[i].load();
        if h > 0u32 {
            let sum = asked.pending[i].load();
            asked.pending[i].store(0.0f32);
            asked.hits[i].store(0u32);
            weights[i] += div_rn(sum, f32::cast_from(h));
        }
    }
}

/// `state`'s value for the side to move: its final value once the game is over, V before.
#[cube]
pub(crate) fn value_of<G: DeviceTupleGame>(
    state: &G::State,
    weights: &Array<f32>,
    lut: &Array<u32>,
    lookups: u32,
    #[comptime] config: SelfPlayConfig,
) -> f32 {
    let mut v = G::final_value(state);
    if G::outcome(state) == ONGOING {
        v = value::<G>(state, weights, lut, lookups, config);
    }
    v
}

/// V(state), summed in the network's order ([`crate::ntuple`]).
#[cube]
fn value<G: DeviceTupleGame>(
    state: &G::State,
    weights: &Array<f32>,
    lut: &Array<u32>,
    lookups: u32,
    #[comptime] config: SelfPlayConfig,
) -> f32 {
    let stage = stage_of::<G>(state, lut, lookups, config);
    let mut sums = partial_sums();
    for q in 0..lookups / 4u32 {
        let l = 4u32 * q;
        sums.add(
            weights[index_of::<G>(state, lut, l, stage, config)],
            weights[index_of::<G>(state, lut, l + 1u32, stage, config)],
            weights[index_of::<G>(state, lut, l + 2u32, stage, config)],
            weights[index_of::<G>(state, lut, l + 3u32, stage, config)],
        );
    }
    sums.total()
}

/// The cells of a two-player game `G` as the shared lookups read them.
pub struct TupleCells<G>(std::marker::PhantomData<G>);

#[cube]
impl<G: DeviceTupleGame> DeviceCells for TupleCells<G> {
    type State = G::State;

    fn cell(state: &G::State, c: u32) -> u32 {
        G::cell(state, c)
    }

    fn stage_progress(state: &G::State) -> u32 {
        G::stage_progress(state)
    }
}

/// The weight offset of `state`'s stage ([`stage_base()`]).
#[cube]
fn stage_of<G: DeviceTupleGame>(
    state: &G::State,
    lut: &Array<u32>,
    lookups: u32,
    #[comptime] config: SelfPlayConfig,
) -> u32 {
    stage_base::<TupleCells<G>>(state, lut, lookups, config.len)
}

/// The weight index of lookup `l` in the stage whose tables start at weight `stage`
/// ([`lookup_index_in()`]).
#[cube]
fn index_of<G: DeviceTupleGame>(
    state: &G::State,
    lut: &Array<u32>,
    l: u32,
    stage: u32,
    #[comptime] config: SelfPlayConfig,
) -> usize {
    lookup_index_in::<TupleCells<G>>(state, lut, l, stage, config.len, config.bits, config.padded)
}

/// The lookup sizes a runtime-table kernel takes.
pub(crate) enum LookupSizes<'a> {
    /// One size; the error for several.
    One(&'a str),
    /// Any, shorter lookups padded ([`padded_lut_words`]).
    Any,
}

/// `net` as the runtime-table kernels read it (self-play, labels): its weights one table after
/// another, its lookup table ([`lut_words`]), the cells a lookup reads and whether shorter ones
/// are padded, checked against each other and against `client`'s largest buffer.
pub(crate) fn runtime_network<R: Runtime>(
    client: &ComputeClient<R>,
    net: &TdNet,
    sizes: LookupSizes,
) -> Result<(Vec<f32>, Vec<u32>, u32, bool)> {
    let weights: Vec<f32> = net.tables.concat();
    check_lookups(&net.lookups, net.bits, &net.stages, weights.len())?;
    let (lut, len, padded) = match (lut_words(&net.lookups, &net.stages), sizes) {
        (Some((lut, len)), _) => (lut, len, false),
        (None, LookupSizes::One(refusal)) => return Err(Error::Unsupported(refusal.into())),
        (None, LookupSizes::Any) => {
            let (lut, len) = padded_lut_words(&net.lookups, &net.stages);
            (lut, len, true)
        }
    };
    check_buffer(client, "the weights", weights.len() as u64 * 4)?;
    Ok((weights, lut, len, padded))
}

/// How a device plays self-play games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SelfPlayShape {
    /// Games at once, a unit each.
    pub units: u32,
    /// Seeds unit `u`'s draws with `worker_state(seed, u)`.
    pub seed: u32,
    /// The device's loop limit, if it has one (lavapipe).
    pub loop_budget: Option<u32>,
}

/// What one [`DeviceSelfPlay::launch`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launched {
    /// Games it started.
    pub started: u32,
    /// Games it finished.
    pub finished: u32,
    /// Moves it played.
    pub moves: u32,
    /// Units holding an unfinished game at its end.
    pub live: u32,
}

/// How self-play learns, as the device takes it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SelfPlayStep {
    /// The TD step on V.
    pub alpha: f32,
    /// The chance of a random move.
    pub epsilon: f32,
}

/// Self-play games of `G` on one device: the weights, the lookup table and each unit's game
/// and generator live in device memory from [`DeviceSelfPlay::new`] to the last
/// [`DeviceSelfPlay::tables`].
pub struct DeviceSelfPlay<R: Runtime, G: GpuGame> {
    client: ComputeClient<R>,
    weights: cubecl::server::Handle,
    /// The averaged launches' sums (one element each when immediate).
    pending: cubecl::server::Handle,
    hits: cubecl::server::Handle,
    table_lens: Vec<usize>,
    lut: cubecl::server::Handle,
    lut_len: usize,
    lookups: u32,
    config: SelfPlayConfig,
    units: cubecl::server::Handle,
    unit_count: u32,
    start: cubecl::server::Handle,
    steps: u32,
    _game: std::marker::PhantomData<G>,
}

impl<R: Runtime, G: GpuGame> DeviceSelfPlay<R, G>
where
    G::Device: DeviceTupleGame,
{
    /// Uploads `net` and `shape.units` generators, each unit to play its games from `start`.
    pub fn new(
        client: &ComputeClient<R>,
        net: &TdNet,
        game: &G,
        start: &G::State,
        shape: SelfPlayShape,
    ) -> Result<Self> {
        if net.coherence.is_some() {
            return Err(Error::Unsupported(
                "self-play on the device learns without temporal coherence".into(),
            ));
        }
        let refusal = "self-play on the device needs lookups of one size";
        let (weights, lut, len, _) = runtime_network(client, net, LookupSizes::One(refusal))?;
        let words = G::STATE_WORDS as u32;
        let unit_count = shape.units.max(1);
        let update = if unit_count >= AVERAGED_FROM_UNITS {
            Update::Averaged
        } else {
            Update::Immediate
        };
        let head = SLOT_HEAD as usize;
        let mut slots = vec![0u32; unit_count as usize * (words as usize + head)];
        for (u, slot) in slots.chunks_exact_mut(words as usize + head).enumerate() {
            slot[0] = cubesearch_core::rng::worker_state(shape.seed, u as u32);
            if update == Update::Averaged {
                slot[2] = u as u32 % STAGGER;
            }
        }
        check_buffer(client, "the self-play games", slots.len() as u64 * 4)?;
        let mut start_words = vec![0u32; words as usize];
        game.encode(start, &mut start_words);
        let lookups = net.lookups.len() as u32;
        let sums = if update == Update::Averaged {
            weights.len()
        } else {
            1
        };
        check_buffer(client, "the asked changes", sums as u64 * 4)?;
        // A move reads at most ~64 children's V and writes one update: four lookups a
        // loop step, plus the lookups of the update.
        let per_move = 66 * lookups.div_ceil(4) + lookups + 8;
        let steps = match (update, shape.loop_budget) {
            (Update::Averaged, _) => 1,
            (Update::Immediate, Some(budget)) => (budget * 9 / 10 / per_move).max(1),
            // Launches short enough to report progress and obey a stop.
            (Update::Immediate, None) => 4096,
        };
        Ok(Self {
            client: client.clone(),
            weights: client.create_from_slice(f32::as_bytes(&weights)),
            pending: client.create_from_slice(f32::as_bytes(&vec![0.0f32; sums])),
            hits: upload(client, &vec![0u32; sums]),
            table_lens: net.tables.iter().map(Vec::len).collect(),
            lut: upload(client, &lut),
            lut_len: lut.len(),
            lookups,
            config: SelfPlayConfig {
                update,
                len,
                padded: false,
                bits: net.bits,
                words,
            },
            units: upload(client, &slots),
            unit_count,
            start: upload(client, &start_words),
            steps,
            _game: std::marker::PhantomData,
        })
    }

    /// One launch: every unit plays up to its steps of moves, starting at most `limit` new
    /// games, learning as `step` says.
    pub fn launch(&mut self, limit: u32, step: SelfPlayStep) -> Result<Launched> {
        let counters = upload(&self.client, &[0u32; 4]);
        let (cubes, dim) = grid(&self.client, self.unit_count as usize);
        let words = (self.unit_count * (self.config.words + SLOT_HEAD)) as usize;
        let weights = self.weight_count();
        // SAFETY: the buffers hold what the kernel reads: `weights` weights (and, averaged,
        // sums) at every index the checked table makes, the table, a slot a unit, a start
        // state, four counters; unit u writes only its own slot (and weights or sums).
        unsafe {
            selfplay_kernel::launch_unchecked::<G::Device, R>(
                &self.client,
                cubes,
                dim,
                ArrayArg::from_raw_parts(self.weights.clone(), weights),
                self.changes(),
                ArrayArg::from_raw_parts(self.lut.clone(), self.lut_len),
                ArrayArg::from_raw_parts(self.units.clone(), words),
                ArrayArg::from_raw_parts(self.start.clone(), self.config.words as usize),
                ArrayArg::from_raw_parts(counters.clone(), 4),
                SelfPlayRunLaunch::new(
                    self.unit_count,
                    self.lookups,
                    self.steps,
                    limit,
                    (f64::from(step.epsilon) * 4_294_967_296.0) as u32,
                    step.alpha / self.lookups as f32,
                    0,
                ),
                self.config,
            );
        }
        if self.config.update == Update::Averaged {
            self.apply();
        }
        let counts = read::<R, u32>(&self.client, counters)?;
        Ok(Launched {
            started: counts[TAKEN].min(limit),
            finished: counts[FINISHED],
            moves: counts[MOVES],
            live: counts[LIVE],
        })
    }

    fn weight_count(&self) -> usize {
        self.table_lens.iter().sum()
    }

    /// The averaged launches' sums as a kernel argument.
    fn changes(&self) -> ChangesLaunch<R> {
        let len = match self.config.update {
            Update::Averaged => self.weight_count(),
            Update::Immediate => 1,
        };
        // SAFETY: both buffers hold `len` elements.
        unsafe {
            ChangesLaunch::new(
                ArrayArg::from_raw_parts(self.pending.clone(), len),
                ArrayArg::from_raw_parts(self.hits.clone(), len),
            )
        }
    }

    /// [`selfplay_apply_kernel()`] over every weight.
    fn apply(&self) {
        let total = self.weight_count();
        let (cubes, dim) = grid(&self.client, total);
        // SAFETY: unit i touches only weight i and its sums, which hold `total` elements.
        unsafe {
            selfplay_apply_kernel::launch_unchecked::<R>(
                &self.client,
                cubes,
                dim,
                ArrayArg::from_raw_parts(self.weights.clone(), total),
                self.changes(),
                total as u32,
            );
        }
    }

    /// The weights, table by table as the network was uploaded.
    pub fn tables(&self) -> Result<Vec<Vec<f32>>> {
        let all = read::<R, f32>(&self.client, self.weights.clone())?;
        let mut tables = Vec::with_capacity(self.table_lens.len());
        let mut at = 0;
        for &len in &self.table_lens {
            tables.push(all[at..at + len].to_vec());
            at += len;
        }
        Ok(tables)
    }
}
