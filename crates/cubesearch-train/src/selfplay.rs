//! Self-play TD(0) of a two-player game where the executor runs: CPU threads sharing one table
//! (`cubesearch_learn::selfplay::learn_games`), or one GPU ([`cubesearch_kernels::selfplay`]),
//! each unit a game, the weights in device memory until the run ends. One unit on the device
//! learns the CPU's weights bit for bit from one thread's games.

use crate::gpu::td_net;
use cubecl::prelude::*;
use cubesearch_core::Result;
use cubesearch_kernels::selfplay::{
    DeviceSelfPlay, DeviceTupleGame, SelfPlayShape, SelfPlayStep, AVERAGED_FROM_UNITS,
};
use cubesearch_kernels::GpuGame;
use cubesearch_learn::selfplay::{learn_games, SelfPlayPlan, SelfPlayRun, TwoPlayerTupleGame};
use cubesearch_learn::NTupleNetwork;
use cubesearch_search::{DeviceTask, Executor, GpuExecutor};

/// Games at once on a GPU when the plan names none; 64 on a device with a loop limit
/// (lavapipe).
pub const DEFAULT_UNITS: u32 = 65_536;

/// The TD step where updates are added one by one (CPU threads, fewer than
/// [`AVERAGED_FROM_UNITS`] device units).
pub const ALPHA: f32 = 0.1;

/// The TD step where a launch's updates are averaged ([`AVERAGED_FROM_UNITS`] device units and
/// more): a mean moves a weight that many games share far less than their sum. Measured on
/// Reversi, four shapes, 8,192 games on lavapipe, 100 greedy games against the CPU's one
/// thread at [`ALPHA`]: 0.1 scored 8 %, 0.3 15 %, 0.5 34 %, 0.6 49 %, 0.7 45 %, 0.8 60 %; 1.2
/// diverged. On an H200 (65,536 units, 4.72 M games, docs/BENCHMARKS.md), 0.8 scored 83.0 %
/// against the hand-written alpha-beta, 0.6 76.5 %.
pub const AVERAGED_ALPHA: f32 = 0.8;

/// Games at once on a device whose loop limit is `loop_budget`: `units`, or the default, and
/// never more than the `games` to play (a unit without a game would idle).
fn device_units(units: Option<u32>, loop_budget: Option<u32>, games: u64) -> u32 {
    units
        .unwrap_or(if loop_budget.is_some() {
            64
        } else {
            DEFAULT_UNITS
        })
        .min(games.clamp(1, u64::from(u32::MAX)) as u32)
}

/// The TD step self-play takes on `exec` with `units` games at once (`None`: the default) for
/// `games` games when the user names none: [`AVERAGED_ALPHA`] where updates are averaged, else
/// [`ALPHA`]. Fewer games than units leave the units without one idle, so they count too.
pub fn default_alpha(exec: &Executor, units: Option<u32>, games: u64) -> f32 {
    match exec.limits() {
        Some(limits)
            if device_units(units, limits.loop_iterations, games) >= AVERAGED_FROM_UNITS =>
        {
            AVERAGED_ALPHA
        }
        _ => ALPHA,
    }
}

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
        let units = device_units(plan.units, loop_budget, plan.games);
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
        // Games start while the plan has games left and no stop; the run ends once every
        // started game is finished.
        let mut run = SelfPlayRun::default();
        let mut started = 0u64;
        loop {
            let limit = if plan.stop.is_raised() {
                0
            } else {
                (plan.games - started).min(u64::from(u32::MAX)) as u32
            };
            let launched = device.launch(limit, step)?;
            started += u64::from(launched.started);
            run.games += u64::from(launched.finished);
            run.moves += u64::from(launched.moves);
            on_progress(run.games);
            if launched.live == 0 && (limit == 0 || started >= plan.games) {
                break;
            }
        }
        for (t, table) in device.tables()?.into_iter().enumerate() {
            net.set_table(t, table.into_iter());
        }
        Ok(run)
    }
}
