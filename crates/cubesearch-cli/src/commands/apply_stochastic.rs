//! `cubesearch apply <game>` for one-player stochastic games (2584, 2048): the actions are
//! played; with `--spawn`, chance moves after each (drawn with `--seed`), else the position after
//! the last action is an afterstate.

use crate::args::Common;
use crate::output::emit;
use cubesearch_core::rng::XorShift32;
use cubesearch_core::{Error, Result, StochasticGame};
use serde_json::json;

pub fn run<G: StochasticGame>(
    game: &G,
    common: &Common,
    position: Option<&str>,
    moves: &[String],
    spawn: bool,
) -> Result<()> {
    let mut rng = XorShift32::for_worker(common.seed, 0);
    let mut state = match position {
        Some(text) => game.parse_position(text)?,
        None => game.initial(&mut rng),
    };
    let mut rewards = Vec::with_capacity(moves.len());
    for (i, text) in moves.iter().enumerate() {
        let action = game.parse_action(text)?;
        let (after, reward) = game.afterstate(&state, action).ok_or_else(|| {
            let mut legal = Vec::new();
            game.legal_actions(&state, &mut legal);
            let names: Vec<_> = legal.iter().map(|l| game.format_action(l.0)).collect();
            Error::IllegalMove {
                mv: format!("{} (move {})", text.trim(), i + 1),
                why: if names.is_empty() {
                    "the game is over".into()
                } else {
                    format!("it changes nothing; legal moves are {}", names.join(", "))
                },
            }
        })?;
        rewards.push(reward as u64);
        state = if spawn {
            game.sample_chance(&after, &mut rng)
        } else {
            after
        };
    }
    let status = if game.is_over(&state) {
        "over"
    } else {
        "ongoing"
    };
    let position = game.format_position(&state);
    let score: u64 = rewards.iter().sum();
    emit(
        common.json,
        || format!("{position}\nrewards: {rewards:?} (score {score})\nstatus: {status}"),
        json!({ "game": G::NAME, "position": position, "rewards": rewards, "score": score, "status": status }),
    );
    Ok(())
}
