//! Another program as a player: an engine that speaks UGI (`cubesearch engine`, or any engine
//! of UCI's family for the game), started once and asked for each move.
//!
//! Each move is asked statelessly, `position fen <position>` then `go [movetime ms]`, so the
//! engine needs no history; the position is the game's own notation (checkers' FEN does not
//! carry the count of quiet plies toward the draw rule, so a far-off draw may be seen later by
//! the engine than by the match).
//!
//! Every answer has a deadline ([`EngineWaits`](crate::spec::EngineWaits)), so an engine that
//! hangs, floods or never speaks the protocol (`cmd=cat`, `cmd=yes`) ends the game with an
//! error instead of stalling it:
//!
//! - `handshake=T` (default 10 s): each answer that is not a move (`ugiok`, `readyok`, NBoard's
//!   `pong`), from when it is asked;
//! - `grace=T` (default 5 s): how long past its move time (`time=T`) a move may come; with no
//!   move time, how long a move may take (default 1 minute). The first move may also take the
//!   handshake's time: an engine may leave its setup (compiling kernels) to its first search.
//!
//! The deadline is for the expected answer, not for each line: other lines do not extend it.
//! An error says why: the answer that did not come, or how the engine ended (its exit status
//! and the last line of its stderr), and the command that was run.
//!
//! The engine runs in a process group of its own (`sh -c` may fork it rather than exec it). When
//! its player is dropped (a game's error, a match stopped by SIGINT or SIGTERM, the end) it is
//! sent `quit`, and half a second later the group is killed and the engine reaped. On Linux the
//! shell also gets SIGKILL should the thread that started it end without dropping it (the
//! process killed); an engine it forked then sees its input end. A terminal's Ctrl-C reaches
//! the match alone, which stops once the answer it waits for comes or its deadline passes.

use crate::player::{MoveLimits, Player};
use crate::spec::UgiSpec;
use cubesearch_core::{Error, Game, Result, Stop};
use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Longest line kept from an engine; the rest of a longer one is dropped, so an engine that
/// writes without newlines cannot fill memory.
const MAX_LINE: usize = 64 * 1024;
/// Lines read ahead of the player: beyond them a flooding engine waits (its pipe fills).
const QUEUED_LINES: usize = 256;
/// Longest stderr line quoted in an error, in characters.
const MAX_QUOTED: usize = 200;
/// How often a wait for an engine looks at the stop it obeys.
const STOP_POLL: Duration = Duration::from_millis(20);
/// How long a dropped engine has to obey `quit` before it is killed.
const QUIT_WAIT: Duration = Duration::from_millis(500);
/// How long an engine that closed its stdout has to exit, and its stderr to be read to its
/// end, before an error describes it.
const SETTLE: Duration = Duration::from_secs(1);

/// An answer a player waits for from its engine, and until when.
#[derive(Clone, Debug)]
pub struct Deadline {
    what: String,
    at: Instant,
    within: Duration,
    option: &'static str,
}

impl Deadline {
    /// `what` (`ugiok`), due `within` from now; `option` names the spec option that sets
    /// `within` (`handshake`), which an error suggests.
    pub fn new(what: &str, within: Duration, option: &'static str) -> Self {
        let now = Instant::now();
        Self {
            what: what.to_string(),
            // Far enough for any wait a spec can give.
            at: now
                .checked_add(within)
                .unwrap_or(now + Duration::from_secs(1 << 32)),
            within,
            option,
        }
    }
}

/// The last line of the engine's stderr, and whether it has been read to its end.
#[derive(Default)]
struct Tail {
    last: Option<String>,
    done: bool,
}

type SharedTail = Arc<(Mutex<Tail>, Condvar)>;

