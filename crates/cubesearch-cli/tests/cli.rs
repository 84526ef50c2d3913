//! The command line's contract: JSON on the last line, exit status 2 and one line for bad input.

mod common;

#[cfg(target_os = "linux")]
use common::interrupted;
use common::{assert_bad_input, cubesearch, cubesearch_typed, cubesearch_with, json_of};

#[test]
fn info_lists_every_backend_and_finds_wgpu() {
    let json = json_of(&cubesearch(&["info", "--json"]));
    let backends = json["backends"].as_array().unwrap();
    let names: Vec<_> = backends
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["cuda", "wgpu", "cpu"]);
    let wgpu = &backends[1];
    assert_eq!(
        wgpu["available"], true,
        "no wgpu adapter: install mesa-vulkan-drivers ({wgpu})"
    );
    assert!(wgpu["limits"]["shared_memory_per_cube"].as_u64().unwrap() > 0);
}

/// `auto` never lands on a software rasteriser: with no GPU it is the CPU, and lavapipe runs
/// only when named. README's Nim solve works as written on a machine without a GPU.
#[test]
fn auto_skips_a_software_rasteriser() {
    use cubesearch::backend::resolve;
    use cubesearch::Backend;
    let auto = resolve(Backend::Auto).unwrap();
    assert!(!auto.is_software(), "auto picked {auto}");
    let wgpu = resolve(Backend::Wgpu).unwrap();
    if wgpu.is_software() && resolve(Backend::Cuda).is_err() {
        assert_eq!(auto.backend(), Backend::Cpu, "{auto}");
    }
    let json = json_of(&cubesearch(&[
        "solve",
        "nim",
        "--position",
        "1,3,5,7",
        "--strategy",
        "split",
        "--json",
    ]));
    assert_eq!(json["value"], -1, "{json}");
}

#[test]
fn perft_agrees_between_cpu_and_wgpu() {
    let args = |backend| {
        [
            "perft",
            "nim",
            "--depth",
            "4",
            "--position",
            "2,3,4",
            "--divide",
            "--json",
            "--backend",
            backend,
        ]
    };
    let cpu = json_of(&cubesearch(&args("cpu")));
    let wgpu = json_of(&cubesearch(&args("wgpu")));
    assert_eq!(cpu["nodes"], wgpu["nodes"]);
    assert_eq!(cpu["divide"], wgpu["divide"]);
    let library = cubesearch::perft::perft_split(
        &mut cubesearch::CpuExecutor::new(1).unwrap(),
        &cubesearch::games::Nim,
        &cubesearch::games::NimState::new(&[2, 3, 4]).unwrap(),
        4,
    )
    .unwrap();
    assert_eq!(cpu["nodes"].as_u64(), Some(library));
    assert!(cpu["nodes_per_sec"].as_f64().unwrap() > 0.0);
}

#[test]
fn apply_plays_moves_and_reports_the_outcome() {
    let json = json_of(&cubesearch(&[
        "apply",
        "nim",
        "--position",
        "1,3",
        "--moves",
        "1:2,0:1",
        "--json",
    ]));
    assert_eq!(json["position"], "0,1");
    assert_eq!(json["status"], "ongoing");
    let json = json_of(&cubesearch(&[
        "apply",
        "nim",
        "--position",
        "1,3",
        "--moves",
        "1:3,0:1",
        "--json",
    ]));
    assert_eq!(json["status"], "loss");
    assert_eq!(json["rewards"].as_array().unwrap().len(), 2);
}

