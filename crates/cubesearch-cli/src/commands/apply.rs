//! `cubesearch apply <game>`: play moves on a position and print where they lead (two-player
//! games here, one-player stochastic games in `apply_stochastic`).

use crate::args::Common;
use crate::output::emit;
use cubesearch_core::{Error, Game, Outcome, Result};
use cubesearch_games::registry::{self, GameVisitor, Kind, OnePlayerGame, TwoPlayerGame};
use serde_json::json;

/// `apply`, for every game; `--spawn` for one-player stochastic games only.
pub struct Apply<'a> {
    pub common: &'a Common,
    pub position: Option<&'a str>,
    pub moves: &'a [String],
    pub spawn: bool,
}

impl GameVisitor for Apply<'_> {
    type Output = ();
    fn two_player<G: TwoPlayerGame>(self, game: G) -> Result<()> {
        if self.spawn {
            return Err(Error::parse(format!(
                "--spawn applies to {} only",
                registry::names(Kind::OnePlayer).join(" and ")
            )));
        }
        run(&game, self.common, self.position, self.moves)
    }
    fn one_player<G: OnePlayerGame>(self, game: G) -> Result<()> {
        super::apply_stochastic::run(&game, self.common, self.position, self.moves, self.spawn)
    }
}

fn run<G: Game>(game: &G, common: &Common, position: Option<&str>, moves: &[String]) -> Result<()> {
    let mut state = super::typed_position(game, position)?;
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
