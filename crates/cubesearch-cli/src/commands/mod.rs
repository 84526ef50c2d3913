//! One module per subcommand; games are dispatched here, once.

mod apply;
mod bench;
mod info;
mod perft;
mod play;

use crate::args::{Cli, Command, GameName};
use cubesearch_core::{Error, Result};
use cubesearch_games::{reversi::Reversi, Nim};

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    let common = &cli.common;
    match cli.command {
        Command::Info => info::run(common),
        Command::Perft {
            game,
            depth,
            rules,
            position,
            divide,
        } => {
            let position = position.as_deref();
            match game {
                GameName::Nim => {
                    no_rules(game, &rules)?;
                    perft::run(&Nim, common, depth, position, divide)
                }
                GameName::Reversi => {
                    no_rules(game, &rules)?;
                    perft::run(&Reversi, common, depth, position, divide)
                }
                _ => Err(not_built(game, "perft")),
            }
        }
        Command::Apply {
            game,
            position,
            moves,
            spawn,
        } => match game {
            GameName::Nim if spawn => Err(Error::Unsupported(
                "--spawn applies to 2584 and 2048 only".into(),
            )),
            GameName::Nim => apply::run(&Nim, common, position.as_deref(), &moves),
            _ => Err(not_built(game, "apply")),
        },
        Command::Bench(args) => bench::run(common, &args),
        Command::Play {
            game,
            p1,
            p2,
            games,
            position,
        } => {
            let position = position.as_deref();
            match game {
                GameName::Nim => play::play(&Nim, common, &p1, &p2, games, position),
                GameName::Reversi => play::play(&Reversi, common, &p1, &p2, games, position),
                _ => Err(not_built(game, "play")),
            }
        }
        Command::Match {
            game,
            p1,
            p2,
            games,
        } => match game {
            GameName::Nim => play::play_match(&Nim, common, &p1, &p2, games),
            GameName::Reversi => play::play_match(&Reversi, common, &p1, &p2, games),
            _ => Err(not_built(game, "match")),
        },
        Command::Solve { game, .. } => Err(not_built(game, "solve")),
        Command::Train { game, .. } => match game {
            GameName::Fib2584 | GameName::Twenty48 => Err(not_built(game, "train")),
            _ => Err(Error::Unsupported(format!(
                "train takes 2584 or 2048, not {}",
                game.name()
            ))),
        },
    }
}

/// The message for a game/subcommand pair that does not exist yet.
fn not_built(game: GameName, what: &str) -> Error {
    Error::Unsupported(format!(
        "`{what} {}` is not built yet in this version of cubesearch",
        game.name()
    ))
}

fn no_rules(game: GameName, rules: &Option<String>) -> Result<()> {
    match rules {
        Some(r) => Err(Error::parse(format!(
            "{} has no rule set to choose; got --rules {r}",
            game.name()
        ))),
        None => Ok(()),
    }
}