#[test]
fn bad_input_exits_2_with_one_line() {
    assert_bad_input(
        &cubesearch(&["apply", "nim", "--position", "1,3", "--moves", "1:4"]),
        "illegal move 1:4",
    );
    assert_bad_input(
        &cubesearch(&["apply", "nim", "--position", "1,3", "--moves", "one"]),
        "bad Nim move",
    );
    assert_bad_input(
        &cubesearch(&["perft", "nim", "--depth", "2", "--position", "1,x"]),
        "bad Nim position",
    );
    assert_bad_input(&cubesearch(&["perft", "chess", "--depth", "2"]), "chess");
    // Sizes outside what can end, or what means anything, are refused by name.
    assert_bad_input(
        &cubesearch(&["perft", "checkers", "--depth", "1000"]),
        "--depth",
    );
    assert_bad_input(
        &cubesearch(&["solve", "nim", "--position", "1,2", "--depth", "0"]),
        "--depth",
    );
    assert_bad_input(
        &cubesearch(&[
            "match", "nim", "--p1", "random", "--p2", "random", "--games", "0",
        ]),
        "--games",
    );
    assert_bad_input(
        &cubesearch(&["play", "nim", "--p1", "random", "--games", "0"]),
        "--games",
    );
    // What was typed is quoted with its control characters escaped: still one line.
    assert_bad_input(
        &cubesearch(&[
            "perft",
            "nim",
            "--depth",
            "2",
            "--position",
            "1,\r\u{1b}[2J3",
        ]),
        "bad Nim position",
    );
    assert_bad_input(
        &cubesearch(&["perft", "nim", "--depth", "2", "--position", "1\r\n2"]),
        "bad Nim position",
    );
    assert_bad_input(
        &cubesearch(&["perft", "nim", "--depth", "2", "--backend", "tpu"]),
        "unknown backend",
    );
    assert_bad_input(
        &cubesearch(&["bench", "no-such-suite"]),
        "unknown bench suite",
    );
    assert_bad_input(
        &cubesearch(&["train", "nim", "--games", "1", "--out", "w"]),
        "[possible values: checkers, reversi, 2584, 2048]",
    );
    // A missing argument is named on the one line.
    assert_bad_input(
        &cubesearch(&["train", "2584", "--out", "w"]),
        "not provided: --games <GAMES>",
    );
    // A strategy is read where the command line is, naming every strategy there is.
    assert_bad_input(
        &cubesearch(&["solve", "nim", "--position", "1,2", "--strategy", "v3"]),
        "unknown strategy 'v3': cpu, cpu-split, v1, v2, v4, split or frontier",
    );
}

/// A rank (the variables a launcher sets) and the launcher refuse what they cannot run before
/// any work: another command than `train`, a half-set environment, a rank past the world, a
/// backend other than CUDA, several GPUs in one rank.
#[test]
fn ranks_and_their_launcher_refuse_what_cannot_run() {
    let train = ["train", "2048", "--games", "4", "--out", "w"];
    assert_bad_input(
        &cubesearch(&["launch", "--gpus", "2", "--", "info"]),
        "launch starts ranks of `train`",
    );
    #[cfg(not(feature = "cuda"))]
    assert_bad_input(
        &cubesearch(&[["launch", "--gpus", "2", "--"].as_slice(), &train].concat()),
        "this build has no cuda feature",
    );
    let rank = |rank: &'static str| {
        vec![
            ("WORLD_SIZE", "2"),
            ("RANK", rank),
            ("LOCAL_RANK", "0"),
            ("MASTER_ADDR", "127.0.0.1"),
            ("MASTER_PORT", "1"),
        ]
    };
    assert_bad_input(
        &cubesearch_with(&train, &rank("0")[..3]),
        "MASTER_ADDR and MASTER_PORT, or RENDEZVOUS_FILE",
    );
    assert_bad_input(
        &cubesearch_with(&train, &rank("2")),
        "ranks run from 0 to WORLD_SIZE - 1",
    );
    for r in ["0", "1"] {
        assert_bad_input(
            &cubesearch_with(&[&train[..], &["--backend", "cpu"]].concat(), &rank(r)),
            "ranks train through NCCL on CUDA GPUs",
        );
        assert_bad_input(
            &cubesearch_with(&[&train[..], &["--gpus", "2"]].concat(), &rank(r)),
            "2 GPUs under a launcher",
        );
    }
}

/// A subcommand offers (in its `--help`) and takes only the games it runs.
#[test]
fn games_a_subcommand_does_not_take_are_refused_naming_those_it_does() {
    let two = "[possible values: checkers, reversi, nim]";
    let one = "[possible values: 2584, 2048]";
    let trained = "[possible values: checkers, reversi, 2584, 2048]";
    for (args, names) in [
        (&["solve", "2048", "--position", "2,2,0"][..], two),
        (&["perft", "2584", "--depth", "2"], two),
        (&["match", "2048", "--p1", "random", "--p2", "random"], two),
        (&["train", "nim", "--games", "2", "--out", "x"], trained),
        (&["boards", "nim", "--weights", "w", "--out", "x"], one),
    ] {
        assert_bad_input(&cubesearch(args), names);
        let help = cubesearch(&[args[0], "--help"]);
        assert!(
            String::from_utf8_lossy(&help.stdout).contains(names),
            "{args:?}"
        );
    }
    let play = cubesearch(&["play", "--help"]);
    assert!(String::from_utf8_lossy(&play.stdout)
        .contains("[possible values: checkers, reversi, nim, 2584, 2048]"));
}

