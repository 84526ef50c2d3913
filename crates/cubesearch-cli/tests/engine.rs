//! `cubesearch engine`: UGI sessions driven through stdin, as a tournament manager would, with
//! the answers checked: handshakes, legal best moves, info lines, the time asked for, queries,
//! and bad input answered with an error line while the engine keeps running.

mod common;

use common::cubesearch_typed;
use cubesearch::games::{Checkers, Reversi};
use cubesearch::Game;

/// The engine's stdout for `script` (a line a command), which must end cleanly.
fn session(args: &[&str], script: &str) -> Vec<String> {
    let mut all = vec!["engine"];
    all.extend_from_slice(args);
    all.extend(["--backend", "cpu"]);
    let out = cubesearch_typed(&all, script.as_bytes());
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout.lines().map(str::to_string).collect()
}

/// The moves of each `bestmove` line, in order.
fn best_moves(lines: &[String]) -> Vec<&str> {
    lines
        .iter()
        .filter_map(|l| l.strip_prefix("bestmove "))
        .collect()
}

/// The state after `moves` from the start of `game`.
fn after<G: Game>(game: &G, moves: &[&str]) -> G::State {
    moves.iter().fold(game.initial(), |s, m| {
        let mv = game.parse_move(&s, m).unwrap();
        game.apply(&s, mv)
    })
}

#[test]
fn a_ugi_session_plays_legal_checkers_moves_in_the_time_asked() {
    let lines = session(
        &["checkers", "--player", "mcts:time=1s"],
        "ugi\nisready\nuginewgame\nposition startpos moves 11-15 22-18\nquery p1turn\n\
         go movetime 300\nposition startpos moves 11-15 22-18 15x22\nquery p1turn\n\
         go nodes 500\nsetoption name playouts value 300\nposition startpos\ngo\n\
         setoption name c value nope\ngo nodes 1\nquit\n",
    );
    assert_eq!(
        lines[0],
        format!("id name cubesearch {}", env!("CARGO_PKG_VERSION"))
    );
    assert!(lines.contains(&"option name player type string default mcts:time=1s".into()));
    let ugiok = lines.iter().position(|l| l == "ugiok").expect("ugiok");
    assert_eq!(lines[ugiok + 1], "readyok");
    let turns: Vec<&String> = lines.iter().filter(|l| l.starts_with("response")).collect();
    assert_eq!(turns, ["response true", "response false"]);
    // The last `go` is cut short by the `quit` queued behind it, as a host's quit should.
    let best = best_moves(&lines);
    assert_eq!(best.len(), 4, "{lines:?}");
    // Each answer is a legal move of the position it was asked in.
    let game = Checkers::default();
    let first = after(&game, &["11-15", "22-18"]);
    assert!(game.parse_move(&first, best[0]).is_ok(), "{}", best[0]);
    let second = after(&game, &["11-15", "22-18", "15x22"]);
    assert!(game.parse_move(&second, best[1]).is_ok(), "{}", best[1]);
    // The info lines: time spent (300 ms asked, with a wide margin for a loaded machine), and
    // the playouts of the search (500 asked: at most a leaf batch more).
    let infos: Vec<Vec<&str>> = lines
        .iter()
        .filter(|l| l.starts_with("info time"))
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(infos.len(), 4, "{lines:?}");
    let field = |info: &[&str], name: &str| -> u64 {
        let at = info.iter().position(|w| *w == name).unwrap();
        info[at + 1].parse().unwrap()
    };
    let ms = field(&infos[0], "time");
    assert!((250..5000).contains(&ms), "go movetime 300 took {ms} ms");
    let playouts = field(&infos[1], "playouts");
    assert!((500..1000).contains(&playouts), "go nodes 500: {playouts}");
    assert!(field(&infos[1], "nodes") > 0);
    // One parameter of the spec set by name: mcts:time=1s,playouts=300 plays 300 playouts;
    // a bad value is an error line and the player stays.
    let playouts = field(&infos[2], "playouts");
    assert!((300..800).contains(&playouts), "playouts=300: {playouts}");
    let bests: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with("bestmove"))
        .collect();
    let third = bests[2];
    // playouts= replaces the time= it excludes, so the player took it without a word.
    assert!(
        !lines[bests[1]..third]
            .iter()
            .any(|l| l.starts_with("info string error: ")),
        "{lines:?}"
    );
    assert!(
        lines[third..]
            .iter()
            .any(|l| l.starts_with("info string error: ")),
        "{lines:?}"
    );
}

