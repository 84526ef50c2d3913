//! `cubesearch engine <game>`: one process that keeps its player (backend, compiled kernels,
//! MCTS tree) between moves and talks an engine protocol on stdin/stdout, so GUIs, tournament
//! managers and other engines can use it: UGI ([`ugi`], every two-player game; [`one_player`],
//! 2584 and 2048) or NBoard ([`nboard`], games whose record format is GGF: Othello).

mod input;
mod nboard;
mod one_player;
mod ugi;

use crate::args::Common;
use crate::one_line;
use cubesearch_core::{Error, Game, Result};
use cubesearch_games::registry::{GameVisitor, OnePlayerGame, TwoPlayerGame};
use cubesearch_players::player::Player;
use cubesearch_players::spec::{Limit, PlayerSpec, MAX_DEPTH};
use input::HostLines;
use std::io::Write;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Duration;

/// `engine`, for every game.
pub struct EngineCommand<'a> {
    pub common: &'a Common,
    /// The player's spec (default: two-player games `mcts:time=1s`; one-player games have none).
    pub player: Option<&'a str>,
    /// `ugi` or `nboard`.
    pub protocol: &'a str,
}

impl GameVisitor for EngineCommand<'_> {
    type Output = ();
    fn two_player<G: TwoPlayerGame>(self, game: G) -> Result<()> {
        let spec = self.player.unwrap_or("mcts:time=1s");
        keep_stdout();
        // The host is heard from the start: `quit` ends a player's setup that hangs (an outside
        // engine's handshake), and `isready` is answered meanwhile.
        match self.protocol {
            "nboard" => {
                let lines = HostLines::read(stdin(), nboard::NBOARD, true);
                let player = build(&game, spec, self.common)?;
                nboard::serve(&game, self.common, spec, player, lines)
            }
            _ => {
                let lines = HostLines::read(stdin(), ugi::UGI, true);
                let player = build(&game, spec, self.common)?;
                ugi::serve(&game, self.common, spec, player, lines)
            }
        }
    }
    fn one_player<G: OnePlayerGame>(self, game: G) -> Result<()> {
        if self.protocol != "ugi" {
            return Err(Error::Unsupported(format!(
                "--protocol {}: {} speaks UGI only",
                self.protocol,
                G::NAME
            )));
        }
        let spec = self.player.ok_or_else(|| {
            Error::parse(format!(
                "engine {}: give --player td:weights=FILE or expectimax:layers=L,weights=FILE (a network `train {}` wrote), or random",
                G::NAME,
                G::NAME
            ))
        })?;
        keep_stdout();
        one_player::serve(
            &game,
            self.common,
            spec,
            HostLines::read(stdin(), ugi::UGI, true),
        )
    }
}

/// The host's end: stdin, read on the engine's reading thread.
fn stdin() -> std::io::BufReader<std::io::Stdin> {
    std::io::BufReader::new(std::io::stdin())
}

/// The player a spec names (`human` is refused: the engine's opponent is at the other end),
/// prepared for `game`: its kernels are compiled before the host's first clock runs.
fn build<G: TwoPlayerGame>(game: &G, spec: &str, common: &Common) -> Result<Box<dyn Player<G>>> {
    let spec: PlayerSpec<G> = spec.parse()?;
    if matches!(spec, PlayerSpec::Human) {
        return Err(human_refused());
    }
    let mut player = spec.build(common.backend, common.seed)?;
    player.prepare(game)?;
    Ok(player)
}

/// The `go` limits, besides the time, that the player `spec` names cannot obey: `depth` for
/// all but alpha-beta, `nodes` (playouts) for all but MCTS. A random player (which searches
/// nothing) and an outside UGI engine (which is sent them) take both. A move's time every
/// player takes: one that may overrun it is stopped (the search's stop has its deadline).
fn unobeyed<G: TwoPlayerGame>(spec: &str, go: &Go) -> Vec<&'static str> {
    let (depth, nodes) = match spec.parse::<PlayerSpec<G>>() {
        Ok(PlayerSpec::Random | PlayerSpec::Ugi(_)) => (true, true),
        Ok(PlayerSpec::AlphaBeta(_)) => (true, false),
        Ok(PlayerSpec::Mcts(_)) => (false, true),
        _ => (false, false),
    };
    let mut refused = Vec::new();
    if go.depth.is_some() && !depth {
        refused.push("depth");
    }
    if go.nodes.is_some() && !nodes {
        refused.push("nodes");
    }
    refused
}

/// Refuses a search by `spec` (at `depth` when the host gives one) from `state` that would
/// take more than a day: the estimate `play` and `match` apply (`--force` skips it).
fn refuse_endless_search<G: TwoPlayerGame>(
    game: &G,
    common: &Common,
    spec: &str,
    depth: Option<u32>,
    state: &G::State,
) -> Result<()> {
    let mut spec: PlayerSpec<G> = spec.parse()?;
    if let (PlayerSpec::AlphaBeta(ab), Some(depth)) = (&mut spec, depth) {
        ab.limit = Limit::Depth(depth.clamp(1, MAX_DEPTH));
        ab.text = format!("{} at depth {depth}", ab.text);
    }
    super::play::refuse_endless_players(game, std::slice::from_ref(&spec), state, common)
}

