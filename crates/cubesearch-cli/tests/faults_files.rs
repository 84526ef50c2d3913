//! Files under hostile use (issue 65): an output never replaces another output or an input,
//! however it is named; long names are written; a results file is locked while a match writes
//! it, records the rules, and is replayed and checked on resume; training flags that the
//! chosen trainer would ignore are refused.
#![cfg(unix)] // symbolic and hard links, and the lock a second process would hold

mod common;

use common::{assert_bad_input, cubesearch, json_of};
use std::path::{Path, PathBuf};

fn text(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 temporary path")
}

/// A tiny 2048 network trained for one game on the CPU, at `path`.
fn weights_2048(path: &Path) -> Vec<u8> {
    let out = cubesearch(&[
        "train",
        "2048",
        "--backend",
        "cpu",
        "--games",
        "1",
        "--shapes",
        "seed",
        "--out",
        text(path),
        "--json",
    ]);
    json_of(&out);
    std::fs::read(path).unwrap()
}

/// A Reversi network trained for one self-play game on the CPU, at `path`.
fn weights_reversi(path: &Path) -> Vec<u8> {
    let out = cubesearch(&[
        "train",
        "reversi",
        "--backend",
        "cpu",
        "--games",
        "1",
        "--out",
        text(path),
        "--json",
    ]);
    json_of(&out);
    std::fs::read(path).unwrap()
}

#[test]
fn train_outputs_never_replace_each_other_or_the_weights_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path().join("w.st");
    let before = weights_2048(&w);
    let link = dir.path().join("link.st");
    std::os::unix::fs::symlink(&w, &link).unwrap();
    let hard = dir.path().join("hard.st");
    std::fs::hard_link(&w, &hard).unwrap();
    let (w, link, hard) = (text(&w), text(&link), text(&hard));
    let svg = dir.path().join("c.svg");
    let new = dir.path().join("new.st");
    let other = dir.path().join("other.st");
    let plot = format!("{w}.svg");
    let train = |extra: &[&str]| {
        let mut args = vec!["train", "2048", "--backend", "cpu", "--games", "1"];
        args.extend(extra);
        cubesearch(&args)
    };
    for (extra, mentions) in [
        (
            vec!["--out", text(&new), "--curve", text(&new)],
            "--out and --curve name the same file",
        ),
        (
            vec![
                "--out",
                text(&new),
                "--curve",
                text(&svg),
                "--plot",
                text(&svg),
            ],
            "--curve and --plot name the same file",
        ),
        (
            vec!["--out", text(&new), "--resume", w, "--curve", w],
            "--curve would overwrite --resume",
        ),
        (
            vec!["--out", text(&new), "--resume", w, "--curve", link],
            "--curve would overwrite --resume",
        ),
        (
            vec![
                "--out",
                text(&other),
                "--resume",
                hard,
                "--plot",
                &plot,
                "--json",
            ],
            "",
        ),
        (
            vec!["--out", w, "--resume", w, "--curve", hard],
            "--out and --curve name the same file",
        ),
    ] {
        let out = train(&extra);
        if mentions.is_empty() {
            // Another file beside it is no collision.
            json_of(&out);
            continue;
        }
        assert_bad_input(&out, mentions);
        assert_eq!(std::fs::read(w).unwrap(), before, "{extra:?}");
        assert!(!new.exists() && !svg.exists(), "{extra:?}");
    }
    // Going on in place is what --resume is for.
    json_of(&train(&["--out", w, "--resume", w, "--json"]));
    assert_ne!(std::fs::read(w).unwrap(), before);

    let before = std::fs::read(w).unwrap();
    for out in [w, link] {
        assert_bad_input(
            &cubesearch(&[
                "boards",
                "2048",
                "--weights",
                w,
                "--out",
                out,
                "--games",
                "1",
            ]),
            "--out would overwrite --weights",
        );
    }
    assert_eq!(std::fs::read(w).unwrap(), before);
}

#[test]
fn match_and_play_outputs_never_replace_each_other_or_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path().join("r.st");
    let before = weights_reversi(&r);
    let link = dir.path().join("link.st");
    std::os::unix::fs::symlink(&r, &link).unwrap();
    let openings = dir.path().join("o.txt");
    std::fs::write(&openings, "f5d6\n").unwrap();
    let s = dir.path().join("s.txt");
    let learned = format!("alphabeta:depth=1,weights={}", text(&link));
    let reversi = |command: &str, p1: &str, extra: &[&str]| {
        let mut args = vec![command, "reversi", "--backend", "cpu", "--p1", p1];
        args.extend(["--p2", "random", "--games", "2"]);
        args.extend(extra);
        cubesearch(&args)
    };
    for (out, mentions) in [
        (
            reversi(
                "match",
                "random",
                &["--results", text(&s), "--pdn", text(&s)],
            ),
            "--results and --pdn name the same file",
        ),
        (
            reversi(
                "match",
                "random",
                &["--openings", text(&openings), "--pdn", text(&openings)],
            ),
            "--pdn would overwrite --openings",
        ),
        (
            reversi("match", &learned, &["--pdn", text(&r)]),
            "--pdn would overwrite a file of --p1",
        ),
        (
            reversi("play", &learned, &["--pdn", text(&link)]),
            "--pdn would overwrite a file of --p1",
        ),
    ] {
        assert_bad_input(&out, mentions);
        assert_eq!(std::fs::read(&r).unwrap(), before);
        assert_eq!(std::fs::read(&openings).unwrap(), b"f5d6\n");
        assert!(!s.exists());
    }
    // Its own files, the same players: the match runs.
    let pdn = dir.path().join("games.ggf");
    json_of(&reversi(
        "match",
        &learned,
        &["--pdn", text(&pdn), "--json"],
    ));
    assert!(pdn.exists());
}

