//! UGI for one-player games with chance (2584, 2048): the engine is the player, the host owns
//! the board and its random tiles.
//!
//! ```text
//! ugi                             → id name …, id author …, option …, ugiok
//! isready                         → readyok
//! uginewgame                      (a start drawn afresh; a network stays loaded)
//! position fen <16 tile values>   (the board after the last random tile, as --position takes it)
//! position startpos               (a start drawn from --seed)
//! go [any limits]                 → info time … score …, bestmove left|right|up|down
//!                                   (0000: no slide moves the board; after `go infinite`
//!                                   the bestmove waits for `stop`, as UCI's rule says)
//! setoption name player value <spec>   (random, td:weights=FILE, expectimax:layers=L,weights=FILE)
//! setoption name <key> value <v>  (one parameter of the spec: layers, weights, method, tt)
//! query gameover|p1turn|result    → response true|false, true, none|p1win|p2win
//! quit
//! ```
//!
//! `go` plays nothing: the host slides the board, adds its tile and sends the new board, so
//! `position … moves …` is refused (a slide alone does not say which tile came next). `query
//! result` is `p1win` once the board holds the tile the game is named after (2048, 2584),
//! `p2win` when the game ends without it. Bad input gets one `info string error: …` line and
//! the engine keeps its last good state.

use super::input::{HostLines, Searching};
use super::{human_refused, introduce, say, say_error, Go, DEPTH_ZERO};
use crate::args::Common;
use cubesearch_core::exec::ExpectimaxEval;
use cubesearch_core::rng::XorShift32;
use cubesearch_core::{Error, Result, Stop};
use cubesearch_games::registry::OnePlayerGame;
use cubesearch_learn::td::greedy;
use cubesearch_learn::NTupleNetwork;
use cubesearch_players::spec::StochasticPlayerSpec;
use cubesearch_players::text::with_option;
use cubesearch_search::expectimax::ExpectimaxOptions;
use cubesearch_search::expectimax_gpu::Expectimax;
use std::time::Instant;

/// The player: how a move is chosen.
enum Chooser {
    Random(XorShift32),
    /// Greedy on a network.
    Td(NTupleNetwork),
    /// The best action of an expectimax with the network at its leaves, on `--backend`.
    Expectimax {
        net: NTupleNetwork,
        searcher: Box<Expectimax>,
        layers: u32,
        transposition: bool,
    },
}

impl Chooser {
    /// The player `spec` names (a person is refused: the host is the other end).
    fn build<G: OnePlayerGame>(spec: &str, common: &Common) -> Result<Self> {
        Ok(match spec.parse::<StochasticPlayerSpec>()? {
            StochasticPlayerSpec::Human => return Err(human_refused()),
            StochasticPlayerSpec::Random => Chooser::Random(XorShift32::for_worker(common.seed, 0)),
            StochasticPlayerSpec::Td { weights } => {
                Chooser::Td(NTupleNetwork::load::<G>(&weights, None)?.0)
            }
            StochasticPlayerSpec::Expectimax(spec) => {
                // The searcher first: an option the backend would drop is refused before the
                // weights are read.
                let (searcher, _) = spec.searcher(common.backend)?;
                let net = NTupleNetwork::load::<G>(&spec.weights, None)?.0;
                Chooser::Expectimax {
                    net,
                    searcher: Box::new(searcher),
                    layers: spec.layers,
                    transposition: spec.transposition,
                }
            }
        })
    }

    /// The action to play in `state` and, where the player has one, its value (the reward to
    /// come as the network or the search sees it); `None` when no slide moves the board. A
    /// CPU expectimax cut short by `stop` answers with the network's greedy action.
    fn choose<G: OnePlayerGame>(
        &mut self,
        game: &G,
        state: &G::State,
        stop: &Stop,
    ) -> Result<Option<(G::Action, Option<f32>)>> {
        Ok(match self {
            Chooser::Random(rng) => {
                let mut legal = Vec::new();
                game.legal_actions(state, &mut legal);
                (!legal.is_empty()).then(|| (legal[rng.below(legal.len() as u32) as usize].0, None))
            }
            Chooser::Td(net) => greedy_choice(game, net, state),
            Chooser::Expectimax {
                net,
                searcher,
                layers,
                transposition,
            } => {
                searcher.set_options(ExpectimaxOptions {
                    transposition: *transposition,
                    stop: stop.clone(),
                    ..ExpectimaxOptions::default()
                });
                match searcher.evaluate(game, &*net, std::slice::from_ref(state), *layers) {
                    Ok(found) => found
                        .first()
                        .and_then(|r| r.best.map(|b| (G::ACTIONS[b as usize], Some(r.value)))),
                    Err(Error::Interrupted(_)) => greedy_choice(game, net, state),
                    Err(e) => return Err(e),
                }
            }
        })
    }
}

