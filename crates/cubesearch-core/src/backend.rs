//! Backend selection: which device runs the kernels, found without ever panicking.
//!
//! `auto` tries CUDA (a device answers), then wgpu (an adapter exists), then the CPU.
//! Probing goes through the driver APIs directly (cudarc, wgpu) before cubecl is asked for a
//! client, because cubecl panics when a device is missing; the client creation itself is then
//! wrapped by [`catch_device_panic`] for the failures no probe can foresee.

use crate::error::{Error, Result};
use cubecl::prelude::*;
use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// A backend as the user names it.
///
/// ```
/// use cubesearch_core::backend::{resolve, Backend};
///
/// let asked: Backend = "cpu".parse()?;
/// let resolved = resolve(asked)?; // `auto` tries CUDA, then wgpu, then the CPU
/// assert_eq!(resolved.backend(), Backend::Cpu);
/// println!("running on {resolved}");
/// assert!("tpu".parse::<Backend>().is_err());
/// # Ok::<(), cubesearch_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Backend {
    /// CUDA if a device answers, else wgpu on a hardware GPU, else the CPU: a software
    /// rasteriser such as lavapipe only when asked for by name (`Wgpu`).
    #[default]
    Auto,
    /// The CPU, all cores (rayon).
    Cpu,
    /// wgpu: Vulkan, Metal or DX12, including Mesa's lavapipe.
    Wgpu,
    /// CUDA through NVRTC (build with `--features cuda`).
    Cuda,
}

impl Backend {
    /// Every concrete backend, in `auto`'s order of preference.
    pub const CONCRETE: [Backend; 3] = [Backend::Cuda, Backend::Wgpu, Backend::Cpu];

    /// The name used on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            Backend::Auto => "auto",
            Backend::Cpu => "cpu",
            Backend::Wgpu => "wgpu",
            Backend::Cuda => "cuda",
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Backend {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Backend::Auto),
            "cpu" => Ok(Backend::Cpu),
            "wgpu" => Ok(Backend::Wgpu),
            "cuda" => Ok(Backend::Cuda),
            other => Err(Error::parse(format!(
                "unknown backend '{other}': expected auto, cpu, wgpu or cuda"
            ))),
        }
    }
}

/// What a GPU backend's device is (`cubesearch info` writes `hardware` or `software`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceKind {
    /// A GPU.
    Hardware,
    /// A software rasteriser on the CPU (lavapipe), which ends every invocation after a loop
    /// budget that no property reports.
    Software,
}

/// A backend that answered, with the device it found.
#[derive(Clone, Debug)]
pub enum ResolvedBackend {
    /// The CPU with this many worker threads.
    Cpu {
        /// Worker threads.
        threads: usize,
    },
    /// A wgpu adapter.
    #[cfg(feature = "wgpu")]
    Wgpu {
        /// The adapter, as cubecl names it.
        device: cubecl::wgpu::WgpuDevice,
        /// The adapter's name and driver.
        name: String,
    },
    /// A CUDA device.
    #[cfg(feature = "cuda")]
    Cuda {
        /// The device, as cubecl names it.
        device: cubecl::cuda::CudaDevice,
        /// The device's name.
        name: String,
    },
}

impl ResolvedBackend {
    /// The backend's name.
    pub fn backend(&self) -> Backend {
        match self {
            ResolvedBackend::Cpu { .. } => Backend::Cpu,
            #[cfg(feature = "wgpu")]
            ResolvedBackend::Wgpu { .. } => Backend::Wgpu,
            #[cfg(feature = "cuda")]
            ResolvedBackend::Cuda { .. } => Backend::Cuda,
        }
    }

    /// The device's kind (the CPU backend's is `Hardware`).
    pub fn kind(&self) -> DeviceKind {
        if self.is_software() {
            DeviceKind::Software
        } else {
            DeviceKind::Hardware
        }
    }

