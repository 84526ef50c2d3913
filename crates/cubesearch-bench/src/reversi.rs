//! Reversi's own bench suites (seed 003 and beyond), each a table and one JSON object:
//!
//! * `reversi-endgame`: the exact solver on one CPU thread and on every core, and with a GPU's
//!   help (the device searches the subtrees of `--level` empties), on the FFO test positions
//!   of `benches/ffo-40-59.txt` (`--ffo 40-44`: a range), each value checked against the
//!   published one, and the whole set's time;
//! * `reversi-tables`: the seed's Tables 1 and 2, 100 games per pairing, colours alternating;
//! * `reversi-table3`: the seed's Table 3, total decision time of easy and medium over 100 games
//!   against random: CPU one thread, CPU all cores, and each GPU one launch per decision (the
//!   seed's shape) and one launch for all waiting games (batched);
//! * `reversi-board-words`: the layout question, u64 boards against pairs of u32 words,
//!   timed on each GPU backend;
//! * `reversi-alphabeta`: alpha-beta at depths 6 and 8 (or `--level D`) from ten fixed midgame
//!   positions, CPU one thread and all cores and the GPU strategies.

use crate::seed_batch::{seed_ai_against_random, Decider, DeviceShape};
use crate::{BenchArgs, Common, Report};
use cubesearch_core::backend::{cpu_threads, Backend};
use cubesearch_core::rng::XorShift32;
use cubesearch_core::{Error, Game, Result};
use cubesearch_games::reversi::device::words::BoardLayout;
use cubesearch_games::reversi::endgame::{solve_on, DeviceOptions, Solver};
use cubesearch_games::reversi::problems::{parse_problems, EndgameProblem, FFO_40_59};
use cubesearch_games::reversi::seed_player::Level;
use cubesearch_games::reversi::{Board, Reversi};
use cubesearch_players::player::play_game;
use cubesearch_players::spec::PlayerSpec;
use cubesearch_search::Executor;
use serde_json::{json, Value};
use std::time::Instant;

/// The suites of this file and what they measure.
pub const SUITES: &[(&str, &str)] = &[
    ("reversi-endgame", "exact endgame solves on cpu-1, cpu-all and with a GPU's help: FFO #40-#59 from benches/ffo-40-59.txt (--ffo 40-44: a range; --level L: the device solves from L empties, default 10)"),
    ("reversi-tables", "the seed's Tables 1 and 2: every AI against random and every pairing, 100 games each"),
    ("reversi-table3", "the seed's Table 3: total decision time of easy and medium over 100 games against random (--level L: 100*2^L games)"),
    ("reversi-board-words", "device boards as u64 vs 2 x u32: move generation + flips of 2^18 positions, per GPU backend"),
    ("reversi-alphabeta", "alpha-beta ms and nodes/s at depths 6, 8 (--level D: D) from 10 fixed midgame positions"),
];

/// Runs the named suite if it is one of these; `None` otherwise.
pub fn run(common: &Common, args: &BenchArgs) -> Option<Result<Report>> {
    Some(match args.suite.as_str() {
        "reversi-endgame" => endgame(common, args),
        "reversi-tables" => tables(common),
        "reversi-table3" => table3(common, args),
        "reversi-alphabeta" => alphabeta(common, args),
        "reversi-board-words" => board_words(common, args),
        _ => return None,
    })
}

/// Positions reached by random play (seed `seed`) with exactly `empties` empty squares.
pub fn random_with_empties(empties: u32, seed: u32) -> Board {
    let mut rng = XorShift32::for_worker(seed, empties);
    loop {
        let mut b = Reversi.initial();
        loop {
            if b.empty().count_ones() == empties {
                return b;
            }
            let moves = Reversi.moves(&b);
            if moves.is_empty() {
                break;
            }
            b = Reversi.apply(&b, moves[rng.below(moves.len() as u32) as usize]);
        }
    }
}

