//! The MCTS pipeline: deterministic across backends under a playout budget, and strong enough to
//! find the winning moves that Bouton's theorem names.

use cubesearch::games::Reversi;
use cubesearch::games::{Nim, NimState};
use cubesearch::mcts::{flat_monte_carlo, Budget, Mcts, MctsConfig};
use cubesearch::testing::executor;
use cubesearch::{Backend, CpuExecutor, Game};
use rstest::rstest;

fn config(playouts: u64, seed: u32) -> MctsConfig {
    MctsConfig {
        budget: Budget::Playouts(playouts),
        leaf: 16,
        batch: 64,
        seed,
        ..MctsConfig::default()
    }
}

#[rstest]
fn a_playout_budget_gives_the_same_search_on_every_backend(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    let Some(mut gpu) = executor(backend) else {
        return;
    };
    let mut cpu = CpuExecutor::new(0).unwrap();
    let nim = Nim.parse_position("2,3,5,6").unwrap();
    let mut on_cpu = Mcts::new(nim, config(20_000, 9));
    let mut on_gpu = Mcts::new(nim, config(20_000, 9));
    let (cpu_move, cpu_stats) = on_cpu.search(&mut cpu, &Nim).unwrap();
    let (gpu_move, gpu_stats) = on_gpu.search(&mut gpu, &Nim).unwrap();
    assert_eq!(cpu_move, gpu_move);
    assert_eq!(on_cpu.root_moves(), on_gpu.root_moves());
    assert_eq!(
        (cpu_stats.playouts, cpu_stats.nodes),
        (gpu_stats.playouts, gpu_stats.nodes)
    );
    assert!(cpu_stats.playouts >= 20_000);

    let reversi = Reversi.initial();
    let mut on_cpu = Mcts::new(reversi, config(4_096, 3));
    let mut on_gpu = Mcts::new(reversi, config(4_096, 3));
    on_cpu.search(&mut cpu, &Reversi).unwrap();
    on_gpu.search(&mut gpu, &Reversi).unwrap();
    assert_eq!(on_cpu.root_moves(), on_gpu.root_moves());
}

/// A playout budget is kept: never under it, and over it by less than one leaf's games in each
/// tree (the last batch is trimmed to what is left, counting the batch still in flight).
#[rstest]
fn a_playout_budget_is_kept_to_within_a_leaf_a_tree(
    #[values(1, 3)] trees: usize,
    #[values(1_000, 20_000)] budget: u64,
) {
    let mut cpu = CpuExecutor::new(2).unwrap();
    let cfg = MctsConfig {
        trees,
        ..config(budget, 4)
    };
    let state = Nim.parse_position("3,4,5,6").unwrap();
    let mut mcts = Mcts::new(state, cfg.clone());
    for ply in 0..3 {
        let (mv, stats) = mcts.search(&mut cpu, &Nim).unwrap();
        let over = cfg.leaf as u64 * trees as u64;
        assert!(
            stats.playouts >= budget && stats.playouts < budget + over,
            "ply {ply}: {} playouts for a budget of {budget}",
            stats.playouts
        );
        mcts.advance(&Nim, mv.unwrap());
    }
}

/// Root parallelism: several trees share each launch; the search is still the same on every
/// backend, every simulation lands in exactly one tree, and the trees do not all agree (their
/// leaves draw different games).
#[rstest]
fn several_trees_search_alike_on_every_backend(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    let Some(mut gpu) = executor(backend) else {
        return;
    };
    let mut cpu = CpuExecutor::new(0).unwrap();
    let trees = |seed| MctsConfig {
        trees: 3,
        ..config(12_000, seed)
    };
    let state = Nim.parse_position("2,3,5,6").unwrap();
    let mut on_cpu = Mcts::new(state, trees(5));
    let mut on_gpu = Mcts::new(state, trees(5));
    let (cpu_move, cpu_stats) = on_cpu.search(&mut cpu, &Nim).unwrap();
    let (gpu_move, gpu_stats) = on_gpu.search(&mut gpu, &Nim).unwrap();
    assert_eq!(cpu_move, gpu_move);
    assert_eq!(on_cpu.root_moves(), on_gpu.root_moves());
    assert_eq!(
        (cpu_stats.playouts, cpu_stats.batches, cpu_stats.nodes),
        (gpu_stats.playouts, gpu_stats.batches, gpu_stats.nodes)
    );
    assert_eq!(on_cpu.root_visits(), cpu_stats.playouts);
    assert!(cpu_stats.playouts >= 12_000);
    // One tree with the same budget reaches a different visit distribution.
    let mut single = Mcts::new(state, config(12_000, 5));
    single.search(&mut cpu, &Nim).unwrap();
    assert_ne!(single.root_moves(), on_cpu.root_moves());
}

