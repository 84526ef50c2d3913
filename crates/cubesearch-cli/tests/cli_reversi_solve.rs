//! `cubesearch solve reversi`: exact values by the endgame solver (held to plain minimax in the
//! games crate's tests), by the evaluation's minimax with `--depth`, and bad positions refused.

mod common;
use common::{assert_bad_input, cubesearch, json_of};
use cubesearch::games::Reversi;
use cubesearch::Game;
use cubesearch_games::reversi::endgame::solve;

/// A position 12 moves from the end of a game (random play, fixed seed), White to move.
const TWELVE_EMPTIES: &str = "XXXXXXXOXXOOOOXOXOXOXXXOXOOXOXXOXXXXXOOO--XXXOO---XXX-----XXXX-- O";

/// On one thread and on two (the default is every core, and the most it takes: CI's machine
/// has two), the value is exact and the named move keeps it; `--threads` with a depth-limited
/// search is refused.
#[test]
fn solve_reversi_is_exact_and_names_a_move_of_that_value() {
    let board = Reversi.parse_position(TWELVE_EMPTIES).unwrap();
    let exact = solve(&board);
    for threads in ["1", "2"] {
        let json = json_of(&cubesearch(&[
            "solve",
            "reversi",
            "--position",
            TWELVE_EMPTIES,
            "--threads",
            threads,
            "--json",
        ]));
        assert_eq!(json["exact"], true);
        assert_eq!(json["threads"].to_string(), threads);
        assert_eq!(json["empties"], 12);
        assert_eq!(json["value"], exact.value);
        // The named move keeps the value: the solver on the child says minus as much.
        let mv = Reversi
            .parse_move(&board, json["best_move"].as_str().unwrap())
            .unwrap();
        assert_eq!(-solve(&Reversi.apply(&board, mv)).value, exact.value);
    }
    let out = cubesearch(&[
        "solve",
        "reversi",
        "--position",
        TWELVE_EMPTIES,
        "--depth",
        "2",
        "--threads",
        "2",
    ]);
    assert_bad_input(&out, "--threads is for the exact solver");
}

#[test]
fn solve_reversi_with_a_depth_searches_the_evaluation() {
    let json = json_of(&cubesearch(&[
        "solve",
        "reversi",
        "--position",
        TWELVE_EMPTIES,
        "--depth",
        "2",
        "--backend",
        "cpu",
        "--json",
    ]));
    assert_eq!(json["depth"], 2);
    assert!(json["best_move"].is_string(), "{json}");
}

#[test]
fn bad_reversi_positions_are_refused() {
    let out = cubesearch(&["solve", "reversi", "--position", "XO- X"]);
    assert_bad_input(&out, "position");
}

#[test]
fn bench_lists_the_reversi_suites() {
    let out = cubesearch(&["bench", "list"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for suite in [
        "reversi-endgame",
        "reversi-tables",
        "reversi-table3",
        "reversi-alphabeta",
    ] {
        assert!(
            text.lines().any(|l| l.starts_with(suite)),
            "{suite}: {text}"
        );
    }
}

/// Without cpu-1 in `--only` (depth 10 takes it minutes a position) only the named columns run,
/// the first being the reference the others' values are checked against: a backend's name
/// names all its columns, a column's label that column alone.
#[test]
fn bench_reversi_alphabeta_runs_only_the_named_columns() {
    for (only, want) in [
        (
            "wgpu",
            &["wgpu v1", "wgpu v4", "wgpu split", "wgpu frontier"][..],
        ),
        ("wgpu frontier,wgpu v1", &["wgpu v1", "wgpu frontier"][..]),
    ] {
        let json = json_of(&cubesearch(&[
            "bench",
            "reversi-alphabeta",
            "--level",
            "3",
            "--only",
            only,
            "--json",
        ]));
        let rows = json["rows"].as_array().unwrap();
        let columns: Vec<&str> = rows.iter().map(|r| r["column"].as_str().unwrap()).collect();
        assert_eq!(columns, want, "--only {only}: {rows:?}");
        for row in rows {
            assert_eq!(row["depth"], 3);
            assert_eq!(row["values_agree"], true, "{row}");
        }
    }
}
