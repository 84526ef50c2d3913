//! `cubesearch train <game>` for one-player stochastic games (2584, 2048): TD(0) self-play on
//! the CPU, one GPU or several CUDA GPUs, saving an n-tuple network.
//!
//! Under a launcher (`cubesearch launch`, `torchrun`: `WORLD_SIZE` and the rest set, see
//! `cubesearch_search::rendezvous`) each process is one rank on one CUDA GPU: rank 0 runs the
//! training as below, and the other ranks follow it silently (`cubesearch_search::td_ranks`).
//!
//! `--backend auto` trains on a real GPU when there is one (CUDA, or wgpu on a hardware
//! adapter) and otherwise on the CPU, as `auto` does everywhere: a software rasteriser
//! (lavapipe) is slower than the CPU trainer, so it is used only when asked for by name.

use super::OnePlayerCommand;
use crate::args::{Common, TrainArgs};
use crate::output::{emit, progress};
use crate::signals::{self, stop_on_signals};
use cubesearch_core::backend::{resolve, ResolvedBackend};
use cubesearch_core::io::{check_output, write_atomically};
use cubesearch_core::{Error, Result};
use cubesearch_games::registry::OnePlayerGame;
use cubesearch_learn::plot::{write_curve, ImageFormat};
use cubesearch_learn::runner::thread_count;
use cubesearch_learn::{curve_csv, shapes_for, train_on, CpuEngine, TdEngine, TrainConfig};
use cubesearch_search::rendezvous::Ranks;
use cubesearch_search::spec::parse_duration;
use cubesearch_search::Executor;
use serde_json::json;
use std::path::{Path, PathBuf};

/// A training engine for game `G`, boxed.
type Engine<G> = Box<dyn TdEngine<G>>;

/// The engine `--backend` and `--gpus` ask for, and where it runs.
fn engine<G: OnePlayerGame>(
    common: &Common,
    args: &TrainArgs,
) -> Result<(Engine<G>, ResolvedBackend)> {
    if args.gpus == 0 {
        return Err(Error::parse("--gpus must be at least 1"));
    }
    if args.units == Some(0) {
        return Err(Error::parse("--units must be at least 1"));
    }
    let resolved = resolve(common.backend)?;
    if let ResolvedBackend::Cpu { .. } = resolved {
        if args.gpus > 1 {
            return Err(Error::parse(format!(
                "--gpus {} trains on several CUDA devices: use --backend cuda on an NVIDIA host",
                args.gpus
            )));
        }
        let threads = thread_count(args.threads);
        return Ok((
            Box::new(CpuEngine {
                threads,
                sharing: args.sharing,
                order: args.td_order,
                stop: Default::default(),
            }),
            ResolvedBackend::Cpu { threads },
        ));
    }
    let exec = Executor::on(&resolved)?;
    Ok((
        exec.td_engine_on_gpus::<G>(args.gpus, args.units, args.td_order)?,
        resolved,
    ))
}

/// This process's rank of a run of several (`ranks`): one GPU a rank, NCCL on CUDA device
/// `LOCAL_RANK`. Refused on any other backend, and without the cuda feature.
#[cfg(feature = "cuda")]
fn rank<G: OnePlayerGame>(
    common: &Common,
    args: &TrainArgs,
    ranks: &Ranks,
) -> Result<(cubesearch_search::td_ranks::CudaRank<G>, ResolvedBackend)> {
    let resolved = rank_backend(common, args, ranks)?;
    let rank = cubesearch_search::td_ranks::cuda_rank::<G>(ranks, args.units, args.td_order)?;
    Ok((rank, resolved))
}

/// The backend a rank trains on: CUDA, one GPU a rank.
fn rank_backend(common: &Common, args: &TrainArgs, ranks: &Ranks) -> Result<ResolvedBackend> {
    if args.gpus != 1 {
        return Err(Error::parse(format!(
            "--gpus {} under a launcher: each rank trains on one GPU (start more ranks)",
            args.gpus
        )));
    }
    match resolve(common.backend)? {
        #[cfg(feature = "cuda")]
        resolved @ ResolvedBackend::Cuda { .. } => Ok(resolved),
        other => Err(Error::parse(format!(
            "WORLD_SIZE={}: ranks train through NCCL on CUDA GPUs, not on {}; use --backend cuda \
             (a build with the cuda feature)",
            ranks.world,
            other.backend().name()
        ))),
    }
}