/// Random playouts carry little signal in Nim (in 3,4,5 every root move scores about 0.5 after
/// 2M playouts), so MCTS is held to boards small enough for the tree to prove the win.
#[rstest]
#[case("1,3")]
#[case("1,2,4")]
#[case("2,3,4")]
fn mcts_finds_the_winning_nim_move(#[case] position: &str, #[values(1, 4)] trees: usize) {
    let mut cpu = CpuExecutor::new(0).unwrap();
    let state = Nim.parse_position(position).unwrap();
    let winning = state.winning_moves();
    assert!(
        !winning.is_empty(),
        "{position} should be a win for the side to move"
    );
    let budget = MctsConfig {
        trees,
        ..config(200_000 * trees as u64, 1)
    };
    let mut tree = Mcts::new(state, budget);
    let (mv, stats) = tree.search(&mut cpu, &Nim).unwrap();
    assert!(
        winning.contains(&mv.unwrap()),
        "{position}: chose {mv:?}, winning {winning:?}"
    );
    assert_eq!(tree.root_visits(), stats.playouts);
}

#[test]
fn a_finished_game_has_no_move_and_an_immediate_win_is_taken() {
    let mut cpu = CpuExecutor::new(1).unwrap();
    let over = NimState::new(&[0, 0]).unwrap();
    assert_eq!(
        Mcts::new(over, config(100, 1))
            .search(&mut cpu, &Nim)
            .unwrap()
            .0,
        None
    );
    // Taking the whole last heap wins at once; every other move lets the opponent win.
    let last = Nim.parse_position("0,0,4").unwrap();
    let (mv, _) = Mcts::new(last, config(2_000, 1))
        .search(&mut cpu, &Nim)
        .unwrap();
    assert_eq!(Nim.format_move(&last, mv.unwrap()), "2:4");
}

#[test]
fn the_subtree_of_the_played_move_is_kept() {
    let mut cpu = CpuExecutor::new(1).unwrap();
    let state = Nim.parse_position("3,4,5").unwrap();
    let mut tree = Mcts::new(state, config(20_000, 2));
    let (mv, _) = tree.search(&mut cpu, &Nim).unwrap();
    let mv = mv.unwrap();
    let child_visits = tree
        .root_moves()
        .iter()
        .find(|(m, _, _)| *m == mv)
        .unwrap()
        .1;
    tree.advance(&Nim, mv);
    assert_eq!(tree.root_state(), Nim.apply(&state, mv));
    assert_eq!(tree.root_visits(), child_visits);
    // The kept tree searches on from there.
    tree.search(&mut cpu, &Nim).unwrap();
    assert!(tree.root_visits() > child_visits);
}

#[test]
fn flat_monte_carlo_prefers_the_immediate_win() {
    let mut cpu = CpuExecutor::new(0).unwrap();
    let state = Nim.parse_position("0,1,3").unwrap();
    // Winning moves leave a nim-sum of 0: 2:2 (→ 0,1,1).
    let (mv, score) = flat_monte_carlo(&mut cpu, &Nim, &state, 4_000, 5)
        .unwrap()
        .unwrap();
    assert_eq!(Nim.format_move(&state, mv), "2:2");
    assert!(score > 0);
}

/// A timed flat player repeats batches until its time is up, and still finds the winning move.
#[test]
fn a_timed_flat_player_keeps_sampling_until_its_time_is_up() {
    use cubesearch::players::PlayerSpec;
    let state = Nim.parse_position("0,1,3").unwrap();
    let mut player = "flat:k=200,time=150ms,exec=cpu"
        .parse::<PlayerSpec<Nim>>()
        .unwrap()
        .build(cubesearch::Backend::Cpu, 3)
        .unwrap();
    assert!(
        player.name().starts_with("flat:time=150ms,k=200"),
        "{}",
        player.name()
    );
    let start = std::time::Instant::now();
    let mv = player.choose(&Nim, &state).unwrap();
    assert!(start.elapsed() >= std::time::Duration::from_millis(150));
    assert_eq!(Nim.format_move(&state, mv), "2:2");
    assert!("flat:time=soon".parse::<PlayerSpec<Nim>>().is_err());
}
