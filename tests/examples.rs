//! The examples are part of the API's contract: `connect4` and `mini2048` are compiled here as
//! modules, and their device rules, searches and training are held to their host versions on
//! every backend, as a user's CI would do.

#[allow(dead_code)]
#[path = "../examples/connect4.rs"]
mod connect4;

#[allow(dead_code)]
#[path = "../examples/mini2048.rs"]
mod mini2048;

use connect4::ConnectFour;
use cubesearch::expectimax::{Expectimax, ExpectimaxMethod};
use cubesearch::learn::{default_shapes, generate_positions, label_positions, learn_games};
use cubesearch::learn::{Dataset, Generate, Label, Provenance, SelfPlay, SelfPlayPlan};
use cubesearch::minimax::{self, Strategy};
use cubesearch::players::{Match, MatchOptions, Openings, PlayerSpec};
use cubesearch::rng::XorShift32;
use cubesearch::testing::{assert_same, assert_same_root_values, assert_same_weights, executor};
use cubesearch::testing::{assert_two_player_rules_match, random_positions};
use cubesearch::train::{engine_on, train, CpuEngine, Fit, TdEngine, TdGames, TrainConfig};
use cubesearch::{perft, Backend, CpuExecutor, Game, Playouts};
use cubesearch::{ExpectimaxEval, NTupleNetwork, Stop};
use mini2048::Mini2048;
use rstest::rstest;

/// Positions reached by random columns from the empty board (finished games included).
fn positions(count: usize) -> Vec<connect4::Position> {
    random_positions(&ConnectFour, count, 30, 4)
}

#[test]
fn host_perft_follows_from_the_rules() {
    let mut cpu = CpuExecutor::new(0).unwrap();
    let root = ConnectFour.initial();
    // No game can end before the 7th stone: every sequence of columns is legal up to 6 plies,
    // and at 7 plies only the 7 that fill one column 7 times are not.
    for depth in 1..=6 {
        assert_eq!(
            perft::perft_split(&mut cpu, &ConnectFour, &root, depth).unwrap(),
            7u64.pow(depth)
        );
    }
    assert_eq!(
        perft::perft_split(&mut cpu, &ConnectFour, &root, 7).unwrap(),
        7u64.pow(7) - 7
    );
}

#[rstest]
fn device_rules_equal_the_host_rules(#[values(Backend::Wgpu, Backend::Cuda)] backend: Backend) {
    let Some(mut gpu) = executor(backend) else {
        return;
    };
    let mut cpu = CpuExecutor::new(0).unwrap();
    let roots = positions(200);
    // Perft walks every move of the device's list; playouts draw the same moves as the host.
    for depth in 1..=2 {
        let on_cpu = cubesearch::Perft::perft(&mut cpu, &ConnectFour, &roots, depth).unwrap();
        let on_gpu = cubesearch::Perft::perft(&mut gpu, &ConnectFour, &roots, depth).unwrap();
        assert_same(&format!("perft({depth})"), &on_cpu, &on_gpu);
    }
    let on_cpu = cpu.playouts(&ConnectFour, &roots, 8, 99).unwrap();
    let on_gpu = gpu.playouts(&ConnectFour, &roots, 8, 99).unwrap();
    assert_same("playouts", &on_cpu, &on_gpu);
    let root = ConnectFour.parse_position("4453").unwrap();
    assert_eq!(
        perft::perft_split(&mut gpu, &ConnectFour, &root, 5).unwrap(),
        perft::perft_split(&mut cpu, &ConnectFour, &root, 5).unwrap()
    );
    for strategy in [Strategy::Split, Strategy::Frontier, Strategy::V1] {
        let want = minimax::solve(&mut gpu, &ConnectFour, &root, 3, Strategy::Cpu)
            .unwrap()
            .solution;
        let got = minimax::solve(&mut gpu, &ConnectFour, &root, 3, strategy)
            .unwrap()
            .solution;
        assert_eq!((got.value, got.best), (want.value, want.best), "{strategy}");
    }
}