/// The FFO problems `range` names (`45-47`, `50`; default all of `benches/ffo-40-59.txt`).
fn ffo_problems(range: Option<&str>) -> Result<Vec<EndgameProblem>> {
    let all = parse_problems(FFO_40_59)?;
    let Some(range) = range else {
        return Ok(all);
    };
    let number = |t: &str| {
        t.trim()
            .parse::<u32>()
            .map_err(|_| Error::parse(format!("--ffo {range}: expected N or N-M, FFO numbers")))
    };
    let (low, high) = match range.split_once('-') {
        Some((a, b)) => (number(a)?, number(b)?),
        None => (number(range)?, number(range)?),
    };
    // A range reaching past the file would time fewer positions than it names.
    if !(40..=59).contains(&low) || !(low..=59).contains(&high) {
        return Err(Error::parse(format!(
            "--ffo {range}: N or N-M with 40 <= N <= M <= 59 (benches/ffo-40-59.txt holds #40-#59)"
        )));
    }
    Ok(all
        .into_iter()
        .filter(|p| p.name.parse().is_ok_and(|n: u32| (low..=high).contains(&n)))
        .collect())
}

/// Where `reversi-endgame` solves: the CPU solver on some threads, or a device under the
/// host's upper tree.
enum EndgameColumn {
    Cpu(usize),
    Device(Box<Executor>),
}

