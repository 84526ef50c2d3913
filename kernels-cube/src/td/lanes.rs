//! How the [`LANES`] lanes of one game share its board's cells and pool the weights they read
//! into V: plane shuffles on CUDA and NVIDIA's Vulkan, shared memory on a cube elsewhere
//! ([`LaneExchange`](super::config::LaneExchange)), each lane's lookup row read once a launch.

use super::config::{Lanes, NetTable, PlayConfig, WeightBuffers, LANES};
use crate::ntuple::{lookup_index, partial_sums, stage_base, StochasticCells};
use crate::stochastic::DeviceStochasticGame;
use cubecl::prelude::*;

/// Cell `min(lane, top)` of `state`. The lanes of a game hold its cells between them (lane
/// `c` cell `c`, up to `top`, the highest cell a lookup reads), and a lookup takes each of its
/// cells from the lane holding it ([`pooled_index`]): one shuffle, where taking a cell out of
/// a 2048 board costs about ten integer operations, and the play kernel is bound by integer
/// operations in Nsight Compute (docs/BENCHMARKS.md, row "A game's lanes hold its cells").
#[cube]
pub(super) fn held_cell<G: DeviceStochasticGame>(state: &G::State, lane: u32, top: u32) -> u32 {
    G::cell(state, select(lane < top, lane, top))
}

/// Without planes, each lane stores the cell it holds in the cube's `cells`, where
/// [`pooled_index`] reads them; with planes nothing (the lookups shuffle).
#[cube]
pub(super) fn share_cells(held: u32, lanes: &mut Lanes, #[comptime] config: PlayConfig) {
    if comptime!(!config.planes()) {
        sync_cube();
        lanes.cells[lanes.lane as usize] = held;
        sync_cube();
    }
}

/// The stage of `state` and, with cells held by the lanes, this lane's cell of it shared with
/// the others ([`share_cells`]): what every read of its weights takes. Every lane of the game
/// must call it, with the same `state`.
#[cube]
pub(super) fn hold<G: DeviceStochasticGame>(
    state: &G::State,
    net: &NetTable,
    lanes: &mut Lanes,
    #[comptime] config: PlayConfig,
) -> Held {
    let mut held = Held {
        stage: stage_base::<StochasticCells<G>>(
            state,
            &net.lut,
            net.lookups,
            comptime!(config.lookup.len),
        ),
        cell: 0u32,
    };
    if comptime!(config.held()) {
        held.cell = held_cell::<G>(state, lanes.lane, net.top);
        share_cells(held.cell, lanes, config);
    }
    held
}

/// What a lane holds of a state while reading its weights: the weight offset of its stage's
/// tables, and its cell (with cells held by the lanes).
#[derive(CubeType, Clone, Copy)]
pub(super) struct Held {
    pub(super) stage: u32,
    pub(super) cell: u32,
}

/// The weight index of lookup `l` of a runtime table, as [`lookup_index()`] makes it, from the
/// cells the game's lanes hold ([`held_cell`]): by plane shuffles, or from the cube's `cells`
/// ([`share_cells`]). Every lane of the game must call it (a shuffle takes all of them).
#[cube]
pub(super) fn pooled_index(
    held: &Held,
    lanes: &Lanes,
    net: &NetTable,
    l: u32,
    #[comptime] config: PlayConfig,
) -> usize {
    let len = comptime!(config.lookup.len);
    let bits = comptime!(config.lookup.bits);
    let base = l * (len + 1u32);
    let mut idx = net.lut[base as usize] + held.stage;
    #[unroll]
    for j in 0..len {
        let c = net.lut[(base + 1u32 + j) as usize];
        let v = if comptime!(config.planes()) {
            plane_shuffle(held.cell, c)
        } else {
            lanes.cells[c as usize]
        };
        idx += v << (j * bits);
    }
    idx as usize
}

/// The weight index of lookup `l` (below the table's lookups) for the lane that reads it: from
/// the lanes' cells when they hold them, else straight from the state.
#[cube]
pub(super) fn lane_index<G: DeviceStochasticGame>(
    state: &G::State,
    held: &Held,
    lanes: &Lanes,
    net: &NetTable,
    l: u32,
    #[comptime] config: PlayConfig,
) -> usize {
    if comptime!(config.held()) {
        pooled_index(held, lanes, net, l, config)
    } else {
        lookup_index::<StochasticCells<G>>(
            state,
            &net.lut,
            l,
            held.stage,
            comptime!(config.lookup.len),
            comptime!(config.lookup.bits),
        )
    }
}

/// Weight `i` as a launch reads it: as it stood when an averaged launch began, or as an
/// immediate launch's own updates have left it.
#[cube]
pub(super) fn read_weight(
    weights: &WeightBuffers,
    i: usize,
    #[comptime] config: PlayConfig,
) -> f32 {
    if comptime!(config.averaged()) {
        weights.frozen[i]
    } else {
        weights.live[i].load()
    }
}

