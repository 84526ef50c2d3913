//! `cubesearch play <2584|2048> --p1 SPEC --games N [--batch B]`: games by one player, and the
//! seed's statistics: mean and max score, and the share of games reaching each milestone tile.
//! Players: `random`; `td:weights=FILE` (greedy on a trained n-tuple network);
//! `expectimax:layers=L,weights=FILE[,method=naive|multilevel][,tt=on]` (the best action of an
//! L-layer expectimax with the network at the leaves, on the backend `--backend` resolves to;
//! `method` picks the GPU generation scheme, `tt` the CPU's transposition table).

use crate::args::Common;
use crate::output::{announce, emit, progress};
use cubesearch_core::{Error, Result};
use cubesearch_games::fib::Sliding;
use cubesearch_kernels::fib::GpuTiles;
use cubesearch_learn::td::Episode;
use cubesearch_learn::{play, play_random, stats, NTupleNetwork, PlayStats};
use cubesearch_search::expectimax::play_games;
use cubesearch_search::expectimax_gpu::ExpectimaxMethod;
use cubesearch_search::Executor;
use serde_json::json;
use std::path::Path;
use std::time::Instant;

/// Deepest search a player may ask for: 4 layers already take seconds a move on a GPU.
pub const MAX_LAYERS: u32 = 4;

/// A parsed `expectimax:` spec.
#[derive(Clone, Debug)]
pub struct ExpectimaxSpec {
    pub layers: u32,
    pub weights: String,
    pub method: ExpectimaxMethod,
    pub transposition: bool,
}

impl ExpectimaxSpec {
    /// Reads the options after `expectimax:`.
    pub fn parse(spec: &str, options: &str) -> Result<Self> {
        let bad = |why: String| Error::parse(format!("bad player '{spec}': {why}"));
        let (mut layers, mut weights) = (None, None);
        let mut method = ExpectimaxMethod::default();
        let mut transposition = false;
        for kv in options.split(',').filter(|kv| !kv.is_empty()) {
            let (key, value) = kv
                .split_once('=')
                .ok_or_else(|| bad(format!("expected key=value, got '{kv}'")))?;
            match key {
                "layers" => {
                    let l: u32 = value
                        .parse()
                        .map_err(|_| bad(format!("layers must be a number, got '{value}'")))?;
                    if l > MAX_LAYERS {
                        return Err(bad(format!("layers go from 0 to {MAX_LAYERS}, got {l}")));
                    }
                    layers = Some(l);
                }
                "weights" => weights = Some(value.to_string()),
                "method" => method = value.parse()?,
                "tt" => {
                    transposition = match value {
                        "on" | "1" | "true" => true,
                        "off" | "0" | "false" => false,
                        _ => return Err(bad(format!("tt is on or off, got '{value}'"))),
                    }
                }
                _ => {
                    return Err(bad(format!(
                        "unknown option '{key}' (layers, weights, method, tt)"
                    )))
                }
            }
        }
        Ok(Self {
            layers: layers.ok_or_else(|| bad("layers=L is required".into()))?,
            weights: weights.ok_or_else(|| bad("weights=FILE is required".into()))?,
            method,
            transposition,
        })
    }
}

pub fn run<R: GpuTiles>(common: &Common, p1: &str, p2: &str, games: u32, batch: u32) -> Result<()> {
    if p2 != "random" && p2 != "none" {
        return Err(Error::parse(format!(
            "{} is a one-player game: give only --p1 (got --p2 {p2})",
            R::NAME
        )));
    }
    if batch == 0 {
        return Err(Error::parse("--batch must be at least 1"));
    }
    let game = Sliding::<R>::new();
    let mut device = String::from("cpu");
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
        Some(("expectimax", options)) => {
            let spec = ExpectimaxSpec::parse(p1, options)?;
            let (net, _meta) = NTupleNetwork::load::<R>(Path::new(&spec.weights), None)?;
            let (mut exec, resolved) = Executor::new(common.backend)?;
            exec.set_expectimax_method(spec.method);
            exec.set_expectimax_transposition(spec.transposition);
            announce(common.json, &resolved);
            device = resolved.to_string();
            let start = Instant::now();
            let bar = progress(common.json, games as u64, "games");
            let records = play_games(
                &game,
                &mut exec,
                &net,
                spec.layers,
                games as u64,
                batch as usize,
                common.seed,
                false,
                |_, _| bar.inc(1),
            )?;
            bar.finish_and_clear();
            let episodes: Vec<Episode> = records
                .iter()
                .map(|r| Episode {
                    score: r.score,
                    moves: r.moves,
                    max_index: r.last.max_index(R::BITS),
                })
                .collect();
            stats::<R>(&episodes, start.elapsed().as_secs_f64())
        }
        _ => {
            return Err(Error::parse(format!(
                "unknown player '{p1}' for {}: random, td:weights=FILE or expectimax:layers=L,weights=FILE",
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
        json!({ "game": R::NAME, "player": p1, "device": device, "stats": stats }),
    );
    Ok(())
}
