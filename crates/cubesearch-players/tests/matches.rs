//! The match runner on a game of its own (a pile of stones, outside any registry): openings
//! and colours paired as documented, records written with the colours right, a stop that
//! drops the game in play, and a results file that resumes the same match and refuses others.

use cubesearch_core::{Error, Game, Outcome, Result, Stop};
use cubesearch_players::{play_match, Match, MatchOptions, Openings, Player};
use serde_json::json;
use std::path::Path;

/// Take one or two stones; who takes the last one wins.
struct Pile;

impl Game for Pile {
    type State = u32;
    type Move = u32;
    const NAME: &'static str = "pile";
    const STATE_WORDS: usize = 1;
    fn initial(&self) -> u32 {
        10
    }
    fn legal_moves(&self, s: &u32, out: &mut Vec<u32>) {
        out.extend((1..=2).filter(|t| t <= s))
    }
    fn apply(&self, s: &u32, take: u32) -> u32 {
        s - take
    }
    fn outcome(&self, s: &u32) -> Outcome {
        match s {
            0 => Outcome::Loss,
            _ => Outcome::Ongoing,
        }
    }
    fn encode(&self, s: &u32, out: &mut [u32]) {
        out[0] = *s
    }
    fn decode(&self, words: &[u32]) -> u32 {
        words[0]
    }
    fn parse_position(&self, text: &str) -> Result<u32> {
        text.trim().parse().map_err(|_| Error::parse("a pile"))
    }
    fn format_position(&self, s: &u32) -> String {
        s.to_string()
    }
    fn format_move(&self, _: &u32, take: u32) -> String {
        take.to_string()
    }
    fn game_record(
        &self,
        start: &u32,
        moves: &[u32],
        result: i32,
        names: [&str; 2],
    ) -> Option<String> {
        Some(format!(
            "{} v {} from {start}: {moves:?} {result}",
            names[0], names[1]
        ))
    }
}

/// Perfect play: leave a multiple of three. `stop_at`: raises `stop` at its that-many-th move.
struct Perfect {
    name: &'static str,
    moves: usize,
    stop_at: Option<(usize, Stop)>,
}

fn perfect(name: &'static str) -> Perfect {
    Perfect {
        name,
        moves: 0,
        stop_at: None,
    }
}

impl Player<Pile> for Perfect {
    fn name(&self) -> String {
        self.name.into()
    }
    fn choose(&mut self, _: &Pile, s: &u32) -> Result<u32> {
        self.moves += 1;
        if let Some((at, stop)) = &self.stop_at {
            if self.moves == *at {
                stop.request(1);
            }
        }
        Ok(match s % 3 {
            0 => 1,
            r => r,
        })
    }
}

/// Two openings from 10 stones: 9 left (lost for the side to move) and 8 (won).
fn openings(dir: &Path) -> Openings<Pile> {
    let path = dir.join("openings.txt");
    std::fs::write(&path, "# one stone, then two\n1\n2\n").unwrap();
    Openings::read(&Pile, &path, Pile.initial()).unwrap()
}

#[test]
fn openings_are_played_twice_with_colours_swapped_and_recorded_as_played() {
    let dir = tempfile::tempdir().unwrap();
    let records = dir.path().join("games.txt");
    let options = MatchOptions {
        games: 6,
        openings: Some(openings(dir.path())),
        records: Some(records.clone()),
        ..MatchOptions::default()
    };
    let mut heard = Vec::new();
    let (mut a, mut b) = (perfect("a"), perfect("b"));
    let report = Match::open(&Pile, options)
        .unwrap()
        .play([&mut a, &mut b], |g| {
            heard.push((g.index, g.opening, g.p1_first, g.for_p1, g.moves.len()));
            Ok(())
        })
        .unwrap();
    // Perfect play: whoever moves first at 9 loses, at 8 wins; game 4 comes back to opening 0.
    // Every game's moves include its opening's one move.
    assert_eq!(
        heard,
        [
            (0, 0, true, -1, 7),
            (1, 0, false, 1, 7),
            (2, 1, true, 1, 6),
            (3, 1, false, -1, 6),
            (4, 0, true, -1, 7),
            (5, 0, false, 1, 7),
        ]
    );
    assert_eq!(report.names, ["a", "b"]);
    assert_eq!(
        (report.tally.wins, report.tally.losses, report.tally.draws),
        (3, 3, 0)
    );
    assert!(report.tally.elo.unwrap().difference.abs() < 1e-9);
    assert!(!report.stopped);
    // A record starts at the opening's start: after an opening of one move, the player second
    // after it moved first from the start, and the result is that player's (who won both).
    let text = std::fs::read_to_string(&records).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 6);
    assert_eq!(lines[0], "b v a from 10: [1, 1, 2, 1, 2, 1, 2] 1");
    assert_eq!(lines[1], "a v b from 10: [1, 1, 2, 1, 2, 1, 2] 1");
}

