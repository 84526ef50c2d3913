//! `cubesearch play <game> --p1 SPEC --games N [--batch B]` for one-player stochastic games
//! (2584, 2048): games by one player, and the seed's statistics: mean and max score, and the
//! share of games reaching each milestone (2584 and 2048: a tile).
//! Players: `human` (a person at the terminal, from `--position` or a drawn start); `random`;
//! `td:weights=FILE` (greedy on a trained n-tuple network);
//! `expectimax:layers=L,weights=FILE[,method=naive|multilevel][,tt=on]` (the best action of an
//! L-layer expectimax with the network at the leaves, on the backend `--backend` resolves to;
//! `method` picks the GPU generation scheme, `tt` the CPU's transposition table, each refused
//! where the other runs). The spec is read once into a [`StochasticPlayerSpec`].

use crate::args::Common;
use crate::one_line;
use crate::output::{announce, ask, emit, progress};
use cubesearch_core::rng::XorShift32;
use cubesearch_core::{Error, Result};
use cubesearch_games::registry::OnePlayerGame;
use cubesearch_learn::td::Episode;
use cubesearch_learn::{play, play_random, stats, NTupleNetwork, PlayStats};
use cubesearch_players::spec::StochasticPlayerSpec;
use cubesearch_search::expectimax::{play_games, PlayOptions};
use serde_json::json;
use std::time::Instant;

pub fn run<G: OnePlayerGame>(
    game: &G,
    common: &Common,
    p1: &str,
    p2: &str,
    games: u32,
    batch: u32,
    position: Option<&str>,
) -> Result<()> {
    if p2 != "random" && p2 != "none" {
        return Err(Error::parse(format!(
            "{} is a one-player game: give only --p1 (got --p2 {p2})",
            G::NAME
        )));
    }
    if batch == 0 {
        return Err(Error::parse("--batch must be at least 1"));
    }
    let spec = p1.parse::<StochasticPlayerSpec>()?;
    let start = position
        .filter(|&text| text != "start")
        .map(|text| game.parse_position(text))
        .transpose()?;
    if start.is_some() && spec != StochasticPlayerSpec::Human {
        return Err(Error::parse(format!(
            "--position: {} games by a program start from random tiles drawn from --seed; only human play takes a given start",
            G::NAME
        )));
    }
    let mut device = String::from("cpu");
    let stats: PlayStats = match spec {
        StochasticPlayerSpec::Human => play_by_hand(game, common.seed, start, games)?,
        StochasticPlayerSpec::Random => play_random(game, games as u64, common.seed, 0)?,
        StochasticPlayerSpec::Td { weights } => {
            let (net, _meta) = NTupleNetwork::load::<G>(&weights, None)?;
            play(game, &net, games as u64, common.seed, 0)?
        }
        StochasticPlayerSpec::Expectimax(spec) => {
            let (mut searcher, resolved) = spec.searcher(common.backend)?;
            let (net, _meta) = NTupleNetwork::load::<G>(&spec.weights, None)?;
            announce(common.json, &resolved);
            device = resolved.to_string();
            let start = Instant::now();
            let bar = progress(common.json, games as u64, "games");
            let options = PlayOptions {
                layers: spec.layers,
                games: games as u64,
                batch: batch as usize,
                seed: common.seed,
                keep_history: false,
            };
            let records = play_games(&mut searcher, game, &net, options, |_, _| bar.inc(1))?;
            bar.finish_and_clear();
            let episodes: Vec<Episode> = records
                .iter()
                .map(|r| Episode {
                    score: r.score,
                    moves: r.moves,
                    progress: game.progress(&r.last),
                })
                .collect();
            stats::<G>(&episodes, start.elapsed().as_secs_f64())
        }
    };
    emit(
        common.json,
        || {
            let reach: Vec<String> = stats
                .reach
                .iter()
                .map(|r| format!("{}: {:.1}%", r.milestone, 100.0 * r.share))
                .collect();
            format!(
                "{} games of {} by {p1}: mean score {:.0}, max {}, {:.0} moves a game, {:.1} s\nreached {}",
                stats.games,
                G::NAME,
                stats.mean_score,
                stats.max_score,
                stats.mean_moves,
                stats.seconds,
                reach.join(", ")
            )
        },
        json!({ "game": G::NAME, "player": p1, "device": device, "stats": stats_json(&stats) }),
    );
    Ok(())
}

/// Games by a person at the terminal: the board drawn, the legal slides listed, and a prompt
/// until one of them is typed. Game `g` draws its start (without `start`) and its spawns from
/// `XorShift32::for_worker(seed, g)`, as a program's games do.
fn play_by_hand<G: OnePlayerGame>(
    game: &G,
    seed: u32,
    start: Option<G::State>,
    games: u32,
) -> Result<PlayStats> {
    let began = Instant::now();
    let mut episodes = Vec::new();
    let mut legal = Vec::new();
    for g in 0..games {
        let mut rng = XorShift32::for_worker(seed, g);
        let mut state = start.unwrap_or_else(|| game.initial(&mut rng));
        let (mut score, mut moves) = (0u64, 0u32);
        loop {
            legal.clear();
            game.legal_actions(&state, &mut legal);
            crate::say!(
                "\n{}\nscore {score} after {moves} moves",
                game.display(&state)
            );
            if legal.is_empty() {
                crate::say!("game over: no slide changes the board");
                break;
            }
            let names: Vec<String> = legal.iter().map(|l| game.format_action(l.0)).collect();
            let names = names.join(" ");
            let line = ask(&format!(
                "your move ({names}; or l/r/u/d, an arrow key, then Enter)> "
            ))?;
            match game.parse_action(&line) {
                Err(e) => crate::say!("{}; try again", one_line(&e.to_string())),
                Ok(action) => match legal.iter().find(|l| l.0 == action) {
                    None => crate::say!(
                        "{} changes nothing; legal: {names}",
                        game.format_action(action)
                    ),
                    Some(&(_, after, reward)) => {
                        score += reward as u64;
                        moves += 1;
                        state = game.sample_chance(&after, &mut rng);
                    }
                },
            }
        }
        episodes.push(Episode {
            score,
            moves,
            progress: game.progress(&state),
        });
    }
    Ok(stats::<G>(&episodes, began.elapsed().as_secs_f64()))
}

/// The statistics as the command's JSON gives them: each milestone reached is `tile`.
fn stats_json(stats: &PlayStats) -> serde_json::Value {
    let mut value = json!(stats);
    value["reach"] = stats
        .reach
        .iter()
        .map(|r| json!({ "tile": r.milestone, "share": r.share }))
        .collect();
    value
}