    /// Whether the device is a software rasteriser on the CPU (lavapipe), with its loop budget.
    pub fn is_software(&self) -> bool {
        match self {
            #[cfg(feature = "wgpu")]
            ResolvedBackend::Wgpu { device, .. } => matches!(device, cubecl::wgpu::WgpuDevice::Cpu),
            _ => false,
        }
    }

    /// A human-readable device description.
    pub fn device_name(&self) -> String {
        match self {
            ResolvedBackend::Cpu { threads } => format!("CPU, {threads} threads"),
            #[cfg(feature = "wgpu")]
            ResolvedBackend::Wgpu { name, .. } => name.clone(),
            #[cfg(feature = "cuda")]
            ResolvedBackend::Cuda { name, .. } => name.clone(),
        }
    }
}

impl fmt::Display for ResolvedBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.backend(), self.device_name())
    }
}

/// Finds the device for `backend`, or says clearly why there is none.
pub fn resolve(backend: Backend) -> Result<ResolvedBackend> {
    match backend {
        // A software rasteriser (lavapipe) is a test device, slower than the CPU at real work:
        // only asked for by name.
        Backend::Auto => resolve(Backend::Cuda)
            .or_else(|_| resolve(Backend::Wgpu).and_then(hardware))
            .or_else(|_| resolve(Backend::Cpu)),
        Backend::Cpu => Ok(ResolvedBackend::Cpu {
            threads: cpu_threads(),
        }),
        Backend::Wgpu => probe_wgpu(),
        Backend::Cuda => probe_cuda(),
    }
}

/// `resolved` unless it is a software rasteriser.
fn hardware(resolved: ResolvedBackend) -> Result<ResolvedBackend> {
    if resolved.is_software() {
        Err(Error::BackendUnavailable {
            backend: "wgpu",
            why: "only a software rasteriser".into(),
        })
    } else {
        Ok(resolved)
    }
}

/// Threads the CPU backend uses (rayon's pool size).
pub fn cpu_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(feature = "wgpu")]
fn probe_wgpu() -> Result<ResolvedBackend> {
    use cubecl::wgpu::WgpuDevice;
    let unavailable = |why: String| Error::BackendUnavailable {
        backend: "wgpu",
        why,
    };
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: wgpu::Backends::PRIMARY,
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::PRIMARY));
    // Prefer real GPUs; among adapters of one type, cubecl numbers them in enumeration order.
    let rank = |t: wgpu::DeviceType| match t {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Cpu => 3,
        wgpu::DeviceType::Other => 4,
    };
    let best = adapters
        .iter()
        .map(|a| a.get_info())
        .filter(|info| info.device_type != wgpu::DeviceType::Other)
        .min_by_key(|info| rank(info.device_type))
        .ok_or_else(|| {
            unavailable(
                "no Vulkan/Metal/DX12 adapter found; on Debian/Ubuntu install the software driver \
                 with `apt-get install mesa-vulkan-drivers`, or a GPU driver"
                    .to_string(),
            )
        })?;
    let index = adapters
        .iter()
        .map(|a| a.get_info())
        .filter(|info| info.device_type == best.device_type)
        .position(|info| info.name == best.name && info.device == best.device)
        .unwrap_or(0);
    let device = match best.device_type {
        wgpu::DeviceType::DiscreteGpu => WgpuDevice::DiscreteGpu(index),
        wgpu::DeviceType::IntegratedGpu => WgpuDevice::IntegratedGpu(index),
        wgpu::DeviceType::VirtualGpu => WgpuDevice::VirtualGpu(index),
        _ => WgpuDevice::Cpu,
    };
    let name = format!("{} ({:?}, {})", best.name, best.backend, best.driver_info)
        .replace(" ()", "")
        .replace(", )", ")");
    Ok(ResolvedBackend::Wgpu { device, name })
}

#[cfg(not(feature = "wgpu"))]
fn probe_wgpu() -> Result<ResolvedBackend> {
    Err(Error::BackendUnavailable {
        backend: "wgpu",
        why: "this binary was built without the `wgpu` feature; rebuild with `--features wgpu`"
            .into(),
    })
}

