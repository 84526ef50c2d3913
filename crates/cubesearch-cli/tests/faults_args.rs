//! What a hostile run found in flags, signals and memory, one test a class: every number has
//! its range, a flag a command does not use is refused, threads stay within the cores, a
//! second signal never cuts a save short, and a network too big for memory is an error.

mod common;

use common::{assert_bad_input, cubesearch, json_of};

/// Warm-ups past any range overflowed a sum (a panic, exit 101) or ran forever.
#[test]
fn bench_counts_have_ranges() {
    for warmup in ["18446744073709551615", "4294967296", "1001"] {
        assert_bad_input(
            &cubesearch(&[
                "bench",
                "nim-playouts",
                "--only",
                "cpu-1",
                "--warmup",
                warmup,
            ]),
            "--warmup",
        );
    }
    assert_bad_input(
        &cubesearch(&["bench", "checkers-mcts", "--tree-batch", "0"]),
        "--tree-batch",
    );
    assert_bad_input(
        &cubesearch(&["bench", "expectimax", "--layers", "1,4"]),
        "--layers",
    );
}

/// A flag the suite has no use for would pass for a measurement of it.
#[test]
fn bench_refuses_flags_its_suite_does_not_use() {
    let out = cubesearch(&[
        "bench",
        "nim-playouts",
        "--weights",
        "/nonexistent",
        "--ffo",
        "99",
    ]);
    assert_bad_input(&out, "does not take --weights");
    assert_bad_input(
        &cubesearch(&["bench", "reversi-tables", "--reps", "3"]),
        "does not take --reps",
    );
    assert_bad_input(
        &cubesearch(&["bench", "nim-playouts", "--trees", "4"]),
        "does not take --trees",
    );
}

/// `--only` names a column the suite has, with threads the machine has.
#[test]
fn bench_only_names_columns_that_exist() {
    for (suite, only) in [
        ("nim-playouts", "bogus"),
        ("nim-playouts", "cpu-0"),
        ("nim-playouts", "cpu-99999"),
        ("reversi-endgame", "bogus"),
        ("reversi-board-words", "cpu-1"),
        ("expectimax", "cpu-0"),
    ] {
        let out = cubesearch(&["bench", suite, "--only", only]);
        assert_bad_input(&out, only);
    }
    assert_bad_input(
        &cubesearch(&["bench", "reversi-endgame", "--ffo", "1-100"]),
        "--ffo",
    );
}

#[test]
fn bench_list_speaks_json_when_asked() {
    let list = json_of(&cubesearch(&["bench", "list", "--json"]));
    let suites = list["suites"].as_array().expect("a list of suites");
    assert!(suites.iter().any(|s| s["suite"] == "reversi-endgame"));
}

/// Threads past the cores only contend (thousands of them made a solve deaf to SIGTERM), and
/// a solver that uses none refuses the flag.
#[test]
fn solve_threads_stay_within_the_cores() {
    let position = "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X";
    assert_bad_input(
        &cubesearch(&[
            "solve",
            "reversi",
            "--position",
            position,
            "--threads",
            "100000",
        ]),
        "--threads",
    );
    assert_bad_input(
        &cubesearch(&["solve", "nim", "--position", "1,2", "--threads", "4"]),
        "--threads",
    );
}

/// `timeout` signals the child and then its group: the second signal used to end the process
/// before it saved. Now only the first counts; the weights are saved and whole.
#[cfg(target_os = "linux")]
#[test]
fn a_second_signal_does_not_cut_the_save_short() {
    let dir = tempfile::tempdir().unwrap();
    for (signals, status) in [(&[15, 15, 2][..], 143), (&[1][..], 129)] {
        let weights = dir.path().join(format!("w{status}.safetensors"));
        let w = weights.to_str().unwrap();
        let args = [
            "train",
            "2048",
            "--backend",
            "cpu",
            "--threads",
            "2",
            "--time",
            "60m",
            "--out",
            w,
        ];
        let out = common::interrupted(&args, signals, || true);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(status), "{stderr}");
        cubesearch::NTupleNetwork::load::<cubesearch::games::Game2048>(&weights, None)
            .expect("the weights are saved, whole");
    }
}

/// A network past the memory the process may have is refused in one line, not aborted with a
/// backtrace (exit 134).
#[cfg(target_os = "linux")]
#[test]
fn a_network_too_big_for_memory_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path().join("w.safetensors");
    // Seven 7-cell tuples of 2048's 4-bit cells: 7 × 2^28 weights, 7 GiB, under a 2 GiB limit.
    let shapes = (0..7)
        .map(|t| {
            (0..7)
                .map(|c| (t + c).to_string())
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect::<Vec<_>>()
        .join(";");
    let script = format!(
        "ulimit -v 2097152; exec \"$0\" train 2048 --backend cpu --games 1 --shapes '{shapes}' --out '{}'",
        w.display()
    );
    let out = std::process::Command::new("sh")
        .args(["-c", &script, env!("CARGO_BIN_EXE_cubesearch")])
        .output()
        .unwrap();
    assert_bad_input(&out, "GiB");
    assert!(!w.exists());
}

/// A reader that goes away (`cubesearch bench list | head -c 1`) used to make the next print
/// panic (exit 101 with a backtrace); the process now ends quietly.
#[test]
fn a_closed_stdout_is_no_panic() {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_cubesearch"))
        .args(["bench", "list"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
