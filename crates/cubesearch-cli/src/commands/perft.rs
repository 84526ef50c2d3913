//! `cubesearch perft <game>`: move-path counts on any backend, with `--divide`.

use super::TwoPlayerCommand;
use crate::args::Common;
use crate::output::{announce, emit, progress};
use cubesearch_core::Result;
use cubesearch_games::registry::TwoPlayerGame;
use cubesearch_players::effort::{Hardware, Work};
use cubesearch_search::{perft::perft_divide, Executor};
use serde_json::json;
use std::time::Instant;

/// `perft`, for two-player games.
pub struct Perft<'a> {
    pub common: &'a Common,
    pub depth: u32,
    pub position: Option<&'a str>,
    pub divide: bool,
}

impl TwoPlayerCommand for Perft<'_> {
    const WHAT: &'static str = "perft";
    fn run<G: TwoPlayerGame>(self, game: G) -> Result<()> {
        run(&game, self.common, self.depth, self.position, self.divide)
    }
}

fn run<G: TwoPlayerGame>(
    game: &G,
    common: &Common,
    depth: u32,
    position: Option<&str>,
    divide: bool,
) -> Result<()> {
    let root = super::typed_position(game, position)?;
    let (mut exec, device) = Executor::new(common.backend)?;
    let what = format!("perft {} depth {depth}", G::NAME);
    super::refuse_endless(
        common,
        game,
        &root,
        depth,
        Work::Perft,
        Hardware::of(&exec),
        &what,
    )?;
    announce(common.json, &device);
    let bar = progress(common.json, 0, &what);
    let start = Instant::now();
    let result = perft_divide(&mut exec, game, &root, depth, |done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    })?;
    let seconds = start.elapsed().as_secs_f64();
    bar.finish_and_clear();
    let nodes_per_sec = result.nodes as f64 / seconds.max(1e-9);
    let moves: Vec<(String, u64)> = result
        .divide
        .iter()
        .map(|&(m, n)| (game.format_move(&root, m), n))
        .collect();
    let text = || {
        let mut out = String::new();
        if divide {
            for (m, n) in &moves {
                out += &format!("{m}: {n}\n");
            }
        }
        out + &format!(
            "perft({depth}) = {} in {seconds:.3} s ({:.3e} nodes/s, {})",
            result.nodes,
            nodes_per_sec,
            device.backend()
        )
    };
    let mut json = json!({
        "game": G::NAME, "depth": depth, "position": game.format_position(&root),
        "nodes": result.nodes, "seconds": seconds, "nodes_per_sec": nodes_per_sec,
        "backend": device.backend().name(), "device": device.device_name(),
    });
    if divide {
        json["divide"] = moves
            .iter()
            .map(|(m, n)| json!({ "move": m, "nodes": n }))
            .collect();
    }
    emit(common.json, text, json);
    Ok(())
}
