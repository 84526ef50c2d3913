//! `cubesearch play <2584|2048> --p1 td:weights=FILE --games N`: greedy play with a trained
//! n-tuple network (or `random`), and the seed's statistics: mean and max score, and the share
//! of games reaching each milestone tile.

use crate::args::Common;
use crate::output::emit;
use cubesearch_core::{Error, Result};
use cubesearch_games::fib::{Sliding, TileRule};
use cubesearch_learn::{play, play_random, NTupleNetwork, PlayStats};
use serde_json::json;
use std::path::Path;

pub fn run<R: TileRule>(common: &Common, p1: &str, p2: &str, games: u32) -> Result<()> {
    if p2 != "random" && p2 != "none" {
        return Err(Error::parse(format!(
            "{} is a one-player game: give only --p1 (got --p2 {p2})",
            R::NAME
        )));
    }
    let game = Sliding::<R>::new();
    let stats: PlayStats = match p1.split_once(':') {
        _ if p1 == "random" => play_random(&game, games as u64, common.seed, 0)?,
        Some(("td", options)) => {
            let path = options
                .split(',')
                .find_map(|kv| kv.strip_prefix("weights="))
                .ok_or_else(|| {
                    Error::parse(format!("bad player '{p1}': expected td:weights=FILE"))
                })?;
            let (net, _meta) = NTupleNetwork::load::<R>(Path::new(path), None)?;
            play(&game, &net, games as u64, common.seed, 0)?
        }
        _ => {
            return Err(Error::parse(format!(
            "unknown player '{p1}' for {}: random or td:weights=FILE (expectimax is not built yet)",
            R::NAME
        )))
        }
    };
    emit(
        common.json,
        || {
            let reach: Vec<String> = stats
                .reach
                .iter()
                .map(|r| format!("{}: {:.1}%", r.tile, 100.0 * r.share))
                .collect();
            format!(
                "{} games of {} by {p1}: mean score {:.0}, max {}, {:.0} moves a game, {:.1} s\nreached {}",
                stats.games,
                R::NAME,
                stats.mean_score,
                stats.max_score,
                stats.mean_moves,
                stats.seconds,
                reach.join(", ")
            )
        },
        json!({ "game": R::NAME, "player": p1, "stats": stats }),
    );
    Ok(())
}