fn endgame(common: &Common, args: &BenchArgs) -> Result<Report> {
    let problems = ffo_problems(args.ffo.as_deref())?;
    // One thread, every core, and the GPU backends with the device's help (a hardware one
    // unless named: `--only wgpu` takes lavapipe); each position on all, alternating.
    let named = |name: &str| args.only.iter().any(|o| o == name);
    let wanted = |name: &str| args.only.is_empty() || named(name);
    let mut columns: Vec<(String, EndgameColumn)> = Vec::new();
    for (name, threads) in [("cpu-1", 1), ("cpu-all", cpu_threads())] {
        if wanted(name) {
            columns.push((name.into(), EndgameColumn::Cpu(threads)));
        }
    }
    for backend in [Backend::Cuda, Backend::Wgpu] {
        if !wanted(backend.name()) {
            continue;
        }
        match Executor::new(backend) {
            Ok((_, resolved)) if resolved.is_software() && !named(backend.name()) => {}
            Ok((exec, _)) => {
                columns.push((backend.name().into(), EndgameColumn::Device(Box::new(exec))))
            }
            Err(e) => eprintln!("bench: skipping {backend}: {e}"),
        }
    }
    if columns.is_empty() {
        return Err(Error::parse(
            "reversi-endgame runs on cpu-1, cpu-all, cuda and wgpu (--only)",
        ));
    }
    let device = DeviceOptions {
        leaf_empties: args.level.unwrap_or(DeviceOptions::default().leaf_empties),
    };
    let mut solver = Solver::new();
    let mut rows: Vec<Value> = Vec::new();
    let mut totals = vec![(0u64, 0f64); columns.len()];
    for problem in &problems {
        let board = &problem.board;
        for ((column, how), total) in columns.iter_mut().zip(&mut totals) {
            let started = Instant::now();
            // The device's work: MTD(f) tests, batches and the widest batch.
            let (threads, solved, shape) = match how {
                EndgameColumn::Cpu(threads) => (
                    *threads,
                    solver
                        .solve_parallel(board, *threads, &cubesearch_core::Stop::new())
                        .ok_or_else(|| {
                            Error::Unsupported("a solve nobody stopped stopped".into())
                        })?,
                    Value::Null,
                ),
                EndgameColumn::Device(exec) => {
                    let (solved, shape) = solve_on(exec.as_mut(), board, &device)?;
                    let shape = json!({"tests": shape.tests, "batches": shape.launches, "widest": shape.widest});
                    (1, solved, shape)
                }
            };
            let seconds = started.elapsed().as_secs_f64();
            *total = (total.0 + solved.nodes, total.1 + seconds);
            let best = solved.best.map(|m| Reversi.format_move(board, m));
            let agrees = solved.value == problem.value
                && solved.best.is_some_and(|b| problem.best.contains(&b));
            let published: Vec<String> = problem
                .best
                .iter()
                .map(|&m| Reversi.format_move(board, m))
                .collect();
            if !common.json {
                let work = if shape.is_null() {
                    String::new()
                } else {
                    format!(" {shape}")
                };
                eprintln!(
                    "  FFO #{} on {column}: {} in {seconds:.3} s{work}",
                    problem.name, solved.value
                );
            }
            rows.push(json!({
                "position": format!("FFO #{}", problem.name), "column": column,
                "threads": threads,
                "board": Reversi.format_position(board),
                "empties": board.empty().count_ones(), "value": solved.value, "best_move": best,
                "device": shape,
                "published": {"value": problem.value, "moves": published.join(" ")},
                "agrees": agrees, "nodes": solved.nodes, "seconds": seconds,
                "nodes_per_sec": solved.nodes as f64 / seconds.max(1e-9),
            }));
        }
    }
    // Any best move of the published value counts.
    if rows.iter().any(|r| r["value"] != r["published"]["value"]) {
        return Err(Error::Unsupported(format!(
            "the solver disagrees with a published FFO value: {rows:?}"
        )));
    }
    let sums: Vec<Value> = columns
        .iter()
        .zip(&totals)
        .map(|((column, _), (nodes, seconds))| {
            json!({"column": column, "nodes": nodes, "seconds": seconds})
        })
        .collect();
    let text = || {
        let mut out = format!("reversi-endgame — exact solve on the CPU (negamax + PVS, fastest-first, far from the end by short midgame searches, parity, enhanced transposition cutoffs; several threads split as YBWC says, sharing one table); on a device, MTD(f) tests on the host down to {} empties, the subtrees below searched by the device\n\n| position | where | empties | value | best | published | nodes | seconds | nodes/s |\n|---|---|---:|---:|---|---|---:|---:|---:|", device.leaf_empties);
        for r in &rows {
            let published = format!(
                "{:+} {}",
                r["published"]["value"].as_i64().unwrap_or(0),
                r["published"]["moves"].as_str().unwrap_or("")
            );
            out += &format!(
                "\n| {} | {} | {} | {:+} | {} | {published} | {} | {:.3} | {:.2e} |",
                r["position"].as_str().unwrap_or(""),
                r["column"].as_str().unwrap_or(""),
                r["empties"],
                r["value"].as_i64().unwrap_or(0),
                r["best_move"].as_str().unwrap_or("–"),
                r["nodes"],
                r["seconds"].as_f64().unwrap_or(0.0),
                r["nodes_per_sec"].as_f64().unwrap_or(0.0)
            );
        }
        for s in &sums {
            let (nodes, seconds) = (
                s["nodes"].as_u64().unwrap_or(0),
                s["seconds"].as_f64().unwrap_or(0.0),
            );
            out += &format!(
                "\n| all | {} | | | | | {nodes} | {seconds:.3} | {:.2e} |",
                s["column"].as_str().unwrap_or(""),
                nodes as f64 / seconds.max(1e-9)
            );
        }
        out
    };
    Ok(Report::new(
        text,
        json!({ "suite": "reversi-endgame", "rows": rows, "totals": sums }),
    ))
}

/// W/L/D of `p1` against `p2` over `games` games, colours alternating (p1 first in even games).
fn record(p1: &str, p2: &str, games: u32, common: &Common) -> Result<(u32, u32, u32, f64)> {
    let mut one = p1
        .parse::<PlayerSpec<Reversi>>()?
        .build(common.backend, common.seed)?;
    let mut two = p2
        .parse::<PlayerSpec<Reversi>>()?
        .build(common.backend, common.seed ^ 0xA5A5)?;
    let (mut w, mut l, mut d) = (0, 0, 0);
    let started = Instant::now();
    for g in 0..games {
        let first = g % 2 == 0;
        let order = if first {
            [one.as_mut(), two.as_mut()]
        } else {
            [two.as_mut(), one.as_mut()]
        };
        let r = play_game(&Reversi, Reversi.initial(), order, |_, _, _| Ok(()))?.result;
        match if first { r } else { -r } {
            1 => w += 1,
            -1 => l += 1,
            _ => d += 1,
        }
    }
    Ok((w, l, d, started.elapsed().as_secs_f64()))
}