/// A program started by `sh -c` and spoken to a line at a time over its stdin and stdout,
/// each answer awaited until a [`Deadline`]; the last line of its stderr is kept for errors.
/// `quit` is sent when it is dropped, and it is killed and reaped if it lingers.
pub struct EngineProcess {
    /// Names the engine in errors: the player's spec.
    name: String,
    /// The command line run, quoted in errors.
    command: String,
    child: Child,
    /// `None` once closed (on drop).
    to: Option<ChildStdin>,
    /// The engine's stdout, a line at a time, read by a thread of its own so that a wait can
    /// end at a deadline; closed when the engine closes its stdout.
    lines: Receiver<String>,
    stderr: SharedTail,
    /// The host's request to stop (a signal to the match): a wait ends at once when it rises.
    stop: Stop,
}

impl EngineProcess {
    /// Starts `command`; `name` (the player's spec) heads its errors.
    pub fn start(name: &str, command: &str) -> Result<Self> {
        let cannot = |e: std::io::Error| {
            Error::Unsupported(format!(
                "{name}: cannot start the engine (ran `{command}`): {e}"
            ))
        };
        let mut sh = Command::new("sh");
        sh.args(["-c", command])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // A group of its own, which is killed whole: `sh -c` may fork the engine rather
            // than exec it, and an engine may start helpers. (A terminal's Ctrl-C then reaches
            // the match alone, which stops and drops its players.)
            sh.process_group(0);
        }
        #[cfg(target_os = "linux")]
        die_with_parent(&mut sh);
        let mut child = sh.spawn().map_err(cannot)?;
        let to = child.stdin.take().expect("a piped stdin");
        #[cfg(unix)]
        never_block(&to);
        let stdout = child.stdout.take().expect("a piped stdout");
        let stderr = child.stderr.take().expect("a piped stderr");
        let (queue, lines) = mpsc::sync_channel(QUEUED_LINES);
        let tail = SharedTail::default();
        let threads = std::thread::Builder::new()
            .name("engine-stdout".into())
            .spawn(move || {
                let mut from = BufReader::new(stdout);
                let mut line = Vec::new();
                // Ends at the engine's end of output, or when its player is gone.
                while let Ok(true) = read_line(&mut from, &mut line) {
                    let text = String::from_utf8_lossy(&line).trim_end().to_string();
                    if queue.send(text).is_err() {
                        break;
                    }
                }
            })
            .and_then(|_| {
                let tail = tail.clone();
                std::thread::Builder::new()
                    .name("engine-stderr".into())
                    .spawn(move || keep_last_line(stderr, &tail))
            });
        let engine = Self {
            name: name.to_string(),
            command: command.to_string(),
            child,
            to: Some(to),
            lines,
            stderr: tail,
            stop: Stop::new(),
        };
        // Dropping `engine` kills the child.
        threads.map_err(|e| engine.failed(format!("cannot start a thread to read it: {e}")))?;
        Ok(engine)
    }

    /// An error about this engine: `<spec>: <why>`.
    pub fn failed(&self, why: impl std::fmt::Display) -> Error {
        Error::Unsupported(format!("{}: {why}", self.name))
    }

    /// Sends one line. An engine that stopped reading its input is an error, never a wait.
    pub fn send(&mut self, line: &str) -> Result<()> {
        let Some(to) = self.to.as_mut() else {
            return Err(self.failed("the engine's input is closed"));
        };
        match to.write_all(format!("{line}\n").as_bytes()) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == ErrorKind::WouldBlock => Err(self.failed(format!(
                "the engine does not read its input (ran `{}`{})",
                self.command,
                self.stderr_part()
            ))),
            Err(_) => Err(self.ended()),
        }
    }

    /// Waits obey `stop` from now on: once it is raised, a wait ends with an error at once.
    pub fn obey(&mut self, stop: &Stop) {
        self.stop = stop.clone();
    }

    /// The engine's next line, its line ending trimmed; an error once `deadline` has passed
    /// (whatever else the engine says meanwhile), at the engine's end, or once the stop it
    /// obeys is raised (looked at every 20 ms).
    pub fn line(&mut self, deadline: &Deadline) -> Result<String> {
        loop {
            if self.stop.is_raised() {
                return Err(self.failed(format!("stopped while waiting for {}", deadline.what)));
            }
            let left = deadline.at.saturating_duration_since(Instant::now());
            // A flooding engine always has a line ready: the deadline is checked before each.
            if left.is_zero() {
                return Err(self.late(deadline));
            }
            match self.lines.recv_timeout(left.min(STOP_POLL)) {
                Ok(line) => return Ok(line),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Err(self.ended()),
            }
        }
    }

    /// The error for an answer that did not come in time.
    fn late(&self, deadline: &Deadline) -> Error {
        self.failed(format!(
            "the engine gave no {} within {:?} ({}=T waits longer; ran `{}`{})",
            deadline.what,
            deadline.within,
            deadline.option,
            self.command,
            self.stderr_part()
        ))
    }

    /// The error for an engine whose stdout closed: how it ended, once it has.
    fn ended(&mut self) -> Error {
        let until = Instant::now() + SETTLE;
        let status = self.exit_by(until);
        // Its stderr ends with it (unless a child of its own holds it open).
        let (lock, read) = &*self.stderr;
        let left = until.saturating_duration_since(Instant::now());
        let tail = lock.lock().unwrap_or_else(PoisonError::into_inner);
        drop(
            read.wait_timeout_while(tail, left, |t| !t.done)
                .unwrap_or_else(PoisonError::into_inner),
        );
        // What it left running (a child holding its stderr) goes with it.
        if status.is_some() {
            self.kill_group();
        }
        let how = match status {
            Some(status) => format!("the engine ended ({}", describe(status)),
            None => "the engine closed its output (it is still running".to_string(),
        };
        self.failed(format!(
            "{how}; ran `{}`{})",
            self.command,
            self.stderr_part()
        ))
    }

    /// The engine's exit status, once it has exited, waiting for it until `until` (`None`
    /// if it is still running then).
    fn exit_by(&mut self, until: Instant) -> Option<ExitStatus> {
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(10)),
                _ => return None,
            }
        }
    }

    /// Kills the engine's process group: the shell, the engine and whatever they started.
    fn kill_group(&mut self) {
        #[cfg(unix)]
        if let Ok(group) = libc::pid_t::try_from(self.child.id()) {
            // SAFETY: a signal to the group `start` made, led by our child.
            unsafe { libc::kill(-group, libc::SIGKILL) };
        }
        let _ = self.child.kill();
    }

    /// `; its last stderr line: …`, or nothing when it wrote none.
    fn stderr_part(&self) -> String {
        let tail = self.stderr.0.lock().unwrap_or_else(PoisonError::into_inner);
        match &tail.last {
            Some(line) => format!("; its last stderr line: {line}"),
            None => String::new(),
        }
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        if let Some(mut to) = self.to.take() {
            // Then its input closes too: an engine that reads to its end stops there.
            let _ = to.write_all(b"quit\n");
        }
        // An engine that ignores `quit` is not left behind, nor what it started.
        self.exit_by(Instant::now() + QUIT_WAIT);
        self.kill_group();
        let _ = self.child.wait();
    }
}

