//! Expectimax on whichever backend was chosen. [`Expectimax`] is the searcher a user holds: an
//! [`Executor`] with the CPU search's options and, on a GPU, a [`GpuExpectimax`] (how it
//! searches, the uploaded network, the search's buffers), which runs the device search of
//! `cubesearch_kernels::expectimax` for any [`GpuStochasticGame`]. The executor only runs
//! kernels; the state of the search is this module's.
//!
//! `cubesearch::expectimax_gpu` compares it with the CPU on a game.

use crate::expectimax::{evaluate_on_cpu, ExpectimaxOptions};
use crate::{Executor, GpuExecutor};
use cubecl::prelude::*;
use cubesearch_core::{ExpectimaxEval, Result, RootValue};
pub use cubesearch_kernels::expectimax::launch::ExpectimaxMethod;
use cubesearch_kernels::expectimax::launch::{
    launch_expectimax, DeviceNetwork, SearchShape, Searcher, Workspace,
};
use cubesearch_kernels::ntuple::Stages;
use cubesearch_kernels::GpuStochasticGame;
use cubesearch_learn::{NTupleNetwork, TupleGame};

/// The device expectimax on one GPU: how it searches, the network on the device and the
/// buffers kept from search to search.
pub struct GpuExpectimax {
    shape: SearchShape,
    /// The uploaded network and the host network it copies (its id): a call with another
    /// network uploads that one.
    network: Option<(u64, DeviceNetwork)>,
    /// The search's buffers, kept from move to move.
    workspace: Workspace,
}

/// How a GPU expectimax folds the values of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExpectimaxFold {
    /// With plane ops, where the device has 32-unit planes (the default there).
    PlaneOps,
    /// In shared memory only.
    SharedMemory,
}

impl std::fmt::Display for ExpectimaxFold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ExpectimaxFold::PlaneOps => "plane ops",
            ExpectimaxFold::SharedMemory => "shared memory",
        })
    }
}

impl GpuExpectimax {
    /// Multilevel generation on `gpu`, with plane ops where it has them.
    pub fn new<R: Runtime>(gpu: &GpuExecutor<R>) -> Self {
        Self {
            shape: SearchShape::on(gpu.client(), ExpectimaxMethod::default()),
            network: None,
            workspace: Workspace::default(),
        }
    }

    /// The generation scheme.
    pub fn method(&self) -> ExpectimaxMethod {
        self.shape.method
    }

    /// Switches the generation scheme (the uploaded weights stay).
    pub fn set_method(&mut self, method: ExpectimaxMethod) {
        self.shape.method = method;
    }

    /// How blocks are folded (with plane ops by default where the device has them).
    pub fn fold(&self) -> ExpectimaxFold {
        if self.shape.plane_ops {
            ExpectimaxFold::PlaneOps
        } else {
            ExpectimaxFold::SharedMemory
        }
    }

    /// Folds with plane ops or in shared memory only; asking for plane ops on a device without
    /// 32-unit planes is an error at the next search.
    pub fn set_fold(&mut self, fold: ExpectimaxFold) {
        self.shape.plane_ops = fold == ExpectimaxFold::PlaneOps;
    }

    /// Cuts batches into chunks whose largest buffer holds at most this many words (default
    /// and most: the kernels' `MAX_ENTRIES`; a root takes `words_per_root`); tests use it to
    /// cover the chunking with small batches.
    pub fn set_chunk_entries(&mut self, entries: usize) {
        self.shape.max_entries = entries;
    }

    /// Forgets the uploaded weights: the next search uploads them again (needed after
    /// changing a network's weights in place).
    pub fn reload_network(&mut self) {
        self.network = None;
    }

    /// Uploads `net` to `gpu` now unless it is the network already there.
    fn prepare_network<R: Runtime>(
        &mut self,
        gpu: &GpuExecutor<R>,
        net: &NTupleNetwork,
    ) -> Result<()> {
        let key = net.id();
        if self.network.as_ref().is_none_or(|(k, _)| *k != key) {
            let weights: Vec<f32> = (0..net.tables()).flat_map(|t| net.table(t)).collect();
            let stages = Stages::new(net.stages(), net.stage_len());
            let device = DeviceNetwork::upload(
                gpu.client(),
                net.bits(),
                net.lookup_layout(),
                stages,
                &weights,
            )?;
            self.network = Some((key, device));
        }
        Ok(())
    }

    /// An expectimax of every root of game `G` under `net`, `layers` chance layers deep, on
    /// `gpu`. The caller has checked that `net` is a network of `G` (as [`Expectimax`] does).
    pub fn search<R: Runtime, G: GpuStochasticGame>(
        &mut self,
        gpu: &GpuExecutor<R>,
        game: &G,
        net: &NTupleNetwork,
        roots: &[G::State],
        layers: u32,
    ) -> Result<Vec<RootValue>> {
        self.prepare_network(gpu, net)?;
        let searcher = Searcher {
            net: &self.network.as_ref().expect("uploaded").1,
            shape: self.shape,
            workspace: &mut self.workspace,
        };
        let found = launch_expectimax::<R, G>(gpu.client(), game, roots, layers, searcher)?;
        Ok(found
            .into_iter()
            .map(|d| RootValue {
                best: d.best,
                value: d.best.map_or(0.0, |b| d.actions[b as usize].unwrap_or(0.0)),
                actions: d.actions,
            })
            .collect())
    }
}

/// The expectimax searcher a user holds: an executor, how the CPU searches, and on a GPU the
/// device search's settings, network and buffers.
pub struct Expectimax {
    exec: Executor,
    options: ExpectimaxOptions,
    device: Option<GpuExpectimax>,
}

impl Expectimax {
    /// A searcher on `exec` with the default options (multilevel generation on a GPU).
    pub fn new(exec: Executor) -> Self {
        let device = crate::dispatch_gpu!(&exec, e => Some(GpuExpectimax::new(e)), cpu => None);
        Self {
            exec,
            options: ExpectimaxOptions::default(),
            device,
        }
    }

    /// The executor it searches on.
    pub fn executor(&self) -> &Executor {
        &self.exec
    }

    /// How the CPU searches (a GPU reads none of it).
    pub fn set_options(&mut self, options: ExpectimaxOptions) {
        self.options = options;
    }

    /// The device search (`None` on the CPU).
    pub fn device(&mut self) -> Option<&mut GpuExpectimax> {
        self.device.as_mut()
    }
}

impl<G: GpuStochasticGame + TupleGame> ExpectimaxEval<G, NTupleNetwork> for Expectimax {
    fn evaluate(
        &mut self,
        game: &G,
        value: &NTupleNetwork,
        roots: &[G::State],
        layers: u32,
    ) -> Result<Vec<RootValue>> {
        if let Executor::Cpu(cpu) = &self.exec {
            return evaluate_on_cpu(cpu, &self.options, game, value, roots, layers);
        }
        value.check_game::<G>()?;
        let device = self.device.as_mut().expect("a GPU executor's search");
        crate::dispatch_gpu!(
            &self.exec,
            e => device.search(e, game, value, roots, layers),
            cpu => unreachable!("answered above")
        )
    }
}