fn tables(common: &Common) -> Result<Report> {
    const GAMES: u32 = 100;
    let mut ais: Vec<&str> = vec!["easy", "medium", "alphabeta:depth=3"];
    // The GPU versions where a GPU answers (the seed's CUDA rows).
    if common.backend != Backend::Cpu
        && Executor::new(common.backend).is_ok_and(|(e, _)| !e.is_cpu())
    {
        ais = vec![
            "easy",
            "easy:exec=gpu",
            "medium",
            "medium:exec=gpu",
            "alphabeta:depth=3",
        ];
    }
    let mut table1 = Vec::new();
    for ai in &ais {
        let (w, l, d, s) = record(ai, "random", GAMES, common)?;
        if !common.json {
            eprintln!("  {ai} vs random: +{w} -{l} ={d}");
        }
        table1.push(
            json!({ "p1": ai, "p2": "random", "wins": w, "losses": l, "draws": d, "seconds": s }),
        );
    }
    let mut table2 = Vec::new();
    for (i, a) in ais.iter().enumerate() {
        for b in &ais[i + 1..] {
            let (w, l, d, s) = record(a, b, GAMES, common)?;
            if !common.json {
                eprintln!("  {a} vs {b}: +{w} -{l} ={d}");
            }
            table2.push(
                json!({ "p1": a, "p2": b, "wins": w, "losses": l, "draws": d, "seconds": s }),
            );
        }
    }
    let text = || {
        let rows = |t: &[Value], last: &str| {
            let mut out =
                format!("| p1 | p2 | win | loss | draw | {last} |\n|---|---|---:|---:|---:|---:|");
            for r in t {
                out += &format!(
                    "\n| {} | {} | {} | {} | {} | {}% |",
                    r["p1"].as_str().unwrap_or(""),
                    r["p2"].as_str().unwrap_or(""),
                    r["wins"],
                    r["losses"],
                    r["draws"],
                    r["wins"]
                );
            }
            out
        };
        format!(
            "reversi-tables — {GAMES} games per row, colours alternating (p1 first in even games), seed {}\n\nTable 1: AI against random\n\n{}\n\nTable 2: AI against AI\n\n{}",
            common.seed,
            rows(&table1, "winning rate"),
            rows(&table2, "p1 winning rate")
        )
    };
    Ok(Report::new(
        text,
        json!({ "suite": "reversi-tables", "games": GAMES, "seed": common.seed, "table1": table1, "table2": table2 }),
    ))
}

/// A Table 3 column: its label, and a GPU executor with its shape or a CPU pool.
type Table3Column = (
    String,
    Option<(Executor, DeviceShape)>,
    Option<rayon::ThreadPool>,
);

