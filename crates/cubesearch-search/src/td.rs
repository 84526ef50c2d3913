//! TD(0) training on a GPU: [`GpuTd`] plays the trainer's games with
//! `cubesearch_kernels::fib::td` (weights on the device, f32 atomic adds) behind the same
//! [`TdEngine`] interface as the CPU trainer, so `cubesearch_learn::train_on` gives it the
//! CPU trainer's progress reports, learning curve, checkpoints and resuming.

use crate::{CpuExecutor, Executor, GpuExecutor};
use cubecl::prelude::*;
use cubesearch_core::{Error, Result, TdUpdate};
use cubesearch_games::fib::{symmetry_cell, Sliding};
use cubesearch_kernels::fib::td::{DeviceTd, TdNet, TdShape};
use cubesearch_kernels::fib::GpuTiles;
use cubesearch_learn::{CpuEngine, CpuTd, Episode, NTupleNetwork, TdEngine};

/// The device form of `net`: its tables, and its lookups in the order V sums them (shape by
/// shape, symmetries 0..8 within a shape, as `NTupleNetwork` builds them).
pub fn td_net(net: &NTupleNetwork) -> TdNet {
    let shapes = net.shapes();
    TdNet {
        tables: (0..shapes.len()).map(|t| net.table(t)).collect(),
        lookups: shapes
            .iter()
            .enumerate()
            .flat_map(|(t, shape)| {
                (0..8).map(move |s| {
                    (
                        t,
                        shape
                            .iter()
                            .map(|&c| symmetry_cell(s, c as usize) as u8)
                            .collect(),
                    )
                })
            })
            .collect(),
    }
}

/// A TD(0) engine on one GPU; the device copy of the weights is made on the first `play` and
/// read back only by `sync` (checkpoints and the end of a run).
pub struct GpuTd<R: Runtime, T: GpuTiles> {
    client: ComputeClient<R>,
    units: Option<u32>,
    loop_budget: Option<u32>,
    device: Option<DeviceTd<R, T>>,
}

impl<R: Runtime, T: GpuTiles> GpuTd<R, T> {
    /// An engine on `client` playing `units` games at once (default per
    /// [`TdShape::for_device`]); `loop_budget` is the device's loop limit, if any.
    pub fn new(client: &ComputeClient<R>, units: Option<u32>, loop_budget: Option<u32>) -> Self {
        Self {
            client: client.clone(),
            units,
            loop_budget,
            device: None,
        }
    }

    /// The launch shape in use (known after the first `play`).
    pub fn shape(&self) -> Option<TdShape> {
        self.device.as_ref().map(|d| d.shape())
    }
}

impl<R: Runtime, T: GpuTiles> TdEngine<T> for GpuTd<R, T> {
    fn play(
        &mut self,
        net: &NTupleNetwork,
        first: u64,
        games: u64,
        seed: u32,
        step: f32,
        on_game: &mut dyn FnMut(Episode) -> Result<()>,
    ) -> Result<()> {
        net.check_game::<T>()?;
        if first + games > u32::MAX as u64 {
            return Err(Error::Unsupported(format!(
                "game numbers up to {}: the GPU trainer numbers games with u32",
                first + games
            )));
        }
        if self.device.is_none() {
            let shape = TdShape::for_device(self.units, net.lookups() as u32, self.loop_budget);
            self.device = Some(DeviceTd::new(&self.client, &td_net(net), shape)?);
        }
        let device = self.device.as_mut().expect("made above");
        // Batches of several games a unit keep the units busy; each batch's games come back in
        // order.
        let batch = device.shape().units as u64 * 8;
        let mut done = 0u64;
        while done < games {
            let n = batch.min(games - done);
            for g in device.play_batch((first + done) as u32, n as u32, seed, step)? {
                on_game(Episode {
                    score: g.score as u64,
                    moves: g.moves,
                    max_index: g.max_index,
                })?;
            }
            done += n;
        }
        Ok(())
    }

    fn sync(&mut self, net: &mut NTupleNetwork) -> Result<()> {
        if let Some(device) = &self.device {
            for (t, table) in device.read_tables()?.into_iter().enumerate() {
                net.set_table(t, table.into_iter());
            }
        }
        Ok(())
    }

    fn parallelism(&self) -> usize {
        self.shape().map_or_else(
            || TdShape::for_device(self.units, 24, self.loop_budget).units,
            |s| s.units,
        ) as usize
    }
}

impl<R: Runtime> GpuExecutor<R> {
    /// A TD(0) engine on this device playing `units` games at once (default per
    /// [`TdShape::for_device`]).
    pub fn td_engine<T: GpuTiles>(&self, units: Option<u32>) -> GpuTd<R, T> {
        GpuTd::new(self.client(), units, self.limits().loop_iterations)
    }
}

impl Executor {
    /// A TD(0) engine on this executor: CPU threads, or the GPU with `units` games at once
    /// (default per [`TdShape::for_device`]).
    pub fn td_engine<T: GpuTiles>(&self, units: Option<u32>) -> Box<dyn TdEngine<T>> {
        match self {
            Executor::Cpu(e) => Box::new(CpuEngine {
                threads: e.threads(),
            }),
            #[cfg(feature = "wgpu")]
            Executor::Wgpu(e) => Box::new(e.td_engine::<T>(units)),
            #[cfg(feature = "cuda")]
            Executor::Cuda(e) => Box::new(e.td_engine::<T>(units)),
        }
    }
}

/// Plays `games` with `engine` from `value`'s weights and copies the learned weights back.
fn train_games<T: GpuTiles>(
    engine: &mut dyn TdEngine<T>,
    value: &mut NTupleNetwork,
    games: u32,
    alpha: f32,
    seed: u32,
) -> Result<Vec<u64>> {
    value.check_game::<T>()?;
    let step = alpha / value.lookups() as f32;
    let mut scores = Vec::with_capacity(games as usize);
    engine.play(value, 0, games as u64, seed, step, &mut |e| {
        scores.push(e.score);
        Ok(())
    })?;
    engine.sync(value)?;
    Ok(scores)
}

impl<R: Runtime, T: GpuTiles> TdUpdate<Sliding<T>, NTupleNetwork> for GpuExecutor<R> {
    fn train(
        &mut self,
        _game: &Sliding<T>,
        value: &mut NTupleNetwork,
        games: u32,
        alpha: f32,
        seed: u32,
    ) -> Result<Vec<u64>> {
        let mut engine = self.td_engine::<T>(None);
        train_games(&mut engine, value, games, alpha, seed)
    }
}

impl<T: GpuTiles> TdUpdate<Sliding<T>, NTupleNetwork> for CpuExecutor {
    fn train(
        &mut self,
        game: &Sliding<T>,
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

impl<T: GpuTiles> TdUpdate<Sliding<T>, NTupleNetwork> for Executor {
    fn train(
        &mut self,
        game: &Sliding<T>,
        value: &mut NTupleNetwork,
        games: u32,
        alpha: f32,
        seed: u32,
    ) -> Result<Vec<u64>> {
        crate::dispatch!(self, e => e.train(game, value, games, alpha, seed))
    }
}
