//! `cubesearch train <game>` for two-player games that learn their evaluation by self-play
//! (Reversi, checkers): TD(0) over an n-tuple network on CPU threads sharing one table
//! ([`cubesearch_learn::selfplay`]) or on a GPU ([`cubesearch_train::selfplay`]). The weights
//! file then plays as `alphabeta:weights=FILE`.

use crate::args::{Common, TrainArgs};
use crate::output::{emit, progress};
use crate::signals::{self, stop_on_signals};
use cubesearch_core::io::check_output;
use cubesearch_core::{Error, Result};
use cubesearch_games::registry::{Learner, TwoPlayerGame};
use cubesearch_learn::selfplay::{SelfPlay, SelfPlayPlan};
use cubesearch_players::text::parse_duration;
use cubesearch_search::Executor;
use cubesearch_train::selfplay::default_alpha;
use serde_json::json;
use std::path::Path;
use std::time::Instant;

/// The chance of a random move in self-play: enough that games leave the network's one line.
const EPSILON: f32 = 0.1;

/// Trains `game`'s evaluation as `args` say with its `learner`.
pub fn run<G: TwoPlayerGame>(
    game: &G,
    learner: Learner<G>,
    common: &Common,
    args: &TrainArgs,
) -> Result<()> {
    refuse_one_player_options::<G>(args)?;
    super::train::refuse_idle_units(args)?;
    let time_limit = args.time.as_deref().map(parse_duration).transpose()?;
    check_output(Path::new(&args.out))?;
    let (exec, device) = Executor::new(common.backend)?;
    // What only the other kind of trainer reads is refused rather than ignored.
    match (exec.is_cpu(), args.units, args.threads) {
        (true, Some(units), _) => {
            return Err(Error::parse(format!(
                "--units {units} sets a GPU trainer's games at once: use a GPU backend"
            )))
        }
        (false, _, Some(threads)) => {
            return Err(Error::parse(format!(
                "--threads {threads} sets CPU trainer threads, but this run trains on {device}"
            )))
        }
        _ => {}
    }
    let mut net = match &args.resume {
        Some(path) => (learner.load)(Path::new(path))?,
        None => (learner.network)(
            args.shapes.as_deref(),
            args.stages.as_ref().map(|s| &s.0[..]),
        )?,
    };
    let threads = match args.threads {
        None => 1,
        Some(0) => std::thread::available_parallelism().map_or(1, |n| n.get()),
        Some(n) => n,
    };
    let signals = stop_on_signals();
    let started = Instant::now();
    let stop = match time_limit {
        Some(limit) => signals.with_deadline(started + limit),
        None => signals.clone(),
    };
    let games = args.games.unwrap_or(u64::MAX);
    let what = format!("train {}", G::NAME);
    // A time-limited run's bar counts seconds, any other games.
    let bar = match time_limit {
        Some(limit) => progress(common.json, limit.as_secs().max(1), &what),
        None => progress(common.json, games, &what),
    };
    let plan = SelfPlayPlan {
        games,
        threads,
        units: args.units,
        seed: common.seed,
        options: SelfPlay {
            alpha: args
                .alpha
                .unwrap_or_else(|| default_alpha(&exec, args.units, games)),
            epsilon: EPSILON,
        },
        stop,
    };
    let run = (learner.learn)(&exec, game, &mut net, plan, &mut |played| {
        bar.set_position(match time_limit {
            Some(_) => started.elapsed().as_secs(),
            None => played,
        });
    })?;
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    net.save(Path::new(&args.out), run.games, 0.0)?;
    if signals.reason().is_some() {
        return Err(Error::Interrupted(format!(
            "interrupted by {}: the weights after {} games are saved in {}; --resume {} goes on from them",
            signals::name(&signals),
            run.games,
            args.out,
            args.out
        )));
    }
    let moves_per_sec = run.moves as f64 / seconds.max(1e-9);
    let place = if exec.is_cpu() {
        format!("{threads} CPU threads")
    } else {
        device.to_string()
    };
    emit(
        common.json,
        || {
            format!(
                "{} self-play games in {seconds:.1} s, {moves_per_sec:.0} moves/s on {place}; weights in {}",
                run.games, args.out
            )
        },
        json!({
            "game": G::NAME,
            "games": run.games,
            "moves": run.moves,
            "seconds": seconds,
            "moves_per_sec": moves_per_sec,
            "threads": threads,
            "backend": device.backend().to_string(),
            "device": device.device_name(),
            "out": args.out,
        }),
    );
    Ok(())
}

/// Refuses, one line each, the options of the one-player trainers that self-play has no use
/// for (it learns after every move, on one table).
fn refuse_one_player_options<G: TwoPlayerGame>(args: &TrainArgs) -> Result<()> {
    let ignored = [
        (args.coherence, "--coherence"),
        (args.optimistic.is_some(), "--optimistic"),
        (args.gpus != 1, "--gpus"),
        (args.checkpoint_every != 0, "--checkpoint-every"),
        (args.curve.is_some(), "--curve"),
        (args.plot.is_some(), "--plot"),
        (args.sharing != Default::default(), "--sharing"),
        (args.td_order.is_some(), "--td-order"),
    ];
    match ignored.iter().find(|(given, _)| *given) {
        Some((_, option)) => Err(Error::parse(format!(
            "train {}: {option} is for the one-player trainers; self-play learns on one table",
            G::NAME
        ))),
        None => Ok(()),
    }
}
