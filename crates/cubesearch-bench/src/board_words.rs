//! The u64-vs-2×u32 board measurement on whichever GPU an [`Executor`] holds
//! (`cubesearch_games::reversi::device::words`): the boards uploaded once, one warm-up launch, then the
//! median of timed launches (launch and read-back of one word a position).

use cubecl::prelude::*;
use cubesearch_core::Result;
use cubesearch_games::reversi::device::words::{launch_board_words, upload_boards, BoardLayout};
use cubesearch_search::{DeviceTask, Executor, GpuExecutor};
use std::time::Instant;

fn time_on<R: Runtime>(
    client: &ComputeClient<R>,
    boards: &[(u64, u64)],
    layout: BoardLayout,
    reps: usize,
) -> Result<(f64, Vec<u32>)> {
    let handle = upload_boards(client, boards);
    let sums = launch_board_words(client, &handle, boards.len(), layout)?;
    let mut times = Vec::new();
    for _ in 0..reps.max(1) {
        let started = Instant::now();
        launch_board_words(client, &handle, boards.len(), layout)?;
        times.push(started.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    Ok((times[times.len() / 2], sums))
}

/// The median seconds of one launch over `boards` held as `layout` says, and each board's
/// checksum.
pub fn time_board_words(
    exec: &Executor,
    boards: &[(u64, u64)],
    layout: BoardLayout,
    reps: usize,
) -> Result<(f64, Vec<u32>)> {
    struct BoardWords<'a> {
        boards: &'a [(u64, u64)],
        layout: BoardLayout,
        reps: usize,
    }
    impl DeviceTask for BoardWords<'_> {
        type Output = (f64, Vec<u32>);
        fn run<R: Runtime>(self, gpu: &GpuExecutor<R>) -> Result<Self::Output> {
            time_on(gpu.client(), self.boards, self.layout, self.reps)
        }
    }
    let task = BoardWords {
        boards,
        layout,
        reps,
    };
    exec.on_device(task, "the board-layout measurement runs on a GPU backend")
}
