//! Expectimax on whichever backend was chosen: every [`GpuExecutor`] keeps a [`GpuExpectimax`]
//! (how it searches, the uploaded network, the search's buffers) and runs the device search of
//! `cubesearch_kernels::expectimax` for any [`GpuStochasticGame`]; [`Executor`] answers
//! [`ExpectimaxEval`] on the CPU or a GPU through its one dispatch.
//!
//! `cubesearch::expectimax_gpu` compares it with the CPU on a game.

use crate::expectimax::ExpectimaxOptions;
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

/// The device expectimax of one GPU executor: how it searches, the network on the device and
/// the buffers kept from search to search.
pub struct GpuExpectimax {
    shape: SearchShape,
    /// The uploaded network and the host network it copies (its id): a call with another
    /// network uploads that one.
    network: Option<(u64, DeviceNetwork)>,
    /// The search's buffers, kept from move to move.
    workspace: Workspace,
}

impl GpuExpectimax {
    /// Multilevel generation on `client`'s device, with plane ops where it has them.
    pub fn new<R: Runtime>(client: &ComputeClient<R>) -> Self {
        Self {
            shape: SearchShape::on(client, ExpectimaxMethod::default()),
            network: None,
            workspace: Workspace::default(),
        }
    }
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

impl<R: Runtime> GpuExecutor<R> {
    /// The expectimax generation scheme.
    pub fn expectimax_method(&self) -> ExpectimaxMethod {
        self.expectimax.shape.method
    }

    /// Switches the expectimax generation scheme (the uploaded weights stay).
    pub fn set_expectimax_method(&mut self, method: ExpectimaxMethod) {
        self.expectimax.shape.method = method;
    }

    /// How expectimax folds its blocks (with plane ops by default where the device has them).
    pub fn expectimax_fold(&self) -> ExpectimaxFold {
        if self.expectimax.shape.plane_ops {
            ExpectimaxFold::PlaneOps
        } else {
            ExpectimaxFold::SharedMemory
        }
    }

    /// Folds with plane ops or in shared memory only; asking for plane ops on a device without
    /// 32-unit planes is an error at the next search.
    pub fn set_expectimax_fold(&mut self, fold: ExpectimaxFold) {
        self.expectimax.shape.plane_ops = fold == ExpectimaxFold::PlaneOps;
    }

    /// Cuts expectimax batches into chunks whose largest buffer holds at most this many words
    /// (default and most: the kernels' `MAX_ENTRIES`; a root takes `words_per_root`); tests
    /// use it to cover the chunking with small batches.
    pub fn set_expectimax_chunk_entries(&mut self, entries: usize) {
        self.expectimax.shape.max_entries = entries;
    }

    /// Forgets the uploaded weights: the next search uploads them again (needed after
    /// changing a network's weights in place).
    pub fn reload_expectimax_network(&mut self) {
        self.expectimax.network = None;
    }

    /// Uploads `net` now unless it is the network already on the device.
    fn prepare_network(&mut self, net: &NTupleNetwork) -> Result<()> {
        let key = net.id();
        let state = &mut self.expectimax;
        if state.network.as_ref().is_none_or(|(k, _)| *k != key) {
            let weights: Vec<f32> = (0..net.tables()).flat_map(|t| net.table(t)).collect();
            let stages = device_stages(net);
            let device = DeviceNetwork::upload(
                &self.client,
                net.bits(),
                net.lookup_layout(),
                stages,
                &weights,
            )?;
            state.network = Some((key, device));
        }
        Ok(())
    }

    /// An expectimax of every root of game `G` under `net` (which the caller has checked is a
    /// network of `G`), `layers` chance layers deep, on this device.
    pub fn expectimax<G: GpuStochasticGame>(
        &mut self,
        game: &G,
        net: &NTupleNetwork,
        roots: &[G::State],
        layers: u32,
    ) -> Result<Vec<RootValue>> {
        self.prepare_network(net)?;
        let state = &mut self.expectimax;
        let searcher = Searcher {
            net: &state.network.as_ref().expect("prepared").1,
            shape: state.shape,
            workspace: &mut state.workspace,
        };
        let found = launch_expectimax::<R, G>(&self.client, game, roots, layers, searcher)?;
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

/// The network is checked to be `G`'s, then searched with on the device.
impl<R: Runtime, G: GpuStochasticGame + TupleGame> ExpectimaxEval<G, NTupleNetwork>
    for GpuExecutor<R>
{
    fn evaluate(
        &mut self,
        game: &G,
        value: &NTupleNetwork,
        roots: &[G::State],
        layers: u32,
    ) -> Result<Vec<RootValue>> {
        value.check_game::<G>()?;
        self.expectimax(game, value, roots, layers)
    }
}

impl<G: GpuStochasticGame + TupleGame> ExpectimaxEval<G, NTupleNetwork> for Executor {
    fn evaluate(
        &mut self,
        game: &G,
        value: &NTupleNetwork,
        roots: &[G::State],
        layers: u32,
    ) -> Result<Vec<RootValue>> {
        crate::dispatch!(self, e => e.evaluate(game, value, roots, layers))
    }
}

impl Executor {
    /// Switches a GPU executor's expectimax generation scheme (no effect on the CPU).
    pub fn set_expectimax_method(&mut self, method: ExpectimaxMethod) {
        crate::dispatch_gpu!(self, e => e.set_expectimax_method(method), cpu => ())
    }

    /// A GPU executor's expectimax fold (`None` on the CPU).
    pub fn expectimax_fold(&self) -> Option<ExpectimaxFold> {
        crate::dispatch_gpu!(self, e => Some(e.expectimax_fold()), cpu => None)
    }

    /// Switches a GPU executor's expectimax fold (no effect on the CPU).
    pub fn set_expectimax_fold(&mut self, fold: ExpectimaxFold) {
        crate::dispatch_gpu!(self, e => e.set_expectimax_fold(fold), cpu => ())
    }

    /// How the CPU's expectimax searches (no effect on a GPU).
    pub fn set_expectimax_options(&mut self, options: ExpectimaxOptions) {
        if let Executor::Cpu(cpu) = self {
            cpu.expectimax = options;
        }
    }
}

/// `net`'s stages as the device reads them.
pub fn device_stages(net: &NTupleNetwork) -> Stages {
    Stages {
        thresholds: net.stages().to_vec(),
        len: net.stage_len() as u32,
    }
}
