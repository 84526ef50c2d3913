//! How the [`LANES`] lanes of one game share its board's cells and pool the weights they read
//! into V: plane shuffles on CUDA and NVIDIA's Vulkan, shared memory on a cube elsewhere
//! ([`LaneExchange`]), each lane's lookup row read once a launch.

use crate::ntuple::{lookup_index, partial_sums, stage_base};
use crate::stochastic::DeviceStochasticGame;
use cubecl::prelude::*;

/// Units that play one game together
/// ([`td_play_kernel`](fn@super::kernels::td_play_kernel)): lane `k` of a game reads lookups
/// `k, k + LANES, …` of every V, so a move's reads go out at once and the units of a warp
/// never wait on another game's control flow.
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
pub(super) fn held_cell<G: DeviceStochasticGame>(state: &G::State, lane: u32, top: u32) -> u32 {
    G::cell(state, select(lane < top, lane, top))
}

/// Without planes, each lane stores the cell it holds in the cube's `cells`, where
/// [`pooled_index`] reads them; with planes nothing (the lookups shuffle).
#[cube]
pub(super) fn share_cells(
    held: u32,
    lane: u32,
    cells: &mut SharedMemory<u32>,
    #[comptime] planes: bool,
) {
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
pub(super) fn pooled_index(
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
pub(super) fn lane_index<G: DeviceStochasticGame>(
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
/// [`value()`](super::learn::value)'s bits: partial sum `k` adds lookups `k, k + 4, …` in
/// order (each lane of a plane keeps the sum of its lane number mod 4, gathered by shuffles; with a cube every lane
/// adds all of them from shared memory), then `(s₀ + s₁) + (s₂ + s₃)`, which the two
/// butterfly steps give in every lane (an add of the same two values in either order rounds
/// alike). Averaged launches read `frozen` as `F` (the weights do not change until the apply
/// kernel runs), immediate ones `live` atomically: the launch's own updates change it. Every lane of the game must call it, with the same `state`.
#[cube]
#[allow(clippy::too_many_arguments)]
pub(super) fn lane_value<G: DeviceStochasticGame, F: Float>(
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
pub(super) fn held_value<G: DeviceStochasticGame, F: Float>(
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
pub(super) fn from_lane0(
    x: u32,
    lane: u32,
    slot: &mut SharedMemory<u32>,
    #[comptime] planes: bool,
) -> u32 {
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

/// This lane's row of the lookup table ([`lut_words`](crate::ntuple::lut_words)): lookup
/// `lane`'s table offset, then the `len` cells it reads; past the last lookup the last one's
/// (every lane shuffles). A network of at most [`LANES`] lookups gives each lane one lookup for
/// the whole launch, so the row is read once into registers ([`plane_index`]) instead of at
/// every index: 7 loads an index for a 6-tuple, which NVIDIA's Vulkan compiler did not merge.
#[cube]
pub(super) fn lane_row(
    lut: &Array<u32>,
    lane: u32,
    lookups: u32,
    #[comptime] len: u32,
) -> Array<u32> {
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
/// index kept for the change. Loads with it are unconditional, as
/// [`grouped_weight`](super::moves::grouped_weight)'s is; a lane past the last lookup reads the last one's weight, which its caller drops
/// ([`plane_weight_used`]).
#[cube]
pub(super) fn plane_index(
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
pub(super) fn plane_weight_used(w: f32, lane: u32, lookups: u32) -> f32 {
    select(lane < lookups, w, 0.0f32)
}
