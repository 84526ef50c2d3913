//! The training loop: one [`TrainConfig`] says what to train, how it learns, for how long,
//! where the games are played ([`EngineConfig`]) and what is kept; [`train`] starts the
//! learner its [`Method`] names and runs the one loop, which gives every learner (TD of a
//! one-player game, self-play of a two-player game) the same progress reports, learning
//! curve, checkpoints, resuming, stop and saving.

use crate::config::TrainConfig;
use crate::engine::TdEngine;
use crate::learner::{Batch, Learner};
use crate::method::{Bound, Method};
use crate::placement::Placement;
use cubesearch_core::{Error, Result};
#[cfg(feature = "ranks")]
use cubesearch_kernels::GpuStochasticGame;
use cubesearch_learn::{default_shapes, Episode, NTupleNetwork, TupleBoard, TupleGame};
use serde::Serialize;
use std::collections::VecDeque;
use std::time::Instant;

/// A progress report, sent while training and once at the end.
#[derive(Clone, Debug, Serialize)]
pub struct TrainProgress {
    /// Games finished in this run.
    pub games: u64,
    /// Games this run will play.
    pub target: u64,
    /// Games trained in all, counting those of a resumed file.
    pub total_games: u64,
    /// Mean score of the last (up to) 1000 games.
    pub recent_mean_score: f64,
    /// Games a second so far.
    pub games_per_sec: f64,
    /// Moves a second so far.
    pub moves_per_sec: f64,
    /// Seconds so far.
    pub seconds: f64,
}

/// One point of the learning curve.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CurvePoint {
    /// Games trained in all at the end of the window.
    pub games: u64,
    /// Mean score of the window's games.
    pub mean_score: f64,
    /// Best score in the window.
    pub max_score: u64,
}

/// What a training run did.
#[derive(Clone, Debug, Serialize)]
pub struct TrainReport {
    /// Games played in this run.
    pub games: u64,
    /// Games trained in all, counting those of a resumed file.
    pub total_games: u64,
    /// Mean score of this run's games.
    pub mean_score: f64,
    /// Mean score of the last (up to) 1000 games.
    pub recent_mean_score: f64,
    /// Best score of this run.
    pub max_score: u64,
    /// Moves played.
    pub moves: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Games a second.
    pub games_per_sec: f64,
    /// Moves a second.
    pub moves_per_sec: f64,
    /// Threads (CPU) or games at once (GPU).
    pub threads: usize,
    /// The learning curve.
    pub curve: Vec<CurvePoint>,
    /// Where the games ran ([`train`]; `None` from [`train_on`], whose caller chose the engine).
    pub placement: Option<Placement>,
    /// The TD step on V the run learned with.
    pub alpha: f32,
    /// A fit's error on the positions it held out (see [`Fit`](crate::Fit)), in the network's
    /// units; `None` for runs that play games.
    pub held_out_rmse: Option<f64>,
}

/// Writes the learning curve as CSV (`games,mean_score,max_score`).
pub fn curve_csv(curve: &[CurvePoint]) -> String {
    let mut s = String::from("games,mean_score,max_score\n");
    for p in curve {
        s.push_str(&format!(
            "{},{:.1},{}\n",
            p.games, p.mean_score, p.max_score
        ));
    }
    s
}

/// Trains an n-tuple network the way `method` learns (TD of a one-player game:
/// [`Td`](crate::Td); self-play of a two-player game: [`SelfPlayTd`](crate::SelfPlayTd)) on
/// the engine `cfg.engine` names, and returns it with a report. `progress` hears about the run
/// at most every `progress_interval`, and once at the end. Under a launcher, rank 0 runs here
/// and the other ranks follow it ([`crate::follow`]).
pub fn train<M: Method>(
    method: M,
    cfg: &TrainConfig,
    progress: impl FnMut(&TrainProgress),
) -> Result<(NTupleNetwork, TrainReport)> {
    cfg.check()?;
    method.check(cfg)?;
    let started = method.start(cfg)?;
    let mut learner = started.learner;
    let alpha = cfg.alpha.unwrap_or(started.default_alpha);
    let stages = method.default_stages();
    let (net, mut report) =
        run_learner::<M::Board>(cfg, stages, alpha, learner.as_mut(), progress)?;
    learner.finish()?;
    report.placement = Some(started.placement);
    Ok((net, report))
}

