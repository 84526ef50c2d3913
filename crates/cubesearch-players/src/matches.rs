//! A match between two players: games from one position or from openings, colours
//! alternating, a results file to resume from, the games written in the game's record format,
//! and the first player's score with its Elo difference ([`play_match`], or [`Match`] when
//! something must happen between reading the results file and starting the players).
//!
//! ```text
//! game 0: opening 0, p1 first      game 1: opening 0, p2 first
//! game 2: opening 1, p1 first      game 3: opening 1, p2 first   …
//! ```

use crate::openings::{Opening, Openings};
use crate::player::{play_game, MoveLimits, Player};
use crate::results_file::{replay, ResultsFile};
use cubesearch_core::game::write_moves;
use cubesearch_core::io::{check_output, write_atomically};
use cubesearch_core::{Error, Game, Outcome, Result, Stop};
use serde_json::{json, Value};
use std::path::PathBuf;

/// What a match plays and where it keeps its games.
pub struct MatchOptions<G: Game> {
    /// Games to play in all, those a results file already holds included.
    pub games: u32,
    /// Where the games start (opening k in games 2k and 2k + 1); `None`: the game's start.
    pub openings: Option<Openings<G>>,
    /// How the results file names p1 and p2 (a command line gives their specs): a file that
    /// names others holds another match. Default `p1`, `p2`.
    pub players: [String; 2],
    /// What else shapes every game (a rule set, a draw rule), recorded in the results file: a
    /// file of other rules holds this match under other rules. `None`: the game has no options.
    pub rules: Option<Value>,
    /// The rules a results file without a rules record was played under (files written before
    /// rules were recorded: the game's defaults).
    pub unrecorded_rules: Option<Value>,
    /// Where each game's result is appended, and a stopped match resumed from (JSON lines).
    pub results: Option<PathBuf>,
    /// Where every game is written in the game's record format ([`Game::game_record`]: PDN,
    /// GGF), the file rewritten after each game.
    pub records: Option<PathBuf>,
    /// Raised, the match ends between moves: the game in play is dropped, those before it kept.
    pub stop: Stop,
}

impl<G: Game> Default for MatchOptions<G> {
    fn default() -> Self {
        Self {
            games: 0,
            openings: None,
            players: ["p1".into(), "p2".into()],
            rules: None,
            unrecorded_rules: None,
            results: None,
            records: None,
            stop: Stop::new(),
        }
    }
}

/// A match's results for p1 (+1, 0, −1 a game): counts, score (draws half), and the Elo
/// difference with its 95 % interval, from the score's standard error over the games.
#[derive(Clone, Debug, PartialEq)]
pub struct Tally {
    /// Games won by p1.
    pub wins: u32,
    /// Games lost by p1.
    pub losses: u32,
    /// Games drawn.
    pub draws: u32,
    /// p1's points a game, a draw half a point.
    pub score: f64,
    /// p1's Elo difference; `None` when every game was won or every game lost.
    pub elo: Option<Elo>,
}

/// An Elo difference and its 95 % interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Elo {
    /// The difference the score gives.
    pub difference: f64,
    /// The interval's low end.
    pub low: f64,
    /// The interval's high end.
    pub high: f64,
}

impl Tally {
    /// The tally of `results`, each +1 (p1 won), 0 or −1.
    pub fn of(results: &[i32]) -> Tally {
        let count = |r: i32| results.iter().filter(|&&x| x == r).count() as u32;
        let (wins, losses, draws) = (count(1), count(-1), count(0));
        let n = results.len().max(1) as f64;
        let points = |r: i32| (r + 1) as f64 / 2.0;
        let score = results.iter().map(|&r| points(r)).sum::<f64>() / n;
        let spread = results
            .iter()
            .map(|&r| (points(r) - score).powi(2))
            .sum::<f64>()
            / n;
        let error = 1.96 * (spread / n).sqrt();
        let elo = |s: f64| -400.0 * (1.0 / s - 1.0).log10();
        let clamp = |s: f64| s.clamp(1e-4, 1.0 - 1e-4);
        let elo = (score > 0.0 && score < 1.0).then(|| Elo {
            difference: elo(score),
            low: elo(clamp(score - error)),
            high: elo(clamp(score + error)),
        });
        Tally {
            wins,
            losses,
            draws,
            score,
            elo,
        }
    }

    /// Games counted.
    pub fn games(&self) -> u32 {
        self.wins + self.losses + self.draws
    }
}

