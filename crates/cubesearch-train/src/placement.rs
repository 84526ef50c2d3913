//! Where a run's games are played: the engine an [`EngineConfig`] names, started, and the
//! [`Placement`] a report gives back.

use crate::engine::{CpuEngine, TdEngine};
use crate::gpu::GpuTd;
use cubecl::prelude::Runtime;
use cubesearch_core::backend::{resolve, ResolvedBackend};
use cubesearch_core::{Backend, Error, Result};
use cubesearch_kernels::GpuStochasticGame;
use cubesearch_learn::runner::{thread_count, Sharing};
use cubesearch_learn::{TdOrder, TupleGame};
use cubesearch_search::{DeviceTask, Executor, GpuExecutor};
use serde::Serialize;

/// Where a run's games are played.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// `cpu`, a GPU backend, or `auto`: a real GPU when there is one (CUDA, or wgpu on a
    /// hardware adapter), else the CPU. A software rasteriser (lavapipe) is slower than the
    /// CPU trainer, so `auto` uses it only when asked for by name.
    pub backend: Backend,
    /// CPU threads (`Some(0)`: every core; `None`: 1, the deterministic single-thread
    /// trainer). A run that trains on a GPU refuses `Some`: it would mean nothing there.
    pub threads: Option<usize>,
    /// How several CPU threads share the weights ([`Sharing`]).
    pub sharing: Sharing,
    /// GPU trainers: games at once, one unit each (default per
    /// `cubesearch_kernels::td::TdShape::for_device`).
    pub units: Option<u32>,
    /// GPUs of this process (CUDA), a rank each, meeting through host memory.
    pub gpus: usize,
    /// This process's rank of several started by a launcher, one CUDA GPU a rank.
    #[cfg(feature = "ranks")]
    pub ranks: Option<crate::rendezvous::Ranks>,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            backend: Backend::Cpu,
            threads: None,
            sharing: Sharing::default(),
            units: None,
            gpus: 1,
            #[cfg(feature = "ranks")]
            ranks: None,
        }
    }
}

/// Where a run's games were played.
#[derive(Clone, Debug, Serialize)]
pub struct Placement {
    /// `cpu`, `wgpu` or `cuda`.
    pub backend: &'static str,
    /// The device as its backend names it (the CPU: its threads).
    pub device: String,
    /// GPUs in all (0 on the CPU).
    pub gpus: usize,
    /// Processes of the run: the ranks under a launcher, else 1.
    pub ranks: usize,
    /// When its games learn (TD of a one-player game; `None` for self-play, which learns
    /// after every move).
    pub order: Option<TdOrder>,
    /// One line for people: `cuda (NVIDIA H200)`, `2 ranks of cuda (NVIDIA H200)`.
    pub text: String,
}

impl Placement {
    pub(crate) fn new(
        device: &ResolvedBackend,
        (gpus, ranks): (usize, usize),
        order: Option<TdOrder>,
    ) -> Self {
        Placement {
            backend: device.backend().name(),
            device: device.device_name(),
            gpus,
            ranks,
            order,
            text: match ranks {
                1 => device.to_string(),
                k => format!("{k} ranks of {device}"),
            },
        }
    }
}

/// The order a run's games learn in when it names none (`TrainConfig::order`): forward on CPU
/// threads, backward on GPUs.
const CPU_ORDER: TdOrder = TdOrder::Forward;
/// See [`CPU_ORDER`].
pub(crate) const GPU_ORDER: TdOrder = TdOrder::Backward;

/// One GPU's engine, built for whichever runtime the executor holds.
struct OneGpu<G> {
    units: Option<u32>,
    order: TdOrder,
    game: std::marker::PhantomData<G>,
}

impl<G: GpuStochasticGame + TupleGame> DeviceTask for OneGpu<G> {
    type Output = Box<dyn TdEngine<G>>;

    fn run<R: Runtime>(self, gpu: &GpuExecutor<R>) -> Result<Self::Output> {
        Ok(Box::new(
            GpuTd::<R, G>::on(gpu, self.units).with_order(self.order),
        ))
    }
}

/// A TD(0) engine on `exec`: its CPU threads, or its GPU with `units` games at once (default
/// per `cubesearch_kernels::td::TdShape::for_device`), learning backward.
pub fn engine_on<G: GpuStochasticGame + TupleGame>(
    exec: &Executor,
    units: Option<u32>,
) -> Box<dyn TdEngine<G>> {
    match exec {
        Executor::Cpu(cpu) => Box::new(CpuEngine::new(cpu.threads())),
        gpu => {
            let task = OneGpu {
                units,
                order: GPU_ORDER,
                game: std::marker::PhantomData,
            };
            gpu.on_device(task, "")
                .expect("an executor other than the CPU's is a GPU's")
        }
    }
}

