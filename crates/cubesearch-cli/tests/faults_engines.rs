//! Engines and outside players under faults: a player that is stuck (an outside engine's
//! endless handshake, a CheckerBoard library that ignores `playnow`) never keeps the engine from
//! answering `isready`, `stop`, `quit` or the end of its input, nor a match from obeying a
//! signal; no outside engine, nor what it forked, outlives the process that started it, however
//! that process ends; and `go`'s limits are obeyed or refused aloud.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

/// Generous: each wait here used to be a hang of minutes or forever.
const BOUND: Duration = Duration::from_secs(10);

/// A running `cubesearch` (an engine, a match) with its stdin, and its stdout's lines on a
/// channel so that a test can wait for one with a bound.
struct Running {
    child: Child,
    to: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Running {
    fn start(args: &[&str], dir: &Path, vars: &[(&str, &str)]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_cubesearch"))
            .args(args)
            .args(["--backend", "cpu"])
            .current_dir(dir)
            .envs(vars.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the binary runs");
        let to = child.stdin.take();
        let from = BufReader::new(child.stdout.take().unwrap());
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in from.lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Running { child, to, lines }
    }

    /// `cubesearch engine ARGS`.
    fn engine(args: &[&str]) -> Self {
        let mut all = vec!["engine"];
        all.extend_from_slice(args);
        Self::start(&all, Path::new("."), &[])
    }

    fn send(&mut self, text: &str) {
        let to = self.to.as_mut().expect("stdin open");
        to.write_all(text.as_bytes()).unwrap();
        to.flush().unwrap();
    }

    /// Lines up to and including the first that starts with `prefix`, within [`BOUND`].
    fn until(&self, prefix: &str) -> Vec<String> {
        let end = Instant::now() + BOUND;
        let mut seen = Vec::new();
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let found = line.starts_with(prefix);
                    seen.push(line);
                    if found {
                        return seen;
                    }
                }
                Err(_) => panic!("no line starting '{prefix}' within {BOUND:?}: {seen:#?}"),
            }
        }
    }

    /// Sends `signal` (`TERM`, `INT`, `HUP`, `KILL`) to the process.
    fn signal(&self, signal: &str) {
        let sent = Command::new("kill")
            .args([&format!("-{signal}"), &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
    }

    /// The exit status, which must come within [`BOUND`].
    fn ends(&mut self, what: &str) -> ExitStatus {
        let end = Instant::now() + BOUND;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            if Instant::now() >= end {
                let _ = self.child.kill();
                panic!("{what}: still running {BOUND:?} later");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits (within [`BOUND`]) for `file` to hold something; what it holds, trimmed.
fn written(file: &Path) -> String {
    let until = Instant::now() + BOUND;
    loop {
        if let Ok(text) = std::fs::read_to_string(file) {
            if text.ends_with('\n') {
                return text.trim().to_string();
            }
        }
        assert!(
            Instant::now() < until,
            "{} was never written",
            file.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether `pid` runs: it exists and is not a zombie.
fn running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// Asserts `pid` stops running within [`BOUND`].
fn assert_gone(pid: u32, what: &str) {
    let until = Instant::now() + BOUND;
    while running(pid) {
        assert!(
            Instant::now() < until,
            "{what}: the engine's child (PID {pid}) is still running"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A UGI engine command that runs `before` and then forks a shell (not the engine's own
/// process, which `sh -c` may exec) that writes its PID to `file` and sleeps: what an engine
/// script that starts a helper leaves behind when only the engine's shell is killed.
fn forking_engine(file: &Path, before: &str) -> String {
    format!(
        "{before}sh -c 'echo $$ > {}; exec sleep 601'; true",
        file.display()
    )
}

#[test]
#[cfg(target_os = "linux")]
fn no_outside_engine_outlives_its_process_however_it_ends() {
    let dir = tempfile::tempdir().unwrap();
    let handshake = "read l; echo ugiok; read l; read l; echo readyok; ";
    let cases = [
        // A match during the engine's handshake, by SIGTERM and by SIGKILL.
        ("match", "TERM", ""),
        ("match", "KILL", ""),
        // A match waiting for a move.
        ("match", "KILL", handshake),
        ("match", "TERM", handshake),
        // An engine whose player is an outside engine, during its handshake.
        ("engine", "TERM", ""),
        ("engine", "HUP", ""),
        ("engine", "KILL", ""),
    ];
    for (k, (command, signal, before)) in cases.into_iter().enumerate() {
        let file = dir.path().join(format!("pid{k}"));
        let spec = format!(
            "ugi:handshake=1m,grace=1m,cmd={}",
            forking_engine(&file, before)
        );
        let args: Vec<&str> = match command {
            "match" => vec![
                "match", "nim", "--p1", "random", "--p2", &spec, "--games", "2",
            ],
            _ => vec!["engine", "nim", "--player", &spec],
        };
        let mut run = Running::start(&args, dir.path(), &[]);
        let pid: u32 = written(&file).parse().unwrap();
        assert!(running(pid));
        // Past the handshake, into the wait for a move.
        std::thread::sleep(Duration::from_millis(300));
        run.signal(signal);
        let what = format!("{command} by SIG{signal} after `{before}`");
        run.ends(&what);
        assert_gone(pid, &what);
    }
}

#[test]
fn an_endless_handshake_does_not_keep_the_engine_from_isready_quit_or_the_end() {
    let player = "ugi:handshake=10m,cmd=cat";
    // `cat` echoes `ugi`, never `ugiok`: the handshake waits out its 10 minutes.
    let mut engine = Running::engine(&["reversi", "--player", player]);
    engine.send("isready\n");
    engine.until("readyok");
    engine.send("quit\n");
    assert!(engine.ends("quit").success());
    let mut engine = Running::engine(&["reversi", "--player", player]);
    engine.to = None;
    assert!(engine.ends("the end of input").success());
    // Waits beyond 10 minutes are refused: such an engine has hung.
    for spec in ["ugi:handshake=11m,cmd=cat", "ugi:grace=20m,cmd=cat"] {
        let out = common::cubesearch_typed(&["engine", "reversi", "--player", spec], b"quit\n");
        common::assert_bad_input(&out, "from 1ms to 10m");
    }
}

/// An engine that completes its handshake, then never answers a move.
const SILENT_ON_MOVES: &str =
    "ugi:handshake=5s,grace=1m,cmd=read l; echo ugiok; read l; read l; echo readyok; exec sleep 1000";

#[test]
fn stop_always_gets_a_bestmove_even_from_a_player_that_failed() {
    let mut engine = Running::engine(&["reversi", "--player", SILENT_ON_MOVES]);
    engine.send("isready\n");
    engine.until("readyok");
    engine.send("position startpos\ngo\n");
    std::thread::sleep(Duration::from_millis(300));
    engine.send("stop\n");
    let lines = engine.until("bestmove");
    let mv = lines.last().unwrap().strip_prefix("bestmove ").unwrap();
    use cubesearch::Game;
    let reversi = cubesearch::games::Reversi;
    assert!(
        reversi.parse_move(&reversi.initial(), mv).is_ok(),
        "{lines:#?}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("info string")),
        "the failure is named: {lines:#?}"
    );
    engine.send("quit\n");
    assert!(engine.ends("quit").success());
}

#[test]
fn info_time_counts_the_whole_infinite_search() {
    // A random player answers at once and waits out each slice (0.1 s, 0.2, 0.4, 0.8, 1 s).
    let mut engine = Running::engine(&["reversi", "--player", "random"]);
    engine.send("position startpos\ngo infinite\n");
    std::thread::sleep(Duration::from_secs(2));
    engine.send("stop\n");
    let lines = engine.until("bestmove");
    let times: Vec<u64> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("info time "))
        .map(|rest| rest.split_whitespace().next().unwrap().parse().unwrap())
        .collect();
    // The slice that began after 1.5 s reports at least that, not its own few milliseconds.
    assert!(
        times.windows(2).all(|w| w[0] <= w[1]) && *times.last().unwrap() >= 1000,
        "{lines:#?}"
    );
    engine.send("quit\n");
    assert!(engine.ends("quit").success());
}

#[test]
fn go_limits_are_obeyed_or_refused_aloud() {
    // Alpha-beta counts no nodes: it says so, and answers.
    let mut engine = Running::engine(&["reversi", "--player", "alphabeta:depth=2"]);
    engine.send("position startpos\ngo nodes 100\n");
    let lines = engine.until("bestmove");
    assert!(
        lines.iter().any(|l| l.starts_with("info string go nodes")),
        "{lines:#?}"
    );
    // Depth 0 searches nothing: an MCTS of a minute is not run.
    let mut engine = Running::engine(&["reversi", "--player", "mcts:time=60s"]);
    engine.send("position startpos\ngo depth 0\n");
    let lines = engine.until("bestmove");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("go depth 0 searches nothing")),
        "{lines:#?}"
    );
    // A 4-layer expectimax of a 2584 board (minutes in a debug build) keeps to its movetime.
    let weights = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../weights/2584-19min.safetensors"
    );
    let player = format!("expectimax:layers=4,weights={weights}");
    let mut engine = Running::engine(&["2584", "--player", &player]);
    engine.send("position startpos\ngo movetime 100\n");
    let lines = engine.until("bestmove");
    let mv = lines.last().unwrap().strip_prefix("bestmove ").unwrap();
    assert!(["left", "right", "up", "down"].contains(&mv), "{lines:#?}");
    engine.send("quit\n");
    assert!(engine.ends("quit").success());
}

/// `tests/data/checkerboard/stuck.c` built into `dir`: a library whose `getmove` never returns.
fn stuck_library(dir: &Path) -> PathBuf {
    let source = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/checkerboard/stuck.c"
    );
    let library = dir.join("libstuck.so");
    let built = Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&library)
        .arg(source)
        .output()
        .expect("a C compiler (cc) builds the test engine");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    library
}

#[test]
fn a_library_that_ignores_playnow_does_not_hold_a_match_or_an_engine() {
    let dir = tempfile::tempdir().unwrap();
    let library = stuck_library(dir.path());
    let file = dir.path().join("searching");
    let vars = [("CB_STUCK_FILE", file.to_str().unwrap())];
    // One SIGTERM or SIGINT ends a match whose library is stuck in a move.
    for (signal, status) in [("TERM", 143), ("INT", 130)] {
        let _ = std::fs::remove_file(&file);
        let spec = format!("checkerboard:time=100ms,lib={}", library.display());
        let args = [
            "match", "checkers", "--p1", &spec, "--p2", "random", "--games", "2",
        ];
        let mut run = Running::start(&args, dir.path(), &vars);
        written(&file);
        run.signal(signal);
        assert_eq!(run.ends(&format!("SIG{signal}")).code(), Some(status));
    }
    // An engine: a bare file name is the file in the current folder; `isready` is answered
    // during the stuck move, `stop` gets a legal move, and `quit` or the end of input ends it.
    for end in ["quit", "the end of input"] {
        let _ = std::fs::remove_file(&file);
        let args = [
            "engine",
            "checkers",
            "--player",
            "checkerboard:lib=libstuck.so",
        ];
        let mut engine = Running::start(&args, dir.path(), &vars);
        engine.send("position startpos\ngo\n");
        written(&file);
        engine.send("isready\n");
        engine.until("readyok");
        engine.send("stop\n");
        let lines = engine.until("bestmove");
        assert!(
            lines.iter().any(|l| l.starts_with("info string")),
            "{lines:#?}"
        );
        engine.send("go\n");
        match end {
            "quit" => engine.send("quit\n"),
            _ => engine.to = None,
        }
        assert!(engine.ends(end).success(), "{end}");
    }
}