/// V(state) read by the [`LANES`] lanes of one game and pooled so that every lane gets
/// [`value()`](super::learn::value)'s bits: partial sum `k` adds lookups `k, k + 4, …` in
/// order (each lane of a plane keeps the sum of its lane number mod 4, gathered by shuffles;
/// with a cube every lane adds all of them from shared memory), then `(s₀ + s₁) + (s₂ + s₃)`,
/// which the two butterfly steps give in every lane (an add of the same two values in either
/// order rounds alike). Every lane of the game must call it, with the same `state`.
#[cube]
pub(super) fn lane_value<G: DeviceStochasticGame>(
    state: &G::State,
    weights: &WeightBuffers,
    net: &NetTable,
    lanes: &mut Lanes,
    #[comptime] config: PlayConfig,
) -> f32 {
    let held = hold::<G>(state, net, lanes, config);
    held_value::<G>(state, &held, weights, net, lanes, config)
}

/// [`lane_value`] of a state whose stage and cell this lane holds ([`hold`]): `state` itself is
/// read only when the lanes do not hold its cells.
#[cube]
pub(super) fn held_value<G: DeviceStochasticGame>(
    state: &G::State,
    held: &Held,
    weights: &WeightBuffers,
    net: &NetTable,
    lanes: &mut Lanes,
    #[comptime] config: PlayConfig,
) -> f32 {
    let lookups = net.lookups;
    let lane = lanes.lane;
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
            lanes,
            net,
            select(l < lookups, l, lookups - 1u32),
            config,
        );
        if l < lookups {
            w = read_weight(weights, i, config);
        }
        let here = lookups - first;
        if comptime!(config.planes()) {
            own = plane_round(own, w, lane, here);
        } else {
            sync_cube();
            lanes.pool[lane as usize] = w;
            sync_cube();
            let quads = select(here < LANES, here, LANES) / 4u32;
            for q in 0..quads {
                let at = (4u32 * q) as usize;
                sums.add(
                    lanes.pool[at],
                    lanes.pool[at + 1],
                    lanes.pool[at + 2],
                    lanes.pool[at + 3],
                );
            }
        }
        first += LANES;
    }
    if comptime!(config.planes()) {
        plane_total(own)
    } else {
        sums.total()
    }
}

/// One round of a plane's lookups (lane `i` holding lookup `i`'s weight `w`, `here` of them
/// in the round) added to this lane's partial sum `own`: lane `k` of each four adds lookups
/// `k, k + 4, …` in order, as the CPU's partial sums do.
#[cube]
pub(super) fn plane_round(own: f32, w: f32, lane: u32, here: u32) -> f32 {
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
pub(super) fn plane_total(own: f32) -> f32 {
    let pair = own + plane_shuffle_xor(own, 1u32);
    pair + plane_shuffle_xor(pair, 2u32)
}

/// `x` as lane 0 of the game has it, in every lane.
#[cube]
pub(super) fn from_lane0(x: u32, lanes: &mut Lanes, #[comptime] config: PlayConfig) -> u32 {
    if comptime!(config.planes()) {
        plane_broadcast(x, 0u32)
    } else {
        sync_cube();
        if lanes.lane == 0u32 {
            lanes.slot[0] = x;
        }
        sync_cube();
        lanes.slot[0]
    }
}

/// This lane's row of the lookup table ([`lut_words`](crate::ntuple::lut_words)): lookup
/// `lane`'s table offset, then the cells it reads; past the last lookup the last one's
/// (every lane shuffles). A network of at most [`LANES`] lookups gives each lane one lookup for
/// the whole launch, so the row is read once into registers ([`plane_index`]) instead of at
/// every index: 7 loads an index for a 6-tuple, which NVIDIA's Vulkan compiler did not merge.
#[cube]
pub(super) fn lane_row(net: &NetTable, lane: u32, #[comptime] config: PlayConfig) -> Array<u32> {
    let len = comptime!(config.lookup.len);
    let l = select(lane < net.lookups, lane, net.lookups - 1u32);
    let base = l * (len + 1u32);
    let mut row = Array::<u32>::new(comptime!((len + 1) as usize));
    #[unroll]
    for j in 0..len + 1 {
        row[j as usize] = net.lut[(base + j) as usize];
    }
    row
}

/// The weight index of this lane's lookup ([`lane_row`]) of the state whose cells the lanes
/// hold (`cell`, through planes) in the stage whose tables start at `stage`: what
/// [`pooled_index`] makes of it. [`held_value`]'s index for a network of at most [`LANES`]
/// lookups in an averaged launch, apart from its read and sum ([`plane_round`],
/// [`plane_total`]), so that a load can be asked for well before its weight is added, and the
/// index kept for the change. Loads with it are unconditional, as
/// [`grouped_weight`](super::moves::grouped_weight)'s is; a lane past the last lookup reads
/// the last one's weight, which its caller drops ([`plane_weight_used`]).
#[cube]
pub(super) fn plane_index(
    cell: u32,
    row: &Array<u32>,
    stage: u32,
    #[comptime] config: PlayConfig,
) -> usize {
    let len = comptime!(config.lookup.len);
    let bits = comptime!(config.lookup.bits);
    let mut idx = row[0] + stage;
    #[unroll]
    for j in 0..len {
        idx += plane_shuffle(cell, row[(j + 1) as usize]) << (j * bits);
    }
    idx as usize
}

/// A weight read at [`plane_index`] as V adds it: 0 past the last lookup.
#[cube]
pub(super) fn plane_weight_used(w: f32, lane: u32, lookups: u32) -> f32 {
    select(lane < lookups, w, 0.0f32)
}