fn table3(common: &Common, args: &BenchArgs) -> Result<Report> {
    // The seed's 100 games; `--level L` plays 100·2^L to find where a batch pays on the GPU.
    let level = args.level.unwrap_or(0);
    if level > 9 {
        return Err(Error::parse(
            "--level goes up to 9 for reversi-table3 (51200 games)",
        ));
    }
    let games: u32 = 100 << level;
    let mut columns: Vec<Table3Column> = Vec::new();
    let pool = |n: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| Error::Unsupported(format!("cannot start {n} threads: {e}")))
    };
    let wanted = |name: &str| args.only.is_empty() || args.only.iter().any(|o| o == name);
    if wanted("cpu-1") {
        columns.push(("cpu-1".into(), None, Some(pool(1)?)));
    }
    let all = cpu_threads();
    if wanted(&format!("cpu-{all}")) || wanted("cpu") {
        columns.push((format!("cpu-{all}"), None, Some(pool(all)?)));
    }
    for backend in [Backend::Cuda, Backend::Wgpu] {
        if !wanted(backend.name()) || (common.backend != Backend::Auto && common.backend != backend)
        {
            continue;
        }
        // One launch per decision (the seed's shape) only at the seed's scale: beyond it, it
        // would dominate the run and say nothing new.
        for shape in DeviceShape::ALL
            .into_iter()
            .filter(|&s| s != DeviceShape::PerDecision || level <= 2)
        {
            match Executor::new(backend) {
                Ok((exec, _)) => {
                    columns.push((
                        format!("{} {}", backend.name(), shape.name()),
                        Some((exec, shape)),
                        None,
                    ));
                }
                Err(e) => {
                    eprintln!("bench: skipping {backend}: {e}");
                    break;
                }
            }
        }
    }
    let mut rows = Vec::new();
    for ai in [Level::Easy, Level::Medium] {
        let mut reference: Option<(u32, u32, u32)> = None;
        for (label, device, pool) in &columns {
            let decider = match (device, pool) {
                (Some((exec, shape)), _) => Decider::Device {
                    exec,
                    shape: *shape,
                },
                (None, Some(p)) => Decider::Cpu(p),
                _ => unreachable!("a column has a pool or a device"),
            };
            // One untimed run compiles the kernels; then the median of the timed runs.
            seed_ai_against_random(ai, 2, common.seed, &decider)?;
            let mut runs = Vec::new();
            for _ in 0..args.reps() {
                runs.push(seed_ai_against_random(ai, games, common.seed, &decider)?);
            }
            runs.sort_by_key(|r| r.decision_time);
            let r = &runs[runs.len() / 2];
            let wld = (r.wins, r.losses, r.draws);
            // Every column plays the same games (the tests hold them equal); say so if not.
            if *reference.get_or_insert(wld) != wld {
                return Err(Error::Unsupported(format!(
                    "{label} played other games: {wld:?} vs {reference:?}"
                )));
            }
            if !common.json {
                eprintln!(
                    "  {ai:?} on {label}: {:.1} ms",
                    r.decision_time.as_secs_f64() * 1e3
                );
            }
            rows.push(json!({
                "ai": format!("{ai:?}").to_lowercase(), "column": label, "games": games,
                "decision_ms": r.decision_time.as_secs_f64() * 1e3, "decisions": r.decisions,
                "launches": match device { Some((_, DeviceShape::PerDecision)) => r.decisions, Some(_) => r.rounds, None => 0 },
                "rounds": r.rounds, "wins": r.wins, "losses": r.losses, "draws": r.draws,
            }));
        }
    }
    let text = || {
        let mut out = format!("reversi-table3 — total decision time of the AI over {games} games against random (ms, median of {} runs); seed (GTX-class GPU): easy 33 ms CPU vs 739 ms CUDA, medium 13360 ms CPU vs 54320 ms CUDA\n\n| AI | column | decisions | GPU launches | W-L-D | total decision ms |\n|---|---|---:|---:|---|---:|", args.reps());
        for r in &rows {
            out += &format!(
                "\n| {} | {} | {} | {} | {}-{}-{} | {:.2} |",
                r["ai"].as_str().unwrap_or(""),
                r["column"].as_str().unwrap_or(""),
                r["decisions"],
                r["launches"],
                r["wins"],
                r["losses"],
                r["draws"],
                r["decision_ms"].as_f64().unwrap_or(0.0)
            );
        }
        out + "\n\nEvery column plays the same games (same square values, same tie draws). GPU time includes upload, launch and read-back; `batched` decides all waiting games in one launch; `whole games` plays every game on the device, both sides, in one launch (its time counts random's moves too)."
    };
    Ok(Report::new(
        text,
        json!({ "suite": "reversi-table3", "games": games, "rows": rows }),
    ))
}