/// The network a run of `cfg` starts from, and the games it had learned from: the file it
/// resumes, or fresh weights of its shapes (zero, or its optimistic start). With `cfg`'s
/// coherence it learns with temporal coherence, from the file's sums where it has them.
/// Every process of a run (rank 0 and the ranks that follow it) starts from this. A new
/// network has `cfg`'s stages, or `stages` when it names none. Its shapes have one size, as
/// the trainers that play games take them ([`NTupleNetwork::check_trainable`]); a fit takes
/// any, and starts from the file or the fresh weights alone.
pub fn starting_network<G: TupleBoard>(
    cfg: &TrainConfig,
    stages: &[u32],
) -> Result<(NTupleNetwork, u64)> {
    let (mut net, games) = file_or_fresh_network::<G>(cfg, stages)?;
    net.check_trainable()?;
    if cfg.coherence && !net.coherent() {
        net.enable_coherence()?;
    }
    Ok((net, games))
}

/// [`starting_network`] before coherence: the weights (and, read with coherence, the sums).
fn file_or_fresh_network<G: TupleBoard>(
    cfg: &TrainConfig,
    default_stages: &[u32],
) -> Result<(NTupleNetwork, u64)> {
    match (&cfg.resume, cfg.optimistic) {
        (Some(_), Some(_)) => Err(Error::parse(
            "an optimistic start is for a new network; a resumed run continues from its file's weights",
        )),
        (Some(path), None) => {
            let shapes = cfg.shapes.as_deref();
            let (net, meta) = match cfg.coherence {
                true => NTupleNetwork::load_with_coherence::<G>(path, shapes)?,
                false => NTupleNetwork::load::<G>(path, shapes)?,
            };
            match &cfg.stages {
                // Stages added to the file's each start from the weights of the stage they
                // split.
                Some(want) if want != net.stages() => {
                    Ok((net.split_into_stages::<G>(want)?, meta.games))
                }
                _ => Ok((net, meta.games)),
            }
        }
        (None, start) => {
            let shapes = cfg.shapes.clone().unwrap_or_else(default_shapes::<G>);
            let stages = cfg.stages.as_deref().unwrap_or(default_stages);
            let mut net = NTupleNetwork::staged::<G>(&shapes, stages)?;
            if let Some(value) = start {
                net.fill(value / net.lookups() as f32);
            }
            Ok((net, 0))
        }
    }
}

/// [`train`]'s TD of a one-player game on an engine the caller built: the same loop.
pub fn train_on<G: TupleGame>(
    game: &G,
    cfg: &TrainConfig,
    engine: &mut dyn TdEngine<G>,
    progress: impl FnMut(&TrainProgress),
) -> Result<(NTupleNetwork, TrainReport)> {
    cfg.check()?;
    let alpha = cfg.alpha.unwrap_or(crate::selfplay::ALPHA);
    let mut bound = Bound { game, engine };
    run_learner::<G>(cfg, &[], alpha, &mut bound, progress)
}

