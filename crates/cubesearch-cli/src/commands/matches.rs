//! `cubesearch match`: N games between two computer players through the library's match
//! runner ([`cubesearch_players::matches`]: colours, openings, results file, game records,
//! Elo). Here: the flags mapped to its options, the players built, progress and the summary.

use super::play::{check_records_file, player, refuse_endless_players, refuse_shared_files};
use super::TwoPlayerCommand;
use crate::args::Common;
use crate::output::{emit, progress};
use crate::signals::{self, stop_on_signals};
use cubesearch_core::{Error, Result};
use cubesearch_games::registry::{GameOptions, TwoPlayerGame};
use cubesearch_players::matches::{self, MatchOptions, Tally};
use cubesearch_players::openings::Openings;
use cubesearch_players::player::Player;
use cubesearch_players::spec::PlayerSpec;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `match`, for two-player games.
pub struct Match<'a> {
    pub common: &'a Common,
    pub p1: &'a str,
    pub p2: &'a str,
    /// Games to play (default with `openings`: each opening twice).
    pub games: Option<u32>,
    /// Every game's start position in the game's notation (default: the usual start).
    pub position: Option<&'a str>,
    /// Where each game's result is appended, and a stopped match resumed from.
    pub results: Option<&'a str>,
    /// Where every game is written in the game's record format, after each game.
    pub pdn: Option<&'a str>,
    /// A file of openings ([`Openings::read`]), each played twice, colours swapped.
    pub openings: Option<&'a str>,
}

impl TwoPlayerCommand for Match<'_> {
    const WHAT: &'static str = "match";
    fn run<G: TwoPlayerGame>(self, game: G) -> Result<()> {
        play_match(&game, &self)
    }
}

/// `match`: N games, colours alternating, W/L/D for p1.
fn play_match<G: TwoPlayerGame>(game: &G, args: &Match) -> Result<()> {
    let &Match {
        common,
        p1,
        p2,
        games,
        position,
        results,
        pdn,
        openings,
    } = args;
    let start = super::playable_position(game, position)?;
    let specs: [PlayerSpec<G>; 2] = [p1.parse()?, p2.parse()?];
    if specs.iter().any(|s| matches!(s, PlayerSpec::Human)) {
        return Err(Error::parse(
            "match is for computer players; use `play` to play yourself",
        ));
    }
    let openings = match openings {
        Some(path) => Openings::read(game, Path::new(path), start)?,
        None => Openings::at(start),
    };
    let count = openings.list().len();
    let games = match (games, args.openings) {
        (Some(n), _) => n,
        (None, Some(_)) => 2 * count as u32,
        (None, None) => {
            return Err(Error::parse(
                "match: give --games N (or --openings FILE, each opening played twice)",
            ))
        }
    };
    let inputs: Vec<_> = args
        .openings
        .iter()
        .map(|p| ("--openings", Path::new(p)))
        .collect();
    refuse_shared_files(&specs, &inputs, &[("--results", results), ("--pdn", pdn)])?;
    if let Some(path) = pdn {
        check_records_file::<G>(path)?;
    }
    let defaults = G::from_options(&GameOptions::default())?.options();
    let options = MatchOptions {
        games,
        openings: Some(openings),
        players: [p1.into(), p2.into()],
        rules: rules_of(&game.options()),
        unrecorded_rules: rules_of(&defaults),
        results: results.map(PathBuf::from),
        records: pdn.map(PathBuf::from),
        ..MatchOptions::default()
    };
    let mut runner = matches::Match::open(game, options).map_err(|e| match e {
        Error::Io { path, source } if source.kind() == std::io::ErrorKind::WouldBlock => {
            Error::parse(format!("--results {path} is in use by another match"))
        }
        e => e,
    })?;
    for opening in runner.openings() {
        refuse_endless_players(game, &specs, &opening.end(game), common)?;
    }
    // A resumed match seeds its players afresh, so it does not replay the games it holds.
    let resumed = runner.resumed();
    let seed = common.seed ^ (resumed as u32).wrapping_mul(0x9E37_79B9);
    let mut one = player(game, &specs[0], common, seed)?;
    let mut two = player(game, &specs[1], common, seed ^ 0xA5A5)?;
    let names = [
        Player::<G>::name(one.as_ref()),
        Player::<G>::name(two.as_ref()),
    ];
    // Only now: until the players have started, a signal ends the process as it would any.
    let stop = stop_on_signals();
    runner.set_stop(stop.clone());
    let bar = progress(
        common.json,
        games as u64,
        &format!("{} vs {}", names[0], names[1]),
    );
    bar.inc(resumed.min(games as usize) as u64);
    let started = Instant::now();
    let report = runner.play([one.as_mut(), two.as_mut()], |played| {
        let Tally {
            wins,
            losses,
            draws,
            ..
        } = played.tally;
        bar.inc(1);
        bar.set_message(format!(
            "{} vs {}: +{wins} −{losses} ={draws}",
            names[0], names[1]
        ));
        Ok(())
    });
    bar.finish_and_clear();
    let report = report?;
    if report.stopped {
        let played = report.tally.games();
        let kept = match results {
            Some(path) => format!(
                "the {played} games played are in {path}; the same command resumes the match"
            ),
            None => format!("{played} games were played (--results FILE keeps them to resume)"),
        };
        return Err(Error::Interrupted(format!(
            "interrupted by {}: {kept}",
            signals::name(&stop)
        )));
    }
    let seconds = started.elapsed().as_secs_f64();
    let Tally {
        wins,
        losses,
        draws,
        score,
        elo,
    } = report.tally;
    let elo_text = match elo {
        Some(e) => format!(
            "Elo {:+.0} (95 %: {:+.0} to {:+.0})",
            e.difference, e.low, e.high
        ),
        None => "Elo beyond measure (all won or all lost)".into(),
    };
    let from = match args.openings {
        Some(path) => format!("{count} openings from {path}, each twice"),
        None => "one start".into(),
    };
    emit(
        common.json,
        || {
            format!(
                "| p1 | p2 | games | p1 wins | p1 losses | draws | p1 score |\n|---|---|---:|---:|---:|---:|---:|\n| {} | {} | {games} | {wins} | {losses} | {draws} | {:.1}% |\n{elo_text} for p1; {seconds:.1} s, {from}, colours alternating, p1 first in odd-numbered games{}",
                names[0], names[1], 100.0 * score,
                pdn.map(|p| format!("; games in {p}")).unwrap_or_default()
            )
        },
        json!({ "game": G::NAME, "p1": names[0], "p2": names[1], "games": games, "wins": wins, "losses": losses, "draws": draws, "score": score,
                "elo": elo.map(|e| e.difference), "elo_low": elo.map(|e| e.low), "elo_high": elo.map(|e| e.high), "seconds": seconds,
                "openings": args.openings.map(|_| count), "pdn": pdn }),
    );
    Ok(())
}

/// The results file's record of `options`, or `None` for a game that has none.
fn rules_of(options: &GameOptions) -> Option<serde_json::Value> {
    (options.rules.is_some() || options.draw_plies.is_some())
        .then(|| json!({ "rules": options.rules, "draw_plies": options.draw_plies }))
}
