//! `cubesearch label <game>`: a dataset for `train --fit`. Self-play games of a network give the
//! positions (`cubesearch_learn::labels::generate_positions`, on CPU threads); a deeper search
//! on the same network labels each, on `--backend` (`cubesearch_train::label_on`: the CPU, or
//! a GPU with the CPU's labels), exactly where the game's solver knows the value and
//! `--exact-nodes` allows its work; the dataset file records where they came from. SIGINT or
//! SIGTERM stops it, and nothing is written.

use crate::args::{Common, LabelArgs};
use crate::output::{emit, progress};
use crate::signals::{self, stop_on_signals};
use cubesearch_core::backend::{resolve, ResolvedBackend};
use cubesearch_core::io::{check_output, refuse_collisions};
use cubesearch_core::{Error, Game, Result, StochasticGame};
use cubesearch_games::registry::{self, GameVisitor, OnePlayerGame, TwoPlayerGame};
use cubesearch_learn::labels::{ExactValue, Generate, Label as LabelPlan};
use cubesearch_learn::{Dataset, Provenance};
use cubesearch_search::{CpuExecutor, Executor};
use cubesearch_train::DEVICE_BATCH;
use serde_json::json;
use std::path::Path;
use std::time::Instant;

/// Positions the CPU labels between two updates of the progress bar (a GPU takes
/// `DEVICE_BATCH` at a time).
const CHUNK: usize = 4096;

/// `label`: two-player games that learn an evaluation.
pub struct Label<'a> {
    pub common: &'a Common,
    pub args: &'a LabelArgs,
}

impl GameVisitor for Label<'_> {
    type Output = ();

    fn two_player<G: TwoPlayerGame>(self, game: G) -> Result<()> {
        let args = self.args;
        let Some(learner) = G::LEARNER else {
            return Err(not_labelled(<G as Game>::NAME));
        };
        let (weights, out) = (Path::new(&args.weights), Path::new(&args.out));
        refuse_collisions(&[("--weights", weights)], &[("--out", out)])?;
        check_output(out)?;
        let threads = super::cpu_threads_flag(args.threads)?;
        let solver = match args.exact_nodes {
            None => None,
            Some(n) if !(n.is_finite() && n >= 0.0) => {
                return Err(Error::parse(format!(
                    "--exact-nodes takes a number of nodes, got {n}"
                )))
            }
            Some(n) => match G::exact_solver() {
                Some(solver) => Some((solver, n)),
                None => {
                    return Err(Error::parse(format!(
                        "label {}: --exact-nodes needs an exact solver, and {} has none",
                        <G as Game>::NAME,
                        <G as Game>::NAME
                    )))
                }
            },
        };
        let net = (learner.load)(weights)?;
        let stop = stop_on_signals();
        let exact_stop = stop.clone();
        let exact = |state: &G::State| -> Option<f32> {
            let (solver, most) = solver.as_ref()?;
            if (solver.estimate)(state) > *most {
                return None;
            }
            (solver.solve)(&game, state, 1, &exact_stop).map(|e| e.value as f32)
        };
        let plan = LabelPlan {
            depth: args.depth,
            exact: solver.is_some().then_some(&exact as ExactValue<'_, G>),
            stop: stop.clone(),
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| Error::Unsupported(format!("cannot start {threads} CPU threads: {e}")))?;
        let resolved = resolve(self.common.backend)?;
        let (exec, chunk) = match resolved {
            ResolvedBackend::Cpu { .. } => (Executor::Cpu(CpuExecutor::new(threads)?), CHUNK),
            _ => (Executor::on(&resolved)?, DEVICE_BATCH),
        };
        if !self.common.json {
            match exec.is_cpu() {
                true => eprintln!("backend: cpu, {threads} threads"),
                false => eprintln!(
                    "backend: {resolved} (the games and exact labels on {threads} CPU threads)"
                ),
            }
        }
        let interrupted = || {
            Error::Interrupted(format!(
                "label stopped by {}: nothing written",
                signals::name(&stop)
            ))
        };
        let start = Instant::now();
        let generate = Generate {
            games: args.games,
            random_plies: args.random_plies,
            epsilon: args.epsilon,
            seed: self.common.seed,
        };
        let positions = pool.install(|| (learner.generate)(&game, &net, generate, &stop));
        if stop.is_raised() {
            return Err(interrupted());
        }
        let played = start.elapsed().as_secs_f64();
        let bar = progress(self.common.json, positions.len() as u64, "labelling");
        let mut labels = Vec::with_capacity(positions.len());
        for part in positions.chunks(chunk) {
            let found = pool.install(|| (learner.label)(&exec, &game, &net, part, &plan))?;
            labels.extend(found.ok_or_else(interrupted)?);
            bar.inc(part.len() as u64);
        }
        bar.finish_and_clear();
        let labelled = start.elapsed().as_secs_f64() - played;
        let dataset = Dataset {
            positions,
            labels,
            provenance: Provenance {
                generator: format!(
                    "self-play, {} random plies, epsilon {}",
                    args.random_plies, args.epsilon
                ),
                evaluation: args.weights.clone(),
                depth: args.depth,
                exact: args.exact_nodes.map_or_else(String::new, |n| {
                    format!("estimated solves of {n} nodes or fewer")
                }),
                seed: self.common.seed,
                games: args.games,
            },
        };
        dataset.save(&game, out)?;
        let count = dataset.positions.len();
        let per_sec = count as f64 / labelled.max(1e-9);
        emit(
            self.common.json,
            || {
                format!(
                    "{count} positions of {} games, labelled {} plies deep in {labelled:.1} s ({per_sec:.0} a second, {threads} threads; the games took {played:.1} s); dataset in {}",
                    args.games, args.depth, args.out
                )
            },
            json!({
                "game": <G as Game>::NAME, "positions": count, "games": args.games,
                "depth": args.depth, "exact_nodes": args.exact_nodes, "threads": threads,
                "play_seconds": played, "label_seconds": labelled,
                "positions_per_sec": per_sec, "out": args.out,
            }),
        );
        Ok(())
    }

    fn one_player<G: OnePlayerGame>(self, _game: G) -> Result<()> {
        Err(not_labelled(<G as StochasticGame>::NAME))
    }
}

/// The error for a game that `label` does not take.
fn not_labelled(name: &str) -> Error {
    let names: Vec<&str> = registry::GAMES
        .iter()
        .filter(|g| g.trains && g.kind == registry::Kind::TwoPlayer)
        .map(|g| g.name)
        .collect();
    Error::parse(format!(
        "label takes {}, not {name}: two-player games that learn an evaluation",
        names.join(", ")
    ))
}
