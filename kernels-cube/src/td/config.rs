//! What the TD kernels bind and what they are compiled for: the buffers grouped by concern
//! ([`WeightBuffers`], [`NetTable`], [`GameBuffers`], the scalars of a launch [`PlayRun`]) and
//! one comptime [`PlayConfig`] whose choices are enums, as cubecl-reduce's `ReduceConfig` is.

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

/// How a launch's updates reach the weights (see `TdShape::averaged`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Update {
    /// Atomic adds into the weights as the games learn; reads see them.
    Immediate,
    /// Asked of the launch's sums, applied by the apply kernel after it; the weights do not
    /// move within the launch.
    Averaged,
}

/// Where a lookup takes the cells of its index from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cells {
    /// From the game's lanes, lane `c` holding cell `c` (every cell a lookup reads is below
    /// [`LANES`]): one shuffle or shared-memory read a cell.
    Held,
    /// Out of the state, by each lane for itself.
    FromState,
}

/// How the lanes of a game choose its move (see `moves`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveChoice {
    /// Every lane makes every afterstate and reads its share of each one's lookups.
    EachLane,
    /// Four actions through planes, cells held: lane `k` makes afterstate `k mod 4`, and each
    /// V is pooled over the whole plane.
    Spread,
    /// Four actions through planes, cells held: group `a` of eight lanes makes afterstate `a`
    /// and reads its V in `rounds` rounds of eight lookups.
    Grouped {
        /// Rounds of eight lookups a V.
        rounds: u32,
    },
}

/// How many of a V's lookups a lane reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LaneLookups {
    /// At most one (a network of at most [`LANES`] lookups): each lane's lookup row is read
    /// once a launch, and averaged launches ask for the next weights before summing these.
    One,
    /// Several, a round of [`LANES`] at a time.
    Several,
}

/// When a game's afterstates learn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Order {
    /// At the game's end (or when its path fills), last first.
    Backward,
    /// Each once the next move is chosen (averaged launches only).
    Forward,
}

/// Whether each weight's step is scaled by its temporal-coherence rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Coherence {
    /// A fixed step.
    Off,
    /// Two sums a weight kept beside the weights scale each change.
    On,
}

/// What every lookup index is compiled for: cells a lookup reads, bits a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LookupShape {
    /// Cells of every lookup.
    pub len: u32,
    /// Bits a cell takes in an index.
    pub bits: u32,
}

/// Everything the play kernel is compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PlayConfig {
    /// The lookups' shape.
    pub lookup: LookupShape,
    /// u32 words of a state.
    pub words: usize,
    /// The game's actions.
    pub actions: u32,
    /// How updates reach the weights.
    pub update: Update,
    /// How a game's lanes pool.
    pub lanes: LaneExchange,
    /// Where lookups take their cells.
    pub cells: Cells,
    /// How the move is chosen.
    pub moves: MoveChoice,
    /// How many lookups of a V a lane reads.
    pub per_lane: LaneLookups,
    /// When a game learns.
    pub order: Order,
    /// Temporal coherence.
    pub coherence: Coherence,
}

impl PlayConfig {
    /// Whether updates are averaged.
    pub fn averaged(&self) -> bool {
        self.update == Update::Averaged
    }

    /// Whether the lanes pool through planes.
    pub fn planes(&self) -> bool {
        self.lanes == LaneExchange::Plane
    }

    /// Whether lookups take their cells from the lanes.
    pub fn held(&self) -> bool {
        self.cells == Cells::Held
    }

    /// Whether each lane reads at most one lookup of a V.
    pub fn one_lookup(&self) -> bool {
        self.per_lane == LaneLookups::One
    }

    /// Rounds of a grouped move (0 when the move is not grouped).
    pub fn group_rounds(&self) -> u32 {
        match self.moves {
            MoveChoice::Grouped { rounds } => rounds,
            _ => 0,
        }
    }

