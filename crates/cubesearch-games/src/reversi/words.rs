//! The u64-vs-2×u32 board measurement on whichever GPU an [`Executor`] holds
//! ([`device::words`](super::device::words)): the boards uploaded once, one warm-up launch, then the
//! median of timed launches (launch and read-back of one word a position).

use super::device::words::{launch_board_words, upload_boards};
use cubecl::prelude::*;
use cubesearch_core::{Error, Result};
use cubesearch_search::Executor;
use std::time::Instant;

fn time_on<R: Runtime>(
    client: &ComputeClient<R>,
    boards: &[(u64, u64)],
    split: bool,
    reps: usize,
) -> Result<(f64, Vec<u32>)> {
    let handle = upload_boards(client, boards);
    let sums = launch_board_words(client, &handle, boards.len(), split)?;
    let mut times = Vec::new();
    for _ in 0..reps.max(1) {
        let started = Instant::now();
        launch_board_words(client, &handle, boards.len(), split)?;
        times.push(started.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    Ok((times[times.len() / 2], sums))
}

/// The median seconds of one launch over `boards` with u64 boards or u32 pairs (`split`), and
/// each board's checksum.
pub fn time_board_words(
    exec: &Executor,
    boards: &[(u64, u64)],
    split: bool,
    reps: usize,
) -> Result<(f64, Vec<u32>)> {
    match exec {
        Executor::Cpu(_) => Err(Error::Unsupported(
            "the board-layout measurement runs on a GPU backend".into(),
        )),
        #[cfg(feature = "wgpu")]
        Executor::Wgpu(e) => time_on(e.client(), boards, split, reps),
        #[cfg(feature = "cuda")]
        Executor::Cuda(e) => time_on(e.client(), boards, split, reps),
    }
}
