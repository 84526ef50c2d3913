//! `nboard:[depth=D,][handshake=T,][grace=T,]cmd=COMMAND`: an Othello engine that speaks
//! NBoard (Edax, NTest, or `cubesearch engine reversi --protocol nboard`) as a player of `play`
//! and `match`.
//!
//! ```text
//! → nboard 2, set depth D             (at start; the depth only when given)
//! → set game (;GM[Othello]…BO[8 … *];) the position to move from, as a GGF game with no moves
//! → ping N                            ← … pong N   (whatever the engine said before is past)
//! → go                                ← … === F5[/eval/time]
//! ```
//!
//! Each move is asked statelessly from its position, so the engine needs no history, and an
//! answer is checked against the legal moves before it is played.
//!
//! Each `pong` must come within `handshake=T` (default 10 s) and each move within `grace=T`
//! (default 1 minute, the first move the handshake's time more; NBoard gives no move time): an
//! engine that hangs or does not speak NBoard ends the game with an error ([`EngineWaits`]). It
//! is killed and reaped as [`EngineProcess`] says.

use super::ggf::{game_to_ggf, parse_move};
use super::{Board, Reversi, ReversiMove};
use cubesearch_core::{Error, Game, Result};
use cubesearch_players::external::{Deadline, EngineProcess};
use cubesearch_players::player::{MoveLimits, Player};
use cubesearch_players::spec::EngineWaits;
use cubesearch_players::text::SpecText;

/// NBoard's deepest search (its `set depth` goes to 60, the empty squares of a game).
const MAX_DEPTH: u32 = 60;

/// The spec of an NBoard engine player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NBoardSpec {
    /// The command line that starts the engine (run by `sh -c`).
    pub command: String,
    /// `set depth`, sent once (default: the engine's own).
    pub depth: Option<u32>,
    /// How long the engine's answers may take.
    pub waits: EngineWaits,
    /// The spec as written.
    pub text: String,
}

impl NBoardSpec {
    /// Reads `nboard:[depth=D,][handshake=T,][grace=T,]cmd=COMMAND` (or `nboard:COMMAND`).
    pub fn parse(text: &str) -> Result<Self> {
        let spec = SpecText::new(text);
        let keys = ["depth", EngineWaits::KEYS[0], EngineWaits::KEYS[1]];
        let (options, command) = spec.options_then("cmd", &keys, "the engine's command line")?;
        let mut depth = None;
        let mut waits = EngineWaits::default();
        for (key, value) in options {
            match key {
                "depth" => depth = Some(spec.number_in(key, value, 1, MAX_DEPTH)?),
                _ => waits.read(&spec, key, value)?,
            }
        }
        Ok(Self {
            command: command.to_string(),
            depth,
            waits,
            text: text.to_string(),
        })
    }
}

/// A running NBoard engine.
pub struct NBoardPlayer {
    text: String,
    waits: EngineWaits,
    engine: EngineProcess,
    /// The last `ping` sent: its `pong` marks where the engine's answers to now begin.
    pings: u32,
    /// Whether a move has been asked: the first also gets the handshake's wait.
    asked: bool,
}

impl NBoardPlayer {
    /// Starts the engine, says `nboard 2` (and `set depth`) and waits until it answers a ping.
    pub fn start(spec: &NBoardSpec) -> Result<Self> {
        let mut player = Self {
            text: spec.text.clone(),
            waits: spec.waits,
            engine: EngineProcess::start(&spec.text, &spec.command)?,
            pings: 0,
            asked: false,
        };
        player.engine.send("nboard 2")?;
        if let Some(depth) = spec.depth {
            player.engine.send(&format!("set depth {depth}"))?;
        }
        player.sync()?;
        Ok(player)
    }

    /// A `status error: …` line is the engine's refusal of what it was last told.
    fn refused(&self, line: &str) -> Result<()> {
        match line.strip_prefix("status error") {
            Some(error) => Err(self.engine.failed(format!(
                "the engine says: {}",
                error.trim_start_matches(':').trim()
            ))),
            None => Ok(()),
        }
    }

    /// `ping N`, then the engine's lines up to `pong N`; a `status error` on the way is its
    /// refusal of what came before.
    fn sync(&mut self) -> Result<()> {
        self.pings += 1;
        let pong = format!("pong {}", self.pings);
        self.engine.send(&format!("ping {}", self.pings))?;
        let deadline = Deadline::new(&pong, self.waits.handshake, "handshake");
        loop {
            let line = self.engine.line(&deadline)?;
            self.refused(&line)?;
            if line.trim() == pong {
                return Ok(());
            }
        }
    }
}

impl Player<Reversi> for NBoardPlayer {
    fn name(&self) -> String {
        self.text.clone()
    }

    fn set_limits(&mut self, limits: &MoveLimits) {
        if let Some(stop) = &limits.stop {
            self.engine.obey(stop);
        }
    }

    fn choose(&mut self, game: &Reversi, state: &Board) -> Result<ReversiMove> {
        let position = game_to_ggf(state, &[], ["black", "white"], "");
        self.engine.send(&format!("set game {position}"))?;
        self.sync()?;
        self.engine.send("go")?;
        let mut within = self.waits.answer(None);
        if !std::mem::replace(&mut self.asked, true) {
            within = within.saturating_add(self.waits.handshake);
        }
        let deadline = Deadline::new("move (=== …)", within, "grace");
        let answer = loop {
            let line = self.engine.line(&deadline)?;
            if let Some(answer) = line.strip_prefix("=== ") {
                break answer.trim().to_string();
            }
            self.refused(&line)?;
        };
        let mv = parse_move(&answer).map_err(|e| self.engine.failed(e))?;
        if !game.moves(state).contains(&mv) {
            return Err(Error::Unsupported(format!(
                "{}: answered '{answer}', which is not a legal move in {}",
                self.text,
                game.format_position(state)
            )));
        }
        Ok(mv)
    }
}