/// `exit status 3`, `killed by signal 9`.
fn describe(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("killed by signal {signal}");
        }
    }
    match status.code() {
        Some(code) => format!("exit status {code}"),
        None => status.to_string(),
    }
}

/// Reads one line into `line` (its newline dropped, cut to [`MAX_LINE`] bytes); false at the
/// end of the input.
fn read_line(from: &mut impl BufRead, line: &mut Vec<u8>) -> std::io::Result<bool> {
    line.clear();
    let mut any = false;
    loop {
        let (used, ended) = {
            let buffer = match from.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buffer.is_empty() {
                return Ok(any);
            }
            any = true;
            let newline = buffer.iter().position(|&b| b == b'\n');
            let chunk = &buffer[..newline.unwrap_or(buffer.len())];
            let room = MAX_LINE.saturating_sub(line.len());
            line.extend_from_slice(&chunk[..chunk.len().min(room)]);
            match newline {
                Some(i) => (i + 1, true),
                None => (buffer.len(), false),
            }
        };
        from.consume(used);
        if ended {
            return Ok(true);
        }
    }
}

/// Reads `stderr` to its end, keeping its last non-empty line (cut to [`MAX_QUOTED`]
/// characters) in `tail`.
fn keep_last_line(stderr: impl Read, tail: &SharedTail) {
    let mut from = BufReader::new(stderr);
    let mut line = Vec::new();
    while let Ok(true) = read_line(&mut from, &mut line) {
        let text = String::from_utf8_lossy(&line);
        let text = text.trim();
        if !text.is_empty() {
            let quoted: String = text.chars().take(MAX_QUOTED).collect();
            tail.0.lock().unwrap_or_else(PoisonError::into_inner).last = Some(quoted);
        }
    }
    tail.0.lock().unwrap_or_else(PoisonError::into_inner).done = true;
    tail.1.notify_all();
}