/// MCTS on the example game under a playout budget: the device's playouts are the host's, so
/// the tree, its statistics and every move of a short game are the same on every backend, and
/// the search takes an immediate win.
#[rstest]
fn mcts_plays_the_same_game_on_every_backend(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    use cubesearch::mcts::{Budget, Mcts, MctsConfig};
    let Some(mut gpu) = executor(backend) else {
        return;
    };
    let mut cpu = CpuExecutor::new(0).unwrap();
    let config = MctsConfig {
        budget: Budget::Playouts(3_000),
        leaf: 8,
        batch: 32,
        trees: 2,
        seed: 21,
        ..MctsConfig::default()
    };
    let start = ConnectFour.parse_position("4453").unwrap();
    let mut on_cpu = Mcts::new(start, config.clone());
    let mut on_gpu = Mcts::new(start, config.clone());
    let mut state = start;
    for ply in 0..6 {
        let (cpu_move, cpu_stats) = on_cpu.search(&mut cpu, &ConnectFour).unwrap();
        let (gpu_move, gpu_stats) = on_gpu.search(&mut gpu, &ConnectFour).unwrap();
        assert_eq!(cpu_move, gpu_move, "ply {ply}");
        assert_eq!(on_cpu.root_moves(), on_gpu.root_moves(), "ply {ply}");
        assert_eq!(
            (cpu_stats.playouts, cpu_stats.batches, cpu_stats.nodes),
            (gpu_stats.playouts, gpu_stats.batches, gpu_stats.nodes),
            "ply {ply}"
        );
        let Some(mv) = cpu_move else { break };
        state = ConnectFour.apply(&state, mv);
        on_cpu.advance(&ConnectFour, mv);
        on_gpu.advance(&ConnectFour, mv);
    }
    // Three in a row on the bottom with both ends open (the other side's three sit on top of
    // them): the side to move wins at once.
    let threat = ConnectFour.parse_position("334455").unwrap();
    let mut search = Mcts::new(threat, config);
    let (mv, _) = search.search(&mut gpu, &ConnectFour).unwrap();
    let after = ConnectFour.apply(&threat, mv.unwrap());
    assert_eq!(ConnectFour.outcome(&after), cubesearch::Outcome::Loss);
}

#[test]
fn bad_positions_are_refused() {
    for bad in ["8", "4x", "1111111"] {
        assert!(ConnectFour.parse_position(bad).is_err(), "{bad}");
    }
    let won = ConnectFour.parse_position("1212121").unwrap();
    assert_eq!(ConnectFour.outcome(&won), cubesearch::Outcome::Loss);
    assert!(ConnectFour.moves(&won).is_empty());
}

/// Positions of random 3×3 games, finished ones included.
fn mini_positions(count: usize, seed: u32) -> Vec<u64> {
    cubesearch::testing::random_stochastic_positions(&Mini2048, count, seed)
}

#[test]
fn mini2048_slides_as_worked_by_hand() {
    use cubesearch::StochasticGame;
    let game = Mini2048;
    let board = |text: &str| game.parse_position(text).unwrap();
    // Left: [2,2,2] → [4,2,0] scores 4; [2,4,4] → [2,8,0] scores 8; [4,0,4] → [8,0,0].
    let (after, reward) = game.afterstate(&board("2,2,2,2,4,4,4,0,4"), 0).unwrap();
    assert_eq!(game.format_position(&after), "4,2,0,2,8,0,8,0,0");
    assert_eq!(reward, 4 + 8 + 8);
    // Down on the same board: columns [2,2,4], [2,4,0], [2,4,4] toward the bottom.
    let (after, reward) = game.afterstate(&board("2,2,2,2,4,4,4,0,4"), 3).unwrap();
    assert_eq!(game.format_position(&after), "0,0,0,4,2,2,4,4,8");
    assert_eq!(reward, 4 + 8);
    // Nothing moves left on a packed row without pairs; a full board without pairs is over.
    assert!(game.afterstate(&board("2,4,0,0,0,0,0,0,0"), 0).is_none());
    assert!(game.is_over(&board("2,4,2,4,2,4,2,4,2")));
    assert_eq!(
        game.format_position(&board("2,0,0,0,1024,0,0,0,4")),
        "2,0,0,0,1024,0,0,0,4"
    );
    for bad in [
        "2,2",
        "3,0,0,0,0,0,0,0,0",
        "1,0,0,0,0,0,0,0,0",
        "x,0,0,0,0,0,0,0,0",
    ] {
        assert!(game.parse_position(bad).is_err(), "{bad}");
    }
    // Chance: 2 empty cells in cell order × (a 2 weighs 9, a 4 weighs 1).
    let mut outcomes = Vec::new();
    game.chance_outcomes(&board("2,4,2,4,0,4,2,0,2"), &mut outcomes);
    let want = [
        (board("2,4,2,4,2,4,2,0,2"), 9),
        (board("2,4,2,4,4,4,2,0,2"), 1),
        (board("2,4,2,4,0,4,2,2,2"), 9),
        (board("2,4,2,4,0,4,2,4,2"), 1),
    ];
    assert_eq!(outcomes, want);
    cubesearch::testing::check_views(&game, &mini_positions(50, 2));
}

