//! `cubesearch train <game>`: one [`TrainConfig`] built from the flags, handed to the one
//! training loop ([`cubesearch_train::train`]) with the game's way of learning: TD for
//! one-player stochastic games (2584, 2048), on the CPU, one GPU, several CUDA GPUs or, under a
//! launcher (`cubesearch launch`, `torchrun`: `WORLD_SIZE` and the rest set), as one rank a
//! CUDA GPU, rank 0 leading and the others following it silently; self-play for two-player
//! games with a learner (Reversi, checkers), on CPU threads or one GPU.

use crate::args::{Common, TrainArgs};
use crate::output::{emit, progress};
use crate::plot::{write_curve, ImageFormat};
use crate::signals::{self, stop_on_signals};
use cubesearch_core::io::{check_output, refuse_collisions, same_file, write_atomically};
use cubesearch_core::Game;
use cubesearch_core::{Error, Result};
use cubesearch_games::registry::{self, GameVisitor, OnePlayerGame, TwoPlayerGame};
use cubesearch_learn::{shapes_for, Dataset, NTupleNetwork};
use cubesearch_players::text::parse_duration;
use cubesearch_train::rendezvous::Ranks;
use cubesearch_train::{curve_csv, EngineConfig, Td, TrainConfig, TrainProgress, TrainReport};
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
        let Some(learner) = G::LEARNER else {
            return Err(Error::parse(format!(
                "train takes {}, not {}",
                registry::trained_names().join(", "),
                <G as Game>::NAME
            )));
        };
        refuse_one_player_options::<G>(self.args)?;
        let ranks = Ranks::from_env()?;
        let cfg = config(
            self.common,
            self.args,
            ranks,
            learner.shapes,
            stop_on_signals(),
        )?;
        let name = <G as Game>::NAME;
        match &self.args.fit {
            // The dataset is read once the outputs are checked.
            Some(path) => run(
                (name, Learning::Fit),
                self.common,
                self.args,
                &cfg,
                |cfg, progress| {
                    let data = Dataset::load(&game, Path::new(path))?;
                    (learner.fit)(&game, &data, cfg, progress)
                },
            ),
            None => run(
                (name, Learning::SelfPlay),
                self.common,
                self.args,
                &cfg,
                |cfg, progress| (learner.train)(&game, cfg, progress),
            ),
        }
    }
    fn one_player<G: OnePlayerGame>(self, game: G) -> Result<()> {
        let ranks = Ranks::from_env()?;
        let follower = ranks.as_ref().is_some_and(|r| r.rank > 0);
        if follower {
            // A follower ends when rank 0 says so: a signal to the whole group (Ctrl-C under a
            // launcher) lets rank 0 save and release the others, and only a second one ends it.
            let cfg = config(
                self.common,
                self.args,
                ranks,
                shapes_for::<G>,
                signals::follower(),
            )?;
            return cubesearch_train::follow::<G>(&cfg);
        }
        let cfg = config(
            self.common,
            self.args,
            ranks,
            shapes_for::<G>,
            stop_on_signals(),
        )?;
        if self.args.fit.is_some() {
            return Err(Error::parse(format!(
                "train {}: --fit is for two-player games; a one-player game learns by TD",
                G::NAME
            )));
        }
        run(
            (G::NAME, Learning::Td),
            self.common,
            self.args,
            &cfg,
            |cfg, progress| cubesearch_train::train(Td(&game), cfg, progress),
        )
    }
}

/// The run the flags describe; `shapes` reads `--shapes` for the game, `stop` ends it early.
fn config(
    common: &Common,
    args: &TrainArgs,
    ranks: Option<Ranks>,
    shapes: fn(&str) -> Result<Vec<Vec<u8>>>,
    stop: cubesearch_core::Stop,
) -> Result<TrainConfig> {
    refuse_idle_units(args)?;
    let cfg = TrainConfig {
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
        alpha: args.alpha,
        seed: common.seed,
        shapes: args.shapes.as_deref().map(shapes).transpose()?,
        stages: args.stages.clone().map(|s| s.0),
        checkpoint_every: args.checkpoint_every,
        out: Some(PathBuf::from(&args.out)),
        resume: args.resume.as_ref().map(PathBuf::from),
        time_limit: args.time.as_deref().map(parse_duration).transpose()?,
        stop,
        optimistic: args.optimistic,
        coherence: args.coherence,
        ..TrainConfig::default()
    };
    // Checked as it is built, before any file is opened (`train` checks again for callers
    // that build one by hand).
    cfg.check()?;
    Ok(cfg)
}

