//! Self-play TD(0) of a two-player game where the run's engine is: CPU threads sharing one
//! table (`cubesearch_learn::selfplay::learn_games`), or one GPU
//! ([`cubesearch_kernels::selfplay`]), each unit a game, the weights in device memory between
//! syncs. Both are [`Learner`]s of the one training loop ([`SelfPlayTd`](crate::SelfPlayTd)).
//! One unit on the device learns the CPU's weights bit for bit from one thread's games.

use crate::config::TrainConfig;
use crate::gpu::td_net;
use crate::learner::{Batch, Learner, Started};
use crate::placement::Placement;
use cubecl::prelude::*;
use cubesearch_core::backend::{resolve, ResolvedBackend};
use cubesearch_core::{Error, Result, Stop};
use cubesearch_kernels::selfplay::{
    DeviceSelfPlay, DeviceTupleGame, SelfPlayShape, SelfPlayStep, AVERAGED_FROM_UNITS,
};
use cubesearch_kernels::GpuGame;
use cubesearch_learn::runner::thread_count;
use cubesearch_learn::selfplay::{
    learn_games, SelfPlay, SelfPlayGame, SelfPlayPlan, SelfPlayRun, TwoPlayerTupleGame,
};
use cubesearch_learn::{Episode, NTupleNetwork};
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

/// The chance of a random move when a run names none: enough that games leave the network's
/// one line.
pub const EPSILON: f32 = 0.1;

/// The self-play learner `cfg.engine` names for `game`: CPU threads, or one GPU.
pub(crate) fn self_play_learner<'a, G>(game: &'a G, cfg: &TrainConfig) -> Result<Started<'a>>
where
    G: TwoPlayerTupleGame + GpuGame,
    G::Device: DeviceTupleGame,
{
    let epsilon = cfg.epsilon.unwrap_or(EPSILON);
    let resolved = resolve(cfg.engine.backend)?;
    if let ResolvedBackend::Cpu { .. } = resolved {
        if let Some(units) = cfg.engine.units {
            return Err(Error::parse(format!(
                "{units} units is a GPU trainer's games at once, and this run trains on the CPU"
            )));
        }
        let threads = thread_count(cfg.engine.threads.unwrap_or(1));
        return Ok(Started {
            learner: Box::new(OnCpu {
                game,
                threads,
                epsilon,
                stop: Stop::new(),
            }),
            placement: Placement::new(&ResolvedBackend::Cpu { threads }, (0, 1), None),
            default_alpha: ALPHA,
        });
    }
    if let Some(threads) = cfg.engine.threads {
        return Err(Error::parse(format!(
            "{threads} CPU threads mean nothing to a run on {resolved}"
        )));
    }
    let exec = Executor::on(&resolved)?;
    let default_alpha = default_alpha(&exec, cfg.engine.units, cfg.games);
    let learner = exec.on_device(
        OnDevice {
            game,
            units: cfg.engine.units,
            games: cfg.games,
            epsilon,
        },
        "",
    )?;
    Ok(Started {
        learner,
        placement: Placement::new(&resolved, (1, 1), None),
        default_alpha,
    })
}

/// Plays `plan.games` self-play games of `game` from its start on `exec` (until `plan.stop`),
/// learning into `net`; `on_game` hears of each game as it ends. One call of what a
/// [`SelfPlayTd`](crate::SelfPlayTd) run's learner does, for tests that hold the device to the
/// CPU.
pub fn learn_self_play<G>(
    exec: &Executor,
    game: &G,
    net: &mut NTupleNetwork,
    plan: SelfPlayPlan,
    on_game: &mut dyn FnMut(SelfPlayGame),
) -> Result<SelfPlayRun>
where
    G: TwoPlayerTupleGame + GpuGame,
    G::Device: DeviceTupleGame,
{
    if exec.is_cpu() {
        return Ok(learn_games(game, net, game.initial(), plan, on_game));
    }
    let task = OnDevice {
        game,
        units: plan.units,
        games: plan.games,
        epsilon: plan.options.epsilon,
    };
    let mut learner = exec.on_device(task, "")?;
    learner.set_stop(&plan.stop);
    let mut run = SelfPlayRun::default();
    let batch = Batch {
        first: 0,
        count: plan.games,
        seed: plan.seed,
        alpha: plan.options.alpha,
    };
    learner.play(net, batch, &mut |e| {
        run.games += 1;
        run.moves += u64::from(e.moves);
        on_game(SelfPlayGame {
            moves: e.moves,
            first_mover: 0.0,
        });
        Ok(())
    })?;
    learner.sync(net)?;
    Ok(run)
}

/// A self-play game as the loop counts it: its moves (self-play has no score).
fn episode(game: SelfPlayGame) -> Episode {
    Episode {
        score: 0,
        moves: game.moves,
        progress: 0,
    }
}

/// Self-play on CPU threads sharing the network's one table.
struct OnCpu<'a, G> {
    game: &'a G,
    threads: usize,
    epsilon: f32,
    stop: Stop,
}

