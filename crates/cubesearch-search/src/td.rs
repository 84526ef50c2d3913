//! TD(0) training on a GPU: [`GpuTd`] plays the trainer's games with
//! `cubesearch_kernels::td` (weights on the device, f32 atomic adds) behind the same
//! [`TdEngine`] interface as the CPU trainer, so `cubesearch_learn::train_on` gives it the
//! CPU trainer's progress reports, learning curve, checkpoints and resuming.
//!
//! `cubesearch::td` trains a network of a game this way.

use crate::{CpuExecutor, Executor, GpuExecutor};
use cubecl::prelude::*;
use cubesearch_core::{Error, Result, Stop, TdUpdate};
use cubesearch_kernels::ntuple::Stages;
use cubesearch_kernels::td::{DeviceTd, TdGame, TdNet, TdShape};
use cubesearch_kernels::GpuStochasticGame;
use cubesearch_learn::{CpuEngine, CpuTd, Episode, NTupleNetwork, TdEngine, TdOrder, TupleGame};

pub use crate::td_multi::MultiGpuTd;
pub use crate::td_ranks::MERGE_EVERY;
/// The device form of `net`: its bits a cell, its tables (stage after stage), its lookups in
/// the order V sums them (`NTupleNetwork::lookup_layout`), its stages and its temporal
/// coherence sums.
pub fn td_net(net: &NTupleNetwork) -> TdNet {
    TdNet {
        bits: net.bits(),
        tables: (0..net.tables()).map(|t| net.table(t)).collect(),
        lookups: net.lookup_layout(),
        stages: device_stages(net),
        coherence: net.coherence_tables(),
    }
}

/// `net`'s stages as the device reads them.
pub(crate) fn device_stages(net: &NTupleNetwork) -> Stages {
    Stages {
        thresholds: net.stages().to_vec(),
        len: net.stage_len() as u32,
    }
}

/// A finished device game as the trainer's [`Episode`].
pub(crate) fn episode(g: TdGame) -> Episode {
    Episode {
        score: g.score as u64,
        moves: g.moves,
        progress: g.progress,
    }
}

/// A TD(0) engine for game `G` on one GPU; the device copy of the weights is made on the first
/// `play` and read back only by `sync` (checkpoints and the end of a run).
pub struct GpuTd<R: Runtime, G: GpuStochasticGame> {
    client: ComputeClient<R>,
    units: Option<u32>,
    loop_budget: Option<u32>,
    order: TdOrder,
    pub(crate) device: Option<DeviceTd<R, G>>,
    pub(crate) stop: Stop,
}

impl<R: Runtime, G: GpuStochasticGame> GpuTd<R, G> {
    /// An engine on `client` playing `units` games at once (default per
    /// [`TdShape::for_device`]); `loop_budget` is the device's loop limit, if any.
    pub fn new(client: &ComputeClient<R>, units: Option<u32>, loop_budget: Option<u32>) -> Self {
        Self {
            client: client.clone(),
            units,
            loop_budget,
            order: TdOrder::default(),
            device: None,
            stop: Stop::new(),
        }
    }

    /// The engine learning in `order` ([`TdShape::forward`]): backward at each game's end
    /// (the default), or forward, each afterstate once the next move is chosen, which needs
    /// averaged launches (from `cubesearch_kernels::td::AVERAGED_FROM_UNITS` units on: the
    /// first `play` fails without them).
    pub fn with_order(self, order: TdOrder) -> Self {
        Self { order, ..self }
    }

    /// The launch shape in use (known after the first `play`).
    pub fn shape(&self) -> Option<TdShape> {
        self.device.as_ref().map(|d| d.shape())
    }

