//! Playouts far longer than lavapipe's loop budget (65,535 loop iterations an invocation): the
//! pile game of `cubesearch::Game`'s example with 200,000 stones plays about 133,000 plies a
//! game. Its device playouts resume across launches, so every backend counts what the CPU
//! counts (with whole games in one launch lavapipe would stop each game part-way).

use cubecl::prelude::*;
use cubesearch::testing::{assert_same, executor};
use cubesearch::{Backend, CpuExecutor, Error, Game, GpuGame, Outcome, Playouts, Result};
use cubesearch_kernels::device_game::{DeviceGame, LOSS, ONGOING};
use cubesearch_kernels::rng;
use rstest::rstest;

/// A pile of stones; each turn takes one or two; taking the last one wins.
struct Pile;

impl Game for Pile {
    type State = u32;
    type Move = u32;
    const NAME: &'static str = "pile";
    const STATE_WORDS: usize = 1;
    fn initial(&self) -> u32 {
        10
    }
    fn legal_moves(&self, s: &u32, out: &mut Vec<u32>) {
        out.extend((1..=2).filter(|t| t <= s))
    }
    fn apply(&self, s: &u32, take: u32) -> u32 {
        s - take
    }
    fn outcome(&self, s: &u32) -> Outcome {
        if *s == 0 {
            Outcome::Loss
        } else {
            Outcome::Ongoing
        }
    }
    fn encode(&self, s: &u32, out: &mut [u32]) {
        out[0] = *s
    }
    fn decode(&self, words: &[u32]) -> u32 {
        words[0]
    }
    fn parse_position(&self, text: &str) -> Result<u32> {
        text.trim()
            .parse()
            .map_err(|_| Error::parse(format!("bad pile '{text}'")))
    }
    fn format_position(&self, s: &u32) -> String {
        s.to_string()
    }
    fn format_move(&self, _: &u32, take: u32) -> String {
        take.to_string()
    }
}

#[derive(CubeType, Clone, Copy)]
struct Stones {
    left: u32,
}

struct DevicePile;

impl GpuGame for Pile {
    type Device = DevicePile;
    const MAX_SCORE: i32 = 1;
    // A ply runs no loop: slices as long as the loop budget allows.
    const LOOPS_PER_STEP: u32 = 1;
}

#[cube]
impl DeviceGame for DevicePile {
    type State = Stones;

    fn load(words: &Array<u32>, offset: usize) -> Stones {
        Stones {
            left: words[offset],
        }
    }
    fn store(s: &Stones, words: &mut Array<u32>, offset: usize) {
        words[offset] = s.left;
    }
    fn outcome(s: &Stones) -> u32 {
        select(s.left == 0u32, LOSS, ONGOING)
    }
    fn score(s: &Stones) -> i32 {
        select(s.left == 0u32, -1i32, 0i32)
    }
    fn move_count(s: &Stones) -> u32 {
        select(s.left >= 2u32, 2u32, s.left)
    }
    fn play(s: &mut Stones, index: u32) {
        s.left -= index + 1u32;
    }
    fn play_out(s: &mut Stones, state: &mut u32) -> u32 {
        let mut plies = 0u32;
        while s.left > 0u32 {
            let pick = rng::below(state, Self::move_count(s));
            Self::play(s, pick);
            plies += 1u32;
        }
        plies
    }
}

#[rstest]
fn playouts_past_the_loop_budget_count_what_the_cpu_counts(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    let Some(mut gpu) = executor(backend) else {
        return;
    };
    let mut cpu = CpuExecutor::new(0).unwrap();
    let roots = [200_000, 200_001, 7];
    let expected = cpu.playouts(&Pile, &roots, 6, 5).unwrap();
    // The winner of a long random game is a coin toss: both sides win some of the 12.
    let wins: u64 = expected[..2].iter().map(|c| c.wins).sum();
    assert!(wins > 0 && wins < 12, "{expected:?}");
    assert_same(
        "pile playouts",
        &expected,
        &gpu.playouts(&Pile, &roots, 6, 5).unwrap(),
    );
}