/// A finished position, as `--position` or as a `fen` opening, is refused: it would play
/// games of no move.
#[test]
fn finished_positions_are_refused_where_games_are_played() {
    let dir = tempfile::tempdir().unwrap();
    let openings = dir.path().join("o.txt");
    std::fs::write(&openings, "1:1\nfen 0,0\n").unwrap();
    let random = ["--p1", "random", "--p2", "random"];
    assert_bad_input(
        &cubesearch(&[&["match", "nim", "--position", "0,0"][..], &random].concat()),
        "the game is over there",
    );
    assert_bad_input(
        &cubesearch(&[&["play", "nim", "--position", "0"][..], &random].concat()),
        "the game is over there",
    );
    let path = openings.to_str().unwrap();
    assert_bad_input(
        &cubesearch(&[&["match", "nim", "--openings", path][..], &random].concat()),
        "line 2: the game is over after 'fen 0,0'",
    );
}

/// The effort estimate follows each game's own branching, and a software device (lavapipe)
/// is held to the CPU's day, not a GPU's: checkers perft 20 (estimated at 8e13 paths) is
/// refused on it, Nim perft 15 (3.0e7 paths, once estimated at 1.7e13) is not.
#[test]
fn perft_estimates_follow_the_game_and_the_device_at_hand() {
    assert_bad_input(
        &cubesearch(&["perft", "checkers", "--depth", "20", "--backend", "wgpu"]),
        "more than a day on the CPU (or a software device on it)",
    );
    let nim = json_of(&cubesearch(&[
        "perft",
        "nim",
        "--depth",
        "15",
        "--backend",
        "cpu",
        "--json",
    ]));
    assert_eq!(nim["nodes"], 30_270_240, "{nim}");
}

/// Plain `cubesearch` prints the whole help (status 2: no job was given); a usage error is one
/// line with its usage; a negative number is said to be one, not taken for a flag; a negative
/// optimistic start is a value.
#[test]
fn the_command_lines_shape_says_what_to_type() {
    let plain = cubesearch(&[]);
    assert_eq!(plain.status.code(), Some(2));
    let help = String::from_utf8_lossy(&plain.stderr);
    assert!(
        help.contains("Usage: cubesearch") && help.contains("perft"),
        "{help}"
    );
    assert_bad_input(
        &cubesearch(&["train", "2048", "--games", "-1", "--out", "x"]),
        "-1 is not taken: counts, depths, sizes and times are 0 or more",
    );
    assert_bad_input(
        &cubesearch(&["train", "2048", "--out", "x"]),
        "(usage: cubesearch train",
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("w");
    let args = [
        "train",
        "2048",
        "--games",
        "2",
        "--optimistic",
        "-5",
        "--backend",
        "cpu",
        "--out",
        out.to_str().unwrap(),
    ];
    let run = cubesearch(&args);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // A flag the run has no use for is refused, not ignored.
    assert_bad_input(
        &cubesearch(&[
            "train",
            "2584",
            "--games",
            "5",
            "--threads",
            "2",
            "--backend",
            "wgpu",
            "--out",
            "x",
        ]),
        "2 CPU threads mean nothing to a run on wgpu",
    );
    assert_bad_input(
        &cubesearch(&["play", "checkers", "--p1", "random", "--batch", "5"]),
        "--batch 5 searches the moves of 2584 or 2048 games together: checkers takes none",
    );
}

#[cfg(not(feature = "cuda"))]
#[test]
fn a_backend_that_was_not_built_in_is_a_clear_error() {
    assert_bad_input(
        &cubesearch(&["perft", "nim", "--depth", "1", "--backend", "cuda"]),
        "--features cuda",
    );
}

#[test]
fn bench_measures_every_requested_backend() {
    let out = cubesearch(&[
        "bench",
        "nim-playouts",
        "--json",
        "--reps",
        "1",
        "--warmup",
        "0",
        "--min-seconds",
        "0",
        "--only",
        "cpu-1,wgpu",
    ]);
    let json = json_of(&out);
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["backend"], "cpu-1");
    assert_eq!(rows[1]["backend"], "wgpu");
    assert!(rows.iter().all(|r| r["per_second"].as_f64().unwrap() > 0.0));
}