/// The network's greedy action in `state` and its value.
fn greedy_choice<G: OnePlayerGame>(
    game: &G,
    net: &NTupleNetwork,
    state: &G::State,
) -> Option<(G::Action, Option<f32>)> {
    greedy(game, net, *state)
        .map(|(a, after, reward)| (a, Some(reward as f32 + net.value(game, after))))
}

/// Serves UGI for a one-player game on `input` until `quit` or its end.
pub(super) fn serve<G: OnePlayerGame>(
    game: &G,
    common: &Common,
    spec: &str,
    lines: HostLines,
) -> Result<()> {
    let mut chooser = Chooser::build::<G>(spec, common)?;
    let mut spec = spec.to_string();
    let mut rng = XorShift32::for_worker(common.seed, 1);
    let mut board = game.initial(&mut rng);
    while let Some(host) = lines.next() {
        let line = match host.text {
            Ok(text) => text,
            Err(bad) => {
                say_error(&Error::parse(bad));
                continue;
            }
        };
        let words: Vec<&str> = line.split_whitespace().collect();
        let done = match words.as_slice() {
            [] => Ok(false),
            ["quit"] => Ok(true),
            ["ugi"] => {
                introduce(&spec);
                Ok(false)
            }
            ["isready"] => {
                say("readyok");
                Ok(false)
            }
            ["uginewgame"] | ["position", "startpos"] => {
                board = game.initial(&mut rng);
                Ok(false)
            }
            ["position", "fen", cells @ ..] if !cells.contains(&"moves") => game
                .parse_position(&cells.join(" "))
                .map(|b| {
                    board = b;
                    false
                }),
            ["position", ..] => Err(Error::parse(format!(
                "position: send the {} board after its random tile, position fen <16 tiles> (a slide alone does not say which tile came next)",
                G::NAME
            ))),
            ["go", limits @ ..] => match Go::parse(limits) {
                Err(e) => Err(e),
                Ok(go) => {
                let started = Instant::now();
                // A move's time (`movetime`, or a 30th of the clock) is the search's deadline:
                // a stopped expectimax answers with the network's greedy slide.
                let stop = match go.time(0) {
                    Some(time) if !go.infinite => host.stop.with_deadline(started + time),
                    _ => host.stop.clone(),
                };
                if go.nodes.is_some() || go.depth.is_some_and(|d| d > 0) {
                    say(&format!(
                        "info string go depth and nodes: {spec} searches as its spec says (expectimax: layers=L)"
                    ));
                }
                let first_legal = || {
                    let mut legal = Vec::new();
                    game.legal_actions(&board, &mut legal);
                    legal.first().map(|&(action, _, _)| (action, None))
                };
                let chosen = if go.depth == Some(0) {
                    say(DEPTH_ZERO);
                    first_legal()
                } else {
                    // A host always gets its bestmove, even from a player that failed.
                    chooser.choose(game, &board, &stop).unwrap_or_else(|e| {
                        say_error(&e);
                        say("info string the player failed: answered with the first legal move");
                        first_legal()
                    })
                };
                if go.infinite && !host.stop.is_raised() {
                    // UCI's rule: no bestmove before `stop` (`quit` ends the engine).
                    if lines.while_searching(None) == Searching::Quit {
                        break;
                    }
                }
                let ms = started.elapsed().as_millis();
                let best = match chosen {
                    Some((action, value)) => {
                        let text = game.format_action(action);
                        let score = value.map(|v| format!(" score {v:.0}")).unwrap_or_default();
                        say(&format!("info time {ms}{score} pv {text}"));
                        text
                    }
                    None => "0000".into(),
                };
                say(&format!("bestmove {best}"));
                Ok(false)
                }
            },
            ["stop"] => Ok(false),
            ["setoption", "name", name, "value", value @ ..] => {
                let wanted = match name.to_ascii_lowercase().as_str() {
                    "player" => value.join(" "),
                    key => with_option(&spec, key, &value.join(" ")),
                };
                Chooser::build::<G>(&wanted, common).map(|built| {
                    chooser = built;
                    spec = wanted;
                    false
                })
            }
            ["query", what] => {
                let over = game.is_over(&board);
                let answer = match *what {
                    "gameover" => Some(over.to_string()),
                    "p1turn" => Some("true".into()),
                    "result" if !over => Some("none".into()),
                    "result" => {
                        // 2048 and 2584 are named after the tile that wins them.
                        let goal: u32 = G::NAME.parse().unwrap_or(u32::MAX);
                        Some(if game.progress(&board) >= goal { "p1win" } else { "p2win" }.into())
                    }
                    _ => None,
                };
                answer
                    .map(|a| {
                        say(&format!("response {a}"));
                        false
                    })
                    .ok_or_else(|| Error::parse("query: expected gameover, p1turn or result"))
            }
            _ => Err(Error::parse(format!("unknown command '{}'", line.trim()))),
        };
        match done {
            Ok(true) => break,
            Ok(false) => {}
            Err(e) => say_error(&e),
        }
    }
    Ok(())
}
