//! The seed's easy and medium players on the GPU (one unit per square): square values equal the
//! CPU's bit for bit, and the GPU players make the CPU players' moves.

use cubesearch::games::Reversi;
use cubesearch::players::PlayerSpec;
use cubesearch::testing::random_positions;
use cubesearch::testing::{assert_same, executor};
use cubesearch::{Backend, Game};
use cubesearch_games::reversi::device::seed_players::NOT_LEGAL;
use cubesearch_games::reversi::players::{flip_counts, medium_value};
use cubesearch_games::reversi::seed_player::{device_square_values, Level};
use rstest::rstest;

#[rstest]
fn square_values_match_the_cpu(#[values(Backend::Wgpu, Backend::Cuda)] backend: Backend) {
    let Some(gpu) = executor(backend) else {
        return;
    };
    let boards = random_positions(&Reversi, 150, 60, 51);
    for level in [Level::Easy, Level::Medium] {
        let expected: Vec<Vec<i32>> = boards
            .iter()
            .map(|b| {
                let mut v = vec![NOT_LEGAL; 64];
                for (sq, flips) in flip_counts(b) {
                    v[sq as usize] = match level {
                        Level::Easy => flips as i32,
                        Level::Medium => medium_value(b, sq),
                    };
                }
                v
            })
            .collect();
        let got: Vec<Vec<i32>> = device_square_values(&gpu, &boards, level)
            .unwrap()
            .iter()
            .map(|v| v.to_vec())
            .collect();
        assert_same(&format!("{level:?} square values"), &expected, &got);
        // Something was actually scored (a failed kernel would leave zeros or garbage).
        assert!(got.iter().flatten().filter(|&&v| v != NOT_LEGAL).count() > 500);
    }
}

#[rstest]
fn gpu_players_make_the_cpu_players_moves(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    if executor(backend).is_none() {
        return;
    }
    for name in ["easy", "medium"] {
        let player = |spec: &str| {
            spec.parse::<PlayerSpec<Reversi>>()
                .and_then(|spec| spec.build(backend, 9))
                .unwrap()
        };
        let mut cpu = player(name);
        let mut gpu = player(&format!("{name}:exec=gpu"));
        assert!(gpu.name().contains("exec=gpu"), "{}", gpu.name());
        for b in random_positions(&Reversi, 40, 60, 52) {
            if Reversi.moves(&b).is_empty() {
                continue;
            }
            assert_eq!(
                cpu.choose(&Reversi, &b).unwrap(),
                gpu.choose(&Reversi, &b).unwrap()
            );
        }
    }
}

#[test]
fn bad_seed_player_options_are_parse_errors() {
    let err = "easy:exec=tpu"
        .parse::<PlayerSpec<Reversi>>()
        .expect_err("an error");
    assert!(matches!(err, cubesearch::Error::Parse(_)), "{err}");
}
