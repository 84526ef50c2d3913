//! `cubesearch solve <game> --position P` without `--depth` or `--strategy`, for a game with an
//! exact solver (Reversi's endgame solver): the exact value under perfect play and a best move,
//! on one CPU thread.

use crate::args::Common;
use crate::output::emit;
use cubesearch_core::{Game, Result};
use cubesearch_games::registry::ExactSolver;
use serde_json::json;
use std::time::Instant;

pub fn run<G: Game>(
    game: &G,
    solver: &ExactSolver<G>,
    common: &Common,
    position: &str,
) -> Result<()> {
    let state = game.parse_position(position)?;
    if !common.json {
        eprintln!("backend: {}, CPU, 1 thread", solver.name);
    }
    let start = Instant::now();
    let solved = (solver.solve)(game, &state);
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
        "seconds": seconds, "backend": "cpu", "threads": 1,
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