/// Ten midgame positions: random play from the start (seeded), 20 to 29 discs on the board.
pub fn midgame_positions() -> Vec<Board> {
    (0..10u32)
        .map(|k| random_with_empties(44 - k, 600 + k))
        .collect()
}

fn alphabeta(common: &Common, args: &BenchArgs) -> Result<Report> {
    use cubesearch_search::minimax::{solve, Strategy};
    let positions = midgame_positions();
    let depths: Vec<u32> = match args.level {
        Some(d) => vec![d],
        // Depth 10 on one CPU thread takes minutes: asked for with --level 10.
        None => vec![6, 8],
    };
    let all = cpu_threads();
    let mut columns: Vec<(String, Executor, Strategy)> = vec![
        (
            "cpu-1".into(),
            Executor::Cpu(cubesearch_search::CpuExecutor::new(1)?),
            Strategy::Cpu,
        ),
        (
            format!("cpu-{all}"),
            Executor::Cpu(cubesearch_search::CpuExecutor::new(all)?),
            Strategy::CpuSplit,
        ),
        (
            format!("cpu-{all} frontier"),
            Executor::Cpu(cubesearch_search::CpuExecutor::new(all)?),
            Strategy::Frontier,
        ),
    ];
    // A backend's name ("cuda") asks for all its columns, any other name for the one column
    // so labelled ("cpu-16", "cuda frontier").
    let backends = [Backend::Cuda, Backend::Wgpu];
    let wanted = |label: &str| {
        let backend = label.split(' ').next();
        args.only.is_empty()
            || args.only.iter().any(|o| {
                o == label || backends.iter().any(|b| b.name() == o) && backend == Some(o.as_str())
            })
    };
    for backend in backends {
        for strategy in [
            Strategy::V1,
            Strategy::V4,
            Strategy::Split,
            Strategy::Frontier,
        ] {
            let label = format!("{} {strategy}", backend.name());
            if !wanted(&label) {
                continue;
            }
            match Executor::new(backend) {
                Ok((exec, _)) => columns.push((label, exec, strategy)),
                Err(e) => {
                    eprintln!("bench: skipping {backend}: {e}");
                    break;
                }
            }
        }
    }
    // Without cpu-1 (depth 10 takes it minutes a position) the first column named is the
    // reference the others' values are checked against.
    columns.retain(|(label, _, _)| wanted(label));
    let mut rows = Vec::new();
    for &depth in &depths {
        let mut reference: Option<Vec<i32>> = None;
        for (label, exec, strategy) in columns.iter_mut() {
            // Warm-up (kernel compilation) on the first position.
            let run = |exec: &mut Executor| -> Result<(f64, Vec<i32>, u64)> {
                solve(exec, &Reversi, &positions[0], depth, *strategy)?;
                let started = Instant::now();
                let mut values = Vec::new();
                let mut nodes = 0u64;
                for p in &positions {
                    let solved = solve(exec, &Reversi, p, depth, *strategy)?;
                    values.push(solved.solution.value);
                    nodes += solved.solution.nodes.unwrap_or(0);
                }
                Ok((started.elapsed().as_secs_f64(), values, nodes))
            };
            // A strategy a device cannot run (v2 on Reversi's 16-bit-overflowing scores) is a
            // row that says why.
            let (seconds, values, nodes) = match run(exec) {
                Ok(done) => done,
                Err(e) => {
                    eprintln!("  depth {depth} {label}: {e}");
                    rows.push(json!({ "depth": depth, "column": label, "error": e.to_string() }));
                    continue;
                }
            };
            let same = reference.get_or_insert_with(|| values.clone()) == &values;
            if !common.json {
                eprintln!(
                    "  depth {depth} {label}: {:.1} ms per position",
                    seconds * 100.0
                );
            }
            rows.push(json!({
                "depth": depth, "column": label, "ms_per_position": seconds * 100.0,
                "nodes": if nodes > 0 { Some(nodes) } else { None },
                "nodes_per_sec": if nodes > 0 { Some(nodes as f64 / seconds) } else { None },
                "values_agree": same,
            }));
        }
    }
    let text = || {
        let mut out = String::from("reversi-alphabeta — 10 fixed midgame positions (random play, seeded), evaluation leaves; ms per position (mean); nodes counted on the CPU only\n\n| depth | column | ms / position | nodes | nodes/s | values = first column |\n|---:|---|---:|---:|---:|---|");
        for r in &rows {
            if let Some(e) = r["error"].as_str() {
                out += &format!(
                    "\n| {} | {} | – | – | – | {e} |",
                    r["depth"],
                    r["column"].as_str().unwrap_or("")
                );
                continue;
            }
            out += &format!(
                "\n| {} | {} | {:.2} | {} | {} | {} |",
                r["depth"],
                r["column"].as_str().unwrap_or(""),
                r["ms_per_position"].as_f64().unwrap_or(0.0),
                r["nodes"].as_u64().map_or("–".into(), |n| n.to_string()),
                r["nodes_per_sec"]
                    .as_f64()
                    .map_or("–".into(), |n| format!("{n:.3e}")),
                r["values_agree"]
            );
        }
        out
    };
    Ok(Report::new(
        text,
        json!({ "suite": "reversi-alphabeta", "rows": rows }),
    ))
}

