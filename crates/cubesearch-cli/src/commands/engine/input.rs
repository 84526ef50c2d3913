//! The host's lines, read on their own thread so that a search in progress hears `stop` and
//! `quit` at once: the reader raises the running search's [`Stop`] itself, and the engine's
//! loop takes the line after the search has answered.
//!
//! Every line that starts a search comes with a fresh [`Stop`]; `stop`, `quit` and the end of
//! the input raise the newest one (so a `stop` sent right after `go` stops that `go`, even
//! before the engine has started it). A line that is not UTF-8 is a bad line, not the end.
//!
//! The reader also keeps the engine answering while its player is stuck (an outside engine's
//! handshake, a library that ignores its stop, a search that cannot be cut short): while the
//! engine's loop is busy (not waiting for a line) it answers `isready` itself, and after
//! `quit` or the end of input it ends the process once the loop has taken no line for
//! [`EXIT_GRACE`] (one still working through the lines before `quit` goes on). Outside
//! engines die with the process (`players/external.rs`).

use super::{say, say_error};
use cubesearch_core::{Error, Stop};
use std::io::BufRead;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long after `quit` or the end of input the engine's loop may spend on one line (a
/// search answers its stop in milliseconds, a dropped outside engine within half a second)
/// before the reader ends the process.
const EXIT_GRACE: Duration = Duration::from_secs(3);

/// One line from the host: its text (`Err` when it was not UTF-8) and the stop of the search
/// it starts or may end.
pub(super) struct HostLine {
    pub text: Result<String, String>,
    pub stop: Stop,
}

/// Which commands start a search and which end one, for a protocol.
#[derive(Clone, Copy)]
pub(super) struct Protocol {
    /// Commands (first words) that start a search: `go`, NBoard's `hint`.
    pub starts: &'static [&'static str],
    /// Commands that end a running search: `stop`, `quit`.
    pub ends: &'static [&'static str],
    /// The readiness question the reader answers while the loop is busy, and its answer
    /// (UGI's `isready` and `readyok`); `None` for a protocol whose answer carries state (NBoard's
    /// `ping N`, which promises that every earlier command is done).
    pub ready: Option<(&'static str, &'static str)>,
}

/// The host's lines as the reading thread passes them on.
pub(super) struct HostLines {
    lines: Receiver<HostLine>,
    /// Whether the engine's loop is busy with a line (or building its player) rather than
    /// waiting for one.
    busy: Arc<AtomicBool>,
    /// How many lines the loop has taken.
    taken: Arc<AtomicUsize>,
}

/// What the host said while a search waited for its `stop`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Searching {
    /// Nothing yet: search on.
    GoOn,
    /// `stop`, or the end of input: answer the move.
    Stop,
    /// `quit`: answer nothing, end the engine.
    Quit,
}

impl HostLines {
    /// Starts the reading thread on `input`; the loop counts as busy until it first waits.
    /// With `exit`, `quit` and the end of input end the process [`EXIT_GRACE`] later should
    /// the loop not have (tests of the reader alone pass false).
    pub fn read(input: impl BufRead + Send + 'static, protocol: Protocol, exit: bool) -> Self {
        let (send, lines) = channel();
        let busy = Arc::new(AtomicBool::new(true));
        let taken = Arc::new(AtomicUsize::new(0));
        let (loop_busy, loop_taken) = (busy.clone(), taken.clone());
        std::thread::spawn(move || {
            let mut input = input;
            let mut current = Stop::new();
            let mut bytes = Vec::new();
            // Lines passed to the loop.
            let mut sent = 0;
            loop {
                bytes.clear();
                match input.read_until(b'\n', &mut bytes) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                let text = match std::str::from_utf8(&bytes) {
                    Ok(text) => Ok(text.trim_end_matches(['\n', '\r']).to_string()),
                    Err(_) => Err(format!(
                        "a line that is not UTF-8 ({} bytes) was ignored",
                        bytes.len()
                    )),
                };
                let first = text
                    .as_deref()
                    .ok()
                    .and_then(|t| t.split_whitespace().next())
                    .unwrap_or_default()
                    .to_string();
                if let Some((question, answer)) = protocol.ready {
                    // Answered here only while the loop is busy with the last line sent (or
                    // its player's setup): a waiting loop answers it in turn, and so does a
                    // loop with lines before it still to take (`ugi`'s `ugiok` comes first).
                    let idle = !loop_busy.load(Ordering::Acquire);
                    if first == question && !idle && loop_taken.load(Ordering::Acquire) == sent {
                        say(answer);
                        continue;
                    }
                }
                let quit = first == "quit";
                if protocol.starts.contains(&first.as_str()) {
                    current = Stop::new();
                } else if protocol.ends.contains(&first.as_str()) {
                    current.request(1);
                }
                let line = HostLine {
                    text,
                    stop: current.clone(),
                };
                if send.send(line).is_err() || quit {
                    break;
                }
                sent += 1;
            }
            // `quit`, or the host has gone: a search still running has nobody to answer.
            current.request(1);
            if exit {
                let (mut seen, mut since) = (loop_taken.load(Ordering::Acquire), Instant::now());
                loop {
                    std::thread::sleep(Duration::from_millis(50));
                    match loop_taken.load(Ordering::Acquire) {
                        now if now != seen => (seen, since) = (now, Instant::now()),
                        _ if since.elapsed() >= EXIT_GRACE => std::process::exit(0),
                        _ => {}
                    }
                }
            }
        });
        Self { lines, busy, taken }
    }

