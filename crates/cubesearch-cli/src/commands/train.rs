//! `cubesearch train <2584|2048>`: TD(0) self-play on the CPU, saving an n-tuple network.

use crate::args::{Common, TrainArgs};
use crate::output::{emit, progress};
use cubesearch_core::{Error, Result};
use cubesearch_games::fib::{Sliding, TileRule};
use cubesearch_learn::{curve_csv, parse_shapes, train, TrainConfig};
use serde_json::json;
use std::path::PathBuf;

pub fn run<R: TileRule>(common: &Common, args: &TrainArgs) -> Result<()> {
    let game = Sliding::<R>::new();
    let cfg = TrainConfig {
        games: args.games,
        threads: args.threads,
        alpha: args.alpha,
        seed: common.seed,
        shapes: args.shapes.as_deref().map(parse_shapes).transpose()?,
        checkpoint_every: args.checkpoint_every,
        out: Some(PathBuf::from(&args.out)),
        resume: args.resume.as_ref().map(PathBuf::from),
        ..TrainConfig::default()
    };
    let bar = progress(common.json, args.games, &format!("train {}", R::NAME));
    let (_, report) = train(&game, &cfg, |p| {
        bar.set_position(p.games);
        bar.set_message(format!(
            "train {} mean {:.0} {:.0} moves/s",
            R::NAME,
            p.recent_mean_score,
            p.moves_per_sec
        ));
    })?;
    bar.finish_and_clear();
    if let Some(path) = &args.curve {
        cubesearch_learn::file::write_atomically(
            std::path::Path::new(path),
            curve_csv(&report.curve).as_bytes(),
        )
        .map_err(|e| match e {
            Error::Io { source, .. } => Error::Io {
                path: path.clone(),
                source,
            },
            other => other,
        })?;
    }
    emit(
        common.json,
        || {
            format!(
                "{} games ({} in all) in {:.1} s: mean score {:.0} (last 1000: {:.0}), best {}, {:.0} moves/s on {} thread(s); weights in {}",
                report.games,
                report.total_games,
                report.seconds,
                report.mean_score,
                report.recent_mean_score,
                report.max_score,
                report.moves_per_sec,
                report.threads,
                args.out
            )
        },
        json!({
            "game": R::NAME,
            "games": report.games,
            "total_games": report.total_games,
            "mean_score": report.mean_score,
            "recent_mean_score": report.recent_mean_score,
            "max_score": report.max_score,
            "moves": report.moves,
            "seconds": report.seconds,
            "games_per_sec": report.games_per_sec,
            "moves_per_sec": report.moves_per_sec,
            "threads": report.threads,
            "out": args.out,
        }),
    );
    Ok(())
}
