//! Printing: text for people, one JSON object on the last line for programs, and progress bars
//! only on a terminal.

use cubesearch_core::{Error, Result};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::Value;
use std::io::{BufRead, IsTerminal, Write};

/// Prints `json` as the last line when `--json` is on, else `text`.
pub fn emit(json_mode: bool, text: impl FnOnce() -> String, json: Value) {
    if json_mode {
        println!("{json}");
    } else {
        println!("{}", text());
    }
}

/// A progress bar over `len` steps, hidden under `--json` or when stderr is not a terminal.
pub fn progress(json_mode: bool, len: u64, what: &str) -> ProgressBar {
    if json_mode || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} {elapsed_precise} eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    bar
}

/// The one line naming where the work runs, on stderr so stdout stays clean.
pub fn announce(json_mode: bool, device: &cubesearch_core::ResolvedBackend) {
    if !json_mode {
        eprintln!("backend: {device}");
    }
}

/// What a person types after `prompt`: one line of stdin; an error once input has ended.
pub fn ask(prompt: &str) -> Result<String> {
    print!("{prompt}");
    std::io::stdout().flush().ok();
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) => Err(Error::parse("input ended before the game did")),
        Ok(_) => Ok(line),
        Err(e) => Err(stdin_error(e)),
    }
}

/// A failed read of stdin.
pub fn stdin_error(source: std::io::Error) -> Error {
    Error::Io {
        path: "stdin".into(),
        source,
    }
}