#[test]
fn bench_mcts_tree_measures_the_host_trees_only() {
    let out = cubesearch(&[
        "bench",
        "mcts-tree",
        "--json",
        "--reps",
        "1",
        "--warmup",
        "0",
        "--level",
        "0",
        "--only",
        "cpu-1,cpu-2,wgpu",
    ]);
    let json = json_of(&out);
    let rows = json["rows"].as_array().unwrap();
    let backends: Vec<_> = rows
        .iter()
        .map(|r| r["backend"].as_str().unwrap())
        .collect();
    assert_eq!(backends, ["cpu-1", "cpu-2"]);
    // Every leaf of the budget is selected: 16,384 at level 0, and at most two batches of 256
    // a tree past it (one selected while the other is simulated).
    for r in rows {
        let leaves = r["units"].as_u64().unwrap();
        assert!((16_384..=16_384 + 2 * 2 * 256).contains(&leaves), "{r}");
    }
    assert_bad_input(
        &cubesearch(&["bench", "mcts-tree", "--only", "wgpu"]),
        "measures the host",
    );
}

#[test]
fn match_reports_wins_losses_and_draws_for_p1() {
    let out = cubesearch(&[
        "match",
        "nim",
        "--p1",
        "mcts:playouts=2000,exec=cpu",
        "--p2",
        "random",
        "--games",
        "4",
        "--json",
        "--backend",
        "cpu",
    ]);
    let json = json_of(&out);
    let total = ["wins", "losses", "draws"]
        .iter()
        .map(|k| json[k].as_u64().unwrap())
        .sum::<u64>();
    assert_eq!(total, 4);
    assert!(json["p1"].as_str().unwrap().starts_with("mcts"));
}

#[test]
fn play_lists_every_move_and_the_result() {
    let out = cubesearch(&[
        "play",
        "nim",
        "--p1",
        "random",
        "--p2",
        "random",
        "--position",
        "1,2",
        "--json",
        "--seed",
        "3",
    ]);
    let json = json_of(&out);
    let game = &json["games"][0];
    let moves = game["moves"].as_array().unwrap();
    assert!(!moves.is_empty() && moves.len() <= 3);
    // Whoever took the last object won: p1 if the move count is odd.
    let expected = if moves.len() % 2 == 1 { 1 } else { -1 };
    assert_eq!(game["result"], expected);
    assert_eq!(game["final"], "0,0");
}

#[test]
fn a_human_is_asked_again_after_bad_input() {
    let out = cubesearch_typed(
        &[
            "play",
            "nim",
            "--p1",
            "human",
            "--p2",
            "random",
            "--position",
            "0,2",
        ],
        b"0:1\nnonsense\n1:2\n",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("illegal move 0:1"), "{stdout}");
    assert!(stdout.contains("bad Nim move 'nonsense'"), "{stdout}");
    assert!(stdout.contains("p1 wins"), "{stdout}");
}

#[test]
fn bad_player_specs_exit_2() {
    assert_bad_input(
        &cubesearch(&[
            "match",
            "nim",
            "--p1",
            "mcts:time=fast",
            "--p2",
            "random",
            "--games",
            "1",
        ]),
        "bad duration",
    );
    assert_bad_input(
        &cubesearch(&[
            "match", "nim", "--p1", "alien", "--p2", "random", "--games", "1",
        ]),
        "unknown player",
    );
    assert_bad_input(
        &cubesearch(&[
            "match",
            "nim",
            "--p1",
            "mcts:depth=3",
            "--p2",
            "random",
            "--games",
            "1",
        ]),
        "unknown option",
    );
}

/// Outputs are checked before the work: a run whose weights, curve, records or boards could not
/// be saved is refused at once (each of these would otherwise play or train for a very long
/// time first).
#[test]
fn unwritable_outputs_are_refused_before_any_work() {
    let missing = "/no/such/folder/out";
    for (args, mentions) in [
        (
            vec![
                "train",
                "2584",
                "--games",
                "1000000000",
                "--backend",
                "cpu",
                "--out",
                missing,
            ],
            missing,
        ),
        (
            vec![
                "train",
                "2048",
                "--games",
                "1000000000",
                "--backend",
                "cpu",
                "--out",
                "/tmp/w.safetensors",
                "--curve",
                missing,
            ],
            missing,
        ),
        (
            vec![
                "play",
                "checkers",
                "--p1",
                "random",
                "--p2",
                "random",
                "--games",
                "1000000000",
                "--pdn",
                missing,
            ],
            missing,
        ),
        (
            vec!["train", "2584", "--games", "1000000000", "--out", "/tmp"],
            "folder",
        ),
    ] {
        assert_bad_input(&cubesearch(&args), mentions);
    }
}

