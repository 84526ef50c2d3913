//! Hostile player specs and inputs (issue 65): options that exclude each other or that the
//! search would drop, empty options, numbers outside their range, openings files that never
//! end or hold endless lines, and the keys a person slides 2048 with. Each is refused with
//! one line and status 2 before anything is played, or does what the help says.

mod common;

use common::{assert_bad_input, cubesearch, cubesearch_typed};

/// A Nim match of one game between `p1` and a random player, with `extra` flags.
fn nim_match(p1: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["match", "nim", "--p1", p1, "--p2", "random", "--games", "1"];
    args.extend_from_slice(extra);
    cubesearch(&args)
}

#[test]
fn options_that_exclude_each_other_are_refused() {
    for (spec, says) in [
        (
            "alphabeta:depth=2,time=1s",
            "depth= and time= exclude each other",
        ),
        (
            "mcts:time=3s,playouts=10",
            "time= and playouts= exclude each other",
        ),
        (
            "mcts:playouts=10,time=3s",
            "playouts= and time= exclude each other",
        ),
        ("mcts:time=1s,time=2s", "time is given twice"),
    ] {
        assert_bad_input(&nim_match(spec, &["--backend", "cpu"]), says);
    }
}

#[test]
fn a_strategy_is_refused_where_no_gpu_search_runs() {
    // The CPU player (the default exec, or exec=cpu) is one thread's alpha-beta: a strategy
    // would be dropped.
    for spec in [
        "alphabeta:depth=2,strategy=v1",
        "alphabeta:depth=2,exec=cpu,strategy=split",
    ] {
        assert_bad_input(
            &nim_match(spec, &["--backend", "cpu"]),
            "picks how exec=gpu searches",
        );
    }
    // exec=gpu on a backend that resolved to the CPU: the seed's device shapes cannot run.
    assert_bad_input(
        &nim_match(
            "alphabeta:depth=2,exec=gpu,strategy=v2",
            &["--backend", "cpu"],
        ),
        "strategy=v2 runs on a GPU, and --backend resolved to the CPU",
    );
}

#[test]
fn an_expectimax_method_is_refused_on_the_cpu() {
    // Refused before the weights are looked for.
    let out = cubesearch(&[
        "play",
        "2048",
        "--p1",
        "expectimax:layers=1,weights=/no/such/weights.st,method=naive",
        "--backend",
        "cpu",
    ]);
    assert_bad_input(&out, "method= shapes a GPU's search");
}

#[test]
fn empty_options_are_refused() {
    for (spec, says) in [
        ("mcts:", "nothing follows ':'"),
        ("mcts:,", "option 1 is empty"),
        ("mcts:time=1s,,c=1", "option 2 is empty"),
        ("alphabeta:depth=2,", "option 2 is empty"),
        ("random:", "nothing follows ':'"),
        ("ugi:time=1s,,cmd=true", "option 2 is empty"),
    ] {
        assert_bad_input(&nim_match(spec, &["--backend", "cpu"]), says);
    }
}

#[test]
fn numbers_are_refused_with_their_own_range() {
    for (spec, says) in [
        (
            "alphabeta:depth=-1",
            "depth goes from 1 to 40 in whole numbers, got -1",
        ),
        ("alphabeta:depth=4294967296", "from 1 to 40"),
        (
            "mcts:playouts=99999999999999999999",
            "playouts goes from 1 to 1099511627776 in whole numbers",
        ),
        ("mcts:trees=0", "trees goes from 1 to 256"),
        ("flat:k=0", "k goes from 1 to 1073741824"),
    ] {
        assert_bad_input(&nim_match(spec, &["--backend", "cpu"]), says);
    }
    let out = cubesearch(&["play", "2048", "--p1", "expectimax:layers=99,weights=w.st"]);
    assert_bad_input(&out, "layers goes from 0 to 4, got 99");
    // The checkers draw rule's range, not u32's.
    for plies in ["4294967296", "0", "256"] {
        let out = cubesearch(&["perft", "checkers", "--depth", "1", "--draw-plies", plies]);
        assert_bad_input(&out, "1..=255");
    }
}

/// Writes `text` to a fresh file of this test process and gives its path.
fn file(name: &str, text: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("cubesearch-faults-specs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn reversi_openings(path: &str) -> std::process::Output {
    cubesearch(&[
        "match",
        "reversi",
        "--p1",
        "random",
        "--p2",
        "random",
        "--games",
        "1",
        "--openings",
        path,
    ])
}

#[test]
fn openings_are_read_within_bounds() {
    // A device never ends: refused at once instead of read until memory runs out.
    assert_bad_input(&reversi_openings("/dev/zero"), "not a regular file");
    // The run-together line, 512 KB: refused by its length, named by its number.
    let mut text = b"f5 d6\n".to_vec();
    text.extend("f5d6c3d3".repeat(64_000).bytes());
    let path = file("long.txt", &text);
    assert_bad_input(
        &reversi_openings(path.to_str().unwrap()),
        "line 2 is longer than 64 KiB",
    );
}

/// A 2048 board with one empty cell and no equal neighbours: only right and down slide.
const FULL_BUT_ONE: &str = "2,4,2,4,4,2,4,2,2,4,2,4,4,2,4,0";

#[test]
fn a_person_slides_by_first_letters_and_wasd_is_not_read() {
    let play = |keys: &[u8]| {
        let out = cubesearch_typed(
            &["play", "2048", "--p1", "human", "--position", FULL_BUT_ONE],
            keys,
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // `r` slides right; `u` is up, which changes nothing here; `w` and `a` are not keys.
    let stdout = play(b"w\na\nu\nr\n");
    assert!(stdout.contains("bad 2048 move 'w'"), "{stdout}");
    assert!(stdout.contains("bad 2048 move 'a'"), "{stdout}");
    assert!(stdout.contains("up changes nothing"), "{stdout}");
    assert!(stdout.contains("after 1 moves"), "{stdout}");
    assert!(stdout.contains("or l/r/u/d, an arrow key"), "{stdout}");
    // `d` is down: the right column moves down a cell (with WASD it slid right, and the
    // second and third rows stayed as they were).
    let stdout = play(b"d\n");
    assert!(stdout.contains("after 1 moves"), "{stdout}");
    assert!(stdout.contains("4 2 4 4\n2 4 2 2\n"), "{stdout}");
    // The help promises what is read.
    let help = String::from_utf8_lossy(&cubesearch(&["play", "--help"]).stdout).into_owned();
    assert!(help.contains("first letters l/r/u/d"), "{help}");
    assert!(!help.contains("w/a/s/d"), "{help}");
}