    /// Receives a line within `wait`, the loop counting as waiting meanwhile.
    fn receive(&self, wait: Duration) -> Result<HostLine, RecvTimeoutError> {
        self.busy.store(false, Ordering::Release);
        let line = self.lines.recv_timeout(wait);
        self.busy.store(true, Ordering::Release);
        self.taken.fetch_add(1, Ordering::Release);
        line
    }

    /// The next line, waiting for it as long as it takes.
    pub fn next(&self) -> Option<HostLine> {
        self.receive(Duration::MAX).ok()
    }

    /// The host's lines while a search runs (UCI's `go infinite`), waiting up to `wait` for
    /// the first (`None`: until one comes), then those already sent: `isready` is answered,
    /// anything but `stop` or `quit` is an error line.
    pub fn while_searching(&self, wait: Option<Duration>) -> Searching {
        let mut wait = wait.unwrap_or(Duration::MAX);
        loop {
            let line = match self.receive(wait) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => return Searching::GoOn,
                Err(RecvTimeoutError::Disconnected) => return Searching::Stop,
            };
            wait = Duration::ZERO;
            match line.text.as_deref().map(str::trim) {
                Ok("stop") => return Searching::Stop,
                Ok("quit") => return Searching::Quit,
                Ok("isready") => say("readyok"),
                Ok(other) => say_error(&Error::parse(format!(
                    "'{other}' while searching: only stop, isready or quit"
                ))),
                Err(bad) => say_error(&Error::parse(bad.clone())),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// UGI, with `isready` always passed on (a reader alone has no loop to be busy).
    const UGI: Protocol = Protocol {
        ready: None,
        ..crate::commands::engine::ugi::UGI
    };

    #[test]
    fn stop_raises_the_newest_search_and_bad_bytes_are_a_bad_line() {
        let input: &'static [u8] = b"isready\ngo infinite\nstop\n\xff\xfe\ngo\nquit\n";
        let lines = HostLines::read(input, UGI, false);
        let all: Vec<HostLine> = std::iter::from_fn(|| lines.next()).collect();
        let texts: Vec<_> = all.iter().map(|l| l.text.clone()).collect();
        assert_eq!(
            texts[..3],
            [
                Ok("isready".into()),
                Ok("go infinite".into()),
                Ok("stop".into())
            ]
        );
        assert!(
            texts[3].as_ref().unwrap_err().contains("not UTF-8"),
            "{texts:?}"
        );
        assert_eq!(all.len(), 6);
        // The first go was stopped by `stop`, the second by `quit`.
        assert!(all[1].stop.is_raised() && all[4].stop.is_raised());
    }

    #[test]
    fn each_search_has_its_own_stop_and_the_end_of_input_raises_the_newest() {
        let lines = HostLines::read(
            &b"go depth 40
isready
go depth 40
"[..],
            UGI,
            false,
        );
        let all: Vec<HostLine> = std::iter::from_fn(|| lines.next()).collect();
        assert!(!all[0].stop.is_raised() && !all[1].stop.is_raised());
        assert!(all[2].stop.is_raised());
    }

    #[test]
    fn the_end_of_input_raises_the_running_search() {
        let lines = HostLines::read(&b"go depth 40\n"[..], UGI, false);
        let go = lines.next().unwrap();
        // The end of input is a stop to a search waiting for one.
        assert_eq!(
            lines.while_searching(Some(Duration::from_secs(5))),
            Searching::Stop
        );
        assert!(go.stop.is_raised());
    }
}