#[test]
fn bad_input_gets_an_error_line_and_the_engine_keeps_its_state() {
    let lines = session(
        &["reversi", "--player", "alphabeta:depth=2"],
        "bogus command\nposition startpos moves d3 z9\nposition fen not-a-board\n\
         go depth x\nsetoption name player value mcts:c=oops\nsetoption name colour value red\n\
         query nothing\nisready\nposition startpos moves d3\ngo depth 3\nquery gameover\n\
         query result\nquit\n",
    );
    let errors: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info string error: "))
        .collect();
    assert_eq!(errors.len(), 7, "{lines:?}");
    assert!(errors[0].contains("unknown command 'bogus'"));
    assert!(errors[1].contains("z9"));
    assert!(errors.iter().all(|e| !e.contains('\u{1b}')));
    assert!(lines.contains(&"readyok".into()));
    // The bad lines changed nothing: the move answers the position after d3.
    let best = best_moves(&lines);
    assert_eq!(best.len(), 1, "{lines:?}");
    let state = after(&Reversi, &["d3"]);
    assert!(Reversi.parse_move(&state, best[0]).is_ok(), "{}", best[0]);
    let responses: Vec<&String> = lines.iter().filter(|l| l.starts_with("response")).collect();
    assert_eq!(responses, ["response false", "response none"]);
}

#[test]
fn a_finished_game_is_answered_and_infinite_waits_for_stop() {
    // White takes Black's last piece: the game is over and the second player won.
    let lines = session(
        &["checkers", "--player", "random"],
        "position fen W:W18,19:B14 moves 18x9\nquery gameover\nquery result\nquery p1turn\n\
         go\nposition fen W:W18,19:B14\ngo infinite\nisready\nstop\nquit\n",
    );
    let responses: Vec<&String> = lines.iter().filter(|l| l.starts_with("response")).collect();
    assert_eq!(
        responses,
        ["response true", "response p2win", "response true"]
    );
    let best = best_moves(&lines);
    assert_eq!(best, ["0000", "18x9"], "{lines:?}");
    // After `go infinite`, readyok comes before the answer, which waits for stop.
    let ready = lines.iter().position(|l| l == "readyok").unwrap();
    let last = lines
        .iter()
        .rposition(|l| l.starts_with("bestmove"))
        .unwrap();
    assert!(ready < last, "{lines:?}");
    // The engine refuses a human player and a one-player game before reading anything.
    let human = cubesearch_typed(&["engine", "nim", "--player", "human"], b"");
    assert_eq!(human.status.code(), Some(2));
    let stochastic = cubesearch_typed(&["engine", "2048"], b"");
    assert_eq!(stochastic.status.code(), Some(2));
}

#[test]
fn a_match_is_played_against_an_engine_through_ugi() {
    let engine = format!(
        "ugi:cmd={} engine checkers --player random --backend cpu",
        env!("CARGO_BIN_EXE_cubesearch")
    );
    let out = common::cubesearch(&[
        "match",
        "checkers",
        "--p1",
        "random",
        "--p2",
        &engine,
        "--games",
        "6",
        "--json",
        "--backend",
        "cpu",
    ]);
    let json = common::json_of(&out);
    assert_eq!(json["games"], 6, "{json}");
    let counted = ["wins", "losses", "draws"]
        .iter()
        .map(|k| json[*k].as_u64().unwrap())
        .sum::<u64>();
    assert_eq!(counted, 6, "{json}");
    // An engine that cannot start, an empty command and a bad time are refused in one line.
    for (spec, says) in [
        ("ugi:cmd=false", "the engine ended"),
        ("ugi:", "give the engine's command line"),
        ("ugi:time=fast,cmd=x", "bad duration 'fast'"),
    ] {
        common::assert_bad_input(
            &common::cubesearch(&[
                "match", "checkers", "--p1", "random", "--p2", spec, "--games", "2",
            ]),
            says,
        );
    }
}

