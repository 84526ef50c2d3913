//! Player specs of two-player games read into typed values, and their errors (the generic
//! players on Nim and Reversi, and Reversi's own players).

use cubesearch::games::{Nim, Reversi};
use cubesearch::mcts::Budget;
use cubesearch::minimax::Strategy;
use cubesearch::players::Limit;
use cubesearch::players::NamedPlayers;
use cubesearch::players::{Exec, PlayerSpec};
use cubesearch_games::reversi::nboard::NBoardSpec;
use cubesearch_games::reversi::seed_player::{Level, SeedSpec};
use cubesearch_games::reversi::ReversiPlayer;
use cubesearch_players::spec::FlatSpec;
use std::time::Duration;

fn refused<G: NamedPlayers>(text: &str) -> String {
    text.parse::<PlayerSpec<G>>().expect_err(text).to_string()
}

#[test]
fn options_are_read_into_typed_values_and_the_text_is_kept() {
    let text = "mcts:playouts=500, c=0.5,trees=200,exec=cpu";
    let Ok(PlayerSpec::<Nim>::Mcts(mcts)) = text.parse() else {
        panic!("{text}");
    };
    assert_eq!(
        (
            mcts.budget,
            mcts.c,
            mcts.trees,
            mcts.exec,
            mcts.text.as_str()
        ),
        (Budget::Playouts(500), 0.5, Some(200), Exec::Cpu, text)
    );
    let Ok(PlayerSpec::<Nim>::Flat(flat)) = "flat:k=1,time=1.5s".parse() else {
        panic!("flat");
    };
    assert_eq!(
        flat,
        FlatSpec {
            k: 1,
            time: Some(Duration::from_millis(1500)),
            exec: Exec::Gpu
        }
    );
    // The strategy defaults to the game's.
    let Ok(PlayerSpec::<Reversi>::AlphaBeta(ab)) = "alphabeta:time=50ms".parse() else {
        panic!("alphabeta");
    };
    assert_eq!(
        (ab.limit, ab.exec, ab.strategy),
        (
            Limit::Time(Duration::from_millis(50)),
            Exec::Cpu,
            Strategy::Frontier
        )
    );
    let Ok(PlayerSpec::<Nim>::AlphaBeta(ab)) = "alphabeta:depth=1".parse() else {
        panic!("alphabeta");
    };
    assert_eq!((ab.limit, ab.strategy), (Limit::Depth(1), Strategy::Split));
    assert!(matches!(" human ".parse(), Ok(PlayerSpec::<Nim>::Human)));
    assert!(matches!(
        "medium:exec=gpu".parse(),
        Ok(PlayerSpec::<Reversi>::Named(ReversiPlayer::Seed(
            SeedSpec {
                level: Level::Medium,
                exec: Exec::Gpu
            }
        )))
    ));
    // An outside engine's command line is taken whole after `cmd=`, commas and `=` included.
    let text = "nboard:depth=4,cmd=edax -n 2 --x=a,b";
    let Ok(PlayerSpec::<Reversi>::Named(ReversiPlayer::NBoard(nboard))) = text.parse() else {
        panic!("{text}");
    };
    assert_eq!(
        nboard,
        NBoardSpec {
            command: "edax -n 2 --x=a,b".into(),
            depth: Some(4),
            waits: Default::default(),
            text: text.into()
        }
    );
}

