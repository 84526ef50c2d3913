//! The `cubesearch` command-line tool. Every subcommand takes `--backend`, `--seed` and `--json`;
//! any error prints one line on stderr and exits with status 2. Work stopped by SIGINT or
//! SIGTERM says what it kept and exits 128 + the signal's number.

mod args;
mod commands;
mod output;
mod plot;
mod signals;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::Parser;
use std::process::ExitCode;

use args::Cli;

/// Runs the command line and turns any error into one line and exit status 2.
fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // Plain `cubesearch`: the whole help, status 2 (no job was given).
            let _ = e.print();
            return ExitCode::from(2);
        }
        Err(e) if e.use_stderr() => {
            eprintln!("{}", one_line(&usage_error(&e)));
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

/// A message as one short line: control characters escaped (`\n`, `\r`, `\u{1b}`), so an
/// error that quotes what was typed stays one line and cannot move the terminal's cursor; a
/// run of more than [`ECHO_CHARS`] characters without a space (an echoed input, mostly) cut
/// to that many, ending in `…`; and the whole at most [`MESSAGE_CHARS`].
pub(crate) fn one_line(text: &str) -> String {
    let escaped: String = text
        .trim_end()
        .chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect();
    let words: Vec<String> = escaped.split(' ').map(|w| cut(w, ECHO_CHARS)).collect();
    cut(&words.join(" "), MESSAGE_CHARS)
}

/// Characters of one space-free run that a message keeps.
const ECHO_CHARS: usize = 80;
/// Characters a message keeps.
const MESSAGE_CHARS: usize = 400;

/// `text` cut to `max` characters, the last of them `…`, when it is longer.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some(_) => {
            let kept: String = text.chars().take(max - 1).collect();
            format!("{kept}…")
        }
    }
}

/// A usage error as one line: clap's first paragraph (it names the bad or missing arguments)
/// and its usage line; a negative number, which clap takes for a flag, said as such.
fn usage_error(e: &clap::Error) -> String {
    let rendered = e.render().to_string();
    let mut text = first_paragraph(&rendered);
    if e.kind() == ErrorKind::UnknownArgument {
        if let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) {
            if arg.parse::<f64>().is_ok() {
                text = format!(
                    "error: {arg} is not taken: counts, depths, sizes and times are 0 or more"
                );
            }
        }
    }
    match rendered
        .lines()
        .find_map(|l| l.trim().strip_prefix("Usage: "))
    {
        Some(usage) => format!("{text} (usage: {usage})"),
        None => text,
    }
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

#[cfg(test)]
mod tests {
    use super::one_line;

    #[test]
    fn messages_are_one_short_line_whatever_they_quote() {
        assert_eq!(one_line("bad 'x\ny'\n"), "bad 'x\\ny'");
        let long = format!("bad spec '{}': expected k=v", "a".repeat(100_000));
        let line = one_line(&long);
        assert!(
            line.starts_with("bad spec 'aaa") && line.ends_with("… expected k=v"),
            "{line}"
        );
        assert_eq!(
            line.chars().count(),
            "bad spec ".len() + 80 + " expected k=v".len()
        );
        let many = "word ".repeat(1000);
        assert_eq!(one_line(&many).chars().count(), 400);
        assert_eq!(one_line("\u{1b}[2J"), "\\u{1b}[2J");
    }
}
