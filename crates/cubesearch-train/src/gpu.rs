//! TD(0) training on a GPU: [`GpuTd`] plays the trainer's games with
//! `cubesearch_kernels::td` (weights on the device, f32 atomic adds) behind the same
//! [`TdEngine`] interface as the CPU trainer, so [`train_on`](crate::train_on) gives it the
//! CPU trainer's progress reports, learning curve, checkpoints and resuming.

use crate::engine::{TdEngine, TdGames};
use cubecl::prelude::*;
use cubesearch_core::{Error, Result, Stop};
use cubesearch_kernels::ntuple::Stages;
use cubesearch_kernels::td::{DeviceTd, LaneExchange, Stream, TdGame, TdNet, TdShape};
use cubesearch_kernels::GpuStochasticGame;
use cubesearch_learn::{Episode, NTupleNetwork, TdOrder, TupleGame};
use cubesearch_search::GpuExecutor;
/// The device form of `net`: its bits a cell, its tables (stage after stage), its lookups in
/// the order V sums them (`NTupleNetwork::lookup_layout`), its stages and its temporal
/// coherence sums.
pub fn td_net(net: &NTupleNetwork) -> TdNet {
    TdNet {
        bits: net.bits(),
        tables: (0..net.tables()).map(|t| net.table(t)).collect(),
        lookups: net.lookup_layout(),
        stages: Stages::new(net.stages(), net.stage_len()),
        coherence: net.coherence_tables(),
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
    /// An engine on `gpu` playing `units` games at once (default per [`TdShape::for_device`]).
    pub fn on(gpu: &GpuExecutor<R>, units: Option<u32>) -> Self {
        Self::new(gpu.client(), units, gpu.limits().loop_iterations)
    }

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
    pub(crate) fn play_pausing(
        &mut self,
        net: &NTupleNetwork,
        batch: TdGames,
        on_game: &mut dyn FnMut(TdGame) -> Result<()>,
        between: &mut dyn FnMut(&mut DeviceTd<R, G>) -> Result<()>,
    ) -> Result<()> {
        let TdGames {
            first,
            count: games,
            seed,
            step,
        } = batch;
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
        let stream = Stream {
            first: first as u32,
            games: games as u32,
            seed,
            step,
        };
        device.play_games_pausing(stream, &stop, on_game, between)
    }

    /// The device engine, made from `net`'s weights on first use (learning with temporal
    /// coherence if `net` does, its sums kept on the device).
    pub(crate) fn device(&mut self, net: &NTupleNetwork) -> Result<&mut DeviceTd<R, G>> {
        if self.device.is_none() {
            if !cubesearch_core::backend::DeviceLimits::of(
                &self.client,
                cubesearch_core::backend::DeviceKind::Hardware,
            )
            .f32_atomic_add
            {
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
                    if cubesearch_kernels::launch::planes_fit(&self.client) {
                        LaneExchange::Plane
                    } else {
                        LaneExchange::Cube
                    },
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
                net.set_coherence_tables(&sums, &sizes)?;
            }
        }
        Ok(())
    }

    /// Games played at once.
    pub(crate) fn units(&self) -> usize {
        self.shape().map_or_else(
            || {
                TdShape::for_device(
                    self.units,
                    24,
                    G::STATE_WORDS,
                    self.loop_budget,
                    LaneExchange::Cube,
                )
                .units
            },
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
        batch: TdGames,
        on_game: &mut dyn FnMut(Episode) -> Result<()>,
    ) -> Result<()> {
        net.check_game::<G>()?;
        self.play_pausing(net, batch, &mut |g| on_game(episode(g)), &mut |_| Ok(()))
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
