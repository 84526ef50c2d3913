//! 2584 and 2048 on the device: slides, rewards, spawns and whole random games equal the host's
//! `Sliding<R>` bit for bit on every backend (the CPU case runs the host rules through the same
//! interface, so the test also holds the oracle to itself through that path).

use cubesearch::rng::XorShift32;
use cubesearch::testing::{assert_same, executor};
use cubesearch::Backend;
use cubesearch_games::fib::GpuTiles;
use cubesearch_games::fib::{Board, BoardOf, Dir, Fib, Pow2, Sliding};
use cubesearch_search::StochasticRules;
use rstest::rstest;

/// Random boards: each cell empty with p = 1/3, else a tile index drawn mostly small, sometimes
/// near the rule's largest (so merges at the top of the range are covered); every fourth board
/// has runs of equal and neighbouring tiles, which make the most merges.
fn random_boards<T: GpuTiles>(count: usize, seed: u32) -> Vec<BoardOf<T>> {
    let mut rng = XorShift32::for_worker(seed, 0);
    let top = (1u32 << T::BITS) - 1;
    (0..count)
        .map(|n| {
            let mut cells = [0u8; 16];
            for c in cells.iter_mut() {
                let k = match rng.below(6) {
                    0 | 1 => 0,
                    2 => top - rng.below(4),
                    _ => 1 + rng.below(6),
                };
                *c = k as u8;
            }
            if n % 4 == 0 {
                let base = 1 + rng.below(top - 2);
                for c in cells.iter_mut() {
                    *c = (base + rng.below(3)).min(top) as u8 * (rng.below(5) != 0) as u8;
                }
            }
            Board::from_cells(&cells, T::BITS)
        })
        .collect()
}

fn slides_match<T: GpuTiles>(backend: Backend) {
    let Some(mut exec) = executor(backend) else {
        return;
    };
    let game = Sliding::<T>::new();
    let mut boards = random_boards::<T>(4000, 11);
    boards.push(Board::EMPTY);
    let got = exec.actions(&game, &boards).unwrap();
    assert_eq!(got.len(), boards.len());
    let (mut moved, mut rewarded) = (0, 0);
    for (b, slides) in boards.iter().zip(&got) {
        for (d, s) in Dir::ALL.iter().zip(slides) {
            let (after, reward) = game.slide(*b, *d);
            assert_eq!(
                (s.after, s.reward, s.legal),
                (after, reward, after != *b),
                "{} {:?} of {}",
                T::NAME,
                d,
                cubesearch::StochasticGame::format_position(&game, b)
            );
            moved += s.legal as usize;
            rewarded += (s.reward > 0) as usize;
        }
    }
    // The boards exercise both legal and illegal slides, with and without merges.
    assert!(moved > 1000 && moved < 4 * boards.len(), "{moved} moved");
    assert!(rewarded > 1000, "{rewarded} slides scored");
}

#[rstest]
fn slides_and_rewards_equal_the_host(
    #[values(Backend::Cpu, Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    slides_match::<Fib>(backend);
    slides_match::<Pow2>(backend);
}

fn spawns_match<T: GpuTiles>(backend: Backend) {
    let Some(mut exec) = executor(backend) else {
        return;
    };
    let game = Sliding::<T>::new();
    let mut boards = random_boards::<T>(3000, 5);
    let full = Board::from_cells(&[1; 16], T::BITS);
    boards.extend([Board::EMPTY, full]);
    let rngs: Vec<u32> = (0..boards.len() as u32)
        .map(|i| XorShift32::for_worker(99, i).0)
        .collect();
    let (got, got_rngs) = exec.chance_samples(&game, &boards, &rngs).unwrap();
    let (want, want_rngs): (Vec<_>, Vec<_>) = boards
        .iter()
        .zip(&rngs)
        .map(|(&b, &r)| {
            let mut rng = XorShift32(r);
            (game.spawn(b, &mut rng), rng.0)
        })
        .unzip();
    assert_same(&format!("{} spawned boards", T::NAME), &want, &got);
    assert_same(
        &format!("{} RNG states after spawns", T::NAME),
        &want_rngs,
        &got_rngs,
    );
    // A full board draws nothing and stays; every other board gained exactly one tile.
    assert_eq!(got[boards.len() - 1], full);
    assert_eq!(got_rngs[boards.len() - 1], rngs[boards.len() - 1]);
    let spawned: Vec<u8> = T::SPAWNS.iter().map(|&(k, _)| k).collect();
    for (b, a) in boards.iter().zip(&got) {
        if b.empty_count(T::BITS) == 0 {
            assert_eq!(a, b);
            continue;
        }
        assert_eq!(a.empty_count(T::BITS) + 1, b.empty_count(T::BITS));
        let new: Vec<u8> = (0..16)
            .filter(|&i| b.cell(i, T::BITS) != a.cell(i, T::BITS))
            .map(|i| a.cell(i, T::BITS))
            .collect();
        assert!(new.len() == 1 && spawned.contains(&new[0]));
    }
}

#[rstest]
fn spawns_equal_the_host_for_the_same_rng_state(
    #[values(Backend::Cpu, Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    spawns_match::<Fib>(backend);
    spawns_match::<Pow2>(backend);
}

fn games_match<T: GpuTiles>(backend: Backend) {
    let Some(mut exec) = executor(backend) else {
        return;
    };
    let mut cpu = cubesearch::CpuExecutor::new(1).unwrap();
    let game = Sliding::<T>::new();
    let want = cpu.random_games(&game, 300, 7).unwrap();
    let got = exec.random_games(&game, 300, 7).unwrap();
    assert_same(&format!("{} random games", T::NAME), &want, &got);
    for g in &got {
        assert!(cubesearch::StochasticGame::is_over(&game, &g.state));
    }
    let moves: u32 = got.iter().map(|g| g.moves).sum();
    assert!(
        moves > 300 * 40,
        "random games average {} moves",
        moves / 300
    );
}

#[rstest]
fn device_random_games_equal_the_host(
    #[values(Backend::Cpu, Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    games_match::<Fib>(backend);
    games_match::<Pow2>(backend);
}
