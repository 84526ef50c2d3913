//! One module per subcommand. A command that takes a game is a [`GameVisitor`]: the games'
//! registry makes the game the command line names and hands it to the command's method for its
//! kind, so nothing here names a game.

mod apply;
mod apply_stochastic;
mod boards;
mod info;
mod perft;
mod play;
mod play_stochastic;
mod solve;
mod solve_exact;
mod train;

use crate::args::{Cli, Command, Common};
use crate::output::{emit, progress};
use cubesearch_core::{Error, Result};
use cubesearch_games::registry::{self, GameOptions, Kind};

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    let common = &cli.common;
    let no_options = GameOptions::default();
    match cli.command {
        Command::Info => info::run(common),
        Command::Perft {
            game,
            depth,
            rules,
            position,
            divide,
        } => registry::visit(
            &game,
            &GameOptions {
                rules: rules.as_deref(),
            },
            perft::Perft {
                common,
                depth,
                position: position.as_deref(),
                divide,
            },
        ),
        Command::Apply {
            game,
            position,
            moves,
            spawn,
        } => registry::visit(
            &game,
            &no_options,
            apply::Apply {
                common,
                position: position.as_deref(),
                moves: &moves,
                spawn,
            },
        ),
        Command::Play {
            game,
            p1,
            p2,
            games,
            batch,
            position,
            rules,
            pdn,
        } => registry::visit(
            &game,
            &GameOptions {
                rules: rules.as_deref(),
            },
            play::Play {
                common,
                p1: &p1,
                p2: &p2,
                games,
                batch,
                position: position.as_deref(),
                pdn: pdn.as_deref(),
            },
        ),
        Command::Match {
            game,
            p1,
            p2,
            games,
        } => registry::visit(
            &game,
            &no_options,
            play::Match {
                common,
                p1: &p1,
                p2: &p2,
                games,
            },
        ),
        Command::Bench(args) => bench(common, &args),
        Command::Solve {
            game,
            position,
            depth,
            strategy,
            rules,
        } => registry::visit(
            &game,
            &GameOptions {
                rules: rules.as_deref(),
            },
            solve::Solve {
                common,
                position: &position,
                depth,
                strategy,
            },
        ),
        Command::Boards { game, args } => registry::visit(
            &game,
            &no_options,
            boards::Boards {
                common,
                args: &args,
            },
        ),
        Command::Train { game, args } => registry::visit(
            &game,
            &no_options,
            train::Train {
                common,
                args: &args,
            },
        ),
    }?;
    Ok(())
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
fn not_built(what: &str, game: &str) -> Error {
    Error::Unsupported(format!(
        "`{what} {game}` is not built yet in this version of cubesearch"
    ))
}

/// The error of a command for one-player stochastic games given another game:
/// `train takes 2584 or 2048, not nim`.
fn takes_one_player(what: &str, game: &str) -> Error {
    Error::parse(format!(
        "{what} takes {}, not {game}",
        registry::names(Kind::OnePlayer).join(" or ")
    ))
}
