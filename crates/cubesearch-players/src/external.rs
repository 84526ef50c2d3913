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
//! group also dies with this process, however it ends (a signal's default action, SIGKILL, an
//! exit that drops nothing): a watchdog forked into the group waits on a pipe only this process
//! can write to, and kills the group when the pipe's last writer goes. (The shell also gets
//! `PR_SET_PDEATHSIG`, which fires when the *thread* that started it ends: players are started
//! on the thread that uses them.) A terminal's Ctrl-C reaches the match alone, which stops once
//! the answer it waits for comes or its deadline passes.

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
    /// The write end of the pipe the group's watchdog waits on: it closes when this process
    /// ends, however it ends.
    #[cfg(target_os = "linux")]
    _watched: std::os::fd::OwnedFd,
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
        let _watched = die_with_parent(&mut sh).map_err(cannot)?;
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
            #[cfg(target_os = "linux")]
            _watched,
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
        self.line_obeying(deadline, true)
    }

    /// Whether the stop the waits obey has been raised.
    pub fn stopped(&self) -> bool {
        self.stop.is_raised()
    }

    /// [`line`](Self::line), obeying the stop or not.
    fn line_obeying(&mut self, deadline: &Deadline, obey: bool) -> Result<String> {
        loop {
            if obey && self.stop.is_raised() {
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

/// Has the engine's group killed when this process ends, however it ends; returns the pipe
/// end whose closing (with this process, or with the engine's player) sets that off.
///
/// Between fork and exec the child (the shell to be, leading its new group) asks for SIGKILL
/// when its parent thread ends (`PR_SET_PDEATHSIG`), and forks a watchdog into the group that
/// closes every descriptor but the pipe's read end (holding none of the engine's pipes), reads
/// it until it ends, and kills the group. Only this process holds the write end (it is
/// close-on-exec, and other watchdogs close it), so the read ends when this process does,
/// even by SIGKILL, or when the player is dropped, after which the group is killed anyway.
#[cfg(target_os = "linux")]
fn die_with_parent(command: &mut Command) -> std::io::Result<std::os::fd::OwnedFd> {
    use std::os::fd::AsRawFd;
    use std::os::fd::{FromRawFd, OwnedFd};
    use std::os::unix::process::CommandExt;
    let mut ends = [0; 2];
    // SAFETY: pipe2 fills two descriptors, each then owned once.
    let (read, write) = unsafe {
        if libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1]))
    };
    // With stdin closed the pipe may get descriptor 0, which the child's own stdin replaces.
    let (read, write) = (above_stdio(read)?, above_stdio(write)?);
    let watch = read.as_raw_fd();
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: between fork and exec the closure makes only async-signal-safe calls (prctl,
    // getppid, fork; and in the watchdog close_range or close, read, kill, _exit), and
    // allocates nothing. The closure owns `read` so that the parent's copy closes with the
    // `Command`, after the spawn.
    unsafe {
        command.pre_exec(move || {
            let _keep = &read;
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The parent may have ended before the request was made.
            if libc::getppid() != parent {
                return Err(ErrorKind::Other.into());
            }
            match libc::fork() {
                -1 => Err(std::io::Error::last_os_error()),
                0 => watchdog(watch),
                _ => Ok(()),
            }
        });
    }
    Ok(write)
}

/// `fd`, or a copy of it numbered 3 or more (close-on-exec) if it is 0, 1 or 2.
#[cfg(target_os = "linux")]
fn above_stdio(fd: std::os::fd::OwnedFd) -> std::io::Result<std::os::fd::OwnedFd> {
    use std::os::fd::{AsRawFd, FromRawFd};
    if fd.as_raw_fd() > 2 {
        return Ok(fd);
    }
    // SAFETY: a copy of a descriptor this process owns, owned once.
    match unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 3) } {
        -1 => Err(std::io::Error::last_os_error()),
        copy => Ok(unsafe { std::os::fd::OwnedFd::from_raw_fd(copy) }),
    }
}

/// The watchdog's life (see [`die_with_parent`]): never returns.
#[cfg(target_os = "linux")]
unsafe fn watchdog(watch: libc::c_int) -> ! {
    // `watch` is 3 or more (`above_stdio`).
    let watch_u = watch as libc::c_uint;
    let closed = libc::syscall(libc::SYS_close_range, 0, watch_u - 1, 0) == 0
        && libc::syscall(libc::SYS_close_range, watch_u + 1, libc::c_uint::MAX, 0) == 0;
    if !closed {
        // A kernel before 5.9: the descriptors a process commonly has.
        for fd in (0..4096).filter(|&fd| fd != watch) {
            libc::close(fd);
        }
    }
    let mut byte = 0u8;
    while libc::read(watch, (&raw mut byte).cast(), 1) != 0
        && *libc::__errno_location() == libc::EINTR
    {}
    libc::kill(0, libc::SIGKILL);
    libc::_exit(0)
}

/// How long a stopped engine has to answer the `stop` passed on to it.
const STOP_ANSWER: Duration = Duration::from_millis(500);

/// A running UGI engine.
pub struct UgiPlayer {
    spec: UgiSpec,
    engine: EngineProcess,
    /// Whether a move has been asked: the first also gets the handshake's wait.
    asked: bool,
    /// The limits the host gave (`go movetime`, `depth`, `nodes`), passed on; without a time,
    /// the spec's `time=`.
    limits: MoveLimits,
}

impl UgiPlayer {
    /// Starts the engine and waits for its `ugiok` and `readyok`.
    pub fn start(spec: &UgiSpec) -> Result<Self> {
        let mut player = UgiPlayer {
            spec: spec.clone(),
            engine: EngineProcess::start(&spec.text, &spec.command)?,
            asked: false,
            limits: MoveLimits::default(),
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
        self.wait_obeying(deadline, true)
    }

    /// [`wait_for`](Self::wait_for), obeying the stop or not.
    fn wait_obeying(&mut self, deadline: &Deadline, obey: bool) -> Result<String> {
        let wanted = deadline.what.as_str();
        loop {
            let line = self.engine.line_obeying(deadline, obey)?;
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
        self.limits = MoveLimits {
            stop: None,
            ..limits.clone()
        };
    }

    fn choose(&mut self, game: &G, state: &G::State) -> Result<G::Move> {
        self.engine
            .send(&format!("position fen {}", game.format_position(state)))?;
        let time = self.limits.time.or(self.spec.time);
        let mut go = "go".to_string();
        if let Some(t) = time {
            go += &format!(" movetime {}", t.as_millis().max(1));
        }
        if let Some(depth) = self.limits.depth {
            go += &format!(" depth {depth}");
        }
        if let Some(nodes) = self.limits.nodes {
            go += &format!(" nodes {nodes}");
        }
        self.engine.send(&go)?;
        let mut within = self.spec.waits.answer(time);
        if !std::mem::replace(&mut self.asked, true) {
            within = within.saturating_add(self.spec.waits.handshake);
        }
        let answer = match self.wait_for(&Deadline::new("bestmove", within, "grace")) {
            // Our host wants the move now: so does the engine's, which answers `stop` with
            // the best move it has.
            Err(_) if self.engine.stopped() => {
                self.engine.send("stop")?;
                let deadline = Deadline::new("bestmove", STOP_ANSWER, "grace");
                self.wait_obeying(&deadline, false)?
            }
            answer => answer?,
        };
        let text = answer.split_whitespace().nth(1).unwrap_or_default();
        game.parse_move(state, text)
            .map_err(|e| self.engine.failed(format!("answered '{text}': {e}")))
    }
}