/// `--help` teaches what the parsers take: `solve --help` names every strategy, and `play
/// --help` every player kind and option word that the spec parsers' own refusals list (for
/// Reversi, with its seed players; for 2048).
#[test]
fn help_names_every_strategy_and_player_option() {
    let help = |args: &[&str]| String::from_utf8(cubesearch(args).stdout).unwrap();
    let solve = help(&["solve", "--help"]);
    for s in cubesearch::minimax::Strategy::ALL {
        assert!(solve.contains(s.name()), "solve --help lacks {}", s.name());
    }
    let play = help(&["play", "--help"]);
    for game in ["reversi", "2048"] {
        let refused = cubesearch(&["play", game, "--p1", "bogus", "--p2", "random"]);
        assert_eq!(refused.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&refused.stderr);
        let listed = stderr
            .split("'bogus': ")
            .nth(1)
            .expect("the players listed");
        for word in listed
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| w.len() > 1)
        {
            assert!(play.contains(word), "play --help lacks '{word}' ({listed})");
        }
    }
    let top = help(&["--help"]);
    assert!(
        top.contains("Examples:") && top.contains("solve reversi"),
        "{top}"
    );
}

/// Shapes the trainers cannot take are refused before the first game, on every backend, and
/// no weights file is written.
#[test]
fn training_refuses_shapes_of_different_sizes_before_any_game() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("w");
    for backend in ["cpu", "wgpu"] {
        let args = [
            "train",
            "2048",
            "--shapes",
            "0,1,2,3;4,5",
            "--games",
            "5",
            "--backend",
            backend,
            "--out",
            out.to_str().unwrap(),
        ];
        assert_bad_input(
            &cubesearch(&args),
            "tuple shapes 0,1,2,3 and 4,5 differ in size",
        );
        assert!(!out.exists(), "{backend}: a weights file was written");
    }
}

/// Flag values whose work could not end, or that mean nothing, are refused before any work,
/// with one line naming the flag.
#[test]
fn endless_or_empty_flag_values_are_refused_up_front() {
    for (args, flag) in [
        (
            &["train", "2584", "--games", "0", "--out", "x"][..],
            "--games",
        ),
        (
            &["train", "2584", "--games", "1000000000000", "--out", "x"],
            "--games",
        ),
        (
            &[
                "train",
                "2584",
                "--games",
                "5",
                "--threads",
                "100000",
                "--out",
                "x",
            ],
            "--threads",
        ),
        (
            &[
                "train", "2584", "--games", "5", "--units", "0", "--out", "x",
            ],
            "--units",
        ),
        (
            &["bench", "nim-playouts", "--min-seconds", "nan"],
            "--min-seconds",
        ),
        (
            &["bench", "nim-playouts", "--min-seconds", "1e9"],
            "--min-seconds",
        ),
        (&["bench", "nim-playouts", "--reps", "0"], "--reps"),
        (&["bench", "td-train", "--units", "0"], "--units"),
        (
            &[
                "train",
                "2048",
                "--games",
                "5",
                "--optimistic",
                "inf",
                "--out",
                "x",
            ],
            "--optimistic",
        ),
        (
            &[
                "train",
                "2048",
                "--games",
                "5",
                "--optimistic",
                "320000",
                "--resume",
                "x",
                "--out",
                "y",
            ],
            "--optimistic",
        ),
        (
            &[
                "train",
                "2048",
                "--games",
                "5",
                "--td-order",
                "sideways",
                "--out",
                "x",
            ],
            "--td-order",
        ),
        (
            &[
                "train",
                "2048",
                "--games",
                "5",
                "--td-order",
                "forward",
                "--backend",
                "wgpu",
                "--out",
                "x",
            ],
            "--td-order",
        ),
        (
            &[
                "train", "2048", "--games", "5", "--stages", "64,4", "--out", "x",
            ],
            "--stages",
        ),
    ] {
        assert_bad_input(&cubesearch(args), flag);
    }
}

/// `--only` naming a GPU this machine lacks measures the rest and says what it skipped; with
/// nothing left to measure it is an error.
#[test]
fn bench_skips_a_named_gpu_that_is_absent() {
    let args = [
        "bench",
        "nim-playouts",
        "--only",
        "cpu-1,cuda",
        "--level",
        "0",
    ];
    let out = cubesearch(&[&args[..], &["--reps", "1", "--json"]].concat());
    let rows = json_of(&out)["rows"].clone();
    let backends: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["backend"].as_str().unwrap())
        .collect();
    assert_eq!(backends[0], "cpu-1");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        backends.contains(&"cuda") || stderr.contains("bench: skipping cuda"),
        "{backends:?} {stderr}"
    );
    if !backends.contains(&"cuda") {
        assert_bad_input(
            &cubesearch(&["bench", "nim-playouts", "--only", "cuda"]),
            "cuda",
        );
    }
}

