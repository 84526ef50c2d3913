//! `cubesearch engine <game>`: one process that keeps its player (backend, compiled kernels,
//! MCTS tree) between moves and talks UGI on stdin/stdout, so tournament managers and GUIs that
//! speak UCI's family of line protocols can use it.
//!
//! UGI (the Universal Game Interface, UCI generalised: the cutegames `ugi.md` definition), in
//! the game's own notation:
//!
//! ```text
//! ugi                                    → id name …, id author …, option …, ugiok
//! isready                                → readyok
//! uginewgame                             (a fresh player: no tree kept)
//! position startpos|fen <pos> [moves m…] (moves in the game's notation)
//! go [movetime ms | wtime/btime/winc/binc ms | depth n | nodes n | infinite]
//!                                        → info …, bestmove <move> (0000: the game is over)
//! stop                                   (after go infinite: answers bestmove)
//! setoption name player value <spec>     (any `play` spec: mcts:time=1s,exec=gpu, …)
//! setoption name <key> value <v>         (one parameter of the spec: time, playouts, c, depth…)
//! query gameover|p1turn|result           → response true|false|p1win|p2win|draw|none
//! quit
//! ```
//!
//! Bad input (an unknown command, an illegal move, a malformed position or spec) is answered
//! with one `info string error: …` line and the engine keeps its last good state. Searches run
//! in the command loop: a `stop` or `isready` sent during a timed search is answered when it
//! ends, at most the move's time later.

use crate::args::Common;
use crate::one_line;
use crate::output::stdin_error;
use cubesearch_core::{Error, Game, Outcome, Result};
use cubesearch_games::registry::TwoPlayerGame;
use cubesearch_search::player::{MoveLimits, Player};
use cubesearch_search::spec::PlayerSpec;
use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

/// A game position as `position` set it: where it started, the moves since, and where they led.
struct Line<G: Game> {
    start: G::State,
    /// Whether the first player was to move at `start`.
    first_to_move: bool,
    moves: Vec<G::Move>,
    now: G::State,
}

impl<G: Game> Line<G> {
    /// The game's start, no moves yet.
    fn at_start(game: &G) -> Self {
        let start = game.initial();
        Line {
            start,
            first_to_move: true,
            moves: Vec::new(),
            now: start,
        }
    }
}

/// The engine's state between commands.
struct Engine<'a, G: TwoPlayerGame> {
    game: &'a G,
    common: &'a Common,
    spec_text: String,
    player: Box<dyn Player<G>>,
    line: Line<G>,
    out: std::io::Stdout,
}

/// `engine`, for two-player games.
pub struct EngineCommand<'a> {
    pub common: &'a Common,
    pub player: &'a str,
}

impl super::TwoPlayerCommand for EngineCommand<'_> {
    const WHAT: &'static str = "engine";
    fn run<G: TwoPlayerGame>(self, game: G) -> Result<()> {
        let mut engine = Engine {
            game: &game,
            common: self.common,
            spec_text: self.player.to_string(),
            player: build(self.player, self.common)?,
            line: Line::at_start(&game),
            out: std::io::stdout(),
        };
        engine.serve(std::io::stdin().lock())
    }
}

/// The player a spec names (`human` is refused: the engine's opponent is at the other end).
fn build<G: TwoPlayerGame>(spec: &str, common: &Common) -> Result<Box<dyn Player<G>>> {
    let spec: PlayerSpec<G> = spec.parse()?;
    if matches!(spec, PlayerSpec::Human) {
        return Err(Error::parse(
            "engine: the player is a program (human is the other side of the protocol)",
        ));
    }
    spec.build(common.backend, common.seed)
}

