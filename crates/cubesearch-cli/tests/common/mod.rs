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