/// A game of the match as it ends, for a progress report.
pub struct MatchGame<'a, G: Game> {
    /// Its number in the match, from 0.
    pub index: usize,
    /// The opening it played.
    pub opening: usize,
    /// Whether p1 moved first once the opening was played.
    pub p1_first: bool,
    /// Every move from the opening's start, the opening's included.
    pub moves: &'a [G::Move],
    /// +1 p1 won, −1 lost, 0 a draw.
    pub for_p1: i32,
    /// The match so far, this game included.
    pub tally: &'a Tally,
}

/// How a match went.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchReport {
    /// The players' names ([`Player::name`]), p1 first.
    pub names: [String; 2],
    /// p1's results over the games played, a resumed match's earlier games included (at most
    /// the games asked for).
    pub tally: Tally,
    /// Games the results file held when the match began.
    pub resumed: usize,
    /// Whether the stop ended the match before its last game.
    pub stopped: bool,
}

/// A match whose results file is read, locked and replayed, ready for its players.
pub struct Match<'g, G: Game> {
    game: &'g G,
    games: u32,
    openings: Openings<G>,
    header: Value,
    file: Option<ResultsFile>,
    /// Each game the results file holds: p1's result, and its moves from the opening's start
    /// (`None` for a game kept without them).
    past: Vec<(i32, Option<Vec<G::Move>>)>,
    records: Option<PathBuf>,
    stop: Stop,
}

impl<'g, G: Game> Match<'g, G> {
    /// Checks `options` and reads the results file before any player starts: a file of another
    /// match is refused, and each game it holds is replayed under this match's rules and held
    /// to its recorded result.
    pub fn open(game: &'g G, options: MatchOptions<G>) -> Result<Self> {
        let MatchOptions {
            games,
            openings,
            players,
            rules,
            unrecorded_rules,
            results,
            records,
            stop,
        } = options;
        let openings = openings.unwrap_or_else(|| Openings::at(game.initial()));
        for (k, opening) in openings.list().iter().enumerate() {
            let end = opening.end(game);
            if game.outcome(&end) != Outcome::Ongoing {
                return Err(Error::parse(format!(
                    "opening {k}: the game is over there ({}): nothing is left to play",
                    game.format_position(&end)
                )));
            }
        }
        if let Some(path) = &records {
            if game
                .game_record(&game.initial(), &[], 0, ["", ""])
                .is_none()
            {
                return Err(Error::Unsupported(format!(
                    "{} has no game record format",
                    G::NAME
                )));
            }
            check_output(path)?;
        }
        let [p1, p2] = &players;
        let mut header = json!({ "game": G::NAME, "p1": p1, "p2": p2,
                                 "position": game.format_position(openings.from()) });
        // The rules shape every game: a resume under other rules would mix two matches.
        if let Some(rules) = rules {
            header["rules"] = rules;
        }
        if let Some(digest) = openings.digest() {
            header["openings"] = json!({ "count": openings.list().len(), "digest": digest });
        }
        let mut file = results
            .map(|path| ResultsFile::read(&path, &header, unrecorded_rules.as_ref()))
            .transpose()?;
        let mut past = Vec::new();
        if let Some(file) = &mut file {
            let bad = |why| Error::Data {
                path: file.path().display().to_string(),
                why,
            };
            for (g, played) in file.past.iter().enumerate() {
                let moves = replay(game, &openings, g, played).map_err(bad)?;
                if records.is_some() && moves.is_none() {
                    return Err(bad(format!(
                        "keeps no moves for game {g}, so its game record cannot be written; resume without game records, or start a new results file"
                    )));
                }
                past.push((played.for_p1, moves));
            }
        }
        Ok(Self {
            game,
            games,
            openings,
            header,
            file,
            past,
            records,
            stop,
        })
    }

    /// Games the results file holds (a resumed match seeds its players afresh from this, so
    /// that they do not replay the games it has).
    pub fn resumed(&self) -> usize {
        self.past.len()
    }

    /// Replaces the options' stop: for one made once the players have started (a command
    /// line's signal handlers, installed after the players' start so that a signal during it
    /// still ends the process).
    pub fn set_stop(&mut self, stop: Stop) {
        self.stop = stop;
    }

    /// The openings the games start from.
    pub fn openings(&self) -> &[Opening<G>] {
        self.openings.list()
    }

