//! Expectimax on whichever backend was chosen: [`GpuExpectimax`] runs the device search of
//! `cubesearch_kernels::expectimax` (weights uploaded once per network), and
//! [`ExpectimaxExecutor`] holds it or the CPU search behind one type.
//!
//! ```
//! use cubesearch_core::rng::XorShift32;
//! use cubesearch_core::{Backend, ExpectimaxEval, StochasticGame};
//! use cubesearch_games::fib::{Fib, Game2584};
//! use cubesearch_learn::{seed_shapes, NTupleNetwork};
//! use cubesearch_search::expectimax_gpu::{ExpectimaxExecutor, ExpectimaxMethod};
//!
//! let game = Game2584::new();
//! let network = NTupleNetwork::for_game::<Fib>(&seed_shapes())?;
//! let roots: Vec<_> = (0..4).map(|i| game.initial(&mut XorShift32::for_worker(5, i))).collect();
//! let (mut gpu, device) = ExpectimaxExecutor::<Fib>::new(Backend::Auto, ExpectimaxMethod::Multilevel, false)?;
//! let mut cpu = ExpectimaxExecutor::<Fib>::cpu(1, false)?;
//! let on_device = gpu.evaluate(&game, &network, &roots, 1)?;
//! let on_cpu = cpu.evaluate(&game, &network, &roots, 1)?;
//! for (d, c) in on_device.iter().zip(&on_cpu) {
//!     assert_eq!(d.best, c.best, "{device}");
//! }
//! # Ok::<(), cubesearch_core::Error>(())
//! ```

use crate::expectimax::ExpectimaxOptions;
use crate::CpuExecutor;
use cubecl::prelude::*;
use cubesearch_core::backend::{self, start_client, Backend, ResolvedBackend};
use cubesearch_core::{ExpectimaxEval, Result, RootValue};
use cubesearch_games::fib::{BoardOf, Sliding};
pub use cubesearch_kernels::expectimax::launch::ExpectimaxMethod;
use cubesearch_kernels::expectimax::launch::{
    launch_expectimax, DeviceNetwork, SearchShape, Workspace,
};
use cubesearch_kernels::fib::GpuTiles;
use cubesearch_learn::NTupleNetwork;
use std::marker::PhantomData;

/// The device search of one runtime for rule `T`.
pub struct GpuExpectimax<R: Runtime, T: GpuTiles> {
    client: ComputeClient<R>,
    shape: SearchShape,
    /// The uploaded network and the host network it copies (its id): a call with another
    /// network uploads that one.
    network: Option<(u64, DeviceNetwork)>,
    /// The search's buffers, kept from move to move.
    workspace: Workspace,
    rule: PhantomData<T>,
}

impl<R: Runtime, T: GpuTiles> GpuExpectimax<R, T> {
    /// Starts a client on `device` (`backend` names it in errors).
    pub fn new(
        device: &R::Device,
        backend: &'static str,
        method: ExpectimaxMethod,
    ) -> Result<Self> {
        let client = start_client::<R>(device, backend)?;
        Ok(Self {
            shape: SearchShape::on(&client, method),
            client,
            network: None,
            workspace: Workspace::default(),
            rule: PhantomData,
        })
    }

    /// The generation scheme.
    pub fn method(&self) -> ExpectimaxMethod {
        self.shape.method
    }

    /// Switches the generation scheme (the uploaded weights stay).
    pub fn set_method(&mut self, method: ExpectimaxMethod) {
        self.shape.method = method;
    }

    /// Whether blocks are folded with plane ops (by default where the device has them).
    pub fn plane_ops(&self) -> bool {
        self.shape.plane_ops
    }

    /// Folds with plane ops or in shared memory only; asking for plane ops on a device without
    /// 32-unit planes is an error at the next search.
    pub fn set_plane_ops(&mut self, on: bool) {
        self.shape.plane_ops = on;
    }

    /// Uploads `net` now unless it is the network already on the device. Weights changed in
    /// place (training) need [`GpuExpectimax::reload`].
    pub fn prepare(&mut self, net: &NTupleNetwork) -> Result<&DeviceNetwork> {
        net.check_game::<T>()?;
        let key = net.id();
        if self.network.as_ref().is_none_or(|(k, _)| *k != key) {
            let tables: Vec<Vec<f32>> = (0..net.shapes().len()).map(|t| net.table(t)).collect();
            let device = DeviceNetwork::upload(&self.client, net.bits(), net.shapes(), &tables)?;
            self.network = Some((key, device));
        }
        Ok(&self.network.as_ref().expect("uploaded above").1)
    }

    /// Cuts batches into chunks whose largest buffer holds at most this many words (default
    /// and most: the kernels' `MAX_ENTRIES`; a root takes `words_per_root`); tests use it to
    /// cover the chunking with small batches.
    pub fn set_chunk_entries(&mut self, entries: usize) {
        self.shape.max_entries = entries;
    }

    /// Forgets the uploaded weights: the next call uploads them again.
    pub fn reload(&mut self) {
        self.network = None;
    }
}

