//! One module per subcommand. A command that takes a game is a [`GameVisitor`]: the games'
//! registry makes the game the command line names and hands it to the command's method for its
//! kind, so nothing here names a game.

mod apply;
mod apply_stochastic;
mod boards;
mod engine;
mod info;
mod label;
mod launch;
mod matches;
mod perft;
mod play;
mod play_stochastic;
mod solve;
mod solve_exact;
mod train;

use crate::args::{Cli, Command, Common};
use crate::output::{emit, progress};
use cubesearch_core::{Error, Game, Result};
use cubesearch_games::registry::{
    self, GameOptions, GameVisitor, Kind, OnePlayerGame, TwoPlayerGame,
};
use cubesearch_players::effort::{self, Hardware, TreeSize, Work};

/// A position from the command line: none, or `start`, is the game's start; anything else is
/// read in the game's notation.
pub(crate) fn typed_position<G: Game>(game: &G, text: Option<&str>) -> Result<G::State> {
    match text {
        None => Ok(game.initial()),
        Some(t) if t.trim() == "start" => Ok(game.initial()),
        Some(t) => game.parse_position(t),
    }
}

/// [`typed_position`] where games are played from it (`play`, `match`): a finished one is
/// refused, as it would play games of no move.
pub(crate) fn playable_position<G: Game>(game: &G, text: Option<&str>) -> Result<G::State> {
    let state = typed_position(game, text)?;
    if game.outcome(&state) != cubesearch_core::Outcome::Ongoing {
        return Err(Error::parse(format!(
            "--position: the game is over there ({}): nothing is left to play",
            game.format_position(&state)
        )));
    }
    Ok(state)
}

/// Refuses `work` to `depth` plies below `state` (`what` names it: `perft checkers depth 30`)
/// when its estimate is past a day on `hardware`, unless `--force`. The tree is
/// estimated no deeper than the game can last.
pub(crate) fn refuse_endless<G: TwoPlayerGame>(
    common: &Common,
    game: &G,
    state: &G::State,
    depth: u32,
    work: Work,
    hardware: Hardware,
    what: &str,
) -> Result<()> {
    if common.force {
        return Ok(());
    }
    effort::refuse_endless(what, work, &tree_size(game, state, depth), hardware)
}

/// The CPU threads `--threads N` asks for: 0 is every core, and more than the cores is
/// refused (threads past the cores only contend: thousands of them made a solve unresponsive).
pub(crate) fn cpu_threads_flag(n: usize) -> Result<usize> {
    let cores = cubesearch_core::backend::cpu_threads();
    match n {
        0 => Ok(cores),
        n if n > cores => Err(Error::parse(format!(
            "--threads takes 0 (every core) to {cores}, this machine's cores; got {n}"
        ))),
        n => Ok(n),
    }
}

/// The size of `state`'s tree to `depth` plies, estimated no deeper than the game can last.
pub(crate) fn tree_size<G: TwoPlayerGame>(game: &G, state: &G::State, depth: u32) -> TreeSize {
    let plies = game
        .plies_left_at_most(state)
        .map_or(depth, |left| left.min(depth));
    TreeSize::estimate(game, state, plies)
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    let common = &cli.common;
    let no_options = GameOptions::default();
    match cli.command {
        Command::Info => info::run(common),
        Command::Launch {
            gpus,
            port,
            command,
        } => launch::run(common, gpus, port, &command),
        Command::Perft {
            game,
            depth,
            rules,
            position,
            divide,
        } => registry::visit(
            &game,
            &rules.options(),
            TwoPlayerOnly(perft::Perft {
                common,
                depth,
                position: position.as_deref(),
                divide,
            }),
        ),
        Command::Apply {
            game,
            position,
            moves,
            spawn,
            rules,
        } => registry::visit(
            &game,
            &rules.options(),
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
            &rules.options(),
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
            position,
            results,
            pdn,
            openings,
            rules,
        } => registry::visit(
            &game,
            &rules.options(),
            TwoPlayerOnly(matches::Match {
                common,
                p1: &p1,
                p2: &p2,
                games,
                position: position.as_deref(),
                results: results.as_deref(),
                pdn: pdn.as_deref(),
                openings: openings.as_deref(),
            }),
        ),
        Command::Engine {
            game,
            player,
            protocol,
            rules,
        } => registry::visit(
            &game,
            &rules.options(),
            engine::EngineCommand {
                common,
                player: player.as_deref(),
                protocol: &protocol,
            },
        ),
        Command::Bench(args) => bench(common, &args),
        Command::Solve {
            game,
            position,
            depth,
            strategy,
            threads,
            rules,
        } => registry::visit(
            &game,
            &rules.options(),
            TwoPlayerOnly(solve::Solve {
                common,
                position: &position,
                depth,
                threads,
                strategy,
            }),
        ),
        Command::Boards { game, args } => registry::visit(
            &game,
            &no_options,
            OnePlayerOnly(boards::Boards {
                common,
                args: &args,
            }),
        ),
        Command::Label { game, args } => registry::visit(
            &game,
            &no_options,
            label::Label {
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
    emit(common.json, || report.text, report.json);
    Ok(())
}

/// A command that takes two-player games only (`perft`, `match`, `solve`).
trait TwoPlayerCommand {
    /// The subcommand, for the error a one-player game gets.
    const WHAT: &'static str;
    /// Runs the command on `game`.
    fn run<G: TwoPlayerGame>(self, game: G) -> Result<()>;
}

/// A [`TwoPlayerCommand`] as a visitor: a one-player game is refused (the command line
/// offers none).
struct TwoPlayerOnly<C>(C);

impl<C: TwoPlayerCommand> GameVisitor for TwoPlayerOnly<C> {
    type Output = ();
    fn two_player<G: TwoPlayerGame>(self, game: G) -> Result<()> {
        self.0.run(game)
    }
    fn one_player<G: OnePlayerGame>(self, _: G) -> Result<()> {
        Err(Error::Unsupported(format!(
            "{} takes two-player games, not {}",
            C::WHAT,
            G::NAME
        )))
    }
}

/// A command that takes one-player stochastic games only (`train`, `boards`).
trait OnePlayerCommand {
    /// The subcommand, for the error a two-player game gets.
    const WHAT: &'static str;
    /// Runs the command on `game`.
    fn run<G: OnePlayerGame>(self, game: G) -> Result<()>;
}

/// A [`OnePlayerCommand`] as a visitor: a two-player game is refused, naming the games it takes
/// (`train takes 2584 or 2048, not nim`).
struct OnePlayerOnly<C>(C);

impl<C: OnePlayerCommand> GameVisitor for OnePlayerOnly<C> {
    type Output = ();
    fn two_player<G: TwoPlayerGame>(self, _: G) -> Result<()> {
        Err(Error::parse(format!(
            "{} takes {}, not {}",
            C::WHAT,
            registry::names(Kind::OnePlayer).join(" or "),
            <G as Game>::NAME
        )))
    }
    fn one_player<G: OnePlayerGame>(self, game: G) -> Result<()> {
        self.0.run(game)
    }
}