/// The error a `human` engine player gets.
fn human_refused() -> Error {
    Error::parse("engine: the player is a program (human is the other side of the protocol)")
}

/// UGI's answer to `ugi`: who the engine is, its one option (the player's spec), `ugiok`.
fn introduce(spec: &str) {
    say(&format!("id name cubesearch {}", env!("CARGO_PKG_VERSION")));
    say("id author the cubesearch developers");
    say(&format!("option name player type string default {spec}"));
    say("ugiok");
}

/// UGI's line for bad input: `info string error: …`.
fn say_error(e: &Error) {
    say(&format!("info string error: {}", one_line(&e.to_string())));
}

/// The host's end of stdout, kept apart from descriptor 1 (Unix): a CheckerBoard library's
/// move points descriptor 1 at /dev/null (`cbapi.rs`), which must not swallow the answers the
/// reading thread gives meanwhile (`readyok`).
static HOST_OUT: OnceLock<Mutex<std::fs::File>> = OnceLock::new();

/// Takes a copy of stdout for [`say`], before any player runs.
fn keep_stdout() {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Ok(copy) = std::io::stdout().as_fd().try_clone_to_owned() {
            let _ = HOST_OUT.set(Mutex::new(std::fs::File::from(copy)));
        }
    }
}

/// Writes one line to the host at once (one write, so that the reading thread's lines and the
/// loop's never interleave). A host that closed our stdout has gone: nothing left to tell it.
fn say(line: &str) {
    let text = format!("{line}\n");
    match HOST_OUT.get() {
        Some(out) => {
            let mut out = out.lock().unwrap_or_else(PoisonError::into_inner);
            let _ = out.write_all(text.as_bytes());
        }
        None => {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
        }
    }
}

/// `go`'s arguments (UGI, both kinds of game), as given.
#[derive(Debug, Default)]
struct Go {
    movetime: Option<u64>,
    depth: Option<u64>,
    nodes: Option<u64>,
    /// Each side's time left (`wtime`/`p1time`, `btime`/`p2time`), in ms.
    clock: [Option<u64>; 2],
    /// Each side's increment, in ms.
    increment: [u64; 2],
    infinite: bool,
}

impl Go {
    fn parse(args: &[&str]) -> Result<Self> {
        let mut go = Go::default();
        let mut words = args.iter();
        while let Some(&word) = words.next() {
            if word == "infinite" {
                go.infinite = true;
                continue;
            }
            let value: u64 = words
                .next()
                .ok_or_else(|| Error::parse(format!("go: {word} needs a number")))?
                .parse()
                .map_err(|_| Error::parse(format!("go: {word} needs a whole number")))?;
            match word {
                "movetime" => go.movetime = Some(value),
                "depth" => go.depth = Some(value),
                "nodes" => go.nodes = Some(value),
                "wtime" | "p1time" => go.clock[0] = Some(value),
                "btime" | "p2time" => go.clock[1] = Some(value),
                "winc" | "p1inc" => go.increment[0] = value,
                "binc" | "p2inc" => go.increment[1] = value,
                "movestogo" => {}
                other => return Err(Error::parse(format!("go: unknown limit '{other}'"))),
            }
        }
        Ok(go)
    }

    /// The time for a move by side `side` (0: the first player): `movetime`, else a 30th of
    /// its clock plus half its increment.
    fn time(&self, side: usize) -> Option<Duration> {
        let ms = match (self.movetime, self.clock[side]) {
            (Some(ms), _) => ms,
            (None, Some(left)) => (left / 30 + self.increment[side] / 2).min(left),
            (None, None) => return None,
        };
        Some(Duration::from_millis(ms.max(1)))
    }
}

/// The `info string` a search gets for `go depth 0`: nothing is searched.
const DEPTH_ZERO: &str =
    "info string go depth 0 searches nothing: answered with the first legal move";

/// A game as the host set it: where it started, the moves since, and where they led.
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

    /// The line from `start` through `moves` (each legal, checked by the caller), replacing
    /// this one. When it extends this one the player is told the new moves one by one, so an
    /// MCTS keeps its tree.
    fn follow(
        &mut self,
        game: &G,
        player: &mut dyn Player<G>,
        start: G::State,
        first_to_move: bool,
        moves: Vec<G::Move>,
    ) {
        if start == self.start && moves.starts_with(&self.moves) {
            let mut state = self.now;
            for &mv in &moves[self.moves.len()..] {
                player.observe(game, &state, mv);
                state = game.apply(&state, mv);
            }
        }
        let now = moves.iter().fold(start, |s, &m| game.apply(&s, m));
        *self = Line {
            start,
            first_to_move,
            moves,
            now,
        };
    }
}