#[rstest]
fn mini2048_device_rules_equal_the_host(#[values(Backend::Wgpu, Backend::Cuda)] backend: Backend) {
    let Some(mut gpu) = executor(backend) else {
        return;
    };
    let states = mini_positions(400, 3);
    cubesearch::testing::assert_stochastic_rules_match(&mut gpu, &Mini2048, &states, 100);
}

/// A mini2048 network with every weight drawn from `seed`.
fn mini_network(seed: u32) -> NTupleNetwork {
    let mut net = NTupleNetwork::for_game::<Mini2048>(&default_shapes::<Mini2048>()).unwrap();
    let mut rng = XorShift32::for_worker(seed, 0);
    for t in 0..net.shapes().len() {
        let n = net.table(t).len();
        let w: Vec<f32> = (0..n)
            .map(|_| (rng.below(2001) as f32 - 1000.0) / 64.0)
            .collect();
        net.set_table(t, w.into_iter());
    }
    net
}

#[rstest]
fn mini2048_device_expectimax_equals_the_cpu(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    let Some(exec) = executor(backend) else {
        return;
    };
    let mut gpu = Expectimax::new(exec);
    let net = mini_network(5);
    let mut roots = mini_positions(60, 6);
    roots.retain(|r| !cubesearch::StochasticGame::is_over(&Mini2048, r));
    let mut cpu = CpuExecutor::new(1).unwrap();
    for layers in 0..=2 {
        let want = cpu.evaluate(&Mini2048, &net, &roots, layers).unwrap();
        for method in ExpectimaxMethod::ALL {
            gpu.device().expect("a GPU's search").set_method(method);
            let got = gpu.evaluate(&Mini2048, &net, &roots, layers).unwrap();
            let what = format!("{} layers, {}", layers, method.name());
            assert_same_root_values(&what, &want, &got);
        }
    }
}

#[rstest]
fn mini2048_one_td_unit_learns_as_the_cpu_trainer(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    let Some(exec) = executor(backend) else {
        return;
    };
    let shapes = default_shapes::<Mini2048>();
    let mut cpu_net = NTupleNetwork::for_game::<Mini2048>(&shapes).unwrap();
    let cpu_scores = CpuEngine::new(1)
        .learn_games(&Mini2048, &mut cpu_net, 30, 0.1, 5)
        .unwrap();
    let mut gpu_net = NTupleNetwork::for_game::<Mini2048>(&shapes).unwrap();
    let mut engine = engine_on::<Mini2048>(&exec, Some(1));
    let step = 0.1 / gpu_net.lookups() as f32;
    let mut gpu_scores = Vec::new();
    engine
        .play(
            &Mini2048,
            &gpu_net,
            TdGames {
                first: 0,
                count: 30,
                seed: 5,
                step,
            },
            &mut |e| {
                gpu_scores.push(e.score);
                Ok(())
            },
        )
        .unwrap();
    engine.sync(&mut gpu_net).unwrap();
    assert_eq!(cpu_scores, gpu_scores);
    let mut learned = 0;
    for t in 0..shapes.len() {
        let (a, b) = (cpu_net.table(t), gpu_net.table(t));
        assert_same_weights(&format!("table {t}"), &a, &b);
        learned += a.iter().filter(|w| **w != 0.0).count();
    }
    assert!(learned > 100, "only {learned} weights learned");
}

/// The example's learned evaluation: one device unit's self-play gives the CPU's weights bit
/// for bit, and the network then plays: alpha-beta and MCTS on it both take the column that
/// wins at once.
#[rstest]
fn connect4_learns_an_evaluation_and_plays_it(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    if executor(backend).is_none() {
        return;
    }
    let [on_cpu, on_device] = connect4::learn(backend, 300).unwrap();
    let all = |net: &NTupleNetwork| -> Vec<f32> {
        (0..net.tables()).flat_map(|t| net.table(t)).collect()
    };
    assert!(all(&on_cpu).iter().filter(|w| **w != 0.0).count() > 100);
    assert_same_weights("connect4 self-play", &all(&on_cpu), &all(&on_device));
    // The side to move has three stones in column 1; a fourth wins.
    let root = ConnectFour.parse_position("121212").unwrap();
    let moves = connect4::play_learned(on_cpu, root).unwrap();
    assert_eq!(
        moves,
        [Some(0), Some(0)],
        "alpha-beta and MCTS on the network"
    );
}

