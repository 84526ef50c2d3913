//! The seed's Nim minimax table.

use crate::{BenchArgs, Common, Report};
use cubesearch_core::backend::{cpu_threads, Backend};
use cubesearch_core::Result;
use cubesearch_games::nim::{Nim, NimState};
use cubesearch_search::{CpuExecutor, Executor};
use serde_json::json;
use std::time::Instant;

/// The seed's Nim minimax table: milliseconds to the first move for board sizes 2..8 at depth 7
/// and size 8 at depth 5; columns CPU one thread (`cpu`), CPU all cores (`cpu-split`), and each
/// GPU strategy on each GPU backend. Warm-up run first (kernel compilation), then the median.
pub(crate) fn nim_minimax(common: &Common, args: &BenchArgs) -> Result<Report> {
    use cubesearch_search::minimax::{solve, Strategy};
    // The seed's own figures (Jetson Nano): C v0 and CUDA v4, ms.
    const SEED: [(usize, u32, &str, &str); 8] = [
        (2, 7, "0.00", "0.16"),
        (3, 7, "0.00", "6.50"),
        (4, 7, "10.00", "21.89"),
        (5, 7, "160.00", "107.41"),
        (6, 7, "810.00", "452.11"),
        (7, 7, "4690.00", "1438.71"),
        (8, 7, "–", "3829.33"),
        (8, 5, "550.00", "82.14"),
    ];
    let mut columns: Vec<(String, Executor, Strategy)> = Vec::new();
    let all = cpu_threads();
    columns.push((
        "cpu-1".into(),
        Executor::Cpu(CpuExecutor::new(1)?),
        Strategy::Cpu,
    ));
    columns.push((
        format!("cpu-{all}"),
        Executor::Cpu(CpuExecutor::new(all)?),
        Strategy::CpuSplit,
    ));
    columns.push((
        format!("cpu-{all} split"),
        Executor::Cpu(CpuExecutor::new(all)?),
        Strategy::Split,
    ));
    for backend in [Backend::Cuda, Backend::Wgpu] {
        if !args.only.is_empty() && !args.only.iter().any(|o| o == backend.name()) {
            continue;
        }
        for strategy in [Strategy::V1, Strategy::V2, Strategy::V4, Strategy::Split] {
            match Executor::new(backend) {
                Ok((exec, _)) => {
                    columns.push((format!("{} {strategy}", backend.name()), exec, strategy))
                }
                Err(e) => {
                    eprintln!("bench: skipping {backend}: {e}");
                    break;
                }
            }
        }
    }
    let bar = common.progress((SEED.len() * columns.len()) as u64, "nim-minimax");
    let mut rows = Vec::new();
    for (size, depth, seed_c, seed_cuda) in SEED {
        let board = NimState::seed_board(size)?;
        let mut cells = Vec::new();
        for (label, exec, strategy) in columns.iter_mut() {
            // cpu-split runs on rayon's global pool: give it this column's threads.
            let run = |exec: &mut Executor| -> Result<(f64, i32, Option<u64>)> {
                let start = Instant::now();
                let solved = solve(exec, &Nim, &board, depth, *strategy)?;
                Ok((
                    start.elapsed().as_secs_f64() * 1e3,
                    solved.solution.value,
                    solved.solution.nodes,
                ))
            };
            for _ in 0..args.warmup().max(1) {
                run(exec)?;
            }
            let mut runs: Vec<(f64, i32, Option<u64>)> =
                (0..args.reps()).map(|_| run(exec)).collect::<Result<_>>()?;
            runs.sort_by(|a, b| a.0.total_cmp(&b.0));
            let (ms, value, nodes) = runs[runs.len() / 2];
            cells.push(json!({ "column": label, "ms": ms, "value": value, "nodes": nodes }));
            bar.inc(1);
        }
        rows.push(json!({ "size": size, "depth": depth, "seed_c_ms": seed_c, "seed_cuda_v4_ms": seed_cuda, "cells": cells }));
    }
    bar.finish_and_clear();
    let text = || {
        let mut out = String::from("nim-minimax — ms to the first move (median), the seed's board of size n (heaps 1, 3, …, 2n−1)\n\n| size | depth | seed C v0 (Jetson) | seed CUDA v4 (Jetson) |");
        for (label, _, _) in &columns {
            out += &format!(" {label} |");
        }
        out += "\n|---:|---:|---:|---:|";
        out += &"---:|".repeat(columns.len());
        for row in &rows {
            out += &format!(
                "\n| {} | {} | {} | {} |",
                row["size"],
                row["depth"],
                row["seed_c_ms"].as_str().unwrap_or(""),
                row["seed_cuda_v4_ms"].as_str().unwrap_or("")
            );
            for cell in row["cells"].as_array().into_iter().flatten() {
                out += &format!(" {:.3} |", cell["ms"].as_f64().unwrap_or(f64::NAN));
            }
        }
        out += "\n\nNodes visited and nodes/s (v4 walks v1's tree but brings back only its answer, so its \
                nodes are v1's), and the speed-up in time over the CPU baseline (root split on all cores):\n\n| size | depth |";
        for (label, _, _) in &columns {
            out += &format!(" {label} |");
        }
        out += "\n|---:|---:|";
        out += &"---|".repeat(columns.len());
        for row in &rows {
            out += &format!("\n| {} | {} |", row["size"], row["depth"]);
            let cells = row["cells"].as_array().cloned().unwrap_or_default();
            let baseline = cells
                .get(1)
                .and_then(|c| c["ms"].as_f64())
                .unwrap_or(f64::NAN);
            for (i, cell) in cells.iter().enumerate() {
                let ms = cell["ms"].as_f64().unwrap_or(f64::NAN);
                // v4 (the column after v2) repeats v1's count.
                let nodes = cell["nodes"].as_u64().or_else(|| {
                    cells
                        .get(i.wrapping_sub(2))
                        .and_then(|c| c["nodes"].as_u64())
                });
                match nodes {
                    Some(n) => {
                        out += &format!(
                            " {n} ({:.2e}/s, ×{:.1}) |",
                            n as f64 / ms * 1e3,
                            baseline / ms
                        )
                    }
                    None => out += " – |",
                }
            }
        }
        out += "\n\nThe GPU overtakes the CPU baseline (cpu-all at depth 7) from size:";
        for (i, (label, _, _)) in columns.iter().enumerate().skip(2) {
            let faster = |row: &serde_json::Value| {
                let cells = row["cells"].as_array().cloned().unwrap_or_default();
                cells[i]["ms"].as_f64() < cells[1]["ms"].as_f64()
            };
            let depth7: Vec<&serde_json::Value> = rows.iter().filter(|r| r["depth"] == 7).collect();
            let from = (0..depth7.len()).find(|&k| depth7[k..].iter().all(|r| faster(r)));
            out += &format!(
                " {label}: {};",
                from.map(|k| depth7[k]["size"].to_string())
                    .unwrap_or_else(|| "never".into())
            );
        }
        out + "\n\nEvery cell returns the same value (checked by the tests); GPU times include upload, launch and read-back."
    };
    Ok(Report::new(
        text,
        json!({ "suite": "nim-minimax", "rows": rows }),
    ))
}
