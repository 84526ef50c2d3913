//! Another program as a player: an engine that speaks UGI (`cubesearch engine`, or any engine
//! of UCI's family for the game), started once and asked for each move.
//!
//! Each move is asked statelessly, `position fen <position>` then `go [movetime ms]`, so the
//! engine needs no history; the position is the game's own notation (checkers' FEN does not
//! carry the count of quiet plies toward the draw rule, so a far-off draw may be seen later by
//! the engine than by the match).

use crate::player::Player;
use crate::spec::UgiSpec;
use cubesearch_core::{Error, Game, Result};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

/// A program started by `sh -c` and spoken to a line at a time over its stdin and stdout
/// (its stderr is dropped); `quit` is sent when it is dropped, and it is killed if it lingers.
pub struct EngineProcess {
    /// Names the engine in errors: the player's spec.
    name: String,
    child: Child,
    to: ChildStdin,
    from: BufReader<ChildStdout>,
}

impl EngineProcess {
    /// Starts `command`; `name` (the player's spec) heads its errors.
    pub fn start(name: &str, command: &str) -> Result<Self> {
        let mut child = Command::new("sh")
            .args(["-c", command])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| Error::Unsupported(format!("{name}: cannot start the engine: {e}")))?;
        let to = child.stdin.take().expect("a piped stdin");
        let from = BufReader::new(child.stdout.take().expect("a piped stdout"));
        Ok(Self {
            name: name.to_string(),
            child,
            to,
            from,
        })
    }

    /// An error about this engine: `<spec>: <why>`.
    pub fn failed(&self, why: impl std::fmt::Display) -> Error {
        Error::Unsupported(format!("{}: {why}", self.name))
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<()> {
        writeln!(self.to, "{line}")
            .and_then(|_| self.to.flush())
            .map_err(|e| self.failed(format!("the engine ended (it stopped reading: {e})")))
    }

    /// The engine's next line, its line ending trimmed (an error at its end).
    pub fn line(&mut self) -> Result<String> {
        let mut line = String::new();
        match self.from.read_line(&mut line) {
            Ok(0) => Err(self.failed("the engine ended")),
            Ok(_) => Ok(line.trim_end().to_string()),
            Err(e) => Err(self.failed(format!("reading the engine: {e}"))),
        }
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        let _ = writeln!(self.to, "quit").and_then(|_| self.to.flush());
        // An engine that ignores `quit` is not left behind.
        for _ in 0..50 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A running UGI engine.
pub struct UgiPlayer {
    spec: UgiSpec,
    engine: EngineProcess,
}

impl UgiPlayer {
    /// Starts the engine and waits for its `ugiok` and `readyok`.
    pub fn start(spec: &UgiSpec) -> Result<Self> {
        let mut player = UgiPlayer {
            spec: spec.clone(),
            engine: EngineProcess::start(&spec.text, &spec.command)?,
        };
        player.engine.send("ugi")?;
        player.wait_for("ugiok")?;
        player.engine.send("uginewgame")?;
        player.engine.send("isready")?;
        player.wait_for("readyok")?;
        Ok(player)
    }

    /// Reads lines until `wanted`; an `info string error` on the way is the engine's refusal.
    fn wait_for(&mut self, wanted: &str) -> Result<String> {
        loop {
            let line = self.engine.line()?;
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

    fn choose(&mut self, game: &G, state: &G::State) -> Result<G::Move> {
        self.engine
            .send(&format!("position fen {}", game.format_position(state)))?;
        match self.spec.time {
            Some(t) => self
                .engine
                .send(&format!("go movetime {}", t.as_millis().max(1)))?,
            None => self.engine.send("go")?,
        }
        let answer = self.wait_for("bestmove")?;
        let text = answer.split_whitespace().nth(1).unwrap_or_default();
        game.parse_move(state, text)
            .map_err(|e| self.engine.failed(format!("answered '{text}': {e}")))
    }
}