#[test]
fn a_stopped_match_keeps_whole_games_and_resumes_as_the_same_match() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("r.jsonl");
    let options = |games: u32, stop: &Stop| MatchOptions {
        games,
        openings: Some(openings(dir.path())),
        players: ["perfect".into(), "perfect, stopping".into()],
        rules: Some(json!({ "variant": "pile" })),
        results: Some(results.clone()),
        stop: stop.clone(),
        ..MatchOptions::default()
    };
    // p2 raises the stop in the middle of game 2 (its 7th move: it made 3 in each game before): games 0 and 1 are kept.
    let stop = Stop::new();
    let mut b = perfect("b");
    b.stop_at = Some((7, stop.clone()));
    let report = play_match(&Pile, [&mut perfect("a"), &mut b], options(4, &stop)).unwrap();
    assert!(report.stopped);
    assert_eq!((report.tally.games(), report.resumed), (2, 0));
    let lines = || std::fs::read_to_string(&results).unwrap().lines().count();
    assert_eq!(lines(), 3, "a header and two games");
    // The same match goes on from game 2 and ends as an unstopped one would.
    let fresh = Stop::new();
    let mut players = (perfect("a"), perfect("b"));
    let resumed = Match::open(&Pile, options(4, &fresh)).unwrap();
    assert_eq!(resumed.resumed(), 2);
    let report = resumed
        .play([&mut players.0, &mut players.1], |_| Ok(()))
        .unwrap();
    assert_eq!(
        (report.tally.games(), report.tally.wins, report.resumed),
        (4, 2, 2)
    );
    assert_eq!(lines(), 5);
    // While a match holds the file, another is refused at once.
    let held = Match::open(&Pile, options(6, &fresh)).unwrap();
    match Match::open(&Pile, options(6, &fresh)) {
        Err(Error::Io { source, .. }) => {
            assert_eq!(source.kind(), std::io::ErrorKind::WouldBlock)
        }
        other => panic!("opened twice: {:?}", other.err()),
    }
    drop(held);
    // Other players or other rules: another match.
    let others = MatchOptions {
        players: ["a".into(), "b".into()],
        ..options(4, &fresh)
    };
    let refused = |options| {
        Match::open(&Pile, options)
            .err()
            .expect("refused")
            .to_string()
    };
    assert!(refused(others).contains("holds another match"));
    let rules = MatchOptions {
        rules: Some(json!({ "variant": "other" })),
        ..options(4, &fresh)
    };
    assert!(refused(rules).contains("under other rules"));
    // A result its moves do not give is caught on resume, naming its line.
    let text = std::fs::read_to_string(&results).unwrap();
    let mut lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    lines[2]["result"] = json!(-lines[2]["result"].as_i64().unwrap());
    let tampered: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    std::fs::write(&results, tampered.join("\n") + "\n").unwrap();
    assert!(refused(options(4, &fresh)).contains("line 3: game 1 records result"));
}

#[test]
fn a_match_that_never_starts_leaves_no_results_file() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("r.jsonl");
    let options = MatchOptions::<Pile> {
        games: 2,
        results: Some(results.clone()),
        ..MatchOptions::default()
    };
    let opened = Match::open(&Pile, options).unwrap();
    assert!(results.exists(), "locked while open");
    drop(opened);
    assert!(!results.exists());
    // A start where the game is over is refused.
    let over = MatchOptions {
        games: 2,
        openings: Some(Openings::at(0)),
        ..MatchOptions::default()
    };
    let err = Match::open(&Pile, over).err().expect("refused").to_string();
    assert!(err.contains("the game is over there"), "{err}");
}