#[cfg(feature = "cuda")]
fn probe_cuda() -> Result<ResolvedBackend> {
    let unavailable = |why: String| Error::BackendUnavailable {
        backend: "cuda",
        why,
    };
    let hint =
        "check the NVIDIA driver (`nvidia-smi`) and set CUDA_PATH (e.g. /usr/local/cuda) so \
                NVRTC and the CUDA headers are found";
    // cudarc loads libcuda lazily and panics when it is absent: contain that.
    let probe = catch_device_panic(|| -> std::result::Result<String, String> {
        let count = cudarc::driver::CudaContext::device_count().map_err(|e| e.to_string())?;
        if count < 1 {
            return Err("no CUDA device found".into());
        }
        let ctx = cudarc::driver::CudaContext::new(0).map_err(|e| e.to_string())?;
        ctx.name().map_err(|e| e.to_string())
    });
    match probe {
        Ok(Ok(name)) => Ok(ResolvedBackend::Cuda {
            device: cubecl::cuda::CudaDevice::new(0),
            name,
        }),
        Ok(Err(why)) => Err(unavailable(format!("{why}; {hint}"))),
        Err(why) => Err(unavailable(format!(
            "the CUDA driver could not be loaded ({why}); {hint}"
        ))),
    }
}

/// How many CUDA devices the driver reports (0 when the driver cannot be loaded).
#[cfg(feature = "cuda")]
pub fn cuda_device_count() -> usize {
    catch_device_panic(|| cudarc::driver::CudaContext::device_count().unwrap_or(0))
        .map_or(0, |n| n.max(0) as usize)
}

/// How many CUDA devices the driver reports: none in a build without the `cuda` feature.
#[cfg(not(feature = "cuda"))]
pub fn cuda_device_count() -> usize {
    0
}

#[cfg(not(feature = "cuda"))]
fn probe_cuda() -> Result<ResolvedBackend> {
    Err(Error::BackendUnavailable {
        backend: "cuda",
        why: "this binary was built without the `cuda` feature; rebuild with `--features cuda`"
            .into(),
    })
}

/// Runs `f`, turning a panic inside it (cubecl and the drivers panic on missing devices) into an
/// error string, without printing the panic message.
pub fn catch_device_panic<T>(f: impl FnOnce() -> T) -> std::result::Result<T, String> {
    use std::sync::Mutex;
    static HOOK: Mutex<()> = Mutex::new(());
    let _guard = HOOK.lock().unwrap_or_else(|e| e.into_inner());
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    std::panic::set_hook(previous);
    result.map_err(|payload| {
        let text = payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown failure".into());
        text.lines().next().unwrap_or_default().to_string()
    })
}

/// Limits of a device that matter to the kernels.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct DeviceLimits {
    /// Shared memory one cube may use, in bytes.
    pub shared_memory_per_cube: usize,
    /// Largest cube dimensions (x, y, z).
    pub max_cube_dim: (u32, u32, u32),
    /// Most units in one cube.
    pub max_units_per_cube: u32,
    /// Whether plane (warp/subgroup) operations are offered.
    pub plane_ops: bool,
    /// Plane size range (min, max).
    pub plane_size: (u32, u32),
    /// Whether 64-bit integers are supported.
    pub u64: bool,
    /// Whether f32 atomic add is supported on global memory.
    pub f32_atomic_add: bool,
    /// Multiprocessors, where the runtime reports them.
    pub multiprocessors: Option<u32>,
    /// Loop iterations one unit may run in all, where the driver stops loops early: Mesa's
    /// llvmpipe (lavapipe) counts every loop back-edge of an invocation against 65535.
    pub loop_iterations: Option<u32>,
    /// A hardware GPU, or a software device running on the CPU (whose rates are the CPU's).
    pub kind: DeviceKind,
}

