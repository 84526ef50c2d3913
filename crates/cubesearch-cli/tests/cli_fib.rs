//! The command line for 2584 and 2048: `apply` and `train`.

mod common;

use common::{assert_bad_input, cubesearch, cubesearch_typed, json_of};

#[test]
fn apply_slides_2584_rows_and_reports_rewards() {
    let json = json_of(&cubesearch(&[
        "apply",
        "2584",
        "--position",
        "1,1,1,0,1,2,3,5,0,0,0,0,0,0,0,0",
        "--moves",
        "left",
        "--json",
    ]));
    assert_eq!(json["position"], "2,1,0,0,3,8,0,0,0,0,0,0,0,0,0,0");
    assert_eq!(json["rewards"], serde_json::json!([13]));
    assert_eq!(json["status"], "ongoing");
}

#[test]
fn apply_2048_with_spawn_adds_one_tile_a_move() {
    let json = json_of(&cubesearch(&[
        "apply",
        "2048",
        "--position",
        "2,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0",
        "--moves",
        "left,right",
        "--spawn",
        "--json",
    ]));
    let cells: Vec<u64> = json["position"]
        .as_str()
        .unwrap()
        .split(',')
        .map(|v| v.parse().unwrap())
        .collect();
    assert_eq!(cells.iter().filter(|&&v| v != 0).count(), 3);
    assert_eq!(json["rewards"][0], 4);
}

#[test]
fn apply_refuses_bad_boards_and_illegal_moves() {
    assert_bad_input(
        &cubesearch(&["apply", "2584", "--position", "4,0,0", "--moves", "left"]),
        "2584",
    );
    assert_bad_input(
        &cubesearch(&[
            "apply",
            "2048",
            "--position",
            "2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0",
            "--moves",
            "left",
        ]),
        "illegal move left",
    );
    assert_bad_input(&cubesearch(&["apply", "2048", "--moves", "north"]), "north");
}