#[test]
fn a_match_is_played_against_a_checkerboard_library() {
    let spec = format!(
        "checkerboard:time=20ms,lib={}",
        cubesearch_checkerboard::built_library().display()
    );
    // The library reads its player from the environment the match passes on.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cubesearch"))
        .args(["match", "checkers", "--p1", "random", "--p2", &spec])
        .args(["--games", "2", "--json", "--backend", "cpu"])
        .env("CUBESEARCH_PLAYER", "mcts:playouts=100,exec=cpu")
        .env("CUBESEARCH_BACKEND", "cpu")
        .output()
        .expect("the binary runs");
    let json = common::json_of(&out);
    assert_eq!(json["games"], 2, "{json}");
    assert!(
        json["p2"].as_str().unwrap().starts_with("cubesearch ("),
        "{json}"
    );
    for (spec, says) in [
        ("checkerboard:lib=/no/such/engine.so", "cannot load"),
        ("checkerboard:", "give the engine library"),
        ("checkerboard:time=soon,lib=x.so", "bad duration 'soon'"),
    ] {
        common::assert_bad_input(
            &common::cubesearch(&[
                "match", "checkers", "--p1", "random", "--p2", spec, "--games", "2",
            ]),
            says,
        );
    }
}

/// `tests/data/checkerboard/relay.c` built into `dir`: an engine that asks cubesearch's own
/// CheckerBoard library for each move and reports it in one channel only (`CB_RELAY_MODE`).
fn relay_library(dir: &std::path::Path) -> std::path::PathBuf {
    let source = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/checkerboard/relay.c"
    );
    let library = dir.join("librelay.so");
    let built = std::process::Command::new("cc")
        .args(["-shared", "-fPIC", "-O1", "-o"])
        .arg(&library)
        .arg(source)
        .arg("-ldl")
        .output()
        .expect("a C compiler (cc) builds the test engine");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    library
}

/// A checkers match of `games` games, random against the relay engine in `mode`.
fn match_against_relay(relay: &std::path::Path, mode: &str, games: &str) -> std::process::Output {
    let spec = format!("checkerboard:time=20ms,lib={}", relay.display());
    std::process::Command::new(env!("CARGO_BIN_EXE_cubesearch"))
        .args(["match", "checkers", "--p1", "random", "--p2", &spec])
        .args(["--games", games, "--json", "--backend", "cpu"])
        .env("CB_RELAY_ENGINE", cubesearch_checkerboard::built_library())
        .env("CB_RELAY_MODE", mode)
        .env("CUBESEARCH_PLAYER", "mcts:playouts=100,exec=cpu")
        .env("CUBESEARCH_BACKEND", "cpu")
        .output()
        .expect("the binary runs")
}

#[test]
fn engines_that_report_their_move_in_cbmove_or_in_the_board_alone_are_played() {
    let dir = tempfile::tempdir().unwrap();
    let relay = relay_library(dir.path());
    // Whole games: steps, captures and crownings, each reported in one channel only.
    for mode in ["cbmove", "board"] {
        let out = match_against_relay(&relay, mode, "4");
        // What the engine printed stays out of stdout, which --json keeps to one object.
        assert_eq!(
            out.stdout.iter().filter(|&&b| b == b'\n').count(),
            1,
            "{out:?}"
        );
        let json = common::json_of(&out);
        assert_eq!(json["games"], 4, "{mode}: {json}");
        assert!(
            json["p2"]
                .as_str()
                .unwrap()
                .starts_with(&format!("relay {mode}")),
            "{json}"
        );
    }
    // A board and a CBmove naming different moves, or neither naming one, are refused.
    for (mode, says) in [
        ("disagree", "its board and its CBmove disagree"),
        ("neither", "reported no move"),
    ] {
        common::assert_bad_input(&match_against_relay(&relay, mode, "2"), says);
    }
}