    /// Plays and learns from games `first..first + games` of `net` (a network of `G`, which
    /// the caller has checked), handing each finished game to `on_game` in order and calling
    /// `between` with the device after every launch that leaves games to play
    /// ([`DeviceTd::play_games_pausing`]).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn play_pausing(
        &mut self,
        net: &NTupleNetwork,
        first: u64,
        games: u64,
        seed: u32,
        step: f32,
        on_game: &mut dyn FnMut(TdGame) -> Result<()>,
        between: &mut dyn FnMut(&mut DeviceTd<R, G>) -> Result<()>,
    ) -> Result<()> {
        if first + games > u32::MAX as u64 {
            return Err(Error::Unsupported(format!(
                "game numbers up to {}: the GPU trainer numbers games with u32",
                first + games
            )));
        }
        let stop = self.stop.clone();
        let device = self.device(net)?;
        if stop.is_raised() {
            return Ok(());
        }
        // One stream of games: units take the next game as they free up.
        device.play_games_pausing(
            first as u32,
            games as u32,
            seed,
            step,
            &stop,
            on_game,
            between,
        )
    }

    /// The device engine, made from `net`'s weights on first use (learning with temporal
    /// coherence if `net` does, its sums kept on the device).
    pub(crate) fn device(&mut self, net: &NTupleNetwork) -> Result<&mut DeviceTd<R, G>> {
        if self.device.is_none() {
            if !cubesearch_core::backend::DeviceLimits::of(&self.client, false).f32_atomic_add {
                return Err(Error::Unsupported(
                    "this device has no f32 atomic add, which GPU training needs (on wgpu: an \
                     adapter without SHADER_FLOAT32_ATOMIC); use --backend cuda or cpu"
                        .into(),
                ));
            }
            let mut shape = TdShape {
                coherence: net.coherent(),
                forward: self.order == TdOrder::Forward,
                ..TdShape::for_device(
                    self.units,
                    net.lookups() as u32,
                    G::STATE_WORDS,
                    self.loop_budget,
                    cubesearch_kernels::launch::planes_fit(&self.client),
                )
            };
            if shape.averaged {
                if let Some(path) = G::TD_PATH {
                    shape.cap = shape.cap.min(path);
                }
                if shape.forward {
                    shape.cap = 1;
                }
            }
            self.device = Some(DeviceTd::new(&self.client, &td_net(net), shape)?);
        }
        Ok(self.device.as_mut().expect("made above"))
    }

    /// Copies the device's weights, and its coherence sums when it has them, into `net`.
    pub(crate) fn sync_weights(&mut self, net: &mut NTupleNetwork) -> Result<()> {
        if let Some(device) = &self.device {
            for (t, table) in device.read_tables()?.into_iter().enumerate() {
                net.set_table(t, table.into_iter());
            }
            // The device learns with coherence when `net` does (`Self::device`).
            if let Some([sums, sizes]) = device.read_coherence()? {
                net.set_coherence_tables(&sums, &sizes);
            }
        }
        Ok(())
    }

    /// Games played at once.
    pub(crate) fn units(&self) -> usize {
        self.shape().map_or_else(
            || TdShape::for_device(self.units, 24, G::STATE_WORDS, self.loop_budget, false).units,
            |s| s.units,
        ) as usize
    }
}

/// The device twin is the game's type: `game` itself is not read.
impl<R: Runtime, G: GpuStochasticGame + TupleGame> TdEngine<G> for GpuTd<R, G> {
    fn play(
        &mut self,
        _game: &G,
        net: &NTupleNetwork,
        first: u64,
        games: u64,
        seed: u32,
        step: f32,
        on_game: &mut dyn FnMut(Episode) -> Result<()>,
    ) -> Result<()> {
        net.check_game::<G>()?;
        self.play_pausing(
            net,
            first,
            games,
            seed,
            step,
            &mut |g| on_game(episode(g)),
            &mut |_| Ok(()),
        )
    }

    fn sync(&mut self, net: &mut NTupleNetwork) -> Result<()> {
        self.sync_weights(net)
    }

    fn parallelism(&self) -> usize {
        self.units()
    }

    fn set_stop(&mut self, stop: &Stop) {
        self.stop = stop.clone();
    }

    fn games_between_clock_checks(&self) -> u64 {
        // The device checks the stop request after every launch; every call ends with its longest
        // games alone on the device, so calls are long.
        self.parallelism() as u64 * 1024
    }

    fn occupancy(&self) -> Option<f64> {
        self.device.as_ref().and_then(|d| d.occupancy())
    }
}

impl<R: Runtime> GpuExecutor<R> {
    /// A TD(0) engine on this device playing `units` games at once (default per
    /// [`TdShape::for_device`]).
    pub fn td_engine<G: GpuStochasticGame>(&self, units: Option<u32>) -> GpuTd<R, G> {
        GpuTd::new(self.client(), units, self.limits().loop_iterations)
    }