/// Rank 0's engine.
fn rank_engine<G: OnePlayerGame>(
    common: &Common,
    args: &TrainArgs,
    ranks: &Ranks,
) -> Result<(Engine<G>, ResolvedBackend)> {
    #[cfg(feature = "cuda")]
    return rank::<G>(common, args, ranks)
        .map(|(r, resolved)| (Box::new(r) as Engine<G>, resolved));
    #[cfg(not(feature = "cuda"))]
    return rank_backend(common, args, ranks).and_then(|resolved| {
        Err(Error::parse(format!(
            "ranks need CUDA, and {} was chosen",
            resolved.backend().name()
        )))
    });
}

/// A rank other than 0: follows rank 0's calls, writing nothing and printing nothing.
fn follow<G: OnePlayerGame>(common: &Common, args: &TrainArgs, ranks: &Ranks) -> Result<()> {
    // A follower ends when rank 0 says so: a signal to the whole group (Ctrl-C under a
    // launcher) lets rank 0 save and release the others, and only a second one ends it.
    let _ = stop_on_signals();
    #[cfg(feature = "cuda")]
    {
        let (mut rank, _) = rank::<G>(common, args, ranks)?;
        let (_, cfg) = config::<G>(common, args)?;
        let (net, _) = cubesearch_learn::starting_network::<G>(&cfg)?;
        rank.follow(&net).map(|_| ())
    }
    #[cfg(not(feature = "cuda"))]
    rank_engine::<G>(common, args, ranks).map(|_| ())
}

/// The run's configuration, and its time limit.
fn config<G: OnePlayerGame>(
    common: &Common,
    args: &TrainArgs,
) -> Result<(Option<std::time::Duration>, TrainConfig)> {
    let time_limit = args.time.as_deref().map(parse_duration).transpose()?;
    Ok((
        time_limit,
        TrainConfig {
            games: args.games.unwrap_or(u64::MAX),
            time_limit,
            threads: args.threads,
            sharing: args.sharing,
            order: args.td_order,
            alpha: args.alpha,
            seed: common.seed,
            shapes: args.shapes.as_deref().map(shapes_for::<G>).transpose()?,
            stages: args.stages.clone().map(|s| s.0),
            checkpoint_every: args.checkpoint_every,
            out: Some(PathBuf::from(&args.out)),
            resume: args.resume.as_ref().map(PathBuf::from),
            optimistic: args.optimistic,
            coherence: args.coherence,
            ..TrainConfig::default()
        },
    ))
}

/// `train`, for one-player stochastic games.
pub struct Train<'a> {
    pub common: &'a Common,
    pub args: &'a TrainArgs,
}

impl OnePlayerCommand for Train<'_> {
    const WHAT: &'static str = "train";
    fn run<G: OnePlayerGame>(self, game: G) -> Result<()> {
        run(&game, self.common, self.args)
    }
}

fn run<G: OnePlayerGame>(game: &G, common: &Common, args: &TrainArgs) -> Result<()> {
    let ranks = Ranks::from_env()?;
    if let Some(ranks) = ranks.as_ref().filter(|r| r.rank > 0) {
        return follow::<G>(common, args, ranks);
    }
    // Outputs first: a run that cannot save its work does not start.
    check_output(Path::new(&args.out))?;
    if let Some(curve) = &args.curve {
        check_output(Path::new(curve))?;
    }
    if let Some(plot) = &args.plot {
        ImageFormat::of_path(Path::new(plot))?;
        check_output(Path::new(plot))?;
    }
    let (time_limit, mut cfg) = config::<G>(common, args)?;
    cfg.stop = stop_on_signals();
    let (mut engine, device) = match &ranks {
        Some(ranks) => rank_engine::<G>(common, args, ranks)?,
        None => engine::<G>(common, args)?,
    };
    let world = ranks.as_ref().map_or(1, |r| r.world);
    // A time-limited run's bar counts seconds, any other games.
    let bar = match time_limit {
        Some(limit) => progress(
            common.json,
            limit.as_secs().max(1),
            &format!("train {}", G::NAME),
        ),
        None => progress(common.json, cfg.games, &format!("train {}", G::NAME)),
    };
    let (_, report) = train_on(game, &cfg, engine.as_mut(), |p| {
        bar.set_position(match time_limit {
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
    engine.finish()?;
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
    emit(
        common.json,
        || {
            let on = match world {
                1 => device.to_string(),
                k => format!("{k} ranks of {device}"),
            };
            format!(
                "{} games ({} in all) in {:.1} s: mean score {:.0} (last 1000: {:.0}), best {}, {:.0} moves/s on {} ({} games at once); weights in {}",
                report.games,
                report.total_games,
                report.seconds,
                report.mean_score,
                report.recent_mean_score,
                report.max_score,
                report.moves_per_sec,
                on,
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
            "backend": device.backend().name(),
            "device": device.device_name(),
            "gpus": args.gpus * world,
            "ranks": world,
            "td_order": args.td_order.name(),
            "out": args.out,
        }),
    );
    Ok(())
}
