//! Labels of positions on any executor: the CPU's search (`cubesearch_learn::labels`), or one
//! GPU's kernel (`cubesearch_kernels::labels`), which gives the CPU's labels bit for bit. Exact
//! labels come from the game's solver on CPU threads either way.

use crate::gpu::td_net;
use cubecl::prelude::*;
use cubesearch_core::Result;
use cubesearch_kernels::labels::{launch_labels, LabelSearch};
use cubesearch_kernels::selfplay::DeviceTupleGame;
use cubesearch_kernels::GpuGame;
use cubesearch_learn::labels::{label_positions, Label};
use cubesearch_learn::selfplay::TwoPlayerTupleGame;
use cubesearch_learn::NTupleNetwork;
use cubesearch_search::{DeviceTask, Executor, GpuExecutor};
use rayon::prelude::*;

/// Positions a GPU labels in one launch when a caller hands it more.
pub const DEVICE_BATCH: usize = 1 << 18;

/// Each position's label as `label` says, on `exec` (the CPU on its pool, a GPU by the
/// kernel); `None` once `label.stop` is raised.
pub fn label_on<G>(
    exec: &Executor,
    game: &G,
    net: &NTupleNetwork,
    positions: &[G::State],
    label: &Label<G>,
) -> Result<Option<Vec<f32>>>
where
    G: TwoPlayerTupleGame + GpuGame,
    G::Device: DeviceTupleGame,
{
    net.check_game::<G>()?;
    let stop = &label.stop;
    if let Executor::Cpu(cpu) = exec {
        return Ok(cpu
            .pool()
            .install(|| label_positions(game, net, positions, label)));
    }
    let device = td_net(net);
    let mut labels = Vec::with_capacity(positions.len());
    for batch in positions.chunks(DEVICE_BATCH) {
        if stop.is_raised() {
            return Ok(None);
        }
        let task = OnDevice {
            game,
            net: &device,
            positions: batch,
            depth: label.depth,
        };
        labels.extend(exec.on_device(task, "")?);
    }
    // The exact labels, where the solver knows them, over the searched ones.
    if let Some(exact) = label.exact {
        let known: Vec<Option<f32>> = positions
            .par_iter()
            .map(|p| if stop.is_raised() { None } else { exact(p) })
            .collect();
        for (l, k) in labels.iter_mut().zip(known) {
            if let Some(v) = k {
                *l = v;
            }
        }
    }
    Ok((!stop.is_raised()).then_some(labels))
}

/// One launch of the label kernel.
struct OnDevice<'a, G: GpuGame> {
    game: &'a G,
    net: &'a cubesearch_kernels::td::TdNet,
    positions: &'a [G::State],
    depth: u32,
}

impl<G> DeviceTask for OnDevice<'_, G>
where
    G: GpuGame,
    G::Device: DeviceTupleGame,
{
    type Output = Vec<f32>;

    fn run<R: Runtime>(self, gpu: &GpuExecutor<R>) -> Result<Vec<f32>> {
        let search = LabelSearch {
            depth: self.depth,
            loop_budget: gpu.limits().loop_iterations,
        };
        launch_labels::<R, G>(gpu.client(), self.net, self.game, self.positions, search)
    }
}
