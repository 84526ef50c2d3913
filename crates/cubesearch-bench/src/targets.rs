//! The columns a bench measures: the targets `--only` or `--backend` name, and their executors.

use cubesearch_core::backend::{cpu_threads, resolve, Backend};
use cubesearch_core::{Error, Result};
use cubesearch_search::{CpuExecutor, Executor};

/// One column a bench measures: CPU threads, or a GPU backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    /// A CPU executor on this many threads (`cpu` is every core).
    Cpu(usize),
    /// wgpu or CUDA.
    Gpu(Backend),
}

/// The targets `--only` names, or a `--backend` other than auto, or by default CPU one thread,
/// CPU all cores, wgpu and CUDA. A GPU among them that does not start is skipped ([`found`]).
pub(crate) fn wanted_targets(backend: Backend, only: &[String]) -> Result<Vec<Target>> {
    let all = cpu_threads();
    let mut names: Vec<String> = if !only.is_empty() {
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
    names.dedup();
    let targets = names
        .iter()
        .map(|name| match name.as_str() {
            "cpu" => Ok(Target::Cpu(all)),
            // More threads than cores would measure the scheduler, not the work.
            n if n.starts_with("cpu-") => match n[4..].parse::<usize>() {
                Ok(threads) if (1..=all).contains(&threads) => Ok(Target::Cpu(threads)),
                _ => Err(Error::parse(format!(
                    "bad bench target '{n}': cpu-N takes 1 to {all} threads (this machine's cores)"
                ))),
            },
            "wgpu" | "cuda" => Ok(Target::Gpu(name.parse()?)),
            other => Err(Error::parse(format!(
                "bad bench target '{other}': cpu-N, cpu, wgpu or cuda"
            ))),
        })
        .collect::<Result<_>>()?;
    Ok(targets)
}

/// The columns found, with the GPU targets that could not start (`skipped`) named on stderr;
/// with none found, the first such error: a GPU that cannot start is skipped whether named or
/// not, as long as something is left to measure.
pub(crate) fn found<T>(out: Vec<T>, skipped: Vec<(Backend, Error)>) -> Result<Vec<T>> {
    if out.is_empty() {
        if let Some((_, e)) = skipped.into_iter().next() {
            return Err(e);
        }
        return Ok(out);
    }
    for (backend, e) in skipped {
        eprintln!("bench: skipping {backend}: {e}");
    }
    Ok(out)
}

/// The executors to measure, as [`wanted_targets`] names them.
pub(crate) fn targets(
    backend: Backend,
    only: &[String],
) -> Result<Vec<(String, String, Executor)>> {
    let wanted = wanted_targets(backend, only)?;
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    for target in wanted {
        match target {
            Target::Cpu(threads) => {
                let exec = CpuExecutor::new(threads)?;
                out.push((
                    format!("cpu-{}", exec.threads()),
                    format!("CPU, {} threads", exec.threads()),
                    Executor::Cpu(exec),
                ));
            }
            Target::Gpu(backend) => {
                match resolve(backend).and_then(|r| Executor::on(&r).map(|e| (r, e))) {
                    Ok((resolved, exec)) => {
                        out.push((backend.name().to_string(), resolved.device_name(), exec))
                    }
                    Err(e) => skipped.push((backend, e)),
                }
            }
        }
    }
    found(out, skipped)
}
