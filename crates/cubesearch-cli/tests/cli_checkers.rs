//! The command line for checkers: the board printed by `play`, and games written as PDN.

use cubesearch_core::game::read_moves;
use cubesearch_core::Game;
use cubesearch_games::checkers::pdn::pdn_move_texts;
use cubesearch_games::checkers::{Checkers, Rules};

mod common;
use common::{assert_bad_input, cubesearch, json_of};

/// The games of a PDN file, split at their `[Event` tags.
fn games_of(pdn: &str) -> Vec<String> {
    let mut games: Vec<String> = Vec::new();
    for line in pdn.lines() {
        if line.starts_with("[Event ") || games.is_empty() {
            games.push(String::new());
        }
        let last = games.last_mut().unwrap();
        last.push_str(line);
        last.push('\n');
    }
    games
}

#[test]
fn play_writes_every_game_as_pdn() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.pdn");
    let path_text = path.to_str().unwrap();
    let out = cubesearch(&[
        "play",
        "checkers",
        "--backend",
        "cpu",
        "--rules",
        "american",
        "--p1",
        "random",
        "--p2",
        "random",
        "--games",
        "2",
        "--pdn",
        path_text,
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json: serde_json::Value =
        serde_json::from_str(stdout.lines().last().unwrap()).expect("JSON on the last line");
    let pdn = std::fs::read_to_string(&path).expect("the PDN file is written");
    assert_eq!(pdn.matches("[Result ").count(), 2, "{pdn}");
    assert_eq!(pdn.matches("[GameType \"21\"]").count(), 2, "{pdn}");
    // Only the file itself is left in the folder: no temporary file.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["g.pdn"]);
    // Each game replays, and its moves and result are those the JSON reports.
    let game = Checkers::new(Rules::American);
    let games = games_of(&pdn);
    assert_eq!(games.len(), 2, "{pdn}");
    for (text, reported) in games.iter().zip(json["games"].as_array().unwrap()) {
        let moves = pdn_move_texts(text);
        let expected: Vec<String> = reported["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_string())
            .collect();
        assert_eq!(moves, expected, "{text}");
        let start = game.initial();
        let played = read_moves(&game, &start, &moves).unwrap();
        let mut end = start;
        for m in played {
            end = game.apply(&end, m);
        }
        assert_eq!(
            game.format_position(&end),
            reported["final"].as_str().unwrap()
        );
        let token = match reported["result"].as_i64().unwrap() {
            1 => "1-0",
            -1 => "0-1",
            _ => "1/2-1/2",
        };
        assert!(text.contains(&format!("[Result \"{token}\"]")), "{text}");
        assert!(text.trim_end().ends_with(token), "{text}");
    }
}

#[test]
fn play_shows_a_numbered_board() {
    let out = cubesearch(&[
        "play",
        "checkers",
        "--backend",
        "cpu",
        "--p1",
        "random",
        "--p2",
        "random",
    ]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("B/W = king"), "{stdout}");
    assert!(stdout.contains("plies since the last capture"), "{stdout}");
}

#[test]
fn pdn_is_refused_for_a_game_without_a_record_format() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("n.pdn");
    let out = cubesearch(&[
        "play",
        "nim",
        "--backend",
        "cpu",
        "--p1",
        "random",
        "--p2",
        "random",
        "--pdn",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no game record format"), "{stderr}");
    assert!(!path.exists());
}

/// The command line plays American checkers unless told otherwise: perft 6 from the start is
/// 36,768 (american) and 36,473 with `--rules longest` (docs/RULES.md); every checkers command
/// takes `--rules` and `--draw-plies`, and a draw limit outside 1..=255 is refused.
#[test]
fn american_rules_by_default_and_rule_flags_on_every_checkers_command() {
    let perft = |extra: &[&str]| {
        let args = [
            "perft",
            "checkers",
            "--depth",
            "6",
            "--backend",
            "cpu",
            "--json",
        ];
        json_of(&cubesearch(&[&args[..], extra].concat()))["nodes"].clone()
    };
    assert_eq!(perft(&[]), 36768);
    assert_eq!(perft(&["--rules", "american"]), 36768);
    assert_eq!(perft(&["--rules", "longest"]), 36473);
    // After 1.11-15 23-18 black must capture 15x22; apply takes the rule flags too.
    let apply = cubesearch(&[
        "apply",
        "checkers",
        "--moves",
        "11-15,23-18",
        "--rules",
        "longest",
        "--draw-plies",
        "30",
    ]);
    assert!(apply.status.success(), "{apply:?}");
    // A match from a given position under a short draw limit: two quiet kings draw.
    let kings = "W:WK32:BK1";
    let matched = json_of(&cubesearch(&[
        "match",
        "checkers",
        "--p1",
        "random",
        "--p2",
        "random",
        "--games",
        "2",
        "--position",
        kings,
        "--draw-plies",
        "4",
        "--backend",
        "cpu",
        "--json",
    ]));
    assert_eq!(matched["draws"], 2, "{matched}");
    for bad in [
        &["perft", "checkers", "--depth", "2", "--draw-plies", "0"][..],
        &[
            "match",
            "checkers",
            "--p1",
            "random",
            "--p2",
            "random",
            "--games",
            "1",
            "--draw-plies",
            "256",
        ],
        &["apply", "checkers", "--rules", "bogus"],
        &["perft", "nim", "--depth", "2", "--draw-plies", "9"],
    ] {
        assert_bad_input(&cubesearch(bad), "");
    }
}

#[test]
fn rules_are_refused_for_nim() {
    let out = cubesearch(&["play", "nim", "--rules", "american", "--p1", "random"]);
    assert_eq!(out.status.code(), Some(2));
}

/// `--position start` is the start position in every two-player command: the same solve as the
/// start written out in PDN FEN, and the same perft as no position at all.
#[test]
fn start_names_the_start_position() {
    let fen = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12";
    let solve = |position: &str| {
        json_of(&cubesearch(&[
            "solve",
            "checkers",
            "--position",
            position,
            "--depth",
            "5",
            "--backend",
            "cpu",
            "--rules",
            "american",
            "--json",
        ]))
    };
    let (by_name, by_fen) = (solve("start"), solve(fen));
    assert_eq!(by_name["value"], by_fen["value"]);
    assert_eq!(by_name["best_move"], by_fen["best_move"]);
    assert_eq!(by_name["position"], by_fen["position"]);
    let perft = |extra: &[&str]| {
        let mut args = vec![
            "perft",
            "reversi",
            "--depth",
            "3",
            "--backend",
            "cpu",
            "--json",
        ];
        args.extend_from_slice(extra);
        json_of(&cubesearch(&args))["nodes"].clone()
    };
    assert_eq!(perft(&["--position", "start"]), perft(&[]));
}