#[test]
fn a_match_is_played_against_an_nboard_engine() {
    let engine = format!(
        "nboard:depth=2,cmd={} engine reversi --protocol nboard --player alphabeta:depth=2 --backend cpu",
        env!("CARGO_BIN_EXE_cubesearch")
    );
    let out = common::cubesearch(&[
        "match",
        "reversi",
        "--p1",
        "random",
        "--p2",
        &engine,
        "--games",
        "2",
        "--json",
        "--backend",
        "cpu",
    ]);
    let json = common::json_of(&out);
    assert_eq!(json["games"], 2, "{json}");
    // Alpha-beta at 2 plies beats a random player at Othello nearly always.
    assert!(json["losses"].as_u64().unwrap() >= 1, "{json}");
    for (spec, says) in [
        ("nboard:cmd=false", "the engine ended"),
        // An engine that refuses what it is told says so, and the match stops with its words.
        (
            "nboard:depth=2,cmd=read x; echo 'status error: no such thing'; cat > /dev/null",
            "the engine says: no such thing",
        ),
    ] {
        common::assert_bad_input(
            &common::cubesearch(&[
                "match", "reversi", "--p1", "random", "--p2", spec, "--games", "2",
            ]),
            says,
        );
    }
}

/// An NBoard session as the NBoard GUI drives one: the handshake, a game set as GGF, `go`
/// answered with a legal move that is not played, `move` and `hint`, `ping`/`pong`, and bad
/// input answered with `status error: …` while the game stays as it was.
#[test]
fn an_nboard_session_answers_legal_moves_in_ggf() {
    let start = "BO[8 ---------------------------O*------*O--------------------------- *]";
    let script = format!(
        "nboard 2\nset depth 4\nset contempt 0\nset game (;GM[Othello]PC[NBoard]PB[a]PW[b]RE[?]TY[8]{start}B[F5//1.2]W[F6];)\n\
         ping 1\ngo\nmove E6/0.5/1.0\nhint 1\nmove Z9\nmove A1\nset game (;GM[Othello]B[A1];)\nbogus\nnboard 7\n\
         learn\nping 2\ngo\nquit\n"
    );
    let lines = session(
        &[
            "reversi",
            "--protocol",
            "nboard",
            "--player",
            "mcts:playouts=300",
        ],
        &script,
    );
    let at = |prefix: &str| {
        lines
            .iter()
            .position(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no '{prefix}' in {lines:?}"))
    };
    assert_eq!(lines[0], "set myname cubesearch");
    assert!(at("pong 1") < at("==="));
    let game = Reversi;
    let answers: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("=== "))
        .collect();
    assert_eq!(answers.len(), 2, "{lines:?}");
    // `go` answers a move of the side to move after F5 F6, and does not play it: the second
    // `go`, after E6 (and the bad lines, which change nothing), is White's.
    let black = after(&game, &["f5", "f6"]);
    let white = after(&game, &["f5", "f6", "e6"]);
    for (answer, state) in answers.iter().zip([black, white]) {
        let (mv, rest) = answer.split_once('/').expect("move/eval/time");
        assert!(game.parse_move(&state, mv).is_ok(), "{answer}");
        let (eval, seconds) = rest.split_once('/').unwrap();
        assert!(
            eval.parse::<f64>().is_ok() && seconds.parse::<f64>().is_ok(),
            "{answer}"
        );
    }
    let hint = &lines[at("search ")];
    let words: Vec<&str> = hint.split_whitespace().collect();
    assert!(game.parse_move(&white, words[1]).is_ok(), "{hint}");
    assert!(words[2].parse::<f64>().is_ok() && words[3] == "0", "{hint}");
    let errors = lines
        .iter()
        .filter(|l| l.starts_with("status error: "))
        .count();
    assert_eq!(
        errors, 5,
        "Z9, A1, the illegal game, bogus, nboard 7: {lines:?}"
    );
    assert!(at("learned") < at("pong 2"));
}