/// Work that could not end in a day is refused before it starts, naming the estimate and
/// `--force`; what the game can answer at once is answered.
#[test]
fn work_that_cannot_end_is_refused_up_front_unless_forced() {
    let fifteen_twelves = vec!["12"; 15].join(",");
    for (args, mentions) in [
        (
            &["perft", "reversi", "--depth", "30", "--backend", "cpu"][..],
            "perft reversi depth 30 would take about",
        ),
        (
            &["perft", "checkers", "--depth", "40"],
            "pass --force to run it anyway",
        ),
        (
            &[
                "solve",
                "nim",
                "--position",
                &fifteen_twelves,
                "--strategy",
                "cpu",
            ],
            "even with perfect move ordering",
        ),
        (
            &["solve", "checkers", "--position", "start", "--depth", "40"],
            "solve checkers depth 40",
        ),
        (
            &[
                "play",
                "checkers",
                "--p1",
                "alphabeta:depth=40",
                "--p2",
                "random",
            ],
            "alphabeta:depth=40 in checkers (each move)",
        ),
        (
            &[
                "match",
                "reversi",
                "--p1",
                "random",
                "--p2",
                "alphabeta:depth=40",
                "--games",
                "2",
            ],
            "alphabeta:depth=40 in reversi (each move)",
        ),
    ] {
        assert_bad_input(&cubesearch(args), mentions);
    }
    // Nim's own answer needs no search: the nim-sum of fifteen 12s is 12, so emptying a heap
    // wins.
    let json = json_of(&cubesearch(&[
        "solve",
        "nim",
        "--position",
        &fifteen_twelves,
        "--json",
    ]));
    assert_eq!(
        (&json["value"], &json["best_move"], &json["nim-sum"]),
        (
            &serde_json::json!(1),
            &serde_json::json!("0:12"),
            &serde_json::json!(12)
        ),
        "{json}"
    );
    // --force starts the work: still counting after a second rather than refused.
    let mut forced = std::process::Command::new(env!("CARGO_BIN_EXE_cubesearch"))
        .args([
            "perft",
            "reversi",
            "--depth",
            "30",
            "--backend",
            "cpu",
            "--force",
            "--json",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(1));
    let still_running = forced.try_wait().unwrap().is_none();
    forced.kill().ok();
    forced.wait().ok();
    assert!(still_running, "perft --force ended at once");
}

/// `match --results FILE` appends each game as it ends and resumes a stopped match; the file
/// must hold the same match; the summary gives an Elo difference with its interval.
#[test]
fn a_match_appends_its_results_and_resumes_from_them() {
    let dir = std::env::temp_dir().join(format!("cubesearch-results-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("r.jsonl");
    let file = file.to_str().unwrap();
    let args = |games: &'static str, p1: &'static str| {
        [
            "match",
            "nim",
            "--p1",
            p1,
            "--p2",
            "random",
            "--games",
            games,
            "--results",
            file,
            "--json",
            "--backend",
            "cpu",
        ]
    };
    let first = json_of(&cubesearch(&args("4", "mcts:playouts=200")));
    assert_eq!(first["games"], 4);
    assert_eq!(std::fs::read_to_string(file).unwrap().lines().count(), 5);
    // Killed mid-write: a cut line is dropped and the match goes on from game 4.
    let mut text = std::fs::read_to_string(file).unwrap();
    text.push_str("{\"index\":4,\"re");
    std::fs::write(file, &text).unwrap();
    let second = json_of(&cubesearch(&args("6", "mcts:playouts=200")));
    assert_eq!(second["games"], 6);
    let counted: u64 = ["wins", "losses", "draws"]
        .iter()
        .map(|k| second[*k].as_u64().unwrap())
        .sum();
    assert_eq!(counted, 6, "{second}");
    let lines: Vec<String> = std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(lines.len(), 7);
    assert!(lines[5].starts_with("{\"index\":4,"), "{}", lines[5]);
    // Another match in the same file is refused.
    assert_bad_input(&cubesearch(&args("6", "random")), "holds another match");
    std::fs::remove_dir_all(&dir).ok();
}

/// Outputs that are not regular files: a FIFO, a device node, a folder, a `--plot` in a
/// missing folder or of a format that is not drawn. Each is refused before any work: nothing
/// is trained or written, and the FIFO and the device are left as they were.
#[cfg(unix)]
#[test]
fn outputs_that_are_not_regular_files_are_refused_and_left_alone() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (fifo, fifo_png) = (at("fifo"), at("fifo.png"));
    for path in [&fifo, &fifo_png] {
        let made = std::process::Command::new("mkfifo").arg(path).status();
        assert!(made.unwrap().success());
    }
    // A device node of our own where we may make one (as root), else the system's.
    let device = match std::process::Command::new("mknod")
        .args([&at("null"), "c", "1", "3"])
        .output()
    {
        Ok(made) if made.status.success() => at("null"),
        _ => "/dev/null".to_string(),
    };
    let weights = at("w.safetensors");
    let train = |extra: &[&str]| {
        let mut args = vec!["train", "2048", "--games", "20", "--backend", "cpu"];
        args.extend_from_slice(extra);
        cubesearch(&args)
    };
    let missing_folder = at("no/such/folder/c.png");
    for (out, says) in [
        (train(&["--out", &fifo]), "is a FIFO"),
        (train(&["--out", &device]), "is a device"),
        (
            train(&["--out", &weights, "--curve", &device]),
            "is a device",
        ),
        (
            train(&["--out", &weights, "--plot", &fifo_png]),
            "is a FIFO",
        ),
        (
            train(&["--out", &weights, "--plot", &at("c.jpg")]),
            "PNG or SVG",
        ),
        (
            train(&["--out", &weights, "--plot", &missing_folder]),
            "no/such/folder",
        ),
        (
            train(&["--out", dir.path().to_str().unwrap()]),
            "is a folder",
        ),
    ] {
        assert_bad_input(&out, says);
    }
    assert_bad_input(
        &cubesearch(&[
            "match",
            "nim",
            "--p1",
            "random",
            "--p2",
            "random",
            "--games",
            "2",
            "--results",
            &fifo,
        ]),
        "is a FIFO",
    );
    assert_bad_input(
        &cubesearch(&[
            "play", "checkers", "--p1", "random", "--p2", "random", "--pdn", &device,
        ]),
        "is a device",
    );
    assert!(
        !std::path::Path::new(&weights).exists(),
        "trained before refusing"
    );
    let kind = |path: &str| std::fs::metadata(path).unwrap().file_type();
    assert!(kind(&fifo).is_fifo() && kind(&fifo_png).is_fifo());
    assert!(kind(&device).is_char_device());
}

/// `--plot` draws the format its name asks for, and a second run's start leaves the temporary
/// file of a live run writing the same `--out` alone, while an ended run's goes.
#[test]
fn the_plot_takes_its_format_from_its_name_and_live_runs_keep_their_files() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let mut ended = std::process::Command::new("true").spawn().unwrap();
    ended.wait().unwrap();
    let live = format!(".w.safetensors.tmp{}-0", std::process::id());
    let dead = format!(".w.safetensors.tmp{}-0", ended.id());
    for name in [&live, &dead] {
        std::fs::write(at(name), b"half").unwrap();
    }
    let weights = at("w.safetensors");
    for (plot, starts) in [("c.svg", &b"<svg"[..]), ("c.png", &b"\x89PNG"[..])] {
        let plot = at(plot);
        json_of(&cubesearch(&[
            "train",
            "2048",
            "--games",
            "20",
            "--backend",
            "cpu",
            "--out",
            &weights,
            "--plot",
            &plot,
            "--json",
        ]));
        assert!(std::fs::read(&plot).unwrap().starts_with(starts), "{plot}");
        assert!(
            std::path::Path::new(&at(&live)).exists(),
            "a live run's file was removed"
        );
        assert!(
            !std::path::Path::new(&at(&dead)).exists(),
            "an ended run's file was kept"
        );
    }
}

/// The exact solver on the opening (`--position start`, 60 empties: years) is refused up front; forced, it obeys
/// SIGINT at once and exits 130 with one line.
#[cfg(target_os = "linux")]
#[test]
fn an_endless_exact_solve_is_refused_and_a_forced_one_obeys_a_signal() {
    let start = "start";
    assert_bad_input(
        &cubesearch(&["solve", "reversi", "--position", start]),
        "more than a day",
    );
    let began = std::time::Instant::now();
    let out = interrupted(
        &["solve", "reversi", "--position", start, "--force"],
        &[2],
        || true,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("stopped by SIGINT"), "{stderr}");
    assert!(began.elapsed().as_secs() < 60, "{:?}", began.elapsed());
}

/// SIGTERM in the middle of training, with no checkpoints asked for: the weights are saved,
/// whole, and the run exits 143 with one line that says where.
#[cfg(target_os = "linux")]
#[test]
fn a_signal_mid_training_saves_the_weights_and_exits_128_plus_its_number() {
    let dir = tempfile::tempdir().unwrap();
    let weights = dir.path().join("w.safetensors");
    let w = weights.to_str().unwrap();
    let args = [
        "train",
        "2048",
        "--games",
        "1000000000",
        "--backend",
        "cpu",
        "--out",
        w,
    ];
    let out = interrupted(&args, &[15], || true);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(143), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("interrupted by SIGTERM") && stderr.contains(w),
        "{stderr}"
    );
    let (_, meta) = cubesearch::NTupleNetwork::load::<cubesearch::games::Game2048>(&weights, None)
        .expect("a whole weights file");
    assert!(
        stderr.contains(&format!("({} in all)", meta.games)),
        "{stderr} vs {} games",
        meta.games
    );
    // It goes on from them.
    let resumed = json_of(&cubesearch(&[
        "train",
        "2048",
        "--games",
        "5",
        "--backend",
        "cpu",
        "--out",
        w,
        "--resume",
        w,
        "--json",
    ]));
    assert_eq!(resumed["total_games"], meta.games + 5);
}

