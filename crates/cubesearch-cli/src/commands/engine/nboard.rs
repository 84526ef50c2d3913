//! The NBoard protocol (the NBoard Othello GUI, and engines such as Edax and NTest that speak
//! it), for games whose record format is GGF, with moves as GGF writes them (`F5`, `PA`):
//!
//! ```text
//! nboard 1|2              → set myname cubesearch
//! set depth N             (alpha-beta's depth; an MCTS keeps its own budget)
//! set game <GGF>          (the game so far: its start and moves)
//! set contempt N          (accepted; no effect)
//! move F5[/eval/time]     (a move played; NBoard 1.1's bare `F5` too)
//! go                      → status …, nodestats …, === F5/<eval>/<seconds>, status
//! hint N                  → status …, search F5 <eval> 0 <depth> <text>, status
//! ping N                  → pong N
//! learn                   → learned (nothing is learned)
//! quit
//! ```
//!
//! `eval` is for the side to move. NBoard reads discs; a player's score is on the engines'
//! usual scale, centipawns, so it is given over 100 (an MCTS's win rate as an Elo
//! difference, an alpha-beta's evaluation); a player that reports none leaves it out. `go`
//! does not play its move: NBoard sends it back with `move`. An illegal move, a bad game, an unknown
//! command or a line that is not UTF-8 is answered by `status error: …` and changes nothing,
//! and so is a depth whose search would take more than a day (the estimate `play` applies).
//! Commands are read on their own thread: `quit` or the end of input stops a search at once.

use super::input::{HostLines, Protocol};
use super::{refuse_endless_search, say, Line};
use crate::args::Common;
use crate::one_line;
use cubesearch_core::{Error, Outcome, Result, Stop};
use cubesearch_games::registry::TwoPlayerGame;
use cubesearch_players::player::{MoveLimits, Player};
use std::time::Instant;

/// `go` and `hint` start a search; `quit` ends it (NBoard has no `stop`).
pub(super) const NBOARD: Protocol = Protocol {
    starts: &["go", "hint"],
    ends: &["quit"],
    // `pong N` says every command before `ping N` is done: the loop answers it in turn.
    ready: None,
};

/// What a search needs besides the player: the game, where it runs and its spec, the line,
/// the depth NBoard set and the stop of this search.
struct Search<'a, G: TwoPlayerGame> {
    game: &'a G,
    common: &'a Common,
    spec: &'a str,
    line: &'a Line<G>,
    depth: Option<u32>,
    stop: &'a Stop,
}

