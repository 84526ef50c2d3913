//! The two device board layouts of the u64-vs-2×u32 measurement compute the same move generation
//! and flips as the CPU on random reachable positions.

use cubesearch::games::Reversi;
use cubesearch::testing::random_positions;
use cubesearch::testing::{assert_same, executor};
use cubesearch::{Backend, Executor};
use cubesearch_games::reversi::device::words::{
    checksum, launch_board_words, upload_boards, BoardLayout,
};
use rstest::rstest;

#[rstest]
fn both_layouts_match_the_cpu(#[values(Backend::Wgpu, Backend::Cuda)] backend: Backend) {
    let Some(gpu) = executor(backend) else {
        return;
    };
    let boards: Vec<(u64, u64)> = random_positions(&Reversi, 800, 70, 61)
        .iter()
        .map(|b| (b.player, b.opponent))
        .collect();
    let expected: Vec<u32> = boards.iter().map(|&(p, o)| checksum(p, o)).collect();
    let distinct: std::collections::BTreeSet<u32> = expected.iter().copied().collect();
    assert!(distinct.len() > 500, "{} distinct sums", distinct.len());
    for layout in [BoardLayout::U64, BoardLayout::U32Pairs] {
        let got = match &gpu {
            Executor::Cpu(_) => unreachable!(),
            #[cfg(feature = "wgpu")]
            Executor::Wgpu(e) => {
                let h = upload_boards(e.client(), &boards);
                launch_board_words(e.client(), &h, boards.len(), layout).unwrap()
            }
            #[cfg(feature = "cuda")]
            Executor::Cuda(e) => {
                let h = upload_boards(e.client(), &boards);
                launch_board_words(e.client(), &h, boards.len(), layout).unwrap()
            }
        };
        assert_same(&format!("board words, {layout:?}"), &expected, &got);
    }
}
