//! `cubesearch apply <game>`: play moves on a position and print where they lead.

use crate::args::Common;
use crate::output::emit;
use cubesearch_core::{Error, Game, Outcome, Result};
use serde_json::json;

pub fn run<G: Game>(
    game: &G,
    common: &Common,
    position: Option<&str>,
    moves: &[String],
) -> Result<()> {
    let mut state = match position {
        Some(text) => game.parse_position(text)?,
        None => game.initial(),
    };
    for (i, text) in moves.iter().enumerate() {
        let mv = game.parse_move(&state, text).map_err(|e| match e {
            Error::IllegalMove { mv, why } => Error::IllegalMove {
                mv: format!("{mv} (move {})", i + 1),
                why,
            },
            other => other,
        })?;
        state = game.apply(&state, mv);
    }
    let status = match game.outcome(&state) {
        Outcome::Ongoing => "ongoing",
        Outcome::Loss => "loss",
        Outcome::Win => "win",
        Outcome::Draw => "draw",
    };
    let position = game.format_position(&state);
    // Two-player games have no rewards; the field keeps one entry per move for every game.
    let rewards = vec![0u64; moves.len()];
    emit(
        common.json,
        || format!("{position}\nstatus: {status} (for the side to move)"),
        json!({ "game": G::NAME, "position": position, "rewards": rewards, "status": status }),
    );
    Ok(())
}
