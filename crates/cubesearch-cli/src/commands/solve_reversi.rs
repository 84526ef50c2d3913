//! `cubesearch solve reversi --position P` without `--depth` or `--strategy`: the exact final disc
//! difference under perfect play and a best move, by the CPU endgame solver on one thread.

use crate::args::Common;
use crate::output::emit;
use cubesearch_core::{Game, Result};
use cubesearch_games::reversi::endgame::Solver;
use cubesearch_games::reversi::Reversi;
use serde_json::json;
use std::time::Instant;

pub fn run(common: &Common, position: &str) -> Result<()> {
    let state = Reversi.parse_position(position)?;
    if !common.json {
        eprintln!("backend: exact endgame solver, CPU, 1 thread");
    }
    let start = Instant::now();
    let solved = Solver::new().solve(&state);
    let seconds = start.elapsed().as_secs_f64();
    let best = solved.best.map(|m| Reversi.format_move(&state, m));
    let empties = state.empty().count_ones();
    emit(
        common.json,
        || {
            format!(
                "value {} (exact final disc difference for the side to move), best move {} — {empties} empties, {} nodes, {seconds:.3} s",
                solved.value,
                best.as_deref().unwrap_or("none (the game is over)"),
                solved.nodes
            )
        },
        json!({
            "game": "reversi", "position": Reversi.format_position(&state), "exact": true,
            "value": solved.value, "best_move": best, "empties": empties, "nodes": solved.nodes,
            "seconds": seconds, "backend": "cpu", "threads": 1,
        }),
    );
    Ok(())
}
