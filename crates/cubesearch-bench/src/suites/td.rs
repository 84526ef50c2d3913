//! The TD suites: training moves a second, and the seed's TD-update table.

use crate::BenchArgs;
use cubesearch_core::Result;
use cubesearch_search::Executor;

pub(super) fn td_games_at(level: u32) -> u64 {
    1024 << level
}

/// TD(0) training of the default 2584 network (from zero weights, or `--weights`) for
/// `td_games_at(level)` games on the executor's engine (CPU threads, or the GPU with `--units`
/// games at once); the units are moves played
/// (and learned from). A fresh engine each run, so GPU figures include the weight upload and
/// the read-back at the end.
pub(super) fn td_train(
    exec: &mut Executor,
    level: u32,
    seed: u32,
    args: &BenchArgs,
) -> Result<u64> {
    use cubesearch_games::fib::{seed_shapes, Game2584};
    use cubesearch_learn::NTupleNetwork;
    let mut net = match &args.weights {
        Some(path) => NTupleNetwork::load::<Game2584>(std::path::Path::new(path), None)?.0,
        None => NTupleNetwork::for_game::<Game2584>(&seed_shapes())?,
    };
    let step = 0.1 / net.lookups() as f32;
    let mut engine = cubesearch_train::engine_on::<Game2584>(exec, args.units);
    let mut moves = 0u64;
    engine.play(
        &Game2584::new(),
        &net,
        cubesearch_train::TdGames {
            first: 0,
            count: td_games_at(level),
            seed,
            step,
        },
        &mut |e| {
            moves += e.moves as u64;
            Ok(())
        },
    )?;
    engine.sync(&mut net)?;
    if let Some(share) = engine.occupancy() {
        eprintln!(
            "  td-train: {:.0} % of the launched unit steps played",
            100.0 * share
        );
    }
    Ok(moves)
}

/// Games and rounds of the seed's TD-update table (6.6).
const TD_UPDATE_GAMES: usize = 1000;
const TD_UPDATE_ROUNDS: usize = 1000;

/// The histories the td-update suite learns from, made once: random 2584 games played back to
/// back (seed 1) and cut into `TD_UPDATE_GAMES` histories of `TD_UPDATE_ROUNDS`
/// `(afterstate, reward)` steps; also in the device's word form.
type Board2584 = cubesearch_games::fib::BoardOf<cubesearch_games::fib::Fib>;
/// The histories as `(afterstate, reward)` paths, and as device words.
type Histories = (Vec<Vec<(Board2584, u32)>>, Vec<u32>);
fn td_histories() -> &'static Histories {
    use cubesearch_core::rng::XorShift32;
    use cubesearch_core::StochasticGame;
    use cubesearch_games::fib::{Fib, Game2584, GpuTiles};
    static HISTORIES: std::sync::OnceLock<Histories> = std::sync::OnceLock::new();
    HISTORIES.get_or_init(|| {
        let game = Game2584::new();
        let mut rng = XorShift32::for_worker(1, 0);
        let mut state = game.initial(&mut rng);
        let mut legal = Vec::with_capacity(4);
        let histories: Vec<Vec<(Board2584, u32)>> = (0..TD_UPDATE_GAMES)
            .map(|_| {
                (0..TD_UPDATE_ROUNDS)
                    .map(|_| loop {
                        legal.clear();
                        game.legal_actions(&state, &mut legal);
                        if legal.is_empty() {
                            state = game.initial(&mut rng);
                            continue;
                        }
                        let (_, after, reward) = legal[rng.below(legal.len() as u32) as usize];
                        state = game.sample_chance(&after, &mut rng);
                        break (after, reward);
                    })
                    .collect()
            })
            .collect();
        let mut words = Vec::with_capacity(TD_UPDATE_GAMES * TD_UPDATE_ROUNDS * 4);
        let mut w = [0u32; 3];
        for (after, reward) in histories.iter().flatten() {
            Fib::encode(*after, &mut w);
            words.extend_from_slice(&w);
            words.push(*reward);
        }
        (histories, words)
    })
}

/// The seed's TD-update table: one pass of TD(0) updates over 1000 games × 1000 rounds into a
/// zero 2584 network (default shapes). The CPU learns each game backward (`learn`, the
/// trainer's update), games split over the threads; a GPU runs the seed's per-step kernel
/// (one unit per time step, all at once) and reads the weights back. Units: updates.
pub(super) fn td_update(
    exec: &mut Executor,
    _level: u32,
    _seed: u32,
    _: &BenchArgs,
) -> Result<u64> {
    use cubesearch_games::fib::{seed_shapes, Game2584};
    use cubesearch_learn::NTupleNetwork;
    let (histories, words) = td_histories();
    let net = NTupleNetwork::for_game::<Game2584>(&seed_shapes())?;
    let step = 0.1 / net.lookups() as f32;
    match exec {
        Executor::Cpu(cpu) => {
            let threads = cpu.threads().max(1);
            let per = histories.len().div_ceil(threads);
            std::thread::scope(|scope| {
                for chunk in histories.chunks(per) {
                    let net = &net;
                    scope.spawn(move || {
                        for path in chunk {
                            cubesearch_learn::td::learn(&Game2584::new(), net, path, step);
                        }
                    });
                }
            });
        }
        gpu => gpu.on_device(
            TdSteps {
                net: &net,
                words,
                step,
            },
            "the CPU learns above",
        )?,
    }
    Ok((TD_UPDATE_GAMES * TD_UPDATE_ROUNDS) as u64)
}

/// The seed's per-step TD kernel over every recorded step, weights uploaded and read back.
struct TdSteps<'a> {
    net: &'a cubesearch_learn::NTupleNetwork,
    words: &'a [u32],
    step: f32,
}

impl cubesearch_search::DeviceTask for TdSteps<'_> {
    type Output = ();
    fn run<R: cubecl::Runtime>(self, gpu: &cubesearch_search::GpuExecutor<R>) -> Result<()> {
        use cubesearch_kernels::td::{DeviceTd, LaneExchange, TdShape};
        let shape = TdShape {
            units: 1,
            max_moves: 1,
            cap: 1,
            averaged: false,
            lanes: LaneExchange::Cube,
            steps_per_launch: 1,
            coherence: false,
            forward: false,
        };
        let mut device = DeviceTd::<R, cubesearch_games::fib::Game2584>::new(
            gpu.client(),
            &cubesearch_train::td_net(self.net),
            shape,
        )?;
        device.learn_steps(self.words, TD_UPDATE_ROUNDS as u32, self.step)?;
        device.read_tables().map(|_| ())
    }
}
