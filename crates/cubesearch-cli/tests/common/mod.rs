//! Helpers the command-line tests share: run the binary, read its JSON, check bad-input exits.
#![allow(dead_code)] // each test file uses its own subset

use serde_json::Value;
use std::process::{Command, Output};

/// Runs the `cubesearch` binary with `args`.
pub fn cubesearch(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cubesearch"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Runs the `cubesearch` binary with `args` and the variables `vars` set.
pub fn cubesearch_with(args: &[&str], vars: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cubesearch"))
        .args(args)
        .envs(vars.iter().copied())
        .output()
        .expect("the binary runs")
}

/// Runs the `cubesearch` binary with `args`, `input` typed on its stdin.
pub fn cubesearch_typed(args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_cubesearch"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // The binary may stop reading early (the game ended): a broken pipe is not a failure.
    let _ = child.stdin.take().expect("a stdin").write_all(input);
    child.wait_with_output().expect("the binary ends")
}

pub fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(stdout.lines().last().expect("a last line"))
        .expect("JSON on the last line")
}

/// Exit status 2 and exactly one line on stderr (Mesa's headless warnings aside).
pub fn assert_bad_input(out: &Output, mentions: &str) {
    assert_eq!(
        out.status.code(),
        Some(2),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<_> = stderr
        .lines()
        .filter(|l| !l.contains("XDG_RUNTIME_DIR"))
        .collect();
    assert_eq!(lines.len(), 1, "one line expected, got {lines:?}");
    assert!(
        !lines[0].chars().any(char::is_control),
        "control characters in {:?}",
        lines[0]
    );
    assert!(
        lines[0].contains(mentions),
        "{:?} should mention {mentions:?}",
        lines[0]
    );
}

/// Whether process `pid` handles `signal` (its `SigCgt` mask in /proc): its handlers are in.
#[cfg(target_os = "linux")]
pub fn handles(pid: u32, signal: u32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigCgt:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .is_some_and(|mask| mask >> (signal - 1) & 1 == 1)
}

/// Starts `cubesearch args`, waits until it handles the first of `signals` and `ready` holds,
/// sends it the signals one after the other and returns what it did.
#[cfg(target_os = "linux")]
pub fn interrupted(args: &[&str], signals: &[u32], ready: impl Fn() -> bool) -> Output {
    use std::process::Stdio;
    let child = Command::new(env!("CARGO_BIN_EXE_cubesearch"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while !(handles(child.id(), signals[0]) && ready()) {
        assert!(started.elapsed().as_secs() < 120, "never got ready");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    for signal in signals {
        let sent = Command::new("kill")
            .args([format!("-{signal}"), child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
    }
    child.wait_with_output().unwrap()
}