/// Makes writes to the engine fail rather than wait when its pipe is full: an engine that
/// stops reading would otherwise stall the player on a write, where no deadline reaches.
#[cfg(unix)]
fn never_block(to: &ChildStdin) {
    use std::os::fd::AsRawFd;
    let fd = to.as_raw_fd();
    // SAFETY: fcntl on a descriptor this process owns, open for as long as `to` lives.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
    }
}

/// Has the child killed (SIGKILL) when the thread that starts it ends, so that an engine does
/// not outlive a process killed before its players were dropped. (What the child forked is
/// not reached: it sees its input end.)
#[cfg(target_os = "linux")]
fn die_with_parent(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: between fork and exec the closure makes only async-signal-safe calls.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The parent may have ended before the request was made.
            if libc::getppid() != parent {
                return Err(ErrorKind::Other.into());
            }
            Ok(())
        });
    }
}

/// A running UGI engine.
pub struct UgiPlayer {
    spec: UgiSpec,
    engine: EngineProcess,
    /// Whether a move has been asked: the first also gets the handshake's wait.
    asked: bool,
}

impl UgiPlayer {
    /// Starts the engine and waits for its `ugiok` and `readyok`.
    pub fn start(spec: &UgiSpec) -> Result<Self> {
        let mut player = UgiPlayer {
            spec: spec.clone(),
            engine: EngineProcess::start(&spec.text, &spec.command)?,
            asked: false,
        };
        let handshake = spec.waits.handshake;
        player.engine.send("ugi")?;
        player.wait_for(&Deadline::new("ugiok", handshake, "handshake"))?;
        player.engine.send("uginewgame")?;
        player.engine.send("isready")?;
        player.wait_for(&Deadline::new("readyok", handshake, "handshake"))?;
        Ok(player)
    }

    /// Reads lines until the one `deadline` waits for; an `info string error` on the way is
    /// the engine's refusal.
    fn wait_for(&mut self, deadline: &Deadline) -> Result<String> {
        let wanted = deadline.what.as_str();
        loop {
            let line = self.engine.line(deadline)?;
            if let Some(error) = line.strip_prefix("info string error: ") {
                return Err(self.engine.failed(format!("the engine says: {error}")));
            }
            if line == wanted || line.starts_with(&format!("{wanted} ")) {
                return Ok(line);
            }
        }
    }
}

impl<G: Game> Player<G> for UgiPlayer {
    fn name(&self) -> String {
        self.spec.text.clone()
    }

    fn set_limits(&mut self, limits: &MoveLimits) {
        if let Some(stop) = &limits.stop {
            self.engine.obey(stop);
        }
    }

    fn choose(&mut self, game: &G, state: &G::State) -> Result<G::Move> {
        self.engine
            .send(&format!("position fen {}", game.format_position(state)))?;
        match self.spec.time {
            Some(t) => self
                .engine
                .send(&format!("go movetime {}", t.as_millis().max(1)))?,
            None => self.engine.send("go")?,
        }
        let mut within = self.spec.waits.answer(self.spec.time);
        if !std::mem::replace(&mut self.asked, true) {
            within = within.saturating_add(self.spec.waits.handshake);
        }
        let answer = self.wait_for(&Deadline::new("bestmove", within, "grace"))?;
        let text = answer.split_whitespace().nth(1).unwrap_or_default();
        game.parse_move(state, text)
            .map_err(|e| self.engine.failed(format!("answered '{text}': {e}")))
    }
}