impl<G: TwoPlayerGame> Engine<'_, G> {
    fn say(&mut self, line: &str) {
        // A host that closed our stdout has gone: nothing left to tell.
        let _ = writeln!(self.out, "{line}");
        let _ = self.out.flush();
    }

    fn error(&mut self, e: &Error) {
        self.say(&format!("info string error: {}", one_line(&e.to_string())));
    }

    /// Reads commands until `quit` or the end of input.
    fn serve(&mut self, input: impl BufRead) -> Result<()> {
        let mut lines = input.lines();
        while let Some(line) = lines.next() {
            let line = line.map_err(stdin_error)?;
            let words: Vec<&str> = line.split_whitespace().collect();
            let Some((&command, args)) = words.split_first() else {
                continue;
            };
            let done = match command {
                "ugi" => {
                    self.say(&format!("id name cubesearch {}", env!("CARGO_PKG_VERSION")));
                    self.say("id author the cubesearch developers");
                    let spec = self.spec_text.clone();
                    self.say(&format!("option name player type string default {spec}"));
                    self.say("ugiok");
                    Ok(false)
                }
                "isready" => {
                    self.say("readyok");
                    Ok(false)
                }
                "uginewgame" => self.new_game().map(|_| false),
                "position" => self.position(args).map(|_| false),
                "go" => self.go(args, &mut lines),
                "stop" => Ok(false), // no search runs between commands
                "setoption" => self.set_option(args).map(|_| false),
                "query" => self.query(args).map(|_| false),
                "quit" => Ok(true),
                other => Err(Error::parse(format!("unknown command '{other}'"))),
            };
            match done {
                Ok(true) => break,
                Ok(false) => {}
                Err(e) => self.error(&e),
            }
        }
        Ok(())
    }

    fn new_game(&mut self) -> Result<()> {
        self.player = build(&self.spec_text, self.common)?;
        self.line = Line::at_start(self.game);
        Ok(())
    }

    /// `position startpos|fen <pos> [moves m…]`: the whole line is read before anything
    /// changes. A line that extends the current one is told to the player move by move, so an
    /// MCTS keeps its tree.
    fn position(&mut self, args: &[&str]) -> Result<()> {
        let split = args.iter().position(|&w| w == "moves");
        let (place, moves) = match split {
            Some(i) => (&args[..i], &args[i + 1..]),
            None => (args, &[][..]),
        };
        let (start, first_to_move) = match place {
            ["startpos"] => (self.game.initial(), true),
            ["fen", text @ ..] if !text.is_empty() => {
                let state = self.game.parse_position(&text.join(" "))?;
                (state, self.game.first_mover_to_move(&state).unwrap_or(true))
            }
            _ => {
                return Err(Error::parse(
                    "position: expected `startpos` or `fen <position>`, then `moves …`",
                ))
            }
        };
        let mut now = start;
        let mut played = Vec::with_capacity(moves.len());
        for text in moves {
            if self.game.outcome(&now) != Outcome::Ongoing {
                return Err(Error::parse(format!(
                    "position: move {text} comes after the game is over"
                )));
            }
            let mv = self.game.parse_move(&now, text)?;
            played.push(mv);
            now = self.game.apply(&now, mv);
        }
        let extends = start == self.line.start && played.starts_with(&self.line.moves);
        if extends {
            let mut state = self.line.now;
            for &mv in &played[self.line.moves.len()..] {
                self.player.observe(self.game, &state, mv);
                state = self.game.apply(&state, mv);
            }
        }
        self.line = Line {
            start,
            first_to_move,
            moves: played,
            now,
        };
        Ok(())
    }

    /// Whether the first player is to move now.
    fn first_to_move(&self) -> bool {
        self.game
            .first_mover_to_move(&self.line.now)
            .unwrap_or(self.line.first_to_move == self.line.moves.len().is_multiple_of(2))
    }

    /// `go …`: the limits, a search, its `info` line and `bestmove`. After `go infinite` the
    /// answer waits for `stop` (or `quit`, which ends the engine: `Ok(true)`).
    fn go(
        &mut self,
        args: &[&str],
        lines: &mut impl Iterator<Item = std::io::Result<String>>,
    ) -> Result<bool> {
        let limits = self.limits(args)?;
        let infinite = args.contains(&"infinite");
        self.player.set_limits(&limits);
        let state = self.line.now;
        let best = if self.game.outcome(&state) == Outcome::Ongoing {
            let started = Instant::now();
            let mv = self.player.choose(self.game, &state)?;
            let ms = started.elapsed().as_millis();
            let info = match self.player.last_search() {
                Some(s) => format!(
                    "info time {ms} nodes {} playouts {} nps {:.0}",
                    s.nodes,
                    s.playouts,
                    s.playouts as f64 / s.seconds.max(1e-9)
                ),
                None => format!("info time {ms}"),
            };
            self.say(&info);
            self.game.format_move(&state, mv)
        } else {
            "0000".to_string()
        };
        if infinite {
            // UCI's rule: no bestmove before `stop`; meanwhile keep answering.
            for line in lines.by_ref() {
                let line = line.map_err(stdin_error)?;
                match line.trim() {
                    "stop" => break,
                    "isready" => self.say("readyok"),
                    "quit" => return Ok(true),
                    other => self.error(&Error::parse(format!(
                        "'{other}' while searching: only stop, isready or quit"
                    ))),
                }
            }
        }
        self.say(&format!("bestmove {best}"));
        Ok(false)
    }

    /// The limits `go`'s arguments set: a clock gives the side to move a 30th of its time
    /// left plus half its increment.
    fn limits(&self, args: &[&str]) -> Result<MoveLimits> {
        let mut limits = MoveLimits::default();
        let mut clock = [None, None];
        let mut increment = [0u64, 0];
        let mut words = args.iter();
        while let Some(&word) = words.next() {
            if word == "infinite" {
                continue;
            }
            let value: u64 = words
                .next()
                .ok_or_else(|| Error::parse(format!("go: {word} needs a number")))?
                .parse()
                .map_err(|_| Error::parse(format!("go: {word} needs a whole number")))?;
            match word {
                "movetime" => limits.time = Some(Duration::from_millis(value.max(1))),
                "depth" => limits.depth = Some(value.clamp(1, u64::from(u32::MAX)) as u32),
                "nodes" => limits.nodes = Some(value.max(1)),
                "wtime" | "p1time" => clock[0] = Some(value),
                "btime" | "p2time" => clock[1] = Some(value),
                "winc" | "p1inc" => increment[0] = value,
                "binc" | "p2inc" => increment[1] = value,
                "movestogo" => {}
                other => return Err(Error::parse(format!("go: unknown limit '{other}'"))),
            }
        }
        let side = usize::from(!self.first_to_move());
        if let (None, Some(left)) = (limits.time, clock[side]) {
            let ms = (left / 30 + increment[side] / 2).clamp(1, left.max(1));
            limits.time = Some(Duration::from_millis(ms));
        }
        Ok(limits)
    }

    fn set_option(&mut self, args: &[&str]) -> Result<()> {
        let (name, value) = match args {
            ["name", name, "value", value @ ..] => (*name, value.join(" ")),
            _ => {
                return Err(Error::parse(
                    "setoption: expected `setoption name <name> value <value>`",
                ))
            }
        };
        // `player` replaces the spec; any other name sets that parameter of it
        // (`setoption name time value 500ms` on mcts:time=1s gives mcts:time=500ms).
        let spec = match name.to_ascii_lowercase().as_str() {
            "player" => value,
            key => with_option(&self.spec_text, key, &value),
        };
        self.player = build(&spec, self.common)?;
        self.spec_text = spec;
        Ok(())
    }

    fn query(&mut self, args: &[&str]) -> Result<()> {
        let outcome = self.game.outcome(&self.line.now);
        let answer = match args {
            ["gameover"] => (outcome != Outcome::Ongoing).to_string(),
            ["p1turn"] => self.first_to_move().to_string(),
            ["result"] => {
                let mover_first = self.first_to_move();
                match outcome {
                    Outcome::Ongoing => "none".into(),
                    Outcome::Draw => "draw".into(),
                    Outcome::Win if mover_first => "p1win".into(),
                    Outcome::Loss if !mover_first => "p1win".into(),
                    _ => "p2win".into(),
                }
            }
            _ => return Err(Error::parse("query: expected gameover, p1turn or result")),
        };
        self.say(&format!("response {answer}"));
        Ok(())
    }
}

/// `spec` with `key=value`: replaced where the spec has `key`, added otherwise.
fn with_option(spec: &str, key: &str, value: &str) -> String {
    let (name, body) = spec.split_once(':').unwrap_or((spec, ""));
    let mut pairs: Vec<&str> = body
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty() && p.split_once('=').is_none_or(|(k, _)| k.trim() != key))
        .collect();
    let set = format!("{key}={value}");
    pairs.push(&set);
    format!("{name}:{}", pairs.join(","))
}

#[cfg(test)]
mod tests {
    use super::with_option;

    #[test]
    fn an_option_replaces_or_joins_the_specs_parameters() {
        assert_eq!(
            with_option("mcts:time=1s,c=2", "time", "500ms"),
            "mcts:c=2,time=500ms"
        );
        assert_eq!(
            with_option("mcts:time=1s", "exec", "gpu"),
            "mcts:time=1s,exec=gpu"
        );
        assert_eq!(with_option("random", "k", "3"), "random:k=3");
    }
}
