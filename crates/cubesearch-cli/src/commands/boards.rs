//! `cubesearch boards <game> --weights W --out FILE` for one-player stochastic games (2584,
//! 2048): the seed's benchmark boards (2.6),
//! one starter, normal and late-game board from each of `--games` games of an expectimax agent
//! (on the CPU, so the file does not depend on the backend), written as a board file.

use super::OnePlayerCommand;
use crate::args::{BoardsArgs, Common};
use crate::output::{emit, progress};
use cubesearch_core::Result;
use cubesearch_games::registry::OnePlayerGame;
use cubesearch_learn::NTupleNetwork;
use cubesearch_search::boards::{self, BoardClass};
use cubesearch_search::expectimax::{play_games, PlayOptions};
use cubesearch_search::CpuExecutor;
use serde_json::json;
use std::path::Path;

/// `boards`, for one-player stochastic games.
pub struct Boards<'a> {
    pub common: &'a Common,
    pub args: &'a BoardsArgs,
}

impl OnePlayerCommand for Boards<'_> {
    const WHAT: &'static str = "boards";
    fn run<G: OnePlayerGame>(self, game: G) -> Result<()> {
        run(&game, self.common, self.args)
    }
}

fn run<G: OnePlayerGame>(game: &G, common: &Common, args: &BoardsArgs) -> Result<()> {
    let (weights, out) = (Path::new(&args.weights), Path::new(&args.out));
    cubesearch_core::io::refuse_collisions(&[("--weights", weights)], &[("--out", out)])?;
    cubesearch_core::io::check_output(out)?;
    let (net, meta) = NTupleNetwork::load::<G>(weights, None)?;
    let mut exec = CpuExecutor::new(0)?;
    let bar = progress(common.json, args.games as u64, "games");
    let options = PlayOptions {
        layers: args.layers,
        games: args.games as u64,
        batch: args.games as usize,
        seed: common.seed,
        keep_history: true,
    };
    let records = play_games(&mut exec, game, &net, options, |_, _| bar.inc(1))?;
    bar.finish_and_clear();
    let picked = boards::pick(&records, common.seed);
    let scores: Vec<String> = records.iter().map(|r| r.score.to_string()).collect();
    let header = format!(
        "{} benchmark boards (seed 2.6): one starter (0-5 %), normal (40-60 %) and late (95-100 %) board\n\
         from each of {} games of expectimax:layers={} with {} ({} games trained, mean score {:.0}), seed {}.\n\
         Game scores: {}.\n\
         Made by: cubesearch boards {} --weights {} --layers {} --games {} --seed {} --out {}",
        G::NAME,
        args.games,
        args.layers,
        file_name(&args.weights),
        meta.games,
        meta.mean_score,
        common.seed,
        scores.join(", "),
        G::NAME,
        file_name(&args.weights),
        args.layers,
        args.games,
        common.seed,
        args.out
    );
    let text = boards::format(game, &header, &picked);
    cubesearch_core::io::write_atomically(out, text.as_bytes())?;
    let count = |c: BoardClass| picked.iter().filter(|(k, _)| *k == c).count();
    emit(
        common.json,
        || {
            format!(
                "wrote {} boards to {} ({} starter, {} normal, {} late)",
                picked.len(),
                args.out,
                count(BoardClass::Starter),
                count(BoardClass::Normal),
                count(BoardClass::Late)
            )
        },
        json!({ "game": G::NAME, "out": args.out, "boards": picked.len(), "scores": scores }),
    );
    Ok(())
}

fn file_name(path: &str) -> &str {
    Path::new(path)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(path)
}