/// The engine `cfg` names, started, and where it plays: CPU threads, one GPU, several CUDA GPUs
/// of this process, or this process's rank of several.
pub(crate) fn start_engine<G: GpuStochasticGame + TupleGame>(
    cfg: &EngineConfig,
    order: Option<TdOrder>,
) -> Result<(Box<dyn TdEngine<G>>, Placement)> {
    let gpu_order = order.unwrap_or(GPU_ORDER);
    // CPU threads and how they share weights mean nothing to a GPU run: refused rather than
    // ignored.
    let no_threads = |on: &dyn std::fmt::Display| match cfg.threads {
        Some(threads) => Err(Error::parse(format!(
            "{threads} CPU threads mean nothing to a run on {on}"
        ))),
        None if cfg.sharing != Sharing::default() => Err(Error::parse(format!(
            "how CPU threads share the weights means nothing to a run on {on}"
        ))),
        None => Ok(()),
    };
    #[cfg(feature = "ranks")]
    if let Some(ranks) = &cfg.ranks {
        no_threads(&"CUDA ranks")?;
        return rank_engine::<G>(cfg, ranks, gpu_order);
    }
    let resolved = resolve(cfg.backend)?;
    if !matches!(resolved, ResolvedBackend::Cpu { .. }) {
        no_threads(&resolved)?;
    }
    if let ResolvedBackend::Cpu { .. } = resolved {
        if cfg.gpus > 1 {
            return Err(Error::parse(format!(
                "{} GPUs: several GPUs train on CUDA devices, and this run trains on the CPU",
                cfg.gpus
            )));
        }
        if let Some(units) = cfg.units {
            return Err(Error::parse(format!(
                "{units} units is a GPU trainer's games at once, and this run trains on the CPU"
            )));
        }
        let threads = thread_count(cfg.threads.unwrap_or(1));
        let order = order.unwrap_or(CPU_ORDER);
        let engine = CpuEngine {
            threads,
            sharing: cfg.sharing,
            order,
            ..CpuEngine::default()
        };
        let placement = Placement::new(&ResolvedBackend::Cpu { threads }, (0, 1), Some(order));
        return Ok((Box::new(engine), placement));
    }
    if cfg.gpus > 1 {
        return several_gpus::<G>(cfg, &resolved, gpu_order);
    }
    let exec = Executor::on(&resolved)?;
    let task = OneGpu {
        units: cfg.units,
        order: gpu_order,
        game: std::marker::PhantomData,
    };
    let engine = exec.on_device(task, "a GPU trainer needs a GPU")?;
    Ok((engine, Placement::new(&resolved, (1, 1), Some(gpu_order))))
}

/// `cfg.gpus` CUDA devices of this process, a rank each, meeting through host memory.
#[cfg_attr(not(feature = "cuda"), allow(unused_variables))]
fn several_gpus<G: GpuStochasticGame + TupleGame>(
    cfg: &EngineConfig,
    resolved: &ResolvedBackend,
    order: TdOrder,
) -> Result<(Box<dyn TdEngine<G>>, Placement)> {
    let gpus = cfg.gpus;
    match resolved {
        #[cfg(feature = "cuda")]
        ResolvedBackend::Cuda { .. } => {
            use cubecl::cuda::{CudaDevice, CudaRuntime};
            let found = cubesearch_core::backend::cuda_device_count();
            if found < gpus {
                return Err(Error::Unsupported(format!(
                    "--gpus {gpus}: only {found} CUDA device(s) found"
                )));
            }
            let clients = (0..gpus)
                .map(|i| {
                    cubesearch_core::backend::start_client::<CudaRuntime>(
                        &CudaDevice::new(i),
                        "cuda",
                    )
                })
                .collect::<Result<Vec<_>>>()?;
            let engine = crate::multi::MultiGpuTd::<CudaRuntime, G>::new(&clients, cfg.units, None)
                .with_order(order);
            Ok((
                Box::new(engine),
                Placement::new(resolved, (gpus, 1), Some(order)),
            ))
        }
        _ => Err(Error::Unsupported(format!(
            "{gpus} GPUs: several GPUs train on CUDA devices, not on {}",
            resolved.backend().name()
        ))),
    }
}

/// The backend a rank trains on: CUDA, one GPU a rank.
#[cfg(feature = "ranks")]
pub(crate) fn rank_backend(
    cfg: &EngineConfig,
    ranks: &crate::rendezvous::Ranks,
) -> Result<ResolvedBackend> {
    if cfg.gpus != 1 {
        return Err(Error::parse(format!(
            "{} GPUs under a launcher: each rank trains on one GPU (start more ranks)",
            cfg.gpus
        )));
    }
    match resolve(cfg.backend)? {
        #[cfg(feature = "cuda")]
        resolved @ ResolvedBackend::Cuda { .. } => Ok(resolved),
        other => Err(Error::parse(format!(
            "WORLD_SIZE={}: ranks train through NCCL on CUDA GPUs, not on {}; use --backend cuda \
             (a build with the cuda feature)",
            ranks.world,
            other.backend().name()
        ))),
    }
}

/// This process's rank, leading (rank 0) or following the others.
#[cfg(feature = "ranks")]
fn rank_engine<G: GpuStochasticGame + TupleGame>(
    cfg: &EngineConfig,
    ranks: &crate::rendezvous::Ranks,
    order: TdOrder,
) -> Result<(Box<dyn TdEngine<G>>, Placement)> {
    let resolved = rank_backend(cfg, ranks)?;
    #[cfg(feature = "cuda")]
    {
        let rank = crate::ranks::cuda_rank::<G>(ranks, cfg.units, order)?;
        Ok((
            Box::new(rank),
            Placement::new(&resolved, (ranks.world, ranks.world), Some(order)),
        ))
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = order;
        Err(Error::parse(format!(
            "ranks need CUDA, and {} was chosen",
            resolved.backend().name()
        )))
    }
}