impl<R: Runtime, T: GpuTiles> ExpectimaxEval<Sliding<T>, NTupleNetwork> for GpuExpectimax<R, T> {
    fn evaluate(
        &mut self,
        _game: &Sliding<T>,
        value: &NTupleNetwork,
        roots: &[BoardOf<T>],
        layers: u32,
    ) -> Result<Vec<RootValue>> {
        self.prepare(value)?;
        let net = &self.network.as_ref().expect("prepared").1;
        let found = launch_expectimax::<R, T>(
            &self.client,
            net,
            roots,
            layers,
            self.shape,
            &mut self.workspace,
        )?;
        Ok(found
            .into_iter()
            .map(|d| RootValue {
                best: d.best,
                value: d.best.map_or(0.0, |b| d.actions[b as usize].unwrap_or(0.0)),
                actions: d.actions.to_vec(),
            })
            .collect())
    }
}

/// Expectimax of 2584/2048 roots under an n-tuple network on the CPU or a GPU.
pub enum ExpectimaxExecutor<T: GpuTiles> {
    /// The CPU search (tree-parallel on the pool's threads).
    Cpu(CpuExecutor, PhantomData<T>),
    /// The device search on wgpu.
    #[cfg(feature = "wgpu")]
    Wgpu(Box<GpuExpectimax<cubecl::wgpu::WgpuRuntime, T>>),
    /// The device search on CUDA.
    #[cfg(feature = "cuda")]
    Cuda(Box<GpuExpectimax<cubecl::cuda::CudaRuntime, T>>),
}

impl<T: GpuTiles> ExpectimaxExecutor<T> {
    /// Resolves `backend` and starts its searcher (`transposition` applies to the CPU, `method`
    /// to a GPU).
    pub fn new(
        backend: Backend,
        method: ExpectimaxMethod,
        transposition: bool,
    ) -> Result<(Self, ResolvedBackend)> {
        let resolved = backend::resolve(backend)?;
        Ok((Self::on(&resolved, method, transposition)?, resolved))
    }

    /// The searcher of an already resolved backend.
    pub fn on(
        resolved: &ResolvedBackend,
        method: ExpectimaxMethod,
        transposition: bool,
    ) -> Result<Self> {
        Ok(match resolved {
            ResolvedBackend::Cpu { threads } => Self::cpu(*threads, transposition)?,
            #[cfg(feature = "wgpu")]
            ResolvedBackend::Wgpu { device, .. } => {
                Self::Wgpu(Box::new(GpuExpectimax::new(device, "wgpu", method)?))
            }
            #[cfg(feature = "cuda")]
            ResolvedBackend::Cuda { device, .. } => {
                Self::Cuda(Box::new(GpuExpectimax::new(device, "cuda", method)?))
            }
        })
    }

    /// The CPU search on `threads` threads (0 = all cores).
    pub fn cpu(threads: usize, transposition: bool) -> Result<Self> {
        let mut cpu = CpuExecutor::new(threads)?;
        cpu.expectimax = ExpectimaxOptions {
            transposition,
            split_ply: None,
        };
        Ok(Self::Cpu(cpu, PhantomData))
    }

    /// Whether the search runs on the CPU.
    pub fn is_cpu(&self) -> bool {
        matches!(self, Self::Cpu(..))
    }

    /// Switches a GPU searcher's generation scheme (no effect on the CPU).
    pub fn set_method(&mut self, method: ExpectimaxMethod) {
        match self {
            Self::Cpu(..) => {}
            #[cfg(feature = "wgpu")]
            Self::Wgpu(g) => g.set_method(method),
            #[cfg(feature = "cuda")]
            Self::Cuda(g) => g.set_method(method),
        }
    }

    /// A GPU searcher's fold: with plane ops or not (`None` on the CPU).
    pub fn plane_ops(&self) -> Option<bool> {
        match self {
            Self::Cpu(..) => None,
            #[cfg(feature = "wgpu")]
            Self::Wgpu(g) => Some(g.plane_ops()),
            #[cfg(feature = "cuda")]
            Self::Cuda(g) => Some(g.plane_ops()),
        }
    }

    /// Switches a GPU searcher's fold to plane ops or shared memory (no effect on the CPU).
    pub fn set_plane_ops(&mut self, on: bool) {
        match self {
            Self::Cpu(..) => {}
            #[cfg(feature = "wgpu")]
            Self::Wgpu(g) => g.set_plane_ops(on),
            #[cfg(feature = "cuda")]
            Self::Cuda(g) => g.set_plane_ops(on),
        }
    }
}

impl<T: GpuTiles> ExpectimaxEval<Sliding<T>, NTupleNetwork> for ExpectimaxExecutor<T> {
    fn evaluate(
        &mut self,
        game: &Sliding<T>,
        value: &NTupleNetwork,
        roots: &[BoardOf<T>],
        layers: u32,
    ) -> Result<Vec<RootValue>> {
        match self {
            Self::Cpu(cpu, _) => cpu.evaluate(game, value, roots, layers),
            #[cfg(feature = "wgpu")]
            Self::Wgpu(g) => g.evaluate(game, value, roots, layers),
            #[cfg(feature = "cuda")]
            Self::Cuda(g) => g.evaluate(game, value, roots, layers),
        }
    }
}
