//! The `cubesearch` command-line tool. Every subcommand takes `--backend`, `--seed` and `--json`;
//! any error prints one line on stderr and exits with status 2. Work stopped by SIGINT or
//! SIGTERM says what it kept and exits 128 + the signal's number.

mod args;
mod commands;
mod output;
mod plot;
mod signals;

use clap::Parser;
use std::process::ExitCode;

use args::Cli;

/// Runs the command line and turns any error into one line and exit status 2.
fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() => {
            // A usage error: clap's first paragraph (it names the bad or missing arguments) on
            // one line, status 2.
            eprintln!("{}", one_line(&first_paragraph(&e.render().to_string())));
            return ExitCode::from(2);
        }
        Err(e) => {
            // --help and --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
    };
    match commands::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(cubesearch_core::Error::Interrupted(what)) => {
            eprintln!("{}", one_line(&what));
            ExitCode::from(signals::exit_status(&signals::stop_on_signals()))
        }
        Err(e) => {
            eprintln!("error: {}", one_line(&e.to_string()));
            ExitCode::from(2)
        }
    }
}

/// The message's first line, its control characters escaped (`\r`, `\u{1b}`): an error that
/// quotes what was typed stays one line and cannot move the terminal's cursor.
pub(crate) fn one_line(text: &str) -> String {
    let first = text.lines().next().unwrap_or(text);
    first
        .chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The lines before the first blank one, joined: `error: the following required arguments
/// were not provided: --games <GAMES>`.
fn first_paragraph(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect();
    lines.join(" ")
}