impl<G: TwoPlayerTupleGame> Learner for OnCpu<'_, G> {
    fn play(
        &mut self,
        net: &NTupleNetwork,
        batch: Batch,
        on_game: &mut dyn FnMut(Episode) -> Result<()>,
    ) -> Result<()> {
        let plan = SelfPlayPlan {
            games: batch.count,
            threads: self.threads,
            units: None,
            // Each batch a stream of its own (threads restart their generators each call);
            // the first batch of a run is seeded as `learn_games` alone would be.
            seed: batch.seed ^ (batch.first as u32).wrapping_mul(0x9E37_79B9),
            options: SelfPlay {
                alpha: batch.alpha,
                epsilon: self.epsilon,
            },
            stop: self.stop.clone(),
        };
        let mut failed = None;
        learn_games(self.game, net, self.game.initial(), plan, &mut |g| {
            if failed.is_none() {
                failed = on_game(episode(g)).err();
            }
        });
        failed.map_or(Ok(()), Err)
    }
    fn parallelism(&self) -> usize {
        self.threads
    }
    fn set_stop(&mut self, stop: &Stop) {
        self.stop = stop.clone();
    }
}

/// Starts self-play on whichever runtime the executor holds.
struct OnDevice<'a, G> {
    game: &'a G,
    units: Option<u32>,
    games: u64,
    epsilon: f32,
}

impl<'a, G> DeviceTask for OnDevice<'a, G>
where
    G: TwoPlayerTupleGame + GpuGame,
    G::Device: DeviceTupleGame,
{
    type Output = Box<dyn Learner + 'a>;

    fn run<R: Runtime>(self, gpu: &GpuExecutor<R>) -> Result<Self::Output> {
        let loop_budget = gpu.limits().loop_iterations;
        Ok(Box::new(GpuSelfPlay::<R, G> {
            game: self.game,
            client: gpu.client().clone(),
            units: device_units(self.units, loop_budget, self.games),
            loop_budget,
            epsilon: self.epsilon,
            device: None,
            stop: Stop::new(),
            moves_played: 0,
        }))
    }
}

/// Self-play on one GPU: the weights, each unit's game and generator stay on the device from
/// the first `play` to the end of the run.
struct GpuSelfPlay<'a, R: Runtime, G: GpuGame> {
    game: &'a G,
    client: ComputeClient<R>,
    units: u32,
    loop_budget: Option<u32>,
    epsilon: f32,
    device: Option<DeviceSelfPlay<R, G>>,
    stop: Stop,
    /// Moves played since a game last finished.
    moves_played: u64,
}

impl<R: Runtime, G> Learner for GpuSelfPlay<'_, R, G>
where
    G: TwoPlayerTupleGame + GpuGame,
    G::Device: DeviceTupleGame,
{
    fn play(
        &mut self,
        net: &NTupleNetwork,
        batch: Batch,
        on_game: &mut dyn FnMut(Episode) -> Result<()>,
    ) -> Result<()> {
        let device = match &mut self.device {
            Some(device) => device,
            none => {
                let shape = SelfPlayShape {
                    units: self.units,
                    seed: batch.seed,
                    loop_budget: self.loop_budget,
                };
                let game = self.game;
                none.insert(DeviceSelfPlay::new(
                    &self.client,
                    &td_net(net),
                    game,
                    &game.initial(),
                    shape,
                )?)
            }
        };
        let step = SelfPlayStep {
            alpha: batch.alpha,
            epsilon: self.epsilon,
        };
        // Games start while the batch has games left and no stop; the batch ends once every
        // started game is finished.
        let mut started = 0u64;
        loop {
            let limit = if self.stop.is_raised() {
                0
            } else {
                (batch.count - started).min(u64::from(u32::MAX)) as u32
            };
            let launched = device.launch(limit, step)?;
            started += u64::from(launched.started);
            // A launch counts the moves of all its units, finished or not: they are shared out
            // over the next games to finish, so that the run's moves add up.
            self.moves_played += u64::from(launched.moves);
            let finished = u64::from(launched.finished);
            for g in 0..finished {
                let share =
                    self.moves_played / finished + u64::from(g < self.moves_played % finished);
                on_game(episode(SelfPlayGame {
                    moves: share.min(u64::from(u32::MAX)) as u32,
                    first_mover: 0.0,
                }))?;
            }
            if finished > 0 {
                self.moves_played = 0;
            }
            if launched.live == 0 && (limit == 0 || started >= batch.count) {
                return Ok(());
            }
        }
    }
    fn sync(&mut self, net: &mut NTupleNetwork) -> Result<()> {
        if let Some(device) = &self.device {
            for (t, table) in device.tables()?.into_iter().enumerate() {
                net.set_table(t, table.into_iter());
            }
        }
        Ok(())
    }
    fn parallelism(&self) -> usize {
        self.units as usize
    }
    fn set_stop(&mut self, stop: &Stop) {
        self.stop = stop.clone();
    }
}