/// The loop budget of an llvmpipe invocation (gallivm's `LP_MAX_TGSI_LOOP_ITERATIONS`).
pub const LLVMPIPE_LOOP_ITERATIONS: u32 = 65_535;

impl DeviceLimits {
    /// Reads the limits off a live client; a software device's loop budget is known, since no
    /// property reports it.
    pub fn of<R: Runtime>(client: &ComputeClient<R>, kind: DeviceKind) -> Self {
        use cubecl::features::{AtomicUsage, Plane};
        use cubecl::ir::{ElemType, StorageType, Type, UIntKind};
        let props = client.properties();
        let hw = &props.hardware;
        let f32_atomic = Type::new(StorageType::Atomic(ElemType::Float(
            cubecl::ir::FloatKind::F32,
        )));
        DeviceLimits {
            shared_memory_per_cube: hw.max_shared_memory_size,
            max_cube_dim: hw.max_cube_dim,
            max_units_per_cube: hw.max_units_per_cube,
            plane_ops: props.features.plane.contains(Plane::Ops),
            plane_size: (hw.plane_size_min, hw.plane_size_max),
            u64: props.supports_type(StorageType::Scalar(ElemType::UInt(UIntKind::U64))),
            f32_atomic_add: props
                .atomic_type_usage(f32_atomic)
                .contains(AtomicUsage::Add),
            multiprocessors: hw.num_streaming_multiprocessors,
            loop_iterations: (kind == DeviceKind::Software).then_some(LLVMPIPE_LOOP_ITERATIONS),
            kind,
        }
    }
}

/// One line of `cubesearch info`.
#[derive(Clone, Debug, Serialize)]
pub struct BackendInfo {
    /// `cpu`, `wgpu` or `cuda`.
    pub name: &'static str,
    /// Whether the backend can run here.
    pub available: bool,
    /// The device it would use.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    /// Why it is unavailable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// The device's limits (GPU backends).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limits: Option<DeviceLimits>,
}

/// Probes every backend and reads its limits.
pub fn info() -> Vec<BackendInfo> {
    Backend::CONCRETE
        .iter()
        .map(|&backend| match resolve(backend) {
            Ok(resolved) => {
                let limits = device_limits(&resolved);
                let (limits, why) = match limits {
                    Ok(l) => (l, None),
                    Err(e) => (None, Some(e.to_string())),
                };
                BackendInfo {
                    name: backend.name(),
                    available: why.is_none(),
                    device: Some(resolved.device_name()),
                    why,
                    limits,
                }
            }
            Err(e) => BackendInfo {
                name: backend.name(),
                available: false,
                device: None,
                why: Some(match e {
                    Error::BackendUnavailable { why, .. } => why,
                    other => other.to_string(),
                }),
                limits: None,
            },
        })
        .collect()
}

/// Starts a client on the resolved device and reads its limits (`None` for the CPU).
pub fn device_limits(resolved: &ResolvedBackend) -> Result<Option<DeviceLimits>> {
    match resolved {
        ResolvedBackend::Cpu { .. } => Ok(None),
        #[cfg(feature = "wgpu")]
        ResolvedBackend::Wgpu { device, .. } => {
            start_client::<cubecl::wgpu::WgpuRuntime>(device, "wgpu")
                .map(|c| Some(DeviceLimits::of(&c, resolved.kind())))
        }
        #[cfg(feature = "cuda")]
        ResolvedBackend::Cuda { device, .. } => {
            start_client::<cubecl::cuda::CudaRuntime>(device, "cuda")
                .map(|c| Some(DeviceLimits::of(&c, DeviceKind::Hardware)))
        }
    }
}

/// Creates the cubecl client for `device`, turning a failed start into an error.
pub fn start_client<R: Runtime>(
    device: &R::Device,
    backend: &'static str,
) -> Result<ComputeClient<R>> {
    catch_device_panic(|| R::client(device))
        .map_err(|why| Error::BackendUnavailable { backend, why })
}