#[test]
fn nboard_is_refused_for_games_not_written_in_ggf() {
    let out = cubesearch_typed(&["engine", "checkers", "--protocol", "nboard"], b"");
    common::assert_bad_input(&out, "NBoard speaks GGF");
}

/// 2048 through UGI: the engine is the player, the host sends each board; `go` answers a
/// legal slide (0000 when none moves the board), a network player's value in its info line;
/// `setoption` swaps players and parameters; a `position … moves …` (which cannot say which
/// tile came) and a person as the player are refused with an error line.
#[test]
fn a_2048_engine_answers_slides_for_the_boards_it_is_sent() {
    let dir = tempfile::tempdir().unwrap();
    let weights = dir.path().join("w.safetensors");
    let weights = weights.to_str().unwrap();
    common::json_of(&common::cubesearch(&[
        "train",
        "2048",
        "--games",
        "20",
        "--out",
        weights,
        "--json",
        "--backend",
        "cpu",
    ]));
    // Two slides move this board (right and down); none moves the second.
    let (open, stuck) = (
        "2,4,2,4,4,2,4,2,2,4,2,4,4,2,4,0",
        "2,4,2,4,4,2,4,2,2,4,2,4,4,2,4,2",
    );
    let script = format!(
        "ugi\nisready\nposition fen {open}\ngo\n\
         setoption name player value expectimax:layers=1,weights={weights}\ngo\n\
         setoption name layers value 2\ngo depth 3\n\
         position fen {stuck}\ngo\nquery gameover\nquery result\n\
         position fen {open} moves right\nsetoption name player value human\n\
         position startpos\nquery gameover\nquery p1turn\ngo movetime 10\nquit\n"
    );
    let player = format!("td:weights={weights}");
    let lines = session(&["2048", "--player", &player], &script);
    let moves = best_moves(&lines);
    assert_eq!(moves.len(), 5, "{lines:#?}");
    for m in &moves[..3] {
        assert!(["right", "down"].contains(m), "{lines:#?}");
    }
    assert_eq!(moves[3], "0000");
    assert!(
        ["left", "right", "up", "down"].contains(&moves[4]),
        "{lines:#?}"
    );
    let responses: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("response "))
        .collect();
    assert_eq!(responses, ["true", "p2win", "false", "true"], "{lines:#?}");
    // The network players give their value (the last `go` is the expectimax's still: the
    // person was refused).
    let scored = lines
        .iter()
        .filter(|l| l.starts_with("info time") && l.contains(" score "));
    assert_eq!(scored.count(), 4, "{lines:#?}");
    let errors: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info string error: "))
        .collect();
    assert_eq!(errors.len(), 2, "{lines:#?}");
    assert!(errors[0].contains("position fen"), "{}", errors[0]);
    assert!(errors[1].contains("human"), "{}", errors[1]);
    // 2584 too, with a random player from a drawn start.
    let lines = session(
        &["2584", "--player", "random"],
        "position startpos\ngo\nquit\n",
    );
    assert_eq!(best_moves(&lines).len(), 1, "{lines:#?}");
    // Without a player a one-player engine asks for a network.
    common::assert_bad_input(&common::cubesearch(&["engine", "2048"]), "give --player");
}