    /// [`GpuExecutor::td_engine`] boxed, as [`Executor`] hands it out.
    fn boxed_td_engine<G: GpuStochasticGame + TupleGame>(
        &self,
        units: Option<u32>,
    ) -> Box<dyn TdEngine<G>> {
        Box::new(self.td_engine::<G>(units))
    }
}

impl CpuExecutor {
    /// The CPU trainer on this executor's threads (`units` is for GPUs).
    fn boxed_td_engine<G: TupleGame>(&self, _units: Option<u32>) -> Box<dyn TdEngine<G>> {
        Box::new(CpuEngine {
            threads: self.threads(),
            sharing: Default::default(),
            order: Default::default(),
            stop: Default::default(),
        })
    }
}

impl Executor {
    /// A TD(0) engine on this executor: CPU threads, or the GPU with `units` games at once
    /// (default per [`TdShape::for_device`]).
    pub fn td_engine<G: GpuStochasticGame + TupleGame>(
        &self,
        units: Option<u32>,
    ) -> Box<dyn TdEngine<G>> {
        crate::dispatch!(self, e => e.boxed_td_engine::<G>(units))
    }

    /// A TD(0) engine on `gpus` devices of this executor's backend ([`MultiGpuTd`]), learning
    /// in `order` ([`GpuTd::with_order`]); one GPU learning backward is
    /// [`Executor::td_engine`]. Several GPUs need CUDA and that many devices; forward order
    /// needs a GPU.
    pub fn td_engine_on_gpus<G: GpuStochasticGame + TupleGame>(
        &self,
        gpus: usize,
        units: Option<u32>,
        order: TdOrder,
    ) -> Result<Box<dyn TdEngine<G>>> {
        if gpus <= 1 {
            if order == TdOrder::Backward {
                return Ok(self.td_engine::<G>(units));
            }
            return crate::dispatch_gpu!(
                self,
                e => Ok(Box::new(e.td_engine::<G>(units).with_order(order))),
                cpu => Err(Error::Unsupported(
                    "a CPU trainer's order is its own (CpuEngine::order)".into()
                ))
            );
        }
        match self {
            #[cfg(feature = "cuda")]
            Executor::Cuda(_) => {
                use cubecl::cuda::{CudaDevice, CudaRuntime};
                let found = cubesearch_core::backend::cuda_device_count();
                if found < gpus {
                    return Err(Error::Unsupported(format!(
                        "--gpus {gpus}: only {found} CUDA device(s) found"
                    )));
                }
                let clients = (0..gpus)
                    .map(|i| {
                        cubesearch_core::backend::start_client::<CudaRuntime>(
                            &CudaDevice::new(i),
                            "cuda",
                        )
                    })
                    .collect::<Result<Vec<_>>>()?;
                Ok(Box::new(
                    MultiGpuTd::<CudaRuntime, G>::new(&clients, units, None).with_order(order),
                ))
            }
            _ => Err(Error::Unsupported(format!(
                "--gpus {gpus} trains on several CUDA devices: use --backend cuda on an NVIDIA host"
            ))),
        }
    }
}

impl<R: Runtime, G: GpuStochasticGame + TupleGame> TdUpdate<G, NTupleNetwork> for GpuExecutor<R> {
    fn train(
        &mut self,
        game: &G,
        value: &mut NTupleNetwork,
        games: u32,
        alpha: f32,
        seed: u32,
    ) -> Result<Vec<u64>> {
        let mut engine = self.td_engine::<G>(None);
        cubesearch_learn::train_scores(&mut engine, game, value, games, alpha, seed)
    }
}

impl<G: TupleGame> TdUpdate<G, NTupleNetwork> for CpuExecutor {
    fn train(
        &mut self,
        game: &G,
        value: &mut NTupleNetwork,
        games: u32,
        alpha: f32,
        seed: u32,
    ) -> Result<Vec<u64>> {
        CpuTd {
            threads: self.threads(),
        }
        .train(game, value, games, alpha, seed)
    }
}

impl<G: GpuStochasticGame + TupleGame> TdUpdate<G, NTupleNetwork> for Executor {
    fn train(
        &mut self,
        game: &G,
        value: &mut NTupleNetwork,
        games: u32,
        alpha: f32,
        seed: u32,
    ) -> Result<Vec<u64>> {
        crate::dispatch!(self, e => e.train(game, value, games, alpha, seed))
    }
}