/// Serves NBoard on the host's `lines` until `quit` or their end; games without GGF records
/// are refused.
pub(super) fn serve<G: TwoPlayerGame>(
    game: &G,
    common: &Common,
    spec: &str,
    mut player: Box<dyn Player<G>>,
    lines: HostLines,
) -> Result<()> {
    if G::RECORD_FORMAT != Some("GGF") {
        return Err(Error::Unsupported(format!(
            "--protocol nboard: NBoard speaks GGF, which {} is not written in (use ugi)",
            G::NAME
        )));
    }
    let mut line = Line::at_start(game);
    let mut depth = None;
    while let Some(host) = lines.next() {
        let text = match host.text {
            Ok(text) => text,
            Err(bad) => {
                say(&format!("status error: {}", one_line(&bad)));
                continue;
            }
        };
        let search_here = Search {
            game,
            common,
            spec,
            line: &line,
            depth,
            stop: &host.stop,
        };
        let words: Vec<&str> = text.split_whitespace().collect();
        let done = match words.as_slice() {
            [] => Ok(false),
            ["quit"] => Ok(true),
            ["nboard", "1" | "2"] => {
                say("set myname cubesearch");
                Ok(false)
            }
            ["nboard", other] => Err(Error::parse(format!(
                "nboard {other}: protocol versions 1 and 2 are spoken"
            ))),
            ["set", "depth", n] => match n.parse::<u32>() {
                Ok(n @ 1..=60) => {
                    depth = Some(n);
                    Ok(false)
                }
                _ => Err(Error::parse(format!("set depth {n}: a depth is 1 to 60"))),
            },
            ["set", "contempt", _] => Ok(false),
            ["set", "game", ..] => {
                let ggf = text.trim_start()["set".len()..].trim_start()["game".len()..].trim();
                game.read_record(ggf).map(|(start, moves)| {
                    let first = game.first_mover_to_move(&start).unwrap_or(true);
                    line.follow(game, player.as_mut(), start, first, moves);
                    false
                })
            }
            ["move", mv] => play(game, player.as_mut(), &mut line, mv).map(|_| false),
            // NBoard 1.1 sends a bare move.
            [mv] if mv.len() == 2 && !matches!(*mv, "go") => {
                play(game, player.as_mut(), &mut line, mv).map(|_| false)
            }
            ["go"] => search(search_here, player.as_mut()).map(|answer| {
                let (mv, eval, seconds) = answer;
                say(&format!("=== {mv}/{eval}/{seconds:.2}"));
                say("status");
                false
            }),
            ["hint", n] if n.parse::<u32>().is_ok() => {
                search(search_here, player.as_mut()).map(|(mv, eval, _)| {
                    let searched = player.last_search().and_then(|s| s.depth).unwrap_or(0);
                    let eval = if eval.is_empty() { "0".into() } else { eval };
                    say(&format!(
                        "search {mv} {eval} 0 {searched} {}",
                        player.name()
                    ));
                    say("status");
                    false
                })
            }
            ["ping", n] => {
                say(&format!("pong {n}"));
                Ok(false)
            }
            ["learn"] => {
                say("learned");
                Ok(false)
            }
            _ => Err(Error::parse(format!("unknown command '{}'", text.trim()))),
        };
        match done {
            Ok(true) => break,
            Ok(false) => {}
            Err(e) => say(&format!("status error: {}", one_line(&e.to_string()))),
        }
    }
    Ok(())
}

/// `move F5[/eval/time]`: the move played on the current line.
fn play<G: TwoPlayerGame>(
    game: &G,
    player: &mut dyn Player<G>,
    line: &mut Line<G>,
    text: &str,
) -> Result<()> {
    if game.outcome(&line.now) != Outcome::Ongoing {
        return Err(Error::parse(format!("move {text}: the game is over")));
    }
    let mv = game.parse_move(&line.now, text.split('/').next().unwrap_or_default())?;
    let mut moves = line.moves.clone();
    moves.push(mv);
    line.follow(game, player, line.start, line.first_to_move, moves);
    Ok(())
}

/// The player's move in the current position, as GGF writes it, its eval (empty when the
/// player reports none) and the seconds it took.
fn search<G: TwoPlayerGame>(
    search: Search<G>,
    player: &mut dyn Player<G>,
) -> Result<(String, String, f64)> {
    let Search {
        game,
        common,
        spec,
        line,
        depth,
        stop,
    } = search;
    let state = line.now;
    if game.outcome(&state) != Outcome::Ongoing {
        return Err(Error::parse("the game is over: no move to search"));
    }
    refuse_endless_search(game, common, spec, depth, &state)?;
    say("status cubesearch is thinking");
    player.set_limits(&MoveLimits {
        depth,
        stop: Some(stop.clone()),
        ..MoveLimits::default()
    });
    let started = Instant::now();
    let mv = player.choose(game, &state)?;
    let seconds = started.elapsed().as_secs_f64();
    let mut eval = String::new();
    if let Some(s) = player.last_search() {
        say(&format!(
            "nodestats {} {seconds:.2}",
            s.playouts.unwrap_or(s.nodes)
        ));
        if let Some(score) = s.score {
            eval = format!("{:.2}", f64::from(score) / 100.0);
        }
    }
    Ok((game.record_move(&state, mv), eval, seconds))
}
