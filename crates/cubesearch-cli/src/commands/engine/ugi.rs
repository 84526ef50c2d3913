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
//! Bad input (an unknown command, an illegal move, a malformed position or spec, a line that
//! is not UTF-8) is answered with one `info string error: …` line and the engine keeps its last
//! good state. Commands are read on their own thread ([`HostLines`]), which raises the running
//! search's stop at `stop`, `quit` or the end of input: the search answers at once with the
//! best move it has, and `quit` or the end then ends the engine. `go infinite` searches in
//! slices (0.1 s, doubling to 1 s), each going on from the last (an MCTS keeps its tree,
//! alpha-beta its table), with an `info` line after each (its time the whole search's), until
//! `stop`. `isready` is answered at once, even while the player is busy or stuck. A depth that
//! would take more than a day (the estimate `play` and `match` apply; `--force` skips it) is
//! refused with `info string error` and no search.
//!
//! A `go` always ends in a `bestmove`: a player that fails (an outside engine that hung) is
//! named in `info string` lines and the first legal move answered. A move's time binds every
//! player (one that may overrun it is stopped just past it); `depth` and `nodes` bind those
//! that can obey them ([`unobeyed`]), and the others say so in an `info string`. `go depth 0`
//! searches nothing: the first legal move, at once.

use super::input::{HostLines, Protocol, Searching};
use super::{build, introduce, refuse_endless_search, say, say_error, unobeyed};
use super::{Go, Line, DEPTH_ZERO};
use crate::args::Common;
use cubesearch_core::{Error, Outcome, Result, Stop};
use cubesearch_games::registry::TwoPlayerGame;
use cubesearch_players::player::{MoveLimits, Player};
use cubesearch_players::text::with_option;
use std::time::{Duration, Instant};

/// `go` starts a search; `stop` and `quit` end it; `isready` is answered even while the
/// player is busy.
pub(crate) const UGI: Protocol = Protocol {
    starts: &["go"],
    ends: &["stop", "quit"],
    ready: Some(("isready", "readyok")),
};

/// How far past a move's time (besides a tenth of it) a player that overruns it is stopped.
const SLACK: Duration = Duration::from_millis(50);

/// Serves UGI on the host's `lines` until `quit` or their end.
pub(super) fn serve<G: TwoPlayerGame>(
    game: &G,
    common: &Common,
    spec: &str,
    player: Box<dyn Player<G>>,
    lines: HostLines,
) -> Result<()> {
    Engine {
        game,
        common,
        spec_text: spec.to_string(),
        player,
        line: Line::at_start(game),
    }
    .serve(lines)
}

/// The engine's state between commands.
struct Engine<'a, G: TwoPlayerGame> {
    game: &'a G,
    common: &'a Common,
    spec_text: String,
    player: Box<dyn Player<G>>,
    line: Line<G>,
}

