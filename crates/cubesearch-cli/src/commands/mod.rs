//! One module per subcommand; games are dispatched here, once.

mod apply;
mod apply_fib;
mod boards;
mod info;
mod perft;
mod play;
mod play_fib;
mod solve;
mod solve_reversi;
mod train;

use crate::args::{Cli, Command, Common, GameName};
use crate::output::{emit, progress};
use cubesearch_core::{Error, Result};
use cubesearch_games::checkers::{Checkers, Rules};
use cubesearch_games::{reversi::Reversi, Fib, Nim, Pow2};

/// Runs `$body` with `$game` bound to the two-player game named by `$name` (checkers under
/// `$rules`), or answers that the game is not built for `$what`.
macro_rules! with_board_game {
    ($name:expr, $rules:expr, $what:expr, |$game:ident| $body:expr) => {
        match $name {
            GameName::Nim => {
                no_rules($name, $rules)?;
                let $game = &Nim;
                $body
            }
            GameName::Reversi => {
                no_rules($name, $rules)?;
                let $game = &Reversi;
                $body
            }
            GameName::Checkers => {
                let $game = &checkers($rules)?;
                $body
            }
            other => Err(not_built(other, $what)),
        }
    };
}

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
            with_board_game!(game, rules.as_deref(), "perft", |g| {
                perft::run(g, common, depth, position.as_deref(), divide)
            })
        }
        Command::Apply {
            game,
            position,
            moves,
            spawn,
        } => match game {
            GameName::Fib2584 => apply_fib::run::<Fib>(common, position.as_deref(), &moves, spawn),
            GameName::Twenty48 => {
                apply_fib::run::<Pow2>(common, position.as_deref(), &moves, spawn)
            }
            _ if spawn => Err(Error::parse("--spawn applies to 2584 and 2048 only")),
            _ => with_board_game!(game, None, "apply", |g| apply::run(
                g,
                common,
                position.as_deref(),
                &moves
            )),
        },
        Command::Play {
            game,
            p1,
            p2,
            games,
            batch,
            position,
            rules,
            pdn,
        } => match game {
            GameName::Fib2584 => play_fib::run::<Fib>(common, &p1, &p2, games, batch),
            GameName::Twenty48 => play_fib::run::<Pow2>(common, &p1, &p2, games, batch),
            _ => with_board_game!(game, rules.as_deref(), "play", |g| {
                play::play(
                    g,
                    common,
                    &play::PlayArgs {
                        p1: &p1,
                        p2: &p2,
                        games,
                        position: position.as_deref(),
                        pdn: pdn.as_deref(),
                    },
                )
            }),
        },
        Command::Match {
            game,
            p1,
            p2,
            games,
        } => {
            with_board_game!(game, None, "match", |g| play::play_match(
                g, common, &p1, &p2, games
            ))
        }
        Command::Bench(args) => bench(common, &args),
        Command::Solve {
            game,
            position,
            depth,
            strategy,
            rules,
        } => {
            // Reversi to the end: the exact endgame solver rather than the evaluation's minimax.
            if game == GameName::Reversi && depth.is_none() && strategy.is_none() {
                no_rules(game, rules.as_deref())?;
                return solve_reversi::run(common, &position);
            }
            with_board_game!(game, rules.as_deref(), "solve", |g| {
                solve::run(g, common, &position, depth, strategy)
            })
        }
        Command::Boards { game, args } => match game {
            GameName::Fib2584 => boards::run::<Fib>(common, &args),
            GameName::Twenty48 => boards::run::<Pow2>(common, &args),
            _ => Err(Error::parse(format!(
                "boards takes 2584 or 2048, not {}",
                game.name()
            ))),
        },
        Command::Train { game, args } => match game {
            GameName::Fib2584 => train::run::<Fib>(common, &args),
            GameName::Twenty48 => train::run::<Pow2>(common, &args),
            _ => Err(Error::parse(format!(
                "train takes 2584 or 2048, not {}",
                game.name()
            ))),
        },
    }
}

/// `bench`: the laboratory runs the suite, and its report is printed here.
fn bench(common: &Common, args: &cubesearch_bench::BenchArgs) -> Result<()> {
    let lab = cubesearch_bench::Common {
        backend: common.backend,
        seed: common.seed,
        json: common.json,
        progress_bar: progress,
    };
    let report = cubesearch_bench::run(&lab, args)?;
    match report.json {
        Some(json) => emit(common.json, || report.text, json),
        None => println!("{}", report.text),
    }
    Ok(())
}

/// The message for a game/subcommand pair that does not exist yet.
fn not_built(game: GameName, what: &str) -> Error {
    Error::Unsupported(format!(
        "`{what} {}` is not built yet in this version of cubesearch",
        game.name()
    ))
}

/// Checkers under the named rule set (default: the seed's `longest`).
fn checkers(rules: Option<&str>) -> Result<Checkers> {
    Ok(Checkers::new(
        rules
            .map(str::parse::<Rules>)
            .transpose()?
            .unwrap_or_default(),
    ))
}

fn no_rules(game: GameName, rules: Option<&str>) -> Result<()> {
    match rules {
        Some(r) => Err(Error::parse(format!(
            "{} has no rule set to choose; got --rules {r}",
            game.name()
        ))),
        None => Ok(()),
    }
}
