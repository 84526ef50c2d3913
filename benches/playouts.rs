//! Random Nim playouts per second on the CPU (one thread and all cores) and on wgpu.
//! `cubesearch bench nim-playouts` is the fuller harness (every backend, calibrated sizes).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use cubesearch::games::{Nim, NimState};
use cubesearch::{Backend, CpuExecutor, Executor, Playouts};

fn playouts(c: &mut Criterion) {
    let board = NimState::seed_board(8).unwrap();
    let per_run = 1 << 14;
    let mut group = c.benchmark_group("nim-playouts");
    group.throughput(Throughput::Elements(per_run as u64));
    group.sample_size(10);
    for threads in [1, 0] {
        let mut exec = CpuExecutor::new(threads).unwrap();
        let name = format!("cpu-{}", exec.threads());
        group.bench_function(name, |b| {
            b.iter(|| exec.playouts(&Nim, &[board], per_run, 1).unwrap())
        });
    }
    if let Ok((mut gpu, device)) = Executor::new(Backend::Wgpu) {
        group.bench_function(format!("wgpu ({})", device.device_name()), |b| {
            b.iter(|| gpu.playouts(&Nim, &[board], per_run, 1).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, playouts);
criterion_main!(benches);
