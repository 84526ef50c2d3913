//! Self-play TD(0) of a two-player game where the executor runs: CPU threads sharing one table
//! (`cubesearch_learn::selfplay::learn_games`), or one GPU ([`cubesearch_kernels::selfplay`]),
//! each unit a game, the weights in device memory until the run ends. One unit on the device
//! learns the CPU's weights bit for bit from one thread's games.

use crate::gpu::td_net;
use cubecl::prelude::*;
use cubesearch_core::Result;
use cubesearch_kernels::selfplay::{DeviceSelfPlay, DeviceTupleGame, SelfPlayShape, SelfPlayStep};
use cubesearch_kernels::GpuGame;
use cubesearch_learn::selfplay::{learn_games, SelfPlayPlan, SelfPlayRun, TwoPlayerTupleGame};
use cubesearch_learn::NTupleNetwork;
use cubesearch_search::{DeviceTask, Executor, GpuExecutor};

/// Games at once on a GPU when the plan names none; 64 on a device with a loop limit
/// (lavapipe).
pub const DEFAULT_UNITS: u32 = 65_536;

/// Plays `plan.games` self-play games of `game` from its start on `exec` (until `plan.stop`),
/// learning into `net`; `on_progress` is told the games played so far, now and then.
pub fn learn_self_play<G>(
    exec: &Executor,
    game: &G,
    net: &mut NTupleNetwork,
    plan: SelfPlayPlan,
    on_progress: &mut dyn FnMut(u64),
) -> Result<SelfPlayRun>
where
    G: TwoPlayerTupleGame + GpuGame,
    G::Device: DeviceTupleGame,
{
    if exec.is_cpu() {
        return Ok(learn_games(game, net, game.initial(), plan, on_progress));
    }
    exec.on_device(
        OnDevice {
            game,
            net,
            plan,
            on_progress,
        },
        "",
    )
}

struct OnDevice<'a, G> {
    game: &'a G,
    net: &'a mut NTupleNetwork,
    plan: SelfPlayPlan,
    on_progress: &'a mut dyn FnMut(u64),
}

impl<G> DeviceTask for OnDevice<'_, G>
where
    G: TwoPlayerTupleGame + GpuGame,
    G::Device: DeviceTupleGame,
{
    type Output = SelfPlayRun;

    fn run<R: Runtime>(self, gpu: &GpuExecutor<R>) -> Result<SelfPlayRun> {
        let OnDevice {
            game,
            net,
            plan,
            on_progress,
        } = self;
        let loop_budget = gpu.limits().loop_iterations;
        let units = plan
            .units
            .unwrap_or(if loop_budget.is_some() {
                64
            } else {
                DEFAULT_UNITS
            })
            .min(plan.games.clamp(1, u64::from(u32::MAX)) as u32);
        let shape = SelfPlayShape {
            units,
            seed: plan.seed,
            loop_budget,
        };
        let mut device =
            DeviceSelfPlay::<R, G>::new(gpu.client(), &td_net(net), game, &game.initial(), shape)?;
        let step = SelfPlayStep {
            alpha: plan.options.alpha,
            epsilon: plan.options.epsilon,
        };
        let mut run = SelfPlayRun::default();
        while run.games < plan.games && !plan.stop.is_raised() {
            let active = (plan.games - run.games).min(u64::from(units)) as u32;
            run.moves += device.round(active, step)?;
            run.games += u64::from(active);
            on_progress(run.games);
        }
        for (t, table) in device.tables()?.into_iter().enumerate() {
            net.set_table(t, table.into_iter());
        }
        Ok(run)
    }
}
