//! `cubesearch solve <game> --position P` without `--depth` or `--strategy`, for a game with an
//! exact solver (Reversi's endgame solver): the exact value under perfect play and a best move,
//! on `--threads` CPU threads (default: every core). A solve past a day's work (the solver's
//! estimate) is refused up front unless `--force`; SIGINT or SIGTERM stops one and exits 128 +
//! the signal's number.

use crate::args::Common;
use crate::output::emit;
use crate::signals;
use cubesearch_core::{Error, Game, Result};
use cubesearch_games::registry::ExactSolver;
use cubesearch_players::effort::{Hardware, Work};
use serde_json::json;
use std::time::Instant;

pub fn run<G: Game>(
    game: &G,
    solver: &ExactSolver<G>,
    common: &Common,
    position: &str,
    threads: Option<usize>,
) -> Result<()> {
    let threads = match threads {
        Some(_) if !solver.threaded => {
            return Err(Error::parse(format!(
                "solve {}: --threads is for a threaded solver; the {} uses none",
                G::NAME,
                solver.name
            )))
        }
        n => super::cpu_threads_flag(n.unwrap_or(0))?,
    };
    let state = super::typed_position(game, Some(position))?;
    let nodes = (solver.estimate)(&state);
    let limit = Work::Exact.limit(Hardware::Cpu);
    if nodes > limit && !common.force {
        return Err(Error::Unsupported(format!(
            "solve {}: the {} would visit about {nodes:.1e} positions: past {limit:.0e}, more than a day on one CPU thread; pass --force to run it anyway",
            G::NAME,
            solver.name
        )));
    }
    if !common.json {
        match solver.threaded {
            true => eprintln!("backend: {}, CPU, {threads} threads", solver.name),
            false => eprintln!("backend: {}, CPU", solver.name),
        }
    }
    let stop = signals::stop_on_signals();
    let start = Instant::now();
    let Some(solved) = (solver.solve)(game, &state, threads, &stop) else {
        return Err(Error::Interrupted(format!(
            "solve stopped by {} after {:.1} s: no value found",
            signals::name(&stop),
            start.elapsed().as_secs_f64()
        )));
    };
    let seconds = start.elapsed().as_secs_f64();
    let best = solved.best.map(|m| game.format_move(&state, m));
    let facts: String = solved
        .facts
        .iter()
        .map(|(name, n)| format!("{n} {name}, "))
        .collect();
    let mut json = json!({
        "game": G::NAME, "position": game.format_position(&state), "exact": true,
        "value": solved.value, "best_move": best, "nodes": solved.nodes,
        "seconds": seconds, "backend": "cpu", "threads": if solver.threaded { threads } else { 1 },
    });
    for (name, n) in &solved.facts {
        json[*name] = json!(n);
    }
    emit(
        common.json,
        || {
            format!(
                "value {} ({} for the side to move), best move {} — {facts}{} nodes, {seconds:.3} s",
                solved.value,
                solver.value,
                best.as_deref().unwrap_or("none (the game is over)"),
                solved.nodes
            )
        },
        json,
    );
    Ok(())
}