    /// Whether temporal coherence scales the steps.
    pub fn coherent(&self) -> bool {
        self.coherence == Coherence::On
    }

    /// Whether games learn forward.
    pub fn forward(&self) -> bool {
        self.order == Order::Forward
    }
}

/// The weights and what launches ask of them (layout in the parent module). A launch binds
/// the view it does not use to a placeholder of one element.
#[derive(CubeType, CubeLaunch)]
pub struct WeightBuffers {
    /// The weights, read plainly by averaged launches (they do not move within one).
    pub frozen: Array<f32>,
    /// The weights, read and updated atomically by immediate launches and the apply kernel.
    pub live: Array<Atomic<f32>>,
    /// Averaged updates: the changes asked of each weight, a copy of the weights' length each.
    pub pending: Array<Atomic<f32>>,
    /// Averaged updates: how many changes each weight was asked.
    pub hits: Array<Atomic<u32>>,
    /// Temporal coherence: each weight's sum of changes.
    pub sums: Array<f32>,
    /// Temporal coherence: each weight's sum of their sizes.
    pub sizes: Array<f32>,
}

/// A network as the TD kernels read it: its runtime lookup table
/// ([`lut_words`](crate::ntuple::lut_words)), how many lookups, and the highest cell one reads.
#[derive(CubeType, CubeLaunch)]
pub struct NetTable {
    /// Per lookup `[table offset, cells..]`, then the stages.
    pub lut: Array<u32>,
    /// Lookups a V sums.
    pub lookups: u32,
    /// The highest cell a lookup reads.
    pub top: u32,
}

/// The games in flight and the stream of results (layout in the parent module).
#[derive(CubeType, CubeLaunch)]
pub struct GameBuffers {
    /// Each game slot's position.
    pub states: Array<u32>,
    /// Each game slot's `[game, rng, score, moves, path length]`.
    pub units: Array<u32>,
    /// Each game slot's path of afterstates.
    pub paths: Array<u32>,
    /// The ring of finished games' results.
    pub results: Array<u32>,
    /// `[games taken, games finished, moves played]`, fresh each launch.
    pub counters: Array<Atomic<u32>>,
}

/// A play launch's scalars.
#[derive(CubeType, CubeLaunch)]
pub struct PlayRun {
    /// The change per weight per unit of TD error.
    pub step: f32,
    /// The run's seed: game `g` draws from worker `first + g`'s generator.
    pub seed: u32,
    /// The run's first game number.
    pub first: u32,
    /// Game numbers below `base` are taken.
    pub base: u32,
    /// Game numbers from `limit` on wait for a later launch.
    pub limit: u32,
    /// Result slots in the ring.
    pub slots: u32,
    /// Game slots.
    pub units: u32,
    /// Most moves a game slot plays in this launch.
    pub max_moves: u32,
    /// Path entries a game slot keeps.
    pub cap: u32,
    /// Copies of the averaged sums.
    pub copies: u32,
    /// Weights between two copies of the sums.
    pub copy_stride: u32,
    /// In a stream's first launch, the games `0..fresh` that fresh units take one a unit
    /// (unit `u` game `u`); 0 afterwards.
    pub fresh: u32,
}

/// A game's lanes: this lane's number and the shared memory the lanes of a cube pool through.
#[derive(CubeType)]
pub struct Lanes {
    /// This lane, `0..LANES`.
    pub lane: u32,
    /// One weight a lane.
    pub pool: SharedMemory<f32>,
    /// One held cell a lane.
    pub cells: SharedMemory<u32>,
    /// One word lane 0 hands to the others.
    pub slot: SharedMemory<u32>,
}

/// This unit's lanes, with fresh shared memory.
#[cube]
pub fn lanes_of_unit() -> Lanes {
    Lanes {
        lane: UNIT_POS % LANES,
        pool: SharedMemory::<f32>::new(LANES as usize),
        cells: SharedMemory::<u32>::new(LANES as usize),
        slot: SharedMemory::<u32>::new(1usize),
    }
}