#[test]
fn errors_name_the_spec_and_the_valid_choices() {
    let cases = [
        ("flat:k", "bad player 'flat:k': expected key=value, got 'k'"),
        ("random:x=1", "unknown option 'x': random takes no options"),
        (
            "mcts:depth=3",
            "unknown option 'depth': mcts takes time, playouts",
        ),
        ("mcts:leaf=many", "leaf must be a number, got 'many'"),
        ("flat:time=soon", "bad duration 'soon'"),
        (
            "alphabeta:depth=3,exec=tpu",
            "exec is cpu or gpu, got 'tpu'",
        ),
        ("alphabeta:exec=gpu", "depth=D or time=T is required"),
        (
            "alphabeta:depth=3,strategy=v9",
            "unknown strategy 'v9': cpu, cpu-split, v1, v2, v4, split or frontier",
        ),
    ];
    for (text, says) in cases {
        let err = refused::<Nim>(text);
        assert!(err.contains(says), "{text}: {err}");
    }
    assert!(refused::<Reversi>("easy:exec=tpu").contains("exec is cpu or gpu"));
    assert!(refused::<Reversi>("easy:level=2").contains("easy takes exec"));
    assert!(refused::<Reversi>("hard").contains("easy, medium"));
    assert!(!refused::<Nim>("easy").contains("medium"));
    for (text, says) in [
        (
            "nboard:",
            "give the engine's command line: nboard:CMD or nboard:depth=…,handshake=…,grace=…,cmd=CMD",
        ),
        ("nboard:depth=0,cmd=x", "depth goes from 1 to 60, got 0"),
        (
            "nboard:time=1s,cmd=x",
            "unknown option 'time': nboard takes depth",
        ),
        (
            "ugi:depth=3,cmd=x",
            "unknown option 'depth': ugi takes time",
        ),
        ("ugi:time=1s,time=2s,cmd=x", "time is given twice"),
    ] {
        let err = refused::<Reversi>(text);
        assert!(err.contains(says), "{text}: {err}");
    }
}

/// Every number is range-checked with an error that names the range; a key comes once.
#[test]
fn spec_values_out_of_range_are_refused() {
    for (text, says) in [
        ("mcts:playouts=0", "playouts goes from 1 to"),
        ("mcts:time=1s,c=-5", "c goes from 0 to 100, got -5"),
        ("mcts:time=1s,c=nan", "c goes from 0 to 100, got nan"),
        ("mcts:time=1s,c=inf", "c goes from 0 to 100"),
        ("mcts:time=1s,leaf=0", "leaf goes from 1 to"),
        ("mcts:time=1s,trees=0", "trees goes from 1 to 256"),
        ("mcts:time=1s,batch=0", "batch goes from 1 to"),
        ("mcts:time=1s,time=2s", "time is given twice"),
        ("flat:k=0", "k goes from 1 to"),
        ("alphabeta:depth=0", "depth goes from 1 to 40"),
        ("alphabeta:depth=999", "depth goes from 1 to 40, got 999"),
        // Numbers the type cannot hold are out of the option's range too.
        (
            "alphabeta:depth=-1",
            "depth goes from 1 to 40 in whole numbers, got -1",
        ),
        (
            "mcts:playouts=99999999999999999999",
            "playouts goes from 1 to 1099511627776 in whole numbers",
        ),
        // Two limits: one would be dropped.
        (
            "alphabeta:depth=4,time=50ms",
            "depth= and time= exclude each other",
        ),
        (
            "mcts:time=1s,playouts=9",
            "time= and playouts= exclude each other",
        ),
    ] {
        let err = refused::<Nim>(text);
        assert!(err.contains(says), "{text}: {err}");
    }
    assert!("mcts:time=1s,c=0.5,trees=256,leaf=1"
        .parse::<PlayerSpec<Nim>>()
        .is_ok());
}

/// `mcts:playouts=N,weights=W` expands N leaves, as `playouts=N` plays N games: each valued
/// leaf used to count as its `leaf` (32) simulations, so 64 playouts searched two leaves.
#[test]
fn learned_mcts_counts_its_budget_in_leaves() {
    use cubesearch::{Backend, Game, NTupleNetwork};
    let dir = tempfile::tempdir().unwrap();
    let weights = dir.path().join("r.safetensors");
    let shapes = cubesearch::learn::default_shapes::<Reversi>();
    NTupleNetwork::staged::<Reversi>(&shapes, &[])
        .unwrap()
        .save(&weights, 0, 0.0)
        .unwrap();
    let text = format!("mcts:playouts=64,weights={}", weights.display());
    let spec: PlayerSpec<Reversi> = text.parse().unwrap();
    let mut player = spec.build(Backend::Cpu, 1).unwrap();
    player.choose(&Reversi, &Reversi.initial()).unwrap();
    let searched = player.last_search().expect("a search report");
    assert_eq!(searched.playouts, Some(64));
    // Every selected leaf is a node of the tree: about one a playout.
    assert!(searched.nodes >= 60, "{} nodes", searched.nodes);
}