/// `go infinite` searches until `stop`, past the player's own budget (50 playouts here), an
/// `info` line a slice, answering `isready` meanwhile: no `bestmove` comes before `stop`.
#[test]
fn an_infinite_search_goes_on_until_stop() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let mut engine = Command::new(env!("CARGO_BIN_EXE_cubesearch"))
        .args([
            "engine",
            "checkers",
            "--player",
            "mcts:playouts=50",
            "--backend",
            "cpu",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut to = engine.stdin.take().unwrap();
    writeln!(to, "position startpos\ngo infinite").unwrap();
    // Two slices' info lines, then the host's isready and stop.
    let mut from = BufReader::new(engine.stdout.take().unwrap()).lines();
    let mut lines: Vec<String> = Vec::new();
    while lines.iter().filter(|l| l.starts_with("info time")).count() < 2 {
        lines.push(from.next().expect("an info line").unwrap());
    }
    writeln!(to, "isready\nstop\nquit").unwrap();
    lines.extend(from.map(Result::unwrap));
    assert!(engine.wait().unwrap().success());
    let infos: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info time"))
        .collect();
    assert!(infos.len() >= 2, "{lines:#?}");
    let playouts = |line: &str| -> u64 {
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = words.iter().position(|&w| w == "playouts").unwrap();
        words[at + 1].parse().unwrap()
    };
    // A slice the stop cut at its start reports no playouts; the slices before went past 50.
    assert!(
        infos.iter().map(|l| playouts(l)).max().unwrap() > 50,
        "{lines:#?}"
    );
    let ready = lines.iter().position(|l| l == "readyok").unwrap();
    let best = lines
        .iter()
        .position(|l| l.starts_with("bestmove"))
        .unwrap();
    assert!(ready < best && best == lines.len() - 1, "{lines:#?}");
    let mv = lines[best].strip_prefix("bestmove ").unwrap();
    let game = Checkers::default();
    assert!(game.parse_move(&game.initial(), mv).is_ok(), "{mv}");
}

/// An engine process with its stdin, and its stdout's lines arriving on a channel so that a
/// test can wait for one with a bound.
struct Running {
    child: std::process::Child,
    to: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Running {
    fn start(args: &[&str]) -> Self {
        use std::io::BufRead;
        use std::process::{Command, Stdio};
        let mut child = Command::new(env!("CARGO_BIN_EXE_cubesearch"))
            .arg("engine")
            .args(args)
            .args(["--backend", "cpu"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let to = child.stdin.take();
        let from = std::io::BufReader::new(child.stdout.take().unwrap());
        let (send, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in from.lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Running { child, to, lines }
    }

    fn send(&mut self, text: &str) {
        use std::io::Write;
        let to = self.to.as_mut().unwrap();
        to.write_all(text.as_bytes()).unwrap();
        to.flush().unwrap();
    }

    /// Lines up to and including the first that starts with `prefix`, within `bound`.
    fn until(&self, prefix: &str, bound: std::time::Duration) -> Vec<String> {
        let end = std::time::Instant::now() + bound;
        let mut seen = Vec::new();
        loop {
            let left = end.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let found = line.starts_with(prefix);
                    seen.push(line);
                    if found {
                        return seen;
                    }
                }
                Err(_) => panic!("no line starting '{prefix}' within {bound:?}: {seen:#?}"),
            }
        }
    }

    /// Sends `text`, takes the lines up to the first starting with `prefix` (within `bound`),
    /// then quits and checks the engine ends well.
    fn answer_then_quit(
        mut self,
        text: &str,
        prefix: &str,
        bound: std::time::Duration,
    ) -> Vec<String> {
        self.send(text);
        let lines = self.until(prefix, bound);
        self.send("quit\n");
        assert!(self.ends_within(bound).success());
        lines
    }

    /// Waits for the process to end, within `bound`; its exit status.
    fn ends_within(&mut self, bound: std::time::Duration) -> std::process::ExitStatus {
        let end = std::time::Instant::now() + bound;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            if std::time::Instant::now() >= end {
                let _ = self.child.kill();
                panic!("the engine was still running {bound:?} later");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

/// Searches that would run for a minute or more (a movetime of days, an alpha-beta of 1000 s)
/// answer `stop` at once with a legal move, and the engine goes on; `quit` during such a
/// search ends the engine at once, and so does the end of its input.
#[test]
fn stop_quit_and_the_end_of_input_end_long_searches_at_once() {
    use std::time::Duration;
    let bound = Duration::from_secs(5);
    for (player, go) in [
        ("mcts:playouts=50", "go movetime 100000000"),
        ("alphabeta:time=1000s", "go"),
        ("alphabeta:depth=3", "go depth 20"),
    ] {
        let mut engine = Running::start(&["reversi", "--player", player]);
        engine.send(&format!("position startpos\n{go}\n"));
        std::thread::sleep(Duration::from_millis(300));
        engine.send("stop\n");
        let lines = engine.until("bestmove", bound);
        let mv = lines.last().unwrap().strip_prefix("bestmove ").unwrap();
        assert!(
            Reversi.parse_move(&Reversi.initial(), mv).is_ok(),
            "{player}: {lines:#?}"
        );
        engine.send("isready\n");
        engine.until("readyok", bound);
        // quit during a search.
        engine.send(&format!("{go}\n"));
        std::thread::sleep(Duration::from_millis(300));
        engine.send("quit\n");
        assert!(engine.ends_within(bound).success(), "{player}: quit");
        // The end of input during a search.
        let mut engine = Running::start(&["reversi", "--player", player]);
        engine.send(&format!("position startpos\n{go}\n"));
        std::thread::sleep(Duration::from_millis(300));
        engine.to = None;
        assert!(
            engine.ends_within(bound).success(),
            "{player}: end of input"
        );
    }
}

/// A 4-layer expectimax of a 2584 board (seconds in a release build, minutes in this one)
/// answers `stop` at once with the network's greedy slide, and `quit` during it ends the
/// engine at once.
#[test]
fn stop_and_quit_cut_a_long_expectimax_short() {
    use std::time::Duration;
    let bound = Duration::from_secs(5);
    let weights = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../weights/2584-19min.safetensors"
    );
    let player = format!("expectimax:layers=4,weights={weights}");
    let mut engine = Running::start(&["2584", "--player", &player]);
    engine.send("position startpos\ngo\n");
    std::thread::sleep(Duration::from_millis(300));
    engine.send("stop\n");
    let lines = engine.until("bestmove", bound);
    let mv = lines.last().unwrap().strip_prefix("bestmove ").unwrap();
    assert!(["left", "right", "up", "down"].contains(&mv), "{lines:#?}");
    engine.send("go\n");
    std::thread::sleep(Duration::from_millis(300));
    engine.send("quit\n");
    assert!(engine.ends_within(bound).success(), "quit");
}

/// A depth whose search would take more than a day (the estimate `play` and `match` apply)
/// is refused with an error line, and the engine goes on; so is a line that is not UTF-8.
#[test]
fn an_endless_depth_and_bad_bytes_are_refused_and_the_engine_goes_on() {
    let out = cubesearch_typed(
        &[
            "engine",
            "reversi",
            "--player",
            "alphabeta:depth=3",
            "--backend",
            "cpu",
        ],
        b"position startpos\ngo depth 40\n\xff\xfe\xfd\nisready\n\
          setoption name depth value 40\ngo depth 2\nquit\n",
    );
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    let errors: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("info string error:"))
        .collect();
    assert_eq!(errors.len(), 3, "{lines:#?}");
    assert!(errors[0].contains("would take about"), "{lines:#?}");
    assert!(errors[1].contains("not UTF-8"), "{lines:#?}");
    assert!(errors[2].contains("would take about"), "{lines:#?}");
    assert!(lines.contains(&"readyok"));
    assert_eq!(
        best_moves(&lines.iter().map(|l| l.to_string()).collect::<Vec<_>>()).len(),
        1
    );

    let nboard = cubesearch_typed(
        &[
            "engine",
            "reversi",
            "--protocol",
            "nboard",
            "--player",
            "alphabeta:depth=3",
            "--backend",
            "cpu",
        ],
        b"nboard 2\nset depth 60\ngo\n\xff\nping 1\nset depth 2\ngo\nquit\n",
    );
    let stdout = String::from_utf8_lossy(&nboard.stdout);
    let errors: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("status error:"))
        .collect();
    assert_eq!(errors.len(), 2, "{stdout}");
    assert!(errors[0].contains("would take about") && errors[1].contains("not UTF-8"));
    assert!(
        stdout.contains("pong 1") && stdout.contains("=== "),
        "{stdout}"
    );
}

/// NBoard has no `stop`: `quit` or the end of input ends a search at once.
#[test]
fn nboard_quit_and_the_end_of_input_end_a_long_search() {
    let bound = std::time::Duration::from_secs(5);
    for end in ["quit\n", ""] {
        let mut engine = Running::start(&[
            "reversi",
            "--protocol",
            "nboard",
            "--player",
            "alphabeta:time=1000s",
        ]);
        engine.send("nboard 2\ngo\n");
        engine.until("status cubesearch is thinking", bound);
        std::thread::sleep(std::time::Duration::from_millis(300));
        if end.is_empty() {
            engine.to = None;
        } else {
            engine.send(end);
        }
        assert!(engine.ends_within(bound).success(), "{end:?}");
    }
}

/// Every searching player's info line gives the true time with its depth, nodes and score:
/// alpha-beta's too (its depth and evaluation); NBoard's eval field is filled from the score.
#[test]
fn alpha_beta_reports_depth_nodes_and_score() {
    // The host waits for the answer before it quits (a quit sent behind `go` would stop it).
    let bound = std::time::Duration::from_secs(30);
    let engine = Running::start(&["reversi", "--player", "alphabeta:depth=3"]);
    let lines = engine.answer_then_quit("position startpos\ngo\n", "bestmove", bound);
    let info = lines
        .iter()
        .find(|l| l.starts_with("info time"))
        .expect("an info line");
    let words: Vec<&str> = info.split_whitespace().collect();
    let field = |name: &str| -> i64 {
        let at = words.iter().position(|w| *w == name).expect(name);
        words[at + 1].parse().unwrap()
    };
    assert_eq!(field("depth"), 3, "{info}");
    assert!(field("nodes") > 3, "{info}");
    let at = words.iter().position(|w| *w == "score").expect("score");
    assert_eq!(words[at + 1], "cp", "{info}");
    let engine = Running::start(&[
        "reversi",
        "--protocol",
        "nboard",
        "--player",
        "alphabeta:depth=3",
    ]);
    let nboard = engine.answer_then_quit("nboard 2\ngo\n", "===", bound);
    let answer = nboard.last().unwrap().strip_prefix("=== ").unwrap();
    let fields: Vec<&str> = answer.split('/').collect();
    assert!(fields[1].parse::<f64>().is_ok(), "eval in {answer}");
}

/// A timed MCTS sizes its batches to its budget: a clock of 100 ms each (a 3 ms budget for
/// the move) is answered in a few milliseconds, not after a whole batch of the default size
/// (34–51 ms here before). The bound is loose for a loaded machine.
#[test]
fn a_clock_budget_is_kept() {
    let bound = std::time::Duration::from_secs(30);
    let engine = Running::start(&["checkers", "--player", "mcts:time=1s"]);
    let lines = engine.answer_then_quit(
        "position startpos\ngo wtime 100 btime 100\n",
        "bestmove",
        bound,
    );
    let info = lines.iter().find(|l| l.starts_with("info time")).unwrap();
    let ms: u64 = info.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert!(ms <= 30, "{info}");
}