#[test]
fn train_writes_weights_a_curve_and_resumes() {
    let dir = std::env::temp_dir().join(format!("cubesearch-cli-fib-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("w.safetensors");
    let curve = dir.join("curve.csv");
    let (out_s, curve_s) = (out.to_str().unwrap(), curve.to_str().unwrap());
    let json = json_of(&cubesearch(&[
        "train", "2048", "--games", "40", "--out", out_s, "--curve", curve_s, "--json",
    ]));
    assert_eq!(json["games"], 40);
    assert!(json["mean_score"].as_f64().unwrap() > 0.0);
    assert!(json["seconds"].as_f64().unwrap() > 0.0);
    assert!(std::fs::read_to_string(&curve)
        .unwrap()
        .starts_with("games,mean_score,max_score\n"));
    let json = json_of(&cubesearch(&[
        "train", "2048", "--games", "10", "--out", out_s, "--resume", out_s, "--json",
    ]));
    assert_eq!(json["total_games"], 50);
    // The weights are for 2048: training 2584 from them is refused.
    assert_bad_input(
        &cubesearch(&[
            "train", "2584", "--games", "1", "--out", out_s, "--resume", out_s,
        ]),
        "not for 2584",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// OTD+TC as Guei et al. train: an optimistic start, then a resumed run with temporal
/// coherence at alpha 1.0, on the CPU (the same games as without it, learned otherwise) and on
/// wgpu.
#[test]
fn train_resumes_with_temporal_coherence() {
    let dir = std::env::temp_dir().join(format!("cubesearch-cli-tc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (first, second) = (dir.join("otd.safetensors"), dir.join("tc.safetensors"));
    let (first_s, second_s) = (first.to_str().unwrap(), second.to_str().unwrap());
    cubesearch(&[
        "train",
        "2048",
        "--games",
        "30",
        "--optimistic",
        "20000",
        "--out",
        first_s,
    ]);
    let resume = |extra: &[&str]| {
        // Backward, as a GPU learns: forward plain TD at alpha 1.0 diverges.
        let mut args = vec![
            "train",
            "2048",
            "--games",
            "30",
            "--alpha",
            "1.0",
            "--resume",
            first_s,
            "--out",
            second_s,
            "--json",
            "--td-order",
            "backward",
        ];
        args.extend_from_slice(extra);
        json_of(&cubesearch(&args))
    };
    let coherent = resume(&["--coherence"]);
    assert_eq!(coherent["total_games"], 60);
    // One CPU thread replays the run exactly.
    assert_eq!(
        coherent["mean_score"],
        resume(&["--coherence"])["mean_score"]
    );
    assert_ne!(coherent["mean_score"], resume(&[])["mean_score"]);
    let on_gpu = resume(&["--coherence", "--backend", "wgpu", "--units", "8"]);
    assert_eq!(on_gpu["total_games"], 60);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn train_on_threads_shares_the_weights_as_asked() {
    let dir = std::env::temp_dir().join(format!("cubesearch-cli-share-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("w.safetensors");
    let out_s = out.to_str().unwrap();
    let run = |sharing: &str| {
        let args = [
            "train",
            "2048",
            "--games",
            "60",
            "--threads",
            "2",
            "--backend",
            "cpu",
            "--sharing",
            sharing,
            "--out",
            out_s,
            "--json",
        ];
        json_of(&cubesearch(&args))
    };
    // Copies replay a run exactly on any number of threads.
    let (a, b) = (run("copies"), run("copies"));
    assert_eq!(a["games"], 60);
    assert_eq!(a["mean_score"], b["mean_score"]);
    assert_eq!(run("table")["games"], 60);
    assert_bad_input(
        &cubesearch(&[
            "train",
            "2048",
            "--games",
            "1",
            "--sharing",
            "locks",
            "--out",
            out_s,
        ]),
        "copies or table",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn play_reports_the_seeds_statistics_for_trained_weights() {
    let dir = std::env::temp_dir().join(format!("cubesearch-play-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let weights = dir.join("w.safetensors");
    let w = weights.to_str().unwrap();
    json_of(&cubesearch(&[
        "train", "2048", "--games", "30", "--out", w, "--json",
    ]));
    let spec = format!("td:weights={w}");
    let json = json_of(&cubesearch(&[
        "play", "2048", "--p1", &spec, "--games", "20", "--json",
    ]));
    let stats = &json["stats"];
    assert_eq!(stats["games"], 20);
    assert!(stats["mean_score"].as_f64().unwrap() > 0.0);
    let tiles: Vec<_> = stats["reach"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["tile"].as_u64().unwrap())
        .collect();
    assert!(tiles.contains(&2048), "{tiles:?}");
    // A 2048 network is refused for 2584, and a corrupt file for either, with exit status 2.
    assert_bad_input(
        &cubesearch(&["play", "2584", "--p1", &spec, "--games", "1"]),
        w,
    );
    std::fs::write(&weights, b"not a weights file").unwrap();
    assert_bad_input(
        &cubesearch(&["play", "2048", "--p1", &spec, "--games", "1"]),
        w,
    );
    assert_bad_input(
        &cubesearch(&["play", "2048", "--p1", "alien", "--games", "1"]),
        "unknown player",
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn train_on_wgpu_checkpoints_resumes_and_refuses_bad_gpu_options() {
    let dir = std::env::temp_dir().join(format!("cubesearch-cli-gputrain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("w.safetensors");
    let out_s = out.to_str().unwrap();
    let plot = dir.join("curve.png");
    let json = json_of(&cubesearch(&[
        "train",
        "2584",
        "--plot",
        plot.to_str().unwrap(),
        "--games",
        "48",
        "--out",
        out_s,
        "--backend",
        "wgpu",
        "--units",
        "8",
        "--checkpoint-every",
        "16",
        "--json",
    ]));
    assert_eq!(json["backend"], "wgpu");
    assert_eq!(json["games"], 48);
    assert_eq!(json["threads"], 8);
    assert!(std::fs::read(&plot)
        .unwrap()
        .starts_with(b"\x89PNG\r\n\x1a\n"));
    assert!(json["mean_score"].as_f64().unwrap() > 0.0);
    // The device's weights came back: the file holds a trained network that resumes.
    let json = json_of(&cubesearch(&[
        "train",
        "2584",
        "--games",
        "8",
        "--out",
        out_s,
        "--resume",
        out_s,
        "--backend",
        "wgpu",
        "--units",
        "4",
        "--json",
    ]));
    assert_eq!(json["total_games"], 56);
    assert_bad_input(
        &cubesearch(&[
            "train",
            "2584",
            "--games",
            "8",
            "--out",
            out_s,
            "--backend",
            "wgpu",
            "--gpus",
            "2",
        ]),
        "2 GPUs: several GPUs train on CUDA devices",
    );
    assert_bad_input(
        &cubesearch(&[
            "train",
            "2584",
            "--games",
            "8",
            "--out",
            out_s,
            "--backend",
            "wgpu",
            "--units",
            "0",
        ]),
        "--units",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bench_td_suites_report_moves_and_updates() {
    for (suite, unit, units) in [
        ("td-train", "moves", None),
        ("td-update", "updates", Some(1_000_000)),
    ] {
        let json = json_of(&cubesearch(&[
            "bench",
            suite,
            "--only",
            "cpu-1,wgpu",
            "--level",
            "0",
            "--reps",
            "1",
            "--warmup",
            "0",
            "--json",
        ]));
        let rows = json["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 2, "{suite}: {rows:?}");
        for row in rows {
            assert_eq!(row["unit"], unit);
            assert!(row["per_second"].as_f64().unwrap() > 0.0);
            if let Some(n) = units {
                assert_eq!(row["units"], n);
            }
        }
    }
}

/// Forward TD on a GPU (`--td-order forward`): each afterstate learns once the next move is
/// chosen; it needs averaged updates (1024 games at once and more).
#[test]
fn train_learns_forward_on_a_gpu_with_averaged_updates() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("w.safetensors");
    let out_s = out.to_str().unwrap();
    let train = |extra: &[&str]| {
        let mut args = vec!["train", "2584", "--games", "1024", "--out", out_s];
        args.extend_from_slice(extra);
        cubesearch(&args)
    };
    let json = json_of(&train(&[
        "--backend",
        "wgpu",
        "--units",
        "1024",
        "--td-order",
        "forward",
        "--json",
    ]));
    assert_eq!(json["td_order"], "forward");
    assert_eq!(json["games"], 1024);
    assert!(json["mean_score"].as_f64().unwrap() > 0.0);
    assert_bad_input(
        &train(&["--backend", "wgpu", "--units", "4", "--td-order", "forward"]),
        "--td-order forward",
    );
}

/// Options a one-player game has no use for are refused, not ignored.
#[test]
fn unused_options_of_one_player_games_are_refused() {
    for (args, mentions) in [
        (
            &["play", "2048", "--p1", "random", "--position", FULL_BUT_ONE][..],
            "only human play takes a given start",
        ),
        (
            &["play", "2584", "--p1", "random", "--rules", "american"],
            "--rules",
        ),
        (
            &["play", "2048", "--p1", "random", "--draw-plies", "9"],
            "--draw-plies",
        ),
    ] {
        assert_bad_input(&cubesearch(args), mentions);
    }
}

/// A 2048 board with one empty cell and no equal neighbours: only right and down slide.
const FULL_BUT_ONE: &str = "2,4,2,4,4,2,4,2,2,4,2,4,4,2,4,0";

#[test]
fn a_person_plays_2048_from_a_given_board_with_names_letters_and_arrow_keys() {
    // A bad key and a slide that changes nothing are asked again; then the arrow key for down,
    // and the keys in turn until the board locks.
    let mut keys = b"x\nleft\n\x1b[B\n".to_vec();
    for _ in 0..500 {
        keys.extend_from_slice(b"a\nw\nd\ns\n\x1b[D\n\x1bOA\nright\nDOWN\n");
    }
    let out = cubesearch_typed(
        &["play", "2048", "--p1", "human", "--position", FULL_BUT_ONE],
        &keys,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("bad 2048 move 'x'"), "{stdout}");
    assert!(
        stdout.contains("left changes nothing; legal: right down"),
        "{stdout}"
    );
    // The board as drawn first, then after the arrow key: down leaves the top right empty.
    assert!(stdout.contains("2 4 2 4\n4 2 4 2\n2 4 2 4\n4 2 4 .\nscore 0 after 0 moves"));
    assert!(stdout.contains("score 0 after 1 moves"), "{stdout}");
    assert!(
        stdout.contains("game over: no slide changes the board"),
        "{stdout}"
    );
    assert!(stdout.contains("1 games of 2048 by human"), "{stdout}");
    // Without input the game cannot go on: a clear error, exit 2.
    assert_bad_input(
        &cubesearch_typed(&["play", "2048", "--p1", "human"], b""),
        "input ended before the game did",
    );
}
