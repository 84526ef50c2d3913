//! `cubesearch bench <suite>`: times a suite on CPU 1 thread, CPU all cores and every GPU backend
//! that answers. Each row: the work size doubles until one run takes `--min-seconds`, then
//! `--warmup` untimed runs and `--reps` timed runs at that size; the median is reported.
//!
//! Timing is synchronised wall-clock time around the whole executor call: upload of the inputs,
//! the kernel launch, and the read-back of the (small) results, which waits for the device.

use crate::args::{BenchArgs, Common};
use crate::output::{emit, progress};
use cubesearch_core::backend::{cpu_threads, resolve, Backend};
use cubesearch_core::{Error, Playouts, Result};
use cubesearch_games::nim::{Nim, NimState};
use cubesearch_search::{CpuExecutor, Executor};
use serde::Serialize;
use serde_json::json;
use std::time::Instant;

/// A named piece of work measured in some unit per second.
struct Suite {
    name: &'static str,
    about: &'static str,
    unit: &'static str,
    /// Runs `work` units of the suite once.
    run: fn(&mut Executor, u64, u32) -> Result<()>,
    /// Largest work size one run may take.
    max_work: u64,
}

const SUITES: &[Suite] = &[Suite {
    name: "nim-playouts",
    about: "random Nim playouts from the seed's 8-heap board (1,3,...,15)",
    unit: "playouts",
    run: nim_playouts,
    max_work: 1 << 31,
}];

fn nim_playouts(exec: &mut Executor, work: u64, seed: u32) -> Result<()> {
    let board = NimState::seed_board(8)?;
    let counts = exec.playouts(&Nim, &[board], work as u32, seed)?;
    // The first player wins the 8-heap board under perfect play, but random play is a coin-flip
    // that must still account for every game.
    debug_assert_eq!(counts[0].games, work);
    Ok(())
}

/// One measured row.
#[derive(Serialize)]
struct Row {
    suite: &'static str,
    backend: String,
    device: String,
    work: u64,
    unit: &'static str,
    median_seconds: f64,
    min_seconds: f64,
    per_second: f64,
    reps: usize,
}

pub fn run(common: &Common, args: &BenchArgs) -> Result<()> {
    if args.suite == "list" {
        for s in SUITES {
            println!("{:<14} {} ({}/s)", s.name, s.about, s.unit);
        }
        return Ok(());
    }
    let suite = SUITES
        .iter()
        .find(|s| s.name == args.suite)
        .ok_or_else(|| {
            let names: Vec<_> = SUITES.iter().map(|s| s.name).collect();
            Error::parse(format!(
                "unknown bench suite '{}': one of {}",
                args.suite,
                names.join(", ")
            ))
        })?;
    if args.reps == 0 {
        return Err(Error::parse("--reps must be at least 1"));
    }
    let targets = targets(common.backend, &args.only)?;
    let bar = progress(common.json, targets.len() as u64, suite.name);
    let mut rows = Vec::new();
    for (label, device, mut exec) in targets {
        bar.set_message(format!("{} on {label}", suite.name));
        rows.push(measure(
            suite,
            &label,
            &device,
            &mut exec,
            args,
            common.seed,
        )?);
        bar.inc(1);
    }
    bar.finish_and_clear();
    let table = || table(suite, &rows);
    emit(
        common.json,
        table,
        json!({ "suite": suite.name, "timing": TIMING, "rows": rows }),
    );
    Ok(())
}

const TIMING: &str =
    "synchronised wall clock around upload, launch and read-back; median of the timed reps";

/// The executors to measure: CPU one thread, CPU all cores, and each GPU backend that answers
/// (or only those named by `--only`, or by a `--backend` other than auto).
fn targets(backend: Backend, only: &[String]) -> Result<Vec<(String, String, Executor)>> {
    let all = cpu_threads();
    let mut wanted: Vec<String> = if !only.is_empty() {
        only.to_vec()
    } else if backend != Backend::Auto {
        vec![backend.name().to_string()]
    } else {
        vec![
            "cpu-1".into(),
            format!("cpu-{all}"),
            "wgpu".into(),
            "cuda".into(),
        ]
    };
    wanted.dedup();
    let explicit = !only.is_empty() || backend != Backend::Auto;
    let mut out = Vec::new();
    for name in wanted {
        let cpu = |threads: usize| -> Result<(String, String, Executor)> {
            let exec = CpuExecutor::new(threads)?;
            Ok((
                format!("cpu-{}", exec.threads()),
                format!("CPU, {} threads", exec.threads()),
                Executor::Cpu(exec),
            ))
        };
        match name.as_str() {
            "cpu" => out.push(cpu(all)?),
            n if n.starts_with("cpu-") => {
                let threads = n[4..]
                    .parse()
                    .map_err(|_| Error::parse(format!("bad bench target '{n}'")))?;
                out.push(cpu(threads)?);
            }
            "wgpu" | "cuda" => {
                let backend: Backend = name.parse()?;
                match resolve(backend).and_then(|r| Executor::on(&r).map(|e| (r, e))) {
                    Ok((resolved, exec)) => out.push((name.clone(), resolved.device_name(), exec)),
                    // Asked for by name: its absence is an error; in the default list, it is skipped.
                    Err(e) if explicit => return Err(e),
                    Err(e) => eprintln!("bench: skipping {name}: {e}"),
                }
            }
            other => {
                return Err(Error::parse(format!(
                    "bad bench target '{other}': cpu-N, cpu, wgpu or cuda"
                )))
            }
        }
    }
    Ok(out)
}

fn measure(
    suite: &Suite,
    label: &str,
    device: &str,
    exec: &mut Executor,
    args: &BenchArgs,
    seed: u32,
) -> Result<Row> {
    let time = |exec: &mut Executor, work: u64| -> Result<f64> {
        let start = Instant::now();
        (suite.run)(exec, work, seed)?;
        Ok(start.elapsed().as_secs_f64())
    };
    // Calibrate: double the work until one run is long enough to time well.
    let mut work = 1 << 12;
    while work < suite.max_work && time(exec, work)? < args.min_seconds {
        work *= 2;
    }
    for _ in 0..args.warmup {
        time(exec, work)?;
    }
    let mut times: Vec<f64> = (0..args.reps)
        .map(|_| time(exec, work))
        .collect::<Result<_>>()?;
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    Ok(Row {
        suite: suite.name,
        backend: label.to_string(),
        device: device.to_string(),
        work,
        unit: suite.unit,
        median_seconds: median,
        min_seconds: times[0],
        per_second: work as f64 / median,
        reps: args.reps,
    })
}

fn table(suite: &Suite, rows: &[Row]) -> String {
    let cpu_all = rows
        .iter()
        .filter(|r| r.backend.starts_with("cpu-"))
        .map(|r| r.per_second)
        .fold(0.0, f64::max);
    let mut out = format!(
        "{} — {}\n\n| backend | device | {} per run | median s | {}/s | × best CPU |\n|---|---|---:|---:|---:|---:|\n",
        suite.name, suite.about, suite.unit, suite.unit
    );
    for r in rows {
        let ratio = if cpu_all > 0.0 {
            format!("{:.1}", r.per_second / cpu_all)
        } else {
            "–".into()
        };
        out += &format!(
            "| {} | {} | {} | {:.4} | {:.3e} | {ratio} |\n",
            r.backend, r.device, r.work, r.median_seconds, r.per_second
        );
    }
    out + &format!("\nTiming: {TIMING}.")
}