/// The one loop: plays the run's games on `learner`, at `alpha`, with the same progress
/// reports, learning curve, checkpoints and resuming whatever learns. Checkpoints (and a time
/// limit) split the run into chunks, after each of which the learner's weights are synced to
/// the host and saved.
fn run_learner<B: TupleBoard>(
    cfg: &TrainConfig,
    default_stages: &[u32],
    alpha: f32,
    engine: &mut dyn Learner,
    mut progress: impl FnMut(&TrainProgress),
) -> Result<(NTupleNetwork, TrainReport)> {
    let (mut net, prior) = match engine.shapes_of_any_size() {
        true => file_or_fresh_network::<B>(cfg, default_stages)?,
        false => starting_network::<B>(cfg, default_stages)?,
    };
    let threads = engine.parallelism();
    // About 100 curve points: a window of games, or of time in a time-limited run.
    let curve_every = if cfg.curve_every > 0 {
        cfg.curve_every
    } else if cfg.time_limit.is_some() {
        u64::MAX
    } else {
        (cfg.games / 100).max(1)
    };
    let curve_interval = cfg.time_limit.map(|limit| limit / 100);

    let start = Instant::now();
    let mut last_report = start;
    let (mut done, mut moves, mut score_sum, mut max_score) = (0u64, 0u64, 0f64, 0u64);
    let mut recent: VecDeque<u64> = VecDeque::with_capacity(1000);
    let mut recent_sum = 0u64;
    let (mut window_sum, mut window_max, mut window_n) = (0u64, 0u64, 0u64);
    let mut curve = Vec::new();
    let mut last_point = start;
    let snapshot = |done: u64, moves: u64, recent_mean: f64| {
        let secs = start.elapsed().as_secs_f64().max(1e-9);
        TrainProgress {
            games: done,
            target: cfg.games,
            total_games: prior + done,
            recent_mean_score: recent_mean,
            games_per_sec: done as f64 / secs,
            moves_per_sec: moves as f64 / secs,
            seconds: secs,
        }
    };
    // Checkpoints, and a time limit, split the run into chunks: a time-limited run checks the
    // clock after every few games per unit of parallelism.
    let chunk = match (&cfg.out, cfg.checkpoint_every) {
        (Some(_), every) if every > 0 => every,
        _ if cfg.time_limit.is_some() => engine.games_between_clock_checks(),
        _ => cfg.games.max(1),
    };
    let stop = match cfg.time_limit {
        Some(limit) => cfg.stop.with_deadline(start + limit),
        None => cfg.stop.clone(),
    };
    let time_up = || stop.is_raised();
    engine.set_stop(&stop);
    let mut started = 0u64;
    while started < cfg.games && !time_up() {
        let games = chunk.min(cfg.games - started);
        let mut on_game = |e: Episode| -> Result<()> {
            done += 1;
            moves += e.moves as u64;
            score_sum += e.score as f64;
            max_score = max_score.max(e.score);
            if recent.len() == 1000 {
                recent_sum -= recent.pop_front().unwrap_or(0);
            }
            recent.push_back(e.score);
            recent_sum += e.score;
            window_sum += e.score;
            window_max = window_max.max(e.score);
            window_n += 1;
            let window_full = window_n == curve_every
                || curve_interval.is_some_and(|every| last_point.elapsed() >= every);
            if window_full || done == cfg.games {
                last_point = Instant::now();
                curve.push(CurvePoint {
                    games: prior + done,
                    mean_score: window_sum as f64 / window_n as f64,
                    max_score: window_max,
                });
                (window_sum, window_max, window_n) = (0, 0, 0);
            }
            let recent_mean = recent_sum as f64 / recent.len() as f64;
            if last_report.elapsed() >= cfg.progress_interval && done < cfg.games {
                last_report = Instant::now();
                progress(&snapshot(done, moves, recent_mean));
            }
            Ok(())
        };
        engine.play(
            &net,
            Batch {
                first: prior + started,
                count: games,
                seed: cfg.seed,
                alpha,
            },
            &mut on_game,
        )?;
        started += games;
        let checkpoint = cfg.checkpoint_every > 0 && started < cfg.games && !time_up();
        if checkpoint {
            if let Some(out) = &cfg.out {
                engine.sync(&mut net)?;
                let recent_mean = recent_sum as f64 / recent.len().max(1) as f64;
                net.save(out, prior + done, recent_mean)?;
            }
        }
    }
    if window_n > 0 {
        // A time-limited run stops between windows.
        curve.push(CurvePoint {
            games: prior + done,
            mean_score: window_sum as f64 / window_n as f64,
            max_score: window_max,
        });
    }
    engine.sync(&mut net)?;
    let recent_mean = if recent.is_empty() {
        0.0
    } else {
        recent_sum as f64 / recent.len() as f64
    };
    let last = snapshot(done, moves, recent_mean);
    progress(&last);
    if let Some(out) = &cfg.out {
        net.save(out, prior + done, recent_mean)?;
    }
    let report = TrainReport {
        games: done,
        total_games: prior + done,
        mean_score: if done > 0 {
            score_sum / done as f64
        } else {
            0.0
        },
        recent_mean_score: recent_mean,
        max_score,
        moves,
        seconds: last.seconds,
        games_per_sec: last.games_per_sec,
        moves_per_sec: last.moves_per_sec,
        threads,
        curve,
        placement: None,
        alpha,
        held_out_rmse: engine.held_out_rmse(&net),
    };
    Ok((net, report))
}

/// A rank other than 0 of the run `cfg` describes: follows rank 0's calls until it finishes,
/// from the network rank 0 starts from, writing and printing nothing.
#[cfg(feature = "ranks")]
pub fn follow<G: GpuStochasticGame + TupleGame>(cfg: &TrainConfig) -> Result<()> {
    let Some(ranks) = &cfg.engine.ranks else {
        return Err(Error::parse("only a rank of several follows rank 0"));
    };
    let resolved = crate::placement::rank_backend(&cfg.engine, ranks)?;
    #[cfg(feature = "cuda")]
    {
        let _ = resolved;
        let mut rank = crate::ranks::cuda_rank::<G>(
            ranks,
            cfg.engine.units,
            cfg.order.unwrap_or(crate::placement::GPU_ORDER),
        )?;
        let (net, _) = starting_network::<G>(cfg, &[])?;
        rank.follow(&net).map(|_| ())
    }
    #[cfg(not(feature = "cuda"))]
    Err(Error::parse(format!(
        "ranks need CUDA, and {} was chosen",
        resolved.backend().name()
    )))
}
