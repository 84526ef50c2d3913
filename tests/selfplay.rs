//! Self-play TD(0) on a device against the CPU oracle: one unit's games give the CPU's
//! weights bit for bit (Reversi and checkers), and many units sharing one table learn.

use cubesearch::games::{Checkers, Reversi, Rules};
use cubesearch::learn::default_shapes;
use cubesearch::learn::{learn_games, SelfPlay, SelfPlayPlan, TwoPlayerTupleGame};
use cubesearch::testing::{assert_same_weights, executor};
use cubesearch::train::{default_alpha, learn_self_play};
use cubesearch::NTupleNetwork;
use cubesearch::{Backend, Game, Outcome, Stop};
use cubesearch_kernels::selfplay::AVERAGED_FROM_UNITS;
use rstest::rstest;

fn fresh_network() -> NTupleNetwork {
    NTupleNetwork::staged::<Reversi>(&default_shapes::<Reversi>(), Reversi::STAGES).unwrap()
}

fn plan(games: u64, units: u32) -> SelfPlayPlan {
    SelfPlayPlan {
        games,
        threads: 1,
        units: Some(units),
        seed: 7,
        // A large step and many random moves, so that a wrong bit anywhere spreads.
        options: SelfPlay {
            alpha: 0.05,
            epsilon: 0.3,
        },
        stop: Stop::new(),
    }
}

fn all_weights(net: &NTupleNetwork) -> Vec<f32> {
    (0..net.tables()).flat_map(|t| net.table(t)).collect()
}

#[rstest]
fn one_device_unit_learns_the_cpu_weights_bit_for_bit(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    let Some(exec) = executor(backend) else {
        return;
    };
    let cpu = fresh_network();
    let on_cpu = learn_games(&Reversi, &cpu, Reversi.initial(), plan(40, 1), &mut |_| {});
    let mut device = fresh_network();
    let on_device =
        learn_self_play(&exec, &Reversi, &mut device, plan(40, 1), &mut |_| {}).unwrap();
    assert_eq!(on_device, on_cpu, "games and moves");
    let weights = all_weights(&cpu);
    assert!(
        weights.iter().filter(|w| **w != 0.0).count() > 2000,
        "the games moved {} weights",
        weights.iter().filter(|w| **w != 0.0).count()
    );
    assert_same_weights("self-play weights", &weights, &all_weights(&device));
}

/// Checkers' cells from the mover's seat on the device are the host's: one unit's games give
/// the CPU's weights.
#[rstest]
fn one_device_unit_learns_the_cpu_checkers_weights(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    let Some(exec) = executor(backend) else {
        return;
    };
    let game = Checkers::new(Rules::American);
    let fresh = || {
        NTupleNetwork::staged::<Checkers>(&default_shapes::<Checkers>(), Checkers::STAGES).unwrap()
    };
    let cpu = fresh();
    let on_cpu = learn_games(&game, &cpu, game.initial(), plan(12, 1), &mut |_| {});
    let mut device = fresh();
    let on_device = learn_self_play(&exec, &game, &mut device, plan(12, 1), &mut |_| {}).unwrap();
    assert_eq!(on_device, on_cpu, "games and moves");
    let weights = all_weights(&cpu);
    let moved = weights.iter().filter(|w| **w != 0.0).count();
    assert!(moved > 100, "the games moved {moved} weights");
    assert_same_weights(
        "checkers self-play weights",
        &weights,
        &all_weights(&device),
    );
}

/// Many units sharing one table learn: after a few thousand games the network's greedy player
/// beats the uniformly random player in most of 20 games (an untrained one wins about half).
/// 64 units update at once, 1024 average their updates (a smaller network keeps lavapipe
/// quick).
#[rstest]
fn many_device_units_learn(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
    #[values(64, AVERAGED_FROM_UNITS)] units: u32,
) {
    let Some(exec) = executor(backend) else {
        return;
    };
    let mut net = NTupleNetwork::for_game::<Reversi>(&default_shapes::<Reversi>()[..2]).unwrap();
    let games = (16 * u64::from(units)).min(4096);
    let mut plan = plan(games, units);
    plan.options.alpha = default_alpha(&exec, Some(units), games);
    let run = learn_self_play(&exec, &Reversi, &mut net, plan, &mut |_| {}).unwrap();
    assert_eq!(run.games, games);
    assert!(run.moves > games * 50, "{} moves", run.moves);
    let mut rng = cubesearch::rng::XorShift32::for_worker(3, 0);
    let mut wins = 0;
    for game in 0..20 {
        let network_first = game % 2 == 0;
        let mut state = Reversi.initial();
        let mut ply = 0;
        while Reversi.outcome(&state) == Outcome::Ongoing {
            let moves = Reversi.moves(&state);
            let mv = if (ply % 2 == 0) == network_first {
                cubesearch_learn::selfplay::best_move(&Reversi, &net, &state)
                    .unwrap()
                    .0
            } else {
                moves[rng.below(moves.len() as u32) as usize]
            };
            state = Reversi.apply(&state, mv);
            ply += 1;
        }
        let first_mover = Reversi.final_value(&state) * if ply % 2 == 0 { 1.0 } else { -1.0 };
        let network = if network_first {
            first_mover
        } else {
            -first_mover
        };
        wins += u32::from(network > 0.0);
    }
    assert!(
        wins >= 14,
        "the learned network won {wins} of 20 against random moves"
    );
}

/// Self-play runs through the one training loop: checkpoints, resuming (the games counted on
/// from the file's) and saving, as TD's runs have them; options only TD uses are refused before
/// any work, in the library's words.
#[test]
fn self_play_trains_through_the_one_loop() {
    use cubesearch_train::{train, EngineConfig, SelfPlayTd, TrainConfig};
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.safetensors");
    let cfg = TrainConfig {
        games: 30,
        checkpoint_every: 10,
        engine: EngineConfig {
            threads: Some(2),
            ..EngineConfig::default()
        },
        out: Some(out.clone()),
        ..TrainConfig::default()
    };
    let (net, report) = train(SelfPlayTd(&Reversi), &cfg, |_| {}).unwrap();
    assert_eq!((report.games, report.total_games), (30, 30));
    assert!(report.moves >= 30 * 9, "{} moves", report.moves);
    assert_eq!(report.alpha, 0.1, "the CPU's step");
    assert!(all_weights(&net).iter().any(|&w| w != 0.0));
    let (saved, meta) = NTupleNetwork::load::<Reversi>(&out, None).unwrap();
    assert_eq!(meta.games, 30);
    assert_eq!(all_weights(&saved), all_weights(&net));
    // Resumed: the file's games, then this run's.
    let resumed = TrainConfig {
        games: 5,
        resume: Some(out.clone()),
        ..cfg.clone()
    };
    let (_, report) = train(SelfPlayTd(&Reversi), &resumed, |_| {}).unwrap();
    assert_eq!((report.games, report.total_games), (5, 35));
    for (wrong, why) in [
        (
            TrainConfig {
                coherence: true,
                ..cfg.clone()
            },
            "self-play has no use for temporal coherence",
        ),
        (
            TrainConfig {
                alpha: Some(-1.0),
                ..cfg.clone()
            },
            "the learning rate must be a positive number",
        ),
    ] {
        let err = train(SelfPlayTd(&Reversi), &wrong, |_| {}).unwrap_err();
        assert!(err.to_string().contains(why), "{err}");
    }
}