/// Refuses, one line each, the flags of the one-player trainers that self-play has no use for
/// (it learns after every move, on one table, and its games have no score to plot).
fn refuse_one_player_options<G: TwoPlayerGame>(args: &TrainArgs) -> Result<()> {
    let ignored = [
        (args.coherence, "--coherence"),
        (args.optimistic.is_some(), "--optimistic"),
        (args.gpus != 1, "--gpus"),
        (args.curve.is_some(), "--curve"),
        (args.plot.is_some(), "--plot"),
        (args.sharing != Default::default(), "--sharing"),
        (args.td_order.is_some(), "--td-order"),
    ];
    match ignored.iter().find(|(given, _)| *given) {
        Some((_, option)) => Err(Error::parse(format!(
            "train {}: {option} is for the one-player trainers; self-play learns on one table",
            <G as Game>::NAME
        ))),
        None => Ok(()),
    }
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

/// How a run learns, for what it prints.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Learning {
    /// TD of a one-player game.
    Td,
    /// Self-play of a two-player game.
    SelfPlay,
    /// A fit to labelled positions.
    Fit,
}

/// Runs `train` (the one loop, with the game's way of learning) as the flags say: outputs
/// checked first, a progress bar, the curve and plot written, the report printed.
fn run(
    (name, learning): (&str, Learning),
    common: &Common,
    args: &TrainArgs,
    cfg: &TrainConfig,
    train: impl FnOnce(
        &TrainConfig,
        &mut dyn FnMut(&TrainProgress),
    ) -> Result<(NTupleNetwork, TrainReport)>,
) -> Result<()> {
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
        .chain(args.fit.iter().map(|p| ("--fit", Path::new(p))))
        .collect();
    refuse_collisions(&inputs, &outputs)?;
    if let Some(plot) = &args.plot {
        ImageFormat::of_path(Path::new(plot))?;
    }
    for (_, path) in &outputs {
        check_output(path)?;
    }
    // A time-limited run's bar counts seconds, any other games.
    let what = format!("train {name}");
    let bar = match cfg.time_limit {
        Some(limit) => progress(common.json, limit.as_secs().max(1), &what),
        None => progress(common.json, cfg.games, &what),
    };
    let (_, report) = train(cfg, &mut |p| {
        bar.set_position(match cfg.time_limit {
            Some(_) => p.seconds as u64,
            None => p.games,
        });
        bar.set_message(match learning {
            Learning::Fit => format!(
                "{what} error {:.2} {:.0} positions/s",
                p.recent_mean_score / 1000.0,
                p.moves_per_sec
            ),
            _ => format!(
                "{what} mean {:.0} {:.0} moves/s",
                p.recent_mean_score, p.moves_per_sec
            ),
        });
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
            match learning {
            Learning::Td => format!(
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
            ),
            // Self-play games have no score: their count and speed.
            Learning::SelfPlay => format!(
                "{} self-play games ({} in all) in {:.1} s, {:.0} moves/s on {} ({} at once); weights in {}",
                report.games,
                report.total_games,
                report.seconds,
                report.moves_per_sec,
                placement.text,
                report.threads,
                args.out
            ),
            // A fit's games are positions, scored by their error in thousandths.
            Learning::Fit => format!(
                "{} positions learned in {:.1} s ({:.0} a second on {}): mean absolute error {:.3} (last 1000: {:.3}); held-out RMSE {:.3}; weights in {}",
                report.games,
                report.seconds,
                report.moves_per_sec,
                placement.text,
                report.mean_score / 1000.0,
                report.recent_mean_score / 1000.0,
                report.held_out_rmse.unwrap_or(f64::NAN),
                args.out
            ),
        }
        },
        json!({
            "game": name,
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
            "td_order": placement.order.map(|o| o.name()),
            "alpha": report.alpha,
            "held_out_rmse": report.held_out_rmse,
            "out": args.out,
        }),
    );
    Ok(())
}
