//! `cubesearch solve <game>`: the negamax value and a best move, by any minimax strategy.

use super::TwoPlayerCommand;
use crate::args::Common;
use crate::output::{announce, emit};
use cubesearch_core::Result;
use cubesearch_games::registry::TwoPlayerGame;
use cubesearch_players::effort::{Hardware, Work};
use cubesearch_search::minimax::{default_gpu_strategy, solve, Strategy};
use cubesearch_search::Executor;
use serde_json::json;
use std::time::Instant;

/// `solve`, for two-player games: by a game's exact solver when it has one and neither `--depth`
/// nor `--strategy` is given, else by a minimax strategy.
pub struct Solve<'a> {
    pub common: &'a Common,
    pub position: &'a str,
    pub depth: Option<u32>,
    pub strategy: Option<Strategy>,
    /// The exact solver's CPU threads (0 or `None`: every core).
    pub threads: Option<usize>,
}

impl TwoPlayerCommand for Solve<'_> {
    const WHAT: &'static str = "solve";
    fn run<G: TwoPlayerGame>(self, game: G) -> Result<()> {
        if self.depth.is_none() && self.strategy.is_none() {
            if let Some(solver) = G::exact_solver() {
                return super::solve_exact::run(
                    &game,
                    &solver,
                    self.common,
                    self.position,
                    self.threads,
                );
            }
        }
        if self.threads.is_some() {
            return Err(cubesearch_core::Error::parse(
                "solve: --threads is for the exact solver (no --depth or --strategy)",
            ));
        }
        run(&game, self.common, self.position, self.depth, self.strategy)
    }
}

fn run<G: TwoPlayerGame>(
    game: &G,
    common: &Common,
    position: &str,
    depth: Option<u32>,
    strategy: Option<Strategy>,
) -> Result<()> {
    let state = super::typed_position(game, Some(position))?;
    let depth = depth.unwrap_or(G::SOLVE_DEPTH);
    let (mut exec, device) = Executor::new(common.backend)?;
    let what = format!("solve {} depth {depth}", G::NAME);
    super::refuse_endless(
        common,
        game,
        &state,
        depth,
        Work::Search,
        Hardware::of(&exec),
        &what,
    )?;
    announce(common.json, &device);
    let strategy = strategy.unwrap_or(if exec.is_cpu() {
        Strategy::CpuSplit
    } else {
        default_gpu_strategy::<G>()
    });
    let start = Instant::now();
    let solved = solve(&mut exec, game, &state, depth, strategy)?;
    let seconds = start.elapsed().as_secs_f64();
    let best = solved.solution.best.map(|m| game.format_move(&state, m));
    let value = solved.solution.value;
    emit(
        common.json,
        || {
            format!(
                "value {value} (for the side to move), best move {} — {strategy}, depth {depth}, {seconds:.3} s{}{}",
                best.as_deref().unwrap_or("none (the game is over)"),
                solved.solution.nodes.map(|n| format!(", {n} nodes ({:.3e}/s)", n as f64 / seconds)).unwrap_or_default(),
                solved.stack_memory.map(|b| format!(", {} units, {} KiB of search stacks", solved.units.unwrap_or(0), b / 1024)).unwrap_or_default()
            )
        },
        json!({
            "game": G::NAME, "position": game.format_position(&state), "depth": depth, "strategy": strategy.name(),
            "value": value, "best_move": best, "seconds": seconds, "nodes": solved.solution.nodes,
            "units": solved.units, "stack_bytes": solved.stack_memory, "split": solved.split.map(|s| json!({"ply": s.split, "tests": s.tests, "launches": s.launches, "widest": s.widest})),
            "backend": device.backend().name(), "device": device.device_name(),
        }),
    );
    Ok(())
}
