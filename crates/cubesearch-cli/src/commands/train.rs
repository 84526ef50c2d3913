//! `cubesearch train <game>` for one-player stochastic games (2584, 2048): builds one
//! [`TrainConfig`] from the flags and hands it to [`cubesearch_train::train`], which trains on
//! the CPU, one GPU, several CUDA GPUs or, under a launcher (`cubesearch launch`, `torchrun`:
//! `WORLD_SIZE` and the rest set), as one rank a CUDA GPU, rank 0 leading and the others
//! following it silently. Two-player games with a learner (Reversi) train by self-play
//! ([`super::train_two_player`]).

use super::train_two_player;
use crate::args::{Common, TrainArgs};
use crate::output::{emit, progress};
use crate::plot::{write_curve, ImageFormat};
use crate::signals::{self, stop_on_signals};
use cubesearch_core::io::{check_output, refuse_collisions, same_file, write_atomically};
use cubesearch_core::Game;
use cubesearch_core::{Error, Result};
use cubesearch_games::registry::{self, GameVisitor, OnePlayerGame, TwoPlayerGame};
use cubesearch_learn::shapes_for;
use cubesearch_players::text::parse_duration;
use cubesearch_train::rendezvous::Ranks;
use cubesearch_train::{curve_csv, EngineConfig, TrainConfig};
use serde_json::json;
use std::path::{Path, PathBuf};

/// `train`: one-player stochastic games, and two-player games that learn by self-play.
pub struct Train<'a> {
    pub common: &'a Common,
    pub args: &'a TrainArgs,
}

impl GameVisitor for Train<'_> {
    type Output = ();
    fn two_player<G: TwoPlayerGame>(self, game: G) -> Result<()> {
        match G::LEARNER {
            Some(learner) => train_two_player::run(&game, learner, self.common, self.args),
            None => Err(Error::parse(format!(
                "train takes {}, not {}",
                registry::trained_names().join(", "),
                <G as Game>::NAME
            ))),
        }
    }
    fn one_player<G: OnePlayerGame>(self, game: G) -> Result<()> {
        run(&game, self.common, self.args)
    }
}

/// The run the flags describe.
fn config<G: OnePlayerGame>(
    common: &Common,
    args: &TrainArgs,
    ranks: Option<Ranks>,
) -> Result<TrainConfig> {
    Ok(TrainConfig {
        games: args.games.unwrap_or(u64::MAX),
        engine: EngineConfig {
            backend: common.backend,
            threads: args.threads,
            sharing: args.sharing,
            units: args.units,
            gpus: args.gpus,
            ranks,
        },
        order: args.td_order,
        alpha: args.alpha.unwrap_or(cubesearch_train::selfplay::ALPHA),
        seed: common.seed,
        shapes: args.shapes.as_deref().map(shapes_for::<G>).transpose()?,
        stages: args.stages.clone().map(|s| s.0),
        checkpoint_every: args.checkpoint_every,
        out: Some(PathBuf::from(&args.out)),
        resume: args.resume.as_ref().map(PathBuf::from),
        time_limit: args.time.as_deref().map(parse_duration).transpose()?,
        stop: stop_on_signals(),
        optimistic: args.optimistic,
        coherence: args.coherence,
        ..TrainConfig::default()
    })
}

/// Refuses `--units` past `--games`: the units beyond the games would play none, and a GPU
/// self-play trainer would learn at the step of a run of that many units.
pub(super) fn refuse_idle_units(args: &TrainArgs) -> Result<()> {
    match (args.units, args.games) {
        (Some(units), Some(games)) if u64::from(units) > games => Err(Error::parse(format!(
            "--units {units} plays {units} games at once, more than --games {games}: give --units {games} or fewer"
        ))),
        _ => Ok(()),
    }
}

fn run<G: OnePlayerGame>(game: &G, common: &Common, args: &TrainArgs) -> Result<()> {
    refuse_idle_units(args)?;
    let ranks = Ranks::from_env()?;
    let follower = ranks.as_ref().is_some_and(|r| r.rank > 0);
    let cfg = config::<G>(common, args, ranks)?;
    if follower {
        // A follower ends when rank 0 says so: a signal to the whole group (Ctrl-C under a
        // launcher) lets rank 0 save and release the others, and only a second one ends it.
        return cubesearch_train::follow::<G>(&cfg);
    }
    // Outputs first: a run that cannot save its work does not start.
    let out = Path::new(&args.out);
    let outputs: Vec<(&str, &Path)> = [
        ("--out", Some(&args.out)),
        ("--curve", args.curve.as_ref()),
        ("--plot", args.plot.as_ref()),
    ]
    .into_iter()
    .filter_map(|(flag, path)| Some((flag, Path::new(path?))))
    .collect();
    // `--resume w --out w` goes on in place: the weights are read before they are replaced.
    let inputs: Vec<(&str, &Path)> = args
        .resume
        .iter()
        .map(|p| ("--resume", Path::new(p)))
        .filter(|(_, p)| !same_file(p, out))
        .collect();
    refuse_collisions(&inputs, &outputs)?;
    if let Some(plot) = &args.plot {
        ImageFormat::of_path(Path::new(plot))?;
    }
    for (_, path) in &outputs {
        check_output(path)?;
    }
    // A time-limited run's bar counts seconds, any other games.
    let bar = match cfg.time_limit {
        Some(limit) => progress(
            common.json,
            limit.as_secs().max(1),
            &format!("train {}", G::NAME),
        ),
        None => progress(common.json, cfg.games, &format!("train {}", G::NAME)),
    };
    let (_, report) = cubesearch_train::train(game, &cfg, |p| {
        bar.set_position(match cfg.time_limit {
            Some(_) => p.seconds as u64,
            None => p.games,
        });
        bar.set_message(format!(
            "train {} mean {:.0} {:.0} moves/s",
            G::NAME,
            p.recent_mean_score,
            p.moves_per_sec
        ));
    })?;
    bar.finish_and_clear();
    if let Some(path) = &args.curve {
        write_atomically(Path::new(path), curve_csv(&report.curve).as_bytes())?;
    }
    if let Some(path) = &args.plot {
        write_curve(&report.curve, Path::new(path))?;
    }
    if cfg.stop.reason().is_some() {
        return Err(Error::Interrupted(format!(
            "interrupted by {}: the weights after {} games ({} in all) are saved in {}; \
             --resume {} goes on from them",
            signals::name(&cfg.stop),
            report.games,
            report.total_games,
            args.out,
            args.out
        )));
    }
    let placement = report
        .placement
        .clone()
        .expect("train reports where it ran");
    emit(
        common.json,
        || {
            format!(
                "{} games ({} in all) in {:.1} s: mean score {:.0} (last 1000: {:.0}), best {}, {:.0} moves/s on {} ({} games at once); weights in {}",
                report.games,
                report.total_games,
                report.seconds,
                report.mean_score,
                report.recent_mean_score,
                report.max_score,
                report.moves_per_sec,
                placement.text,
                report.threads,
                args.out
            )
        },
        json!({
            "game": G::NAME,
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
            "backend": placement.backend,
            "device": placement.device,
            "gpus": placement.gpus,
            "ranks": placement.ranks,
            "td_order": placement.order.name(),
            "out": args.out,
        }),
    );
    Ok(())
}
