//! Outside engines that misbehave (`ugi:`, `nboard:`): an engine that never answers, floods
//! its output or ends is one line and exit status 2 within its deadline, saying why; a spec
//! with options and no command is refused before anything runs; and no engine outlives its
//! match, whether the match failed, was stopped by a signal or was killed.

mod common;

use common::{assert_bad_input, cubesearch};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Generous: each engine here is given 1 s.
const BOUND: Duration = Duration::from_secs(30);

/// A match of `game`, random against `engine`, timed.
fn match_against(game: &str, engine: &str) -> (Output, Duration) {
    let started = Instant::now();
    let out = cubesearch(&[
        "match",
        game,
        "--p1",
        "random",
        "--p2",
        engine,
        "--games",
        "2",
        "--backend",
        "cpu",
    ]);
    (out, started.elapsed())
}

/// The same match, started and left running.
fn spawn_match(game: &str, engine: &str) -> Child {
    Command::new(env!("CARGO_BIN_EXE_cubesearch"))
        .args(["match", game, "--p1", "random", "--p2", engine])
        .args(["--games", "2", "--backend", "cpu"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs")
}

/// The PID an engine wrote to `file`, waited for.
fn pid_in(file: &Path) -> u32 {
    let until = Instant::now() + BOUND;
    loop {
        if let Ok(text) = std::fs::read_to_string(file) {
            if let Ok(pid) = text.trim().parse() {
                return pid;
            }
        }
        assert!(Instant::now() < until, "the engine never wrote its PID");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether `pid` runs: it exists and is not a zombie (one left for its new parent to reap).
fn running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // `pid (comm) S …`: the state follows the last `)`.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// Asserts `pid` stops running within a few seconds.
fn assert_gone(pid: u32) {
    let until = Instant::now() + Duration::from_secs(5);
    while running(pid) {
        assert!(
            Instant::now() < until,
            "the engine (PID {pid}) is still running"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A shell engine that writes its PID to `file`, then runs `rest`; `exec` keeps the PID.
fn pid_engine(file: &Path, rest: &str) -> String {
    format!("echo $$ > {}; {rest}", file.display())
}

#[test]
fn an_engine_that_never_answers_or_floods_ends_the_match_at_its_deadline() {
    for (game, engine, says) in [
        // Echoes what it is told: never `ugiok`.
        ("checkers", "ugi:handshake=1s,cmd=cat", "no ugiok within 1s"),
        // Never reads nor writes.
        (
            "checkers",
            "ugi:handshake=1s,cmd=sleep 1000",
            "no ugiok within 1s",
        ),
        // Lines without end, none the one awaited: the deadline is not a line's.
        ("checkers", "ugi:handshake=1s,cmd=yes", "no ugiok within 1s"),
        (
            "reversi",
            "nboard:handshake=1s,cmd=cat",
            "no pong 1 within 1s",
        ),
    ] {
        let (out, took) = match_against(game, engine);
        assert_bad_input(&out, says);
        assert!(took < BOUND, "{engine} took {took:?}");
        // The error names the option that waits longer and what was run.
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("handshake=T waits longer"), "{stderr}");
        let command = engine.split_once("cmd=").unwrap().1;
        assert!(stderr.contains(&format!("ran `{command}`")), "{stderr}");
    }
}

#[test]
fn an_engine_that_hangs_on_a_move_ends_the_match_past_its_grace() {
    // Through the handshake, then silent. The first move also gets the handshake's time.
    let ugi = "ugi:handshake=1s,grace=1s,cmd=read l; echo ugiok; read l; read l; echo readyok; exec sleep 1000";
    let (out, took) = match_against("checkers", ugi);
    assert_bad_input(
        &out,
        "the engine gave no bestmove within 2s (grace=T waits longer",
    );
    assert!(took < BOUND, "took {took:?}");
    // NBoard: `nboard 2`, `ping 1` answered; the position's `ping 2` too; `go` never.
    let nboard = "nboard:handshake=1s,grace=1s,cmd=read l; read l; echo pong 1; read l; read l; echo pong 2; exec sleep 1000";
    let (out, took) = match_against("reversi", nboard);
    assert_bad_input(&out, "the engine gave no move (=== …) within 2s");
    assert!(took < BOUND, "took {took:?}");
    // With a move time, the deadline is that time and the grace.
    let timed = "ugi:time=500ms,handshake=1s,grace=1s,cmd=read l; echo ugiok; read l; read l; echo readyok; exec sleep 1000";
    assert_bad_input(
        &match_against("checkers", timed).0,
        "no bestmove within 2.5s",
    );
}

#[test]
fn an_engine_that_ends_is_reported_with_its_status_stderr_and_command() {
    let (out, _) = match_against(
        "checkers",
        "ugi:cmd=echo loading >&2; echo boom >&2; exit 3",
    );
    assert_bad_input(
        &out,
        "ugi:cmd=echo loading >&2; echo boom >&2; exit 3: the engine ended (exit status 3; ran `echo loading >&2; echo boom >&2; exit 3`; its last stderr line: boom)",
    );
    // Silent on stderr: the status and the command alone.
    let (out, _) = match_against("reversi", "nboard:cmd=false");
    assert_bad_input(&out, "the engine ended (exit status 1; ran `false`)");
    // Killed by a signal.
    let (out, _) = match_against("checkers", "ugi:cmd=kill -9 $$");
    assert_bad_input(
        &out,
        "the engine ended (killed by signal 9; ran `kill -9 $$`)",
    );
}

#[test]
fn options_without_a_command_are_refused_naming_it() {
    for (game, spec, says) in [
        ("checkers", "ugi:time=1s", "cmd= is missing"),
        ("checkers", "ugi:time=1s,handshake=2s", "cmd= is missing"),
        ("reversi", "nboard:depth=4", "cmd= is missing"),
        ("checkers", "checkerboard:time=1s", "lib= is missing"),
        (
            "checkers",
            "ugi:handshake=soon,cmd=cat",
            "bad duration 'soon'",
        ),
        ("checkers", "ugi:grace=0s,cmd=cat", "bad duration '0s'"),
        (
            "reversi",
            "nboard:grace=1s,handshake=x,cmd=cat",
            "bad duration 'x'",
        ),
    ] {
        let (out, took) = match_against(game, spec);
        assert_bad_input(&out, says);
        // Refused before anything runs: no deadline was waited out.
        assert!(took < Duration::from_secs(5), "{spec} took {took:?}");
    }
}

#[test]
fn no_engine_outlives_a_failed_match() {
    let dir = tempfile::tempdir().unwrap();
    // Silent from the start, then silent on a move.
    let file = dir.path().join("silent");
    let engine = pid_engine(&file, "exec sleep 1000");
    let (out, _) = match_against("checkers", &format!("ugi:handshake=1s,cmd={engine}"));
    assert_bad_input(&out, "no ugiok within 1s");
    assert_gone(pid_in(&file));
    let file = dir.path().join("hung");
    let engine = pid_engine(
        &file,
        "read l; echo ugiok; read l; read l; echo readyok; exec sleep 1000",
    );
    let spec = format!("ugi:handshake=1s,grace=1s,cmd={engine}");
    assert_bad_input(&match_against("checkers", &spec).0, "no bestmove within 2s");
    assert_gone(pid_in(&file));
    // What the shell forked goes too: here `sleep` is the shell's child, not the shell.
    let file = dir.path().join("forked");
    let engine = format!(
        "sh -c 'echo $$ > {}; exec sleep 1000'; true",
        file.display()
    );
    let (out, _) = match_against("checkers", &format!("ugi:handshake=1s,cmd={engine}"));
    assert_bad_input(&out, "no ugiok within 1s");
    assert_gone(pid_in(&file));
}

#[test]
fn a_match_stopped_by_sigterm_reaps_its_engine() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pid");
    let engine = pid_engine(
        &file,
        "read l; echo ugiok; read l; read l; echo readyok; exec sleep 1000",
    );
    // A grace of a minute: the signal ends the wait for the move at once, not at its deadline.
    let run = spawn_match(
        "checkers",
        &format!("ugi:handshake=1s,grace=60s,cmd={engine}"),
    );
    let pid = pid_in(&file);
    // Past the handshake (the signal handlers are installed), into the wait for a move.
    std::thread::sleep(Duration::from_millis(500));
    let sent = Command::new("kill")
        .args(["-TERM", &run.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let started = Instant::now();
    let out = run.wait_with_output().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        out.status.code(),
        Some(143),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_gone(pid);
}

#[test]
#[cfg(target_os = "linux")]
fn a_killed_match_takes_its_engine_down() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pid");
    let engine = pid_engine(&file, "exec sleep 1000");
    let mut run = spawn_match("checkers", &format!("ugi:handshake=60s,cmd={engine}"));
    let pid = pid_in(&file);
    assert!(running(pid));
    // SIGKILL: no handler runs and nothing is dropped.
    run.kill().unwrap();
    run.wait().unwrap();
    assert_gone(pid);
}
