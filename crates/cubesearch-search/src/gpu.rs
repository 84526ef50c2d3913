//! The GPU executor: the same traits as the CPU's, through the CubeCL kernels of
//! `cubesearch-kernels`, on any cubecl runtime.

use crate::minimax::{RootSearcher, UpperTree};
use crate::perft::expand;
use cubecl::prelude::*;
use cubesearch_core::backend::{start_client, DeviceLimits};
use cubesearch_core::{Perft, Playouts, Result, Searched, SubtreeSearch, WinDrawCounts, Window};
use cubesearch_kernels::alphabeta::{launch_root_search, launch_subtrees, RootSearch, RootShape};
use cubesearch_kernels::{perft::launch_perft, playout::launch_playouts, GpuGame};

/// Deepest subtree one unit walks on a loop-limited device (lavapipe): perft counts the last ply
/// in bulk, search plays and scores every leaf.
const LOOP_LIMITED_PERFT_DEPTH: u32 = 2;
const LOOP_LIMITED_SEARCH_DEPTH: u32 = 1;

/// Runs executor work on one device of runtime `R`.
pub struct GpuExecutor<R: Runtime> {
    pub(crate) client: ComputeClient<R>,
    limits: DeviceLimits,
    /// The device expectimax's settings, network and buffers (boxed: most executors never
    /// search expectimax).
    pub(crate) expectimax: Box<crate::expectimax_gpu::GpuExpectimax>,
}

impl<R: Runtime> GpuExecutor<R> {
    /// Starts a client on `device`; `backend` names it in errors, `software` marks a CPU
    /// rasteriser such as lavapipe (see [`DeviceLimits::loop_iterations`]).
    pub fn new(device: &R::Device, backend: &'static str, software: bool) -> Result<Self> {
        let client = start_client::<R>(device, backend)?;
        let limits = DeviceLimits::of(&client, software);
        Ok(Self {
            expectimax: Box::new(crate::expectimax_gpu::GpuExpectimax::new(&client)),
            client,
            limits,
        })
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
        let max_games_per_unit = if self.loop_limited() { 1 } else { 16 };
        launch_playouts::<R, G>(
            &self.client,
            game,
            roots,
            per_root,
            seed,
            max_games_per_unit,
        )
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
        if !self.loop_limited() || depth <= LOOP_LIMITED_SEARCH_DEPTH {
            let (values, nodes) =
                launch_subtrees::<R, G>(&self.client, game, roots, windows, depth)?;
            return Ok(Searched { values, nodes });
        }
        // The upper plies on the host, one ply per unit on the device: exact values, which
        // answer any window.
        let plies = depth - LOOP_LIMITED_SEARCH_DEPTH;
        let tree = UpperTree::build(game, roots, plies, usize::MAX)?;
        let (leaves, nodes) =
            launch_subtrees::<R, G>(&self.client, game, tree.frontier(), &[], depth - tree.plies)?;
        Ok(Searched {
            values: tree.back_up(game, &leaves)[..roots.len()].to_vec(),
            nodes: nodes + (tree.len() - tree.frontier().len()) as u64,
        })
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
        if self.loop_limited() && depth > 2 + LOOP_LIMITED_SEARCH_DEPTH {
            return Err(cubesearch_core::Error::Unsupported(format!(
                "v1/v2/v4 at depth {depth} exceed this device's loop budget (lavapipe stops loops after {} \
                 iterations per unit); use --strategy split, or depth ≤ {}",
                self.limits.loop_iterations.unwrap_or(0),
                2 + LOOP_LIMITED_SEARCH_DEPTH
            )));
        }
        let moves = game.moves(root);
        let max_replies = moves
            .iter()
            .map(|&m| game.moves(&game.apply(root, m)).len())
            .max()
            .unwrap_or(0);
        launch_root_search::<R, G>(
            &self.client,
            game,
            root,
            moves.len() as u32,
            max_replies as u32,
            depth,
            shape,
        )
    }
}

impl<R: Runtime, G: GpuGame> Perft<G> for GpuExecutor<R> {
    fn perft(&mut self, game: &G, roots: &[G::State], depth: u32) -> Result<Vec<u64>> {
        if !self.loop_limited() || depth <= LOOP_LIMITED_PERFT_DEPTH {
            return launch_perft::<R, G>(&self.client, game, roots, depth);
        }
        // Expand the upper plies on the host so that each unit walks only a shallow subtree.
        let mut subtrees = Vec::new();
        let mut owners = Vec::new();
        let mut totals = Vec::with_capacity(roots.len());
        for (i, root) in roots.iter().enumerate() {
            let (frontier, leaves) = expand(
                game,
                std::slice::from_ref(root),
                depth - LOOP_LIMITED_PERFT_DEPTH,
            );
            owners.extend(std::iter::repeat_n(i, frontier.len()));
            subtrees.extend(frontier);
            totals.push(leaves);
        }
        let counts = launch_perft::<R, G>(&self.client, game, &subtrees, LOOP_LIMITED_PERFT_DEPTH)?;
        for (owner, count) in owners.into_iter().zip(counts) {
            totals[owner] += count;
        }
        Ok(totals)
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
