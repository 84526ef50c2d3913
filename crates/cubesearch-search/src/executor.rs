//! [`Executor`]: the executor a resolved backend stands for, so that callers who pick the backend
//! at run time (the CLI, benchmarks) hold one type.

use crate::minimax::RootSearcher;
use crate::{CpuExecutor, GpuExecutor};
use cubecl::prelude::Runtime;
use cubesearch_core::backend::{self, Backend, ResolvedBackend};
use cubesearch_core::{Perft, Playouts, Result, Searched, SubtreeSearch, WinDrawCounts, Window};
use cubesearch_kernels::alphabeta::{RootSearch, RootShape};
use cubesearch_kernels::GpuGame;

/// An executor on the CPU, on wgpu or on CUDA.
pub enum Executor {
    /// rayon on the CPU.
    Cpu(CpuExecutor),
    /// CubeCL on wgpu.
    #[cfg(feature = "wgpu")]
    Wgpu(GpuExecutor<cubecl::wgpu::WgpuRuntime>),
    /// CubeCL on CUDA.
    #[cfg(feature = "cuda")]
    Cuda(GpuExecutor<cubecl::cuda::CudaRuntime>),
}

/// Applies one expression to whichever executor is inside.
macro_rules! dispatch {
    ($self:expr, $e:ident => $body:expr) => {
        match $self {
            Executor::Cpu($e) => $body,
            #[cfg(feature = "wgpu")]
            Executor::Wgpu($e) => $body,
            #[cfg(feature = "cuda")]
            Executor::Cuda($e) => $body,
        }
    };
}
pub(crate) use dispatch;

/// Applies one expression to the GPU executor inside; on the CPU, gives `cpu`.
macro_rules! dispatch_gpu {
    ($self:expr, $e:ident => $body:expr, cpu => $cpu:expr) => {
        match $self {
            Executor::Cpu(_) => $cpu,
            #[cfg(feature = "wgpu")]
            Executor::Wgpu($e) => $body,
            #[cfg(feature = "cuda")]
            Executor::Cuda($e) => $body,
        }
    };
}
pub(crate) use dispatch_gpu;

impl Executor {
    /// Resolves `backend` and starts its executor.
    pub fn new(backend: Backend) -> Result<(Self, ResolvedBackend)> {
        let resolved = backend::resolve(backend)?;
        Ok((Self::on(&resolved)?, resolved))
    }

    /// Starts the executor of an already resolved backend.
    pub fn on(resolved: &ResolvedBackend) -> Result<Self> {
        Ok(match resolved {
            ResolvedBackend::Cpu { threads } => Executor::Cpu(CpuExecutor::new(*threads)?),
            #[cfg(feature = "wgpu")]
            ResolvedBackend::Wgpu { device, .. } => {
                Executor::Wgpu(GpuExecutor::new(device, "wgpu", resolved.kind())?)
            }
            #[cfg(feature = "cuda")]
            ResolvedBackend::Cuda { device, .. } => {
                Executor::Cuda(GpuExecutor::new(device, "cuda", resolved.kind())?)
            }
        })
    }

    /// The device's limits (`None` on the CPU).
    pub fn limits(&self) -> Option<&cubesearch_core::backend::DeviceLimits> {
        dispatch_gpu!(self, e => Some(e.limits()), cpu => None)
    }

    /// Sets the steps a resumable walk takes per launch on a GPU
    /// ([`GpuExecutor::with_steps_per_launch`]); the CPU has no launches.
    pub fn with_steps_per_launch(mut self, steps: u32) -> Self {
        dispatch_gpu!(&mut self, e => e.set_steps_per_launch(steps), cpu => ());
        self
    }

    /// A GPU's walks (perft, alpha-beta) end between launches once `stop` is raised
    /// ([`GpuExecutor::set_stop`]); the CPU's searches take their stop in their options.
    pub fn set_stop(&mut self, stop: &cubesearch_core::Stop) {
        dispatch_gpu!(self, e => e.set_stop(stop.clone()), cpu => ());
    }

    /// Whether the work runs on the CPU.
    pub fn is_cpu(&self) -> bool {
        matches!(self, Executor::Cpu(_))
    }

    /// Runs `task` on the GPU inside, whichever runtime it is; on the CPU, refuses with
    /// `cpu_refusal`.
    pub fn on_device<T: DeviceTask>(&self, task: T, cpu_refusal: &str) -> Result<T::Output> {
        dispatch_gpu!(
            self,
            e => task.run(e),
            cpu => {
                drop(task);
                Err(cubesearch_core::Error::Unsupported(cpu_refusal.into()))
            }
        )
    }
}

/// Work on one GPU, written once for every runtime: how code outside this crate (a game's own
/// kernels, a trainer, a benchmark) launches through an [`Executor`] without matching on its
/// backend.
pub trait DeviceTask {
    /// What the work gives back.
    type Output;
    /// Does the work on `gpu` (its client, its limits).
    fn run<R: Runtime>(self, gpu: &GpuExecutor<R>) -> Result<Self::Output>;
}

impl<G: GpuGame> Playouts<G> for Executor {
    fn playouts(
        &mut self,
        game: &G,
        roots: &[G::State],
        per_root: u32,
        seed: u32,
    ) -> Result<Vec<WinDrawCounts>> {
        dispatch!(self, e => e.playouts(game, roots, per_root, seed))
    }
}

impl<G: GpuGame> SubtreeSearch<G> for Executor {
    fn search_windows(
        &mut self,
        game: &G,
        roots: &[G::State],
        windows: &[Window],
        depth: u32,
    ) -> Result<Searched> {
        dispatch!(self, e => e.search_windows(game, roots, windows, depth))
    }

    fn preferred_batch(&self) -> usize {
        dispatch!(self, e => SubtreeSearch::<G>::preferred_batch(e))
    }
}

impl<G: GpuGame> RootSearcher<G> for Executor {
    fn root_search(
        &mut self,
        game: &G,
        root: &G::State,
        depth: u32,
        shape: RootShape,
    ) -> Result<RootSearch> {
        dispatch_gpu!(
            self,
            e => e.root_search(game, root, depth, shape),
            cpu => Err(cubesearch_core::Error::Unsupported(
                "strategies v1, v2 and v4 run on a GPU backend (--backend wgpu or cuda)".into(),
            ))
        )
    }
}

impl<G: GpuGame> Perft<G> for Executor {
    fn perft(&mut self, game: &G, roots: &[G::State], depth: u32) -> Result<Vec<u64>> {
        dispatch!(self, e => e.perft(game, roots, depth))
    }

    fn preferred_roots(&self) -> usize {
        dispatch!(self, e => Perft::<G>::preferred_roots(e))
    }
}
