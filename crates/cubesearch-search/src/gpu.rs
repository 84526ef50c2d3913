//! The GPU executor: the same traits as the CPU's, through the CubeCL kernels of
//! `cubesearch-kernels`, on any cubecl runtime.

use crate::minimax::RootSearcher;
use cubecl::prelude::*;
use cubesearch_core::backend::{start_client, DeviceKind, DeviceLimits};
use cubesearch_core::{
    Perft, Playouts, Result, Searched, Stop, SubtreeSearch, WinDrawCounts, Window,
};
use cubesearch_kernels::alphabeta::{launch_root_search, launch_subtrees, RootSearch, RootShape};
use cubesearch_kernels::launch::{Slicing, WalkMemory, Walker};
use cubesearch_kernels::playout::{launch_playouts, PlayoutGames, PlayoutShape};
use cubesearch_kernels::{perft::launch_perft, GpuGame};

/// Steps of a resumable walk (perft, alpha-beta subtrees, the v1/v2/v4 shapes) a unit takes in one launch on a real
/// GPU: long enough that launches cost little, short enough to keep each launch far below a
/// desktop driver's watchdog.
pub const STEPS_PER_LAUNCH: u32 = 1 << 16;

/// Walk memory in use at once on a real GPU, and on a software rasteriser (lavapipe binds at
/// most 128 MiB a buffer).
const WALK_BYTES: usize = 1 << 30;
const SOFTWARE_WALK_BYTES: usize = 1 << 26;

/// Runs executor work on one device of runtime `R`.
pub struct GpuExecutor<R: Runtime> {
    client: ComputeClient<R>,
    limits: DeviceLimits,
    /// Steps a resumable walk takes per launch, when set (tests slice walks finely this way).
    steps_per_launch: Option<u32>,
    /// The device memory of resumable walks, kept from call to call.
    walks: WalkMemory,
    /// Looked at between a walk's launches (perft, alpha-beta): raised, the walk ends with
    /// `Error::Interrupted`.
    stop: Stop,
}

impl<R: Runtime> GpuExecutor<R> {
    /// Starts a client on `device`; `backend` names it in errors, and a software device (a
    /// CPU rasteriser such as lavapipe) has a loop budget ([`DeviceLimits::loop_iterations`]).
    pub fn new(device: &R::Device, backend: &'static str, kind: DeviceKind) -> Result<Self> {
        let client = start_client::<R>(device, backend)?;
        let limits = DeviceLimits::of(&client, kind);
        Ok(Self {
            client,
            limits,
            steps_per_launch: None,
            walks: WalkMemory::default(),
            stop: Stop::new(),
        })
    }

    /// Sets the steps a resumable walk (perft, alpha-beta subtrees, playouts: a step is a ply)
    /// takes per launch, for every game: fewer give shorter launches and more of them, with the
    /// same results.
    pub fn with_steps_per_launch(mut self, steps: u32) -> Self {
        self.set_steps_per_launch(steps);
        self
    }

    /// [`with_steps_per_launch`](Self::with_steps_per_launch) in place.
    pub fn set_steps_per_launch(&mut self, steps: u32) {
        self.steps_per_launch = Some(steps.max(1));
    }

    /// Walks from now on end between launches once `stop` is raised (or its deadline passes),
    /// with `Error::Interrupted`.
    pub fn set_stop(&mut self, stop: Stop) {
        self.stop = stop;
    }

    /// How walks of `G` to `depth` are cut into launches: the steps as set, else
    /// [`STEPS_PER_LAUNCH`], and never more than a loop-limited device's budget allows
    /// (`GpuGame::LOOPS_PER_STEP` a step, after the loops that save and load a walk).
    pub fn slicing<G: GpuGame>(&self, depth: u32) -> Slicing {
        let around = 2 * (depth + 1) * (G::STATE_WORDS as u32 + 2) + 256;
        let budget = self.limits.loop_iterations.map_or(u32::MAX, |budget| {
            (budget.saturating_sub(around) / (G::LOOPS_PER_STEP + 1)).max(1)
        });
        let steps = match (self.steps_per_launch, self.limits.loop_iterations) {
            (Some(steps), _) => steps.min(budget),
            (None, Some(_)) => budget,
            (None, None) => STEPS_PER_LAUNCH,
        };
        let bytes = if self.loop_limited() {
            SOFTWARE_WALK_BYTES
        } else {
            WALK_BYTES
        };
        Slicing { steps, bytes }
    }