/// SIGINT during a match: the game in play is dropped, every game before it stays in the
/// results file, whole, the match exits 130, and the same command finishes it.
#[cfg(target_os = "linux")]
#[test]
fn a_signal_mid_match_keeps_the_results_file_whole() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("r.jsonl");
    let r = results.to_str().unwrap();
    let args = |games: &str| {
        [
            "match",
            "checkers",
            "--p1",
            "random",
            "--p2",
            "mcts:playouts=64",
            "--games",
            games,
            "--results",
            r,
            "--backend",
            "cpu",
            "--json",
        ]
        .map(str::to_string)
    };
    let lines = || std::fs::read_to_string(&results).map_or(0, |t| t.lines().count());
    let out = interrupted(&args("100000").each_ref().map(String::as_str), &[2], || {
        lines() >= 3
    });
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted by SIGINT"), "{stderr}");
    let text = std::fs::read_to_string(&results).unwrap();
    assert!(text.ends_with('\n'));
    let kept = text.lines().count() - 1;
    assert!(
        stderr.contains(&format!("the {kept} games played are in")),
        "{stderr}"
    );
    for (i, line) in text.lines().skip(1).enumerate() {
        let game: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(game["index"], i);
    }
    let more = args(&(kept + 2).to_string());
    let done = json_of(&cubesearch(&more.each_ref().map(String::as_str)));
    assert_eq!(done["games"], kept as u64 + 2);
    assert_eq!(lines(), kept + 3);
}

