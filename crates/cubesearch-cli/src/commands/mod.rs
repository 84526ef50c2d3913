//! One module per subcommand; games are dispatched here, once.

mod apply;
mod apply_fib;
mod bench;
mod info;
mod perft;
mod train;

use crate::args::{Cli, Command, GameName};
use cubesearch_core::{Error, Result};
use cubesearch_games::{Fib, Nim, Pow2};

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
            GameName::Fib2584 => apply_fib::run::<Fib>(common, position.as_deref(), &moves, spawn),
            GameName::Twenty48 => {
                apply_fib::run::<Pow2>(common, position.as_deref(), &moves, spawn)
            }
            _ => Err(not_built(game, "apply")),
        },
        Command::Bench(args) => bench::run(common, &args),
        Command::Play { game, .. } => Err(not_built(game, "play")),
        Command::Match { game, .. } => Err(not_built(game, "match")),
        Command::Solve { game, .. } => Err(not_built(game, "solve")),
        Command::Train {
            game,
            games,
            out,
            resume,
            threads,
            alpha,
            shapes,
            checkpoint_every,
            curve,
        } => match game {
            GameName::Fib2584 | GameName::Twenty48 => {
                let args = train::TrainArgs {
                    games,
                    out,
                    resume,
                    threads,
                    alpha,
                    shapes,
                    checkpoint_every,
                    curve,
                };
                if game == GameName::Fib2584 {
                    train::run::<Fib>(common, &args)
                } else {
                    train::run::<Pow2>(common, &args)
                }
            }
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
