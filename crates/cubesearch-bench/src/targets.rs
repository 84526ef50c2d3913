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
/// CPU all cores, wgpu and CUDA; and whether they were named, in which case a GPU that does not
/// start is an error rather than a column skipped.
pub(crate) fn wanted_targets(backend: Backend, only: &[String]) -> Result<(Vec<Target>, bool)> {
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
            n if n.starts_with("cpu-") => n[4..]
                .parse()
                .map(Target::Cpu)
                .map_err(|_| Error::parse(format!("bad bench target '{n}'"))),
            "wgpu" | "cuda" => Ok(Target::Gpu(name.parse()?)),
            other => Err(Error::parse(format!(
                "bad bench target '{other}': cpu-N, cpu, wgpu or cuda"
            ))),
        })
        .collect::<Result<_>>()?;
    Ok((targets, !only.is_empty() || backend != Backend::Auto))
}

/// The executors to measure, as [`wanted_targets`] names them.
pub(crate) fn targets(
    backend: Backend,
    only: &[String],
) -> Result<Vec<(String, String, Executor)>> {
    let (wanted, explicit) = wanted_targets(backend, only)?;
    let mut out = Vec::new();
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
                    // Asked for by name: its absence is an error; in the default list, it is skipped.
                    Err(e) if explicit => return Err(e),
                    Err(e) => eprintln!("bench: skipping {backend}: {e}"),
                }
            }
        }
    }
    Ok(out)
}