/// A game of your own gets the labelled-positions recipe too: self-play positions of a
/// network, labelled by a deeper search on it (wins found by the search are worth ±1, the
/// game's final values), and a new network fitted to them, measured on positions it held out.
#[test]
fn connect_four_positions_are_labelled_and_fitted() {
    let shapes = default_shapes::<ConnectFour>();
    let teacher = NTupleNetwork::for_game::<ConnectFour>(&shapes).unwrap();
    let plan = SelfPlayPlan {
        games: 300,
        threads: 1,
        units: None,
        seed: 5,
        options: SelfPlay::default(),
        stop: Stop::new(),
    };
    learn_games(
        &ConnectFour,
        &teacher,
        ConnectFour.initial(),
        plan,
        &mut |_| {},
    );
    let stop = Stop::new();
    let generate = Generate {
        games: 200,
        random_plies: 4,
        epsilon: 0.2,
        seed: 6,
    };
    let positions = generate_positions(&ConnectFour, &teacher, generate, &stop);
    let depth = Label {
        depth: 4,
        ..Label::default()
    };
    let labels = label_positions(&ConnectFour, &teacher, &positions, &depth).unwrap();
    assert!(labels.contains(&1.0) && labels.contains(&-1.0));
    let data = Dataset {
        positions,
        labels,
        provenance: Provenance::default(),
    };
    let cfg = TrainConfig {
        games: 20 * data.positions.len() as u64,
        alpha: Some(0.05),
        shapes: Some(shapes),
        ..TrainConfig::default()
    };
    let (_, report) = train(Fit(&ConnectFour, &data), &cfg, |_| {}).unwrap();
    let spread = (data.labels.iter().map(|l| l * l).sum::<f32>() / data.labels.len() as f32).sqrt();
    let rmse = report.held_out_rmse.unwrap();
    assert!(
        rmse < spread as f64,
        "held-out RMSE {rmse} against the labels' {spread}"
    );
}

/// A game of your own gets the command line's checks and matches: its device rules held to its
/// host rules in one call on every backend, and a match between two specs through the
/// library's runner, from openings, resumed from its results file.
#[test]
fn connect_four_rules_are_held_to_the_host_in_one_call() {
    let positions = random_positions(&ConnectFour, 200, 30, 4);
    let checked =
        assert_two_player_rules_match(&ConnectFour, &positions, &[Backend::Wgpu, Backend::Cuda]);
    assert!(checked.contains(&Backend::Wgpu), "{checked:?}");
}

#[test]
fn connect_four_plays_a_match_from_openings_and_resumes_it() {
    let dir = tempfile::tempdir().unwrap();
    let openings = dir.path().join("openings.txt");
    std::fs::write(&openings, "4\n1 7\n").unwrap(); // the centre column; the two edges
    let results = dir.path().join("results.jsonl");
    let specs = ["mcts:playouts=600,exec=cpu", "random"];
    let options = |games: u32| MatchOptions {
        games,
        openings: Some(Openings::read(&ConnectFour, &openings, ConnectFour.initial()).unwrap()),
        players: specs.map(String::from),
        results: Some(results.clone()),
        ..MatchOptions::default()
    };
    let mut heard = Vec::new();
    for (games, seed) in [(2, 1), (4, 2)] {
        let mut players = specs.map(|spec| {
            let spec: PlayerSpec<ConnectFour> = spec.parse().unwrap();
            spec.build(Backend::Cpu, seed).unwrap()
        });
        let [p1, p2] = &mut players;
        let report = Match::open(&ConnectFour, options(games))
            .unwrap()
            .play([p1.as_mut(), p2.as_mut()], |game| {
                heard.push((game.index, game.opening, game.p1_first));
                Ok(())
            })
            .unwrap();
        assert_eq!(report.tally.games(), games);
        assert_eq!(report.resumed, (games - 2) as usize);
    }
    // Games 2k and 2k + 1 play opening k, colours swapped; the resumed run plays the second.
    assert_eq!(
        heard,
        [(0, 0, true), (1, 0, false), (2, 1, true), (3, 1, false)]
    );
    let lines = std::fs::read_to_string(&results).unwrap().lines().count();
    assert_eq!(lines, 5, "a header and four games");
}
