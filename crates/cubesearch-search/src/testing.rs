//! Helpers for tests that hold a GPU kernel to the CPU oracle; public so that users who add a
//! game can cross-check their device rules the same way in their own CI.
//!
//! On a machine without a GPU, wgpu runs on Mesa's lavapipe. A missing wgpu adapter is a test
//! failure that says how to install it, never a silent skip. CUDA cases run when the crate is
//! built with the `cuda` feature (on an NVIDIA host), and must then find a device.
//!
//! ```
//! use cubesearch_core::{Backend, Game, Perft};
//! use cubesearch_games::nim::Nim;
//! use cubesearch_search::testing::{assert_same, executor};
//! use cubesearch_search::CpuExecutor;
//!
//! // In a test: the same perft on the CPU oracle and on each GPU backend built in.
//! let roots = [Nim.parse_position("1,2,3")?, Nim.parse_position("2,2")?];
//! let cpu = CpuExecutor::new(1)?.perft(&Nim, &roots, 3)?;
//! for backend in [Backend::Wgpu, Backend::Cuda] {
//!     if let Some(mut gpu) = executor(backend) {
//!         assert_same("nim perft(3)", &cpu, &gpu.perft(&Nim, &roots, 3)?);
//!     }
//! }
//! # Ok::<(), cubesearch_core::Error>(())
//! ```

use crate::Executor;
use cubesearch_core::backend::{resolve, Backend};

/// The executor for `backend`, or `None` for CUDA in a build without the `cuda` feature.
///
/// # Panics
/// When the backend is compiled in but cannot start: a test environment must provide it.
pub fn executor(backend: Backend) -> Option<Executor> {
    if backend == Backend::Cuda && !cfg!(feature = "cuda") {
        eprintln!(
            "cuda: not built into this test binary (build with --features cuda on an NVIDIA host)"
        );
        return None;
    }
    let resolved = resolve(backend).unwrap_or_else(|e| match backend {
        Backend::Wgpu => panic!(
            "{e}\nThe wgpu tests need a Vulkan driver: on Debian/Ubuntu run \
             `apt-get install mesa-vulkan-drivers` (scripts/test does this)."
        ),
        _ => panic!("{e}"),
    });
    Some(Executor::on(&resolved).unwrap_or_else(|e| panic!("{e}")))
}

/// Asserts that `gpu` equals the CPU oracle's `cpu`, naming the first index that differs.
pub fn assert_same<T: PartialEq + std::fmt::Debug>(what: &str, cpu: &[T], gpu: &[T]) {
    assert_eq!(
        cpu.len(),
        gpu.len(),
        "{what}: {} results on the CPU, {} on the GPU",
        cpu.len(),
        gpu.len()
    );
    if let Some(i) = cpu.iter().zip(gpu).position(|(c, g)| c != g) {
        panic!(
            "{what}: first difference at {i}: CPU {:?}, GPU {:?}",
            cpu[i], gpu[i]
        );
    }
}
