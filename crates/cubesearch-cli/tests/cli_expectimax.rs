//! The command line's expectimax player for 2584 and 2048.

mod common;

use common::{assert_bad_input, cubesearch, json_of};

fn weights(game: &str, dir: &std::path::Path) -> String {
    let w = dir.join(format!("w{game}.safetensors"));
    let w = w.to_str().unwrap().to_string();
    json_of(&cubesearch(&[
        "train", game, "--games", "100", "--out", &w, "--json",
    ]));
    w
}

#[test]
fn zero_layers_plays_the_td_players_games_and_one_layer_reports_the_statistics() {
    let dir = std::env::temp_dir().join(format!("cubesearch-xm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for game in ["2584", "2048"] {
        let w = weights(game, &dir);
        let play = |spec: &str, batch: &str| {
            json_of(&cubesearch(&[
                "play",
                game,
                "--p1",
                spec,
                "--games",
                "6",
                "--batch",
                batch,
                "--backend",
                "cpu",
                "--seed",
                "5",
                "--json",
            ]))
        };
        let td = play(&format!("td:weights={w}"), "1");
        let x0 = play(&format!("expectimax:layers=0,weights={w}"), "4");
        for key in ["mean_score", "max_score", "mean_moves", "reach"] {
            assert_eq!(td["stats"][key], x0["stats"][key], "{game} {key}");
        }
        let x1 = play(&format!("expectimax:layers=1,weights={w},tt=on"), "3");
        assert_eq!(x1["stats"]["games"], 6);
        assert!(x1["stats"]["mean_score"].as_f64().unwrap() > 0.0);
        assert_eq!(
            x1["device"].as_str().unwrap().split(' ').next(),
            Some("cpu")
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The same seed and weights play the same games on the CPU and on wgpu: the device's values
/// are the CPU's bits, so no near-tie flips a move (at adece63 a 1-layer 2584 player's mean
/// was 8,293.5 on the CPU and 7,245.25 on wgpu).
#[test]
fn one_layer_plays_the_same_games_on_the_cpu_and_on_wgpu() {
    let dir = std::env::temp_dir().join(format!("cubesearch-xs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let w = weights("2584", &dir);
    let play = |backend: &str| {
        let spec = format!("expectimax:layers=1,weights={w}");
        let args = ["play", "2584", "--p1", &spec, "--games", "3", "--seed", "5"];
        json_of(&cubesearch(
            &[&args[..], &["--backend", backend, "--json"]].concat(),
        ))
    };
    let (cpu, gpu) = (play("cpu"), play("wgpu"));
    for key in ["mean_score", "max_score", "mean_moves", "reach"] {
        assert_eq!(cpu["stats"][key], gpu["stats"][key], "{key}");
    }
    assert!(cpu["stats"]["mean_moves"].as_f64().unwrap() > 100.0);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_expectimax_specs_exit_with_status_2() {
    let bad = |spec: &str, mentions: &str| {
        assert_bad_input(
            &cubesearch(&["play", "2584", "--p1", spec, "--backend", "cpu"]),
            mentions,
        )
    };
    bad("expectimax:layers=1", "weights=FILE is required");
    bad("expectimax:weights=w.safetensors", "layers=L is required");
    bad(
        "expectimax:layers=9,weights=w",
        "layers goes from 0 to 4, got 9",
    );
    bad("expectimax:layers=x,weights=w", "layers must be a number");
    bad(
        "expectimax:layers=1,weights=w,method=magic",
        "naive or multilevel",
    );
    bad(
        "expectimax:layers=1,weights=w,depth=3",
        "unknown option 'depth'",
    );
    bad("expectimax:layers=1,weights=/no/such/file", "/no/such/file");
    assert_bad_input(
        &cubesearch(&[
            "play",
            "2048",
            "--p1",
            "expectimax:layers=1,weights=w",
            "--batch",
            "0",
        ]),
        "--batch",
    );
}

#[test]
fn boards_writes_one_board_of_each_class_per_game() {
    let dir = std::env::temp_dir().join(format!("cubesearch-boards-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let w = weights("2048", &dir);
    let out = dir.join("boards.txt");
    let out_s = out.to_str().unwrap();
    let json = json_of(&cubesearch(&[
        "boards",
        "2048",
        "--weights",
        &w,
        "--layers",
        "0",
        "--games",
        "3",
        "--out",
        out_s,
        "--json",
    ]));
    assert_eq!(json["boards"], 9);
    let text = std::fs::read_to_string(&out).unwrap();
    let classes: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert_eq!(
        classes,
        ["starter", "starter", "starter", "normal", "normal", "normal", "late", "late", "late"]
    );
    assert!(text.starts_with("# 2048 benchmark boards"));
    assert_bad_input(
        &cubesearch(&["boards", "2584", "--weights", &w, "--out", out_s]),
        "not for 2584",
    );
    assert_bad_input(
        &cubesearch(&["boards", "nim", "--weights", &w, "--out", out_s]),
        "[possible values: 2584, 2048]",
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bench_expectimax_times_every_class_and_column() {
    let json = json_of(&cubesearch(&[
        "bench",
        "expectimax",
        "--layers",
        "2",
        "--per-class",
        "1",
        "--reps",
        "1",
        "--batch",
        "2",
        "--only",
        "cpu-1,cpu-2,wgpu",
        "--json",
    ]));
    let rows = json["rows"].as_array().unwrap();
    let columns = ["cpu-1", "cpu-2 tree", "wgpu naive", "wgpu multilevel"];
    for column in columns {
        for class in ["starter", "normal", "late"] {
            let row = rows
                .iter()
                .find(|r| r["column"] == column && r["class"] == class)
                .unwrap_or_else(|| panic!("no {column} {class} row: {rows:?}"));
            assert!(row["ms_per_move"].as_f64().unwrap() > 0.0);
            assert_eq!(row["layers"], 2);
        }
        let throughput = rows
            .iter()
            .find(|r| r["column"] == column && r["kind"] == "throughput")
            .unwrap();
        assert_eq!(throughput["roots"], 2);
        assert!(throughput["roots_per_sec"].as_f64().unwrap() > 0.0);
    }
    assert_bad_input(
        &cubesearch(&["bench", "expectimax", "--layers", "5", "--only", "cpu-1"]),
        "--layers",
    );
    assert_bad_input(
        &cubesearch(&[
            "bench",
            "expectimax-2048",
            "--boards",
            "/no/such/boards",
            "--only",
            "cpu-1",
        ]),
        "/no/such/boards",
    );
}