#[test]
fn an_output_as_long_as_the_system_takes_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("w".repeat(245) + ".st");
    let trained = json_of(&cubesearch(&[
        "train",
        "2048",
        "--backend",
        "cpu",
        "--games",
        "1",
        "--shapes",
        "seed",
        "--out",
        text(&out),
        "--json",
    ]));
    assert_eq!(trained["games"], 1);
    assert!(out.exists());
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 1, "no temporary file is left: {names:?}");
}

/// `match nim` between random players, `games` games, its results in `results`.
fn nim_match(results: &Path, games: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["match", "nim", "--backend", "cpu", "--p1", "random"];
    args.extend([
        "--p2",
        "random",
        "--games",
        games,
        "--results",
        text(results),
    ]);
    args.extend(extra);
    args.push("--json");
    cubesearch(&args)
}

#[test]
fn a_results_file_is_locked_while_a_match_writes_it() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("r.txt");
    json_of(&nim_match(&results, "2", &[]));
    let kept = std::fs::read(&results).unwrap();
    // Another match holds it: this one refuses at once and leaves it as it was.
    let held = std::fs::File::open(&results).unwrap();
    held.try_lock().unwrap();
    assert_bad_input(
        &nim_match(&results, "4", &[]),
        &format!("--results {} is in use by another match", results.display()),
    );
    assert_eq!(std::fs::read(&results).unwrap(), kept);
    drop(held);
    let resumed = json_of(&nim_match(&results, "4", &[]));
    assert_eq!(resumed["games"], 4);
    assert_eq!(
        std::fs::read_to_string(&results).unwrap().lines().count(),
        5
    );
    // A match whose player cannot start leaves no empty file behind.
    let never = dir.path().join("never.txt");
    let out = cubesearch(&[
        "match",
        "nim",
        "--p1",
        "alphabeta:depth=1,weights=missing.st",
        "--p2",
        "random",
        "--games",
        "2",
        "--results",
        text(&never),
    ]);
    assert_bad_input(&out, "weights=missing.st");
    assert!(!never.exists());
}

#[test]
fn a_results_file_records_the_rules_and_refuses_a_resume_under_others() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("r.txt");
    let checkers = |extra: &[&str]| {
        let mut args = vec!["match", "checkers", "--backend", "cpu", "--p1", "random"];
        args.extend(["--p2", "random", "--results", text(&results)]);
        args.extend(extra);
        cubesearch(&args)
    };
    json_of(&checkers(&["--games", "1", "--draw-plies", "20", "--json"]));
    let header: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(&results)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        header["rules"],
        serde_json::json!({ "rules": "american", "draw_plies": 20 })
    );
    for other in [
        vec!["--games", "2"],
        vec!["--games", "2", "--draw-plies", "30"],
        vec!["--games", "2", "--draw-plies", "20", "--rules", "longest"],
    ] {
        assert_bad_input(&checkers(&other), "under other rules");
    }
    // The same rules, spelled out or not, resume it.
    let resumed = json_of(&checkers(&[
        "--games",
        "2",
        "--draw-plies",
        "20",
        "--rules",
        "american",
        "--json",
    ]));
    assert_eq!(resumed["games"], 2);
}

#[test]
fn resumed_games_are_replayed_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("r.txt");
    json_of(&nim_match(&results, "2", &[]));
    let lines: Vec<String> = std::fs::read_to_string(&results)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let tampered = |line: usize, change: &dyn Fn(&mut serde_json::Value)| {
        let mut lines = lines.clone();
        let mut game: serde_json::Value = serde_json::from_str(&lines[line - 1]).unwrap();
        change(&mut game);
        lines[line - 1] = game.to_string();
        std::fs::write(&results, lines.join("\n") + "\n").unwrap();
    };
    // A result the moves do not give.
    tampered(3, &|game| {
        game["result"] = (-game["result"].as_i64().unwrap()).into()
    });
    assert_bad_input(
        &nim_match(&results, "4", &[]),
        "line 3: game 1 records result",
    );
    // A move that is not legal.
    tampered(2, &|game| game["moves"][0] = "99:99".into());
    assert_bad_input(
        &nim_match(&results, "4", &[]),
        "line 2: game 0's moves do not replay",
    );
    // A game cut short.
    tampered(2, &|game| {
        game["moves"].as_array_mut().unwrap().pop();
    });
    assert_bad_input(&nim_match(&results, "4", &[]), "line 2: game 0 is not over");
    // The file as it was resumes.
    std::fs::write(&results, lines.join("\n") + "\n").unwrap();
    assert_eq!(json_of(&nim_match(&results, "4", &[]))["games"], 4);
}

#[test]
fn train_refuses_what_its_trainer_would_ignore() {
    let dir = tempfile::tempdir().unwrap();
    let out: PathBuf = dir.path().join("w.st");
    let train = |extra: &[&str]| {
        let mut args = vec!["train", "reversi", "--out", text(&out)];
        args.extend(extra);
        cubesearch(&args)
    };
    assert_bad_input(
        &train(&["--backend", "cpu", "--games", "100", "--units", "64"]),
        "64 units is a GPU trainer's games at once",
    );
    // Checked before any device is asked for.
    assert_bad_input(
        &train(&["--backend", "wgpu", "--games", "100", "--units", "1024"]),
        "more than --games 100",
    );
    assert_bad_input(
        &cubesearch(&[
            "train",
            "2048",
            "--backend",
            "wgpu",
            "--games",
            "10",
            "--units",
            "64",
            "--out",
            text(&out),
        ]),
        "more than --games 10",
    );
    assert!(!out.exists());
}