/// A start refused for a typo writes no results file, and a file holding only the header of
/// a match that never started (left by older builds, or a player that failed to start) is
/// taken over by the corrected command.
#[test]
fn a_refused_start_leaves_no_results_and_a_bare_header_is_taken_over() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("r.jsonl");
    let r = results.to_str().unwrap();
    let run = |p2: &str| {
        cubesearch(&[
            "match",
            "nim",
            "--p1",
            "random",
            "--p2",
            p2,
            "--games",
            "2",
            "--results",
            r,
            "--backend",
            "cpu",
            "--json",
        ])
    };
    for p2 in [
        "mcts:playout=10",
        "checkerboard:lib=/no/such/engine.so",
        "ugi:cmd=/no/such/engine",
    ] {
        assert_eq!(run(p2).status.code(), Some(2), "{p2}");
        assert!(!results.exists(), "{p2} left a results file");
    }
    // The header the typo would have written: this match's, with the typo as p2.
    let other = dir.path().join("other.jsonl");
    let o = other.to_str().unwrap();
    json_of(&cubesearch(&[
        "match",
        "nim",
        "--p1",
        "random",
        "--p2",
        "mcts:playouts=10",
        "--games",
        "1",
        "--results",
        o,
        "--backend",
        "cpu",
        "--json",
    ]));
    let text = std::fs::read_to_string(&other).unwrap();
    let header = text
        .lines()
        .next()
        .unwrap()
        .replace("playouts=10", "playout=10");
    std::fs::write(&results, format!("{header}\n")).unwrap();
    assert_eq!(json_of(&run("mcts:playouts=10"))["games"], 2);
    let text = std::fs::read_to_string(&results).unwrap();
    assert!(
        text.lines().next().unwrap().contains("mcts:playouts=10"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 3);
    // A file that holds games of another match is still refused.
    assert_bad_input(&run("random"), "holds another match");
}