    /// The client, slicing and kept memory for walks of `G` to `depth`.
    fn walker<G: GpuGame>(&mut self, depth: u32) -> Walker<'_, R> {
        Walker {
            slicing: self.slicing::<G>(depth),
            client: &self.client,
            memory: &mut self.walks,
            stop: &self.stop,
        }
    }

    /// Whether the driver cuts long loops short, so units must be given little work each.
    fn loop_limited(&self) -> bool {
        self.limits.loop_iterations.is_some()
    }

    /// The cubecl client, for launching kernels directly.
    pub fn client(&self) -> &ComputeClient<R> {
        &self.client
    }

    /// The device's limits.
    pub fn limits(&self) -> &DeviceLimits {
        &self.limits
    }
}

impl<R: Runtime, G: GpuGame> Playouts<G> for GpuExecutor<R> {
    fn playouts(
        &mut self,
        game: &G,
        roots: &[G::State],
        per_root: u32,
        seed: u32,
    ) -> Result<Vec<WinDrawCounts>> {
        // Sliced where long loops are cut short or the steps a launch were set; else whole
        // games, up to 16 a unit.
        let shape = if self.loop_limited() || self.steps_per_launch.is_some() {
            PlayoutShape::Sliced {
                steps: self.slicing::<G>(0).steps,
            }
        } else {
            PlayoutShape::Whole {
                max_games_per_unit: 16,
            }
        };
        let games = PlayoutGames { per_root, seed };
        launch_playouts::<R, G>(&self.client, game, roots, games, shape)
    }
}

impl<R: Runtime, G: GpuGame> SubtreeSearch<G> for GpuExecutor<R> {
    fn search_windows(
        &mut self,
        game: &G,
        roots: &[G::State],
        windows: &[Window],
        depth: u32,
    ) -> Result<Searched> {
        let walker = self.walker::<G>(depth);
        let (values, nodes) = launch_subtrees::<R, G>(walker, game, roots, windows, depth)?;
        Ok(Searched { values, nodes })
    }

    /// 32 subtrees a multiprocessor: one warp's worth each, enough to hide latency on a GPU
    /// whose units diverge as their searches prune differently.
    fn preferred_batch(&self) -> usize {
        self.limits
            .multiprocessors
            .map_or(1 << 12, |m| 32 * m as usize)
    }
}

impl<R: Runtime, G: GpuGame> RootSearcher<G> for GpuExecutor<R> {
    /// The seed's v1, v2 or v4 root search: one cube per root move, one unit per reply.
    fn root_search(
        &mut self,
        game: &G,
        root: &G::State,
        depth: u32,
        shape: RootShape,
    ) -> Result<RootSearch> {
        let walker = self.walker::<G>(depth.saturating_sub(2));
        launch_root_search::<R, G>(walker, game, root, depth, shape)
    }
}

impl<R: Runtime, G: GpuGame> Perft<G> for GpuExecutor<R> {
    fn perft(&mut self, game: &G, roots: &[G::State], depth: u32) -> Result<Vec<u64>> {
        launch_perft::<R, G>(self.walker::<G>(depth), game, roots, depth)
    }

    /// A unit a hardware thread slot (2¹¹ a multiprocessor), at least 2¹⁶: subtrees vary
    /// widely in size, and more, smaller ones let the multiprocessors that finish early take
    /// the next instead of idling behind the largest.
    fn preferred_roots(&self) -> usize {
        self.limits
            .multiprocessors
            .map_or(1 << 16, |m| ((1 << 11) * m as usize).max(1 << 16))
    }
}