    /// Plays the games left, `players[0]` as p1; `on_game` hears each game as it ends (an
    /// error from it ends the match). The results file gets its header now, so a match whose
    /// players fail to start leaves none.
    pub fn play<'p>(
        mut self,
        players: [&mut (dyn Player<G> + 'p); 2],
        mut on_game: impl FnMut(&MatchGame<G>) -> Result<()>,
    ) -> Result<MatchReport> {
        let [one, two] = players;
        let names = [one.name(), two.name()];
        // A stop ends a move in progress too (a search answers at once, a wait for an external
        // engine ends), not only the match between moves.
        for each in [&mut *one, &mut *two] {
            each.set_limits(&MoveLimits {
                stop: Some(self.stop.clone()),
                ..MoveLimits::default()
            });
        }
        if let Some(file) = &mut self.file {
            file.begin(&self.header)?;
        }
        let game = self.game;
        let openings = &self.openings;
        // The record of game `g`, `moves` from its opening's start.
        let record = |g: usize, moves: &[G::Move], for_p1: i32| {
            let (k, p1_first) = openings.pairing(g);
            let opening = &openings.list()[k];
            // Who moves first from the opening's start: p1 if it also moves first after an even
            // opening, or second after an odd one.
            let p1_starts = p1_first == opening.moves.len().is_multiple_of(2);
            let (players, result) = match p1_starts {
                true => ([names[0].as_str(), names[1].as_str()], for_p1),
                false => ([names[1].as_str(), names[0].as_str()], -for_p1),
            };
            game.game_record(&opening.start, moves, result, players)
                .unwrap_or_default()
        };
        let mut records = Vec::new();
        if self.records.is_some() {
            for (g, (for_p1, moves)) in self.past.iter().enumerate() {
                records.push(record(g, moves.as_deref().unwrap_or_default(), *for_p1));
            }
        }
        let mut results: Vec<i32> = self.past.iter().map(|(for_p1, _)| *for_p1).collect();
        let stop = &self.stop;
        let stopped = || match stop.is_raised() {
            true => Err(Error::Interrupted(String::new())),
            false => Ok(()),
        };
        let mut was_stopped = false;
        for g in results.len()..self.games as usize {
            let (k, p1_first) = openings.pairing(g);
            let opening = &openings.list()[k];
            let order = match p1_first {
                true => [&mut *one, &mut *two],
                false => [&mut *two, &mut *one],
            };
            let played = stopped()
                .and_then(|()| play_game(game, opening.end(game), order, |_, _, _| stopped()));
            let played = match played {
                // A game cut short by the stop is dropped; the games before it are all kept.
                Err(_) if stop.is_raised() => {
                    was_stopped = true;
                    break;
                }
                other => other?,
            };
            let for_p1 = if p1_first {
                played.result
            } else {
                -played.result
            };
            let mut moves = opening.moves.clone();
            moves.extend(&played.moves);
            if let Some(file) = &mut self.file {
                let line = json!({ "index": g, "result": for_p1, "plies": played.moves.len(),
                                   "opening": k, "moves": write_moves(game, &opening.start, &moves) });
                file.append(&line)?;
            }
            if let Some(path) = &self.records {
                records.push(record(g, &moves, for_p1));
                write_records(path, &records)?;
            }
            results.push(for_p1);
            on_game(&MatchGame {
                index: g,
                opening: k,
                p1_first,
                moves: &moves,
                for_p1,
                tally: &Tally::of(&results),
            })?;
        }
        results.truncate(self.games as usize);
        Ok(MatchReport {
            names,
            tally: Tally::of(&results),
            resumed: self.past.len(),
            stopped: was_stopped,
        })
    }
}

/// A match between `players` (p1 first) as `options` say: [`Match::open`], then
/// [`Match::play`] with no progress report.
pub fn play_match<'p, G: Game>(
    game: &G,
    players: [&mut (dyn Player<G> + 'p); 2],
    options: MatchOptions<G>,
) -> Result<MatchReport> {
    Match::open(game, options)?.play(players, |_| Ok(()))
}

/// Writes `records` to `path` in one piece (a temporary file renamed over it).
fn write_records(path: &std::path::Path, records: &[String]) -> Result<()> {
    let mut text = records.join("\n");
    if !text.ends_with('\n') {
        text.push('\n');
    }
    write_atomically(path, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::Tally;

    #[test]
    fn a_tally_scores_draws_half_and_brackets_the_elo() {
        // 6 wins, 2 losses, 2 draws: 70 %, Elo −400·log10(1/0.7 − 1) ≈ +147.
        let mut results = vec![1; 6];
        results.extend([-1, -1, 0, 0]);
        let t = Tally::of(&results);
        assert_eq!((t.wins, t.losses, t.draws, t.games()), (6, 2, 2, 10));
        assert!((t.score - 0.7).abs() < 1e-12);
        let elo = t.elo.unwrap();
        assert!((elo.difference - 147.2).abs() < 0.1, "{elo:?}");
        assert!(elo.low < elo.difference && elo.difference < elo.high && elo.low < 0.0);
        // An even match sits at 0; a clean sweep has no finite Elo.
        assert!(Tally::of(&[1, -1, 0, 0]).elo.unwrap().difference.abs() < 1e-9);
        assert!(Tally::of(&[1, 1, 1]).elo.is_none());
    }
}
