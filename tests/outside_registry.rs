//! A game outside the registry, as a game author writes one (`examples/connect4.rs`), gets what
//! the command line's games get: its device rules held to its host rules in one call on every
//! backend, and a match through the library's runner, from openings, resumed from its results
//! file.

#[allow(dead_code)]
#[path = "../examples/connect4.rs"]
mod connect4;

use connect4::ConnectFour;
use cubesearch_core::{Backend, Game, Result};
use cubesearch_players::builtin::RandomPlayer;
use cubesearch_players::{Match, MatchOptions, Openings, Player};
use cubesearch_search::mcts::{Budget, Mcts, MctsConfig};
use cubesearch_search::testing::{assert_two_player_rules_match, random_positions};
use cubesearch_search::CpuExecutor;

#[test]
fn device_rules_equal_the_host_rules_in_one_call() {
    let positions = random_positions(&ConnectFour, 200, 30, 4);
    let checked =
        assert_two_player_rules_match(&ConnectFour, &positions, &[Backend::Wgpu, Backend::Cuda]);
    assert!(checked.contains(&Backend::Wgpu), "{checked:?}");
}

/// MCTS of a fixed playout budget on the CPU: the same moves on every run.
struct Searcher {
    exec: CpuExecutor,
    seed: u32,
}

impl Player<ConnectFour> for Searcher {
    fn name(&self) -> String {
        "mcts".into()
    }
    fn choose(&mut self, game: &ConnectFour, state: &connect4::Position) -> Result<u8> {
        self.seed += 1;
        let config = MctsConfig {
            budget: Budget::Playouts(600),
            seed: self.seed,
            ..MctsConfig::default()
        };
        let (mv, _) = Mcts::new(*state, config).search(&mut self.exec, game)?;
        Ok(mv.expect("the game goes on"))
    }
}

#[test]
fn a_match_is_played_from_openings_and_resumed_through_the_runner() {
    let dir = tempfile::tempdir().unwrap();
    let openings = dir.path().join("openings.txt");
    // Two openings: the centre column, and the two edges.
    std::fs::write(&openings, "4\n1 7\n").unwrap();
    let results = dir.path().join("results.jsonl");
    let options = |games: u32| MatchOptions {
        games,
        openings: Some(Openings::read(&ConnectFour, &openings, ConnectFour.initial()).unwrap()),
        players: ["mcts".into(), "random".into()],
        results: Some(results.clone()),
        ..MatchOptions::default()
    };
    let searcher = || Searcher {
        exec: CpuExecutor::new(1).unwrap(),
        seed: 0,
    };
    let mut heard = Vec::new();
    let first = Match::open(&ConnectFour, options(2)).unwrap();
    let report = first
        .play([&mut searcher(), &mut RandomPlayer::new(1)], |game| {
            heard.push((game.index, game.opening, game.p1_first));
            Ok(())
        })
        .unwrap();
    assert_eq!(heard, [(0, 0, true), (1, 0, false)]);
    assert_eq!((report.tally.games(), report.resumed), (2, 0));
    // The same match, two games more: the file's two are replayed, and the next two play the
    // second opening.
    let resumed = Match::open(&ConnectFour, options(4)).unwrap();
    assert_eq!(resumed.resumed(), 2);
    let report = resumed
        .play([&mut searcher(), &mut RandomPlayer::new(2)], |game| {
            heard.push((game.index, game.opening, game.p1_first));
            Ok(())
        })
        .unwrap();
    assert_eq!(heard[2..], [(2, 1, true), (3, 1, false)]);
    assert_eq!(report.names, ["mcts", "random"]);
    assert_eq!(report.tally.games(), 4);
    // 600 playouts a move against random moves: a sweep.
    assert_eq!(report.tally.wins, 4, "{:?}", report.tally);
    assert!(report.tally.elo.is_none(), "a sweep has no finite Elo");
    let lines = std::fs::read_to_string(&results).unwrap().lines().count();
    assert_eq!(lines, 5, "a header and four games");
}