impl<G: TwoPlayerGame> Engine<'_, G> {
    /// Reads commands until `quit` or the end of input.
    fn serve(&mut self, lines: HostLines) -> Result<()> {
        while let Some(line) = lines.next() {
            let text = match line.text {
                Ok(text) => text,
                Err(bad) => {
                    say_error(&Error::parse(bad));
                    continue;
                }
            };
            let words: Vec<&str> = text.split_whitespace().collect();
            let Some((&command, args)) = words.split_first() else {
                continue;
            };
            let done = match command {
                "ugi" => {
                    introduce(&self.spec_text);
                    Ok(false)
                }
                "isready" => {
                    say("readyok");
                    Ok(false)
                }
                "uginewgame" => self.new_game().map(|_| false),
                "position" => self.position(args).map(|_| false),
                "go" => self.go(args, &line.stop, &lines),
                "stop" => Ok(false), // the search it stopped has answered
                "setoption" => self.set_option(args).map(|_| false),
                "query" => self.query(args).map(|_| false),
                "quit" => Ok(true),
                other => Err(Error::parse(format!("unknown command '{other}'"))),
            };
            match done {
                Ok(true) => break,
                Ok(false) => {}
                Err(e) => say_error(&e),
            }
        }
        Ok(())
    }

    fn new_game(&mut self) -> Result<()> {
        self.player = build(self.game, &self.spec_text, self.common)?;
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
        self.line.follow(
            self.game,
            self.player.as_mut(),
            start,
            first_to_move,
            played,
        );
        Ok(())
    }

    /// Whether the first player is to move now.
    fn first_to_move(&self) -> bool {
        self.game
            .first_mover_to_move(&self.line.now)
            .unwrap_or(self.line.first_to_move == self.line.moves.len().is_multiple_of(2))
    }

    /// `go …`: the limits, a search, its `info` line and `bestmove`. `stop` (raised by the
    /// reading thread at `stop`, `quit` or the end of input) ends the search at once. After
    /// `go infinite` the answer waits for `stop` (or `quit`, which ends the engine:
    /// `Ok(true)`). Limits the player cannot obey are named in an `info string`; a player that
    /// fails is named in one too, and the first legal move answered: a host always gets its
    /// `bestmove`.
    fn go(&mut self, args: &[&str], stop: &Stop, lines: &HostLines) -> Result<bool> {
        let go = Go::parse(args)?;
        let started = Instant::now();
        let state = self.line.now;
        let ongoing = self.game.outcome(&state) == Outcome::Ongoing;
        let searched = ongoing && go.depth != Some(0);
        let mut limits = MoveLimits {
            time: go.time(usize::from(!self.first_to_move())),
            depth: go.depth.map(|d| d.min(u64::from(u32::MAX)) as u32),
            nodes: go.nodes.map(|n| n.max(1)),
            stop: Some(stop.clone()),
        };
        if searched {
            refuse_endless_search(
                self.game,
                self.common,
                &self.spec_text,
                limits.depth,
                &state,
            )?;
            for limit in unobeyed::<G>(&self.spec_text, &go) {
                say(&format!(
                    "info string go {limit}: {} cannot keep to it and searches as its spec says",
                    self.spec_text
                ));
            }
        }
        let best = if !searched {
            if ongoing {
                say(DEPTH_ZERO);
            }
            // UCI's rule: no bestmove before `stop`, even with nothing to search.
            if go.infinite && lines.while_searching(None) == Searching::Quit {
                return Ok(true);
            }
            self.first_legal(&state)
        } else if !go.infinite {
            // A player that may overrun its time (one that is not told it) is stopped: a tenth
            // and 50 ms past it, so that one that keeps it is not cut short.
            if let (Some(time), Some(stop)) = (limits.time, &limits.stop) {
                limits.stop = Some(stop.with_deadline(started + time + time / 10 + SLACK));
            }
            self.player.set_limits(&limits);
            self.search(&state, started)
                .unwrap_or_else(|e| self.failed(&state, &e))
        } else {
            let mut slice = Duration::from_millis(100);
            let mut best = None;
            let mut failed = false;
            loop {
                // Once stopped, no further slice: the `stop` (or `quit`, or the end) that
                // raised it is on its way. A player that failed searches no more.
                let wait = match &best {
                    _ if failed => None,
                    Some(_) if stop.is_raised() => None,
                    _ => {
                        self.player.set_limits(&MoveLimits {
                            time: Some(slice),
                            ..limits.clone()
                        });
                        let slice_started = Instant::now();
                        match self.search(&state, started) {
                            Ok(mv) => best = Some(mv),
                            Err(e) => {
                                best = Some(self.failed(&state, &e));
                                failed = true;
                            }
                        }
                        // A player that ignores time (random) waits out the slice for the host.
                        (!failed).then(|| slice.saturating_sub(slice_started.elapsed()))
                    }
                };
                match lines.while_searching(wait) {
                    Searching::Quit => return Ok(true),
                    Searching::Stop => break best.expect("a slice has searched"),
                    Searching::GoOn => slice = (slice * 2).min(Duration::from_secs(1)),
                }
            }
        };
        say(&format!("bestmove {best}"));
        Ok(false)
    }

    /// The first legal move in `state` (`0000` when the game is over).
    fn first_legal(&self, state: &G::State) -> String {
        match self.game.moves(state).first() {
            Some(&mv) => self.game.format_move(state, mv),
            None => "0000".into(),
        }
    }

    /// Tells the host the player failed (`info string error: …`), and the move answered
    /// instead: the first legal one.
    fn failed(&self, state: &G::State, e: &Error) -> String {
        say_error(e);
        say("info string the player failed: answered with the first legal move");
        self.first_legal(state)
    }

    /// One search of `state` with the player's limits: its `info` line (the time since the
    /// search began at `since`, which a `go infinite` spends in slices, and what the player
    /// reports: depth, nodes, playouts, score), and its move's text.
    fn search(&mut self, state: &G::State, since: Instant) -> Result<String> {
        let started = Instant::now();
        let mv = self.player.choose(self.game, state)?;
        let seconds = started.elapsed().as_secs_f64();
        let text = self.game.format_move(state, mv);
        let mut info = format!("info time {}", since.elapsed().as_millis());
        if let Some(s) = self.player.last_search() {
            if let Some(depth) = s.depth {
                info += &format!(" depth {depth}");
            }
            info += &format!(" nodes {}", s.nodes);
            if let Some(playouts) = s.playouts {
                info += &format!(" playouts {playouts}");
            }
            let per_second = s.playouts.unwrap_or(s.nodes) as f64 / seconds.max(1e-9);
            info += &format!(" nps {per_second:.0}");
            if let Some(score) = s.score {
                info += &format!(" score cp {score}");
            }
        }
        say(&format!("{info} pv {text}"));
        Ok(text)
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
        if self.game.outcome(&self.line.now) == Outcome::Ongoing {
            refuse_endless_search(self.game, self.common, &spec, None, &self.line.now)?;
        }
        self.player = build(self.game, &spec, self.common)?;
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
        say(&format!("response {answer}"));
        Ok(())
    }
}
