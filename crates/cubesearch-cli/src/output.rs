//! Printing: text for people, one JSON object on the last line for programs, and progress bars
//! only on a terminal.

use cubesearch_core::{Error, Result};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::Value;
use std::io::{BufRead, IsTerminal, Write};

/// Prints a line on stdout, as `println!` does, but a reader that has gone (`| head`) ends
/// the process quietly with status 0 instead of a panic: there is no one left to tell.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::output::write_stdout(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// Writes `text` to stdout and flushes it; see [`say!`].
pub fn write_stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        // Another failure (a full disk under a redirect) ends the run as any error does.
        eprintln!("error: stdout: {e}");
        std::process::exit(2);
    }
}

/// Prints `json` as the last line when `--json` is on, else `text`.
pub fn emit(json_mode: bool, text: impl FnOnce() -> String, json: Value) {
    if json_mode {
        crate::say!("{json}");
    } else {
        crate::say!("{}", text());
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
    write_stdout(prompt);
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