fn board_words(common: &Common, args: &BenchArgs) -> Result<Report> {
    use cubesearch_games::reversi::device::words::checksum;
    let boards: Vec<(u64, u64)> =
        cubesearch_search::testing::random_positions(&Reversi, 1 << 18, 60, common.seed)
            .iter()
            .map(|b| (b.player, b.opponent))
            .collect();
    let mut rows = Vec::new();
    for backend in [Backend::Cuda, Backend::Wgpu] {
        if !args.only.is_empty() && !args.only.iter().any(|o| o == backend.name()) {
            continue;
        }
        let (exec, device) = match Executor::new(backend) {
            Ok(found) => found,
            Err(e) => {
                eprintln!("bench: skipping {backend}: {e}");
                continue;
            }
        };
        for layout in [BoardLayout::U64, BoardLayout::U32Pairs] {
            if exec.is_cpu() {
                continue;
            }
            let (seconds, sums) =
                crate::board_words::time_board_words(&exec, &boards, layout, args.reps())?;
            // The layouts must agree with the CPU (checked on a prefix: the tests check more).
            if boards
                .iter()
                .zip(&sums)
                .take(4096)
                .any(|(&(p, o), &s)| checksum(p, o) != s)
            {
                return Err(Error::Unsupported(format!(
                    "{backend}: board sums differ from the CPU"
                )));
            }
            rows.push(json!({
                "backend": backend.name(), "device": device.device_name(),
                "layout": if layout == BoardLayout::U32Pairs { "2 x u32" } else { "u64" },
                "positions": boards.len(), "median_seconds": seconds,
                "positions_per_sec": boards.len() as f64 / seconds,
            }));
        }
    }
    let text = || {
        let mut out = String::from("reversi-board-words — legal moves of both sides + flips of every placement, one unit per position (median launch incl. read-back)\n\n| backend | device | layout | positions | median s | positions/s |\n|---|---|---|---:|---:|---:|");
        for r in &rows {
            out += &format!(
                "\n| {} | {} | {} | {} | {:.5} | {:.3e} |",
                r["backend"].as_str().unwrap_or(""),
                r["device"].as_str().unwrap_or(""),
                r["layout"].as_str().unwrap_or(""),
                r["positions"],
                r["median_seconds"].as_f64().unwrap_or(0.0),
                r["positions_per_sec"].as_f64().unwrap_or(0.0)
            );
        }
        out
    };
    Ok(Report::new(
        text,
        json!({ "suite": "reversi-board-words", "rows": rows }),
    ))
}
