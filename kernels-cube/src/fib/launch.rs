//! Test kernels that lay the device rules bare, and their launchers: every slide of many boards,
//! spawns from given RNG states, and whole random games. Tests hold them to the host's
//! `Sliding<R>` bit for bit.

use super::moves::{initial, set_board, slide, spawn, Slide};
use super::{DeviceTiles, GpuTiles};
use crate::launch::{grid, read, upload};
use crate::rng;
use cubecl::prelude::*;
use cubesearch_core::Result;
use cubesearch_games::fib::BoardOf;

/// Unit `b` slides board `b` in all four directions: the board after direction `d` goes to
/// `after[(4b + d)·words ..]`, its reward to `rewards[4b + d]` and 1 to `moved[4b + d]` if it
/// moved.
#[cube(launch_unchecked)]
pub fn slide_kernel<T: DeviceTiles>(
    boards: &Array<u32>,
    after: &mut Array<u32>,
    rewards: &mut Array<u32>,
    moved: &mut Array<u32>,
    count: u32,
    #[comptime] words: usize,
) {
    let b = ABSOLUTE_POS as u32;
    if b < count {
        let board = T::load(boards, b as usize * words);
        #[unroll]
        for d in 0..4u32 {
            let s = slide::<T>(&board, d);
            let at = (4u32 * b + d) as usize;
            T::store(&s.board, after, at * words);
            rewards[at] = s.reward;
            moved[at] = select(s.moved, 1u32, 0u32);
        }
    }
}

/// One slide as the device computes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceSlide<B> {
    /// The board after the slide.
    pub after: B,
    /// Its reward.
    pub reward: u32,
    /// Whether the board changed.
    pub moved: bool,
}

/// Every board slid in the four directions (left, right, up, down) on the device.
pub fn launch_slides<R: Runtime, T: GpuTiles>(
    client: &ComputeClient<R>,
    boards: &[BoardOf<T>],
) -> Result<Vec<[DeviceSlide<BoardOf<T>>; 4]>> {
    if boards.is_empty() {
        return Ok(Vec::new());
    }
    let words = T::WORDS;
    let n = boards.len();
    let boards_handle = upload(client, &T::encode_all(boards));
    let after_handle = client.empty(n * 4 * words * 4);
    let rewards_handle = client.empty(n * 4 * 4);
    let moved_handle = client.empty(n * 4 * 4);
    let (count, dim) = grid(client, n);
    // SAFETY: units past `n` write nothing; unit b writes only its own four slots.
    unsafe {
        slide_kernel::launch_unchecked::<T::Device, R>(
            client,
            count,
            dim,
            ArrayArg::from_raw_parts(boards_handle, n * words),
            ArrayArg::from_raw_parts(after_handle.clone(), n * 4 * words),
            ArrayArg::from_raw_parts(rewards_handle.clone(), n * 4),
            ArrayArg::from_raw_parts(moved_handle.clone(), n * 4),
            n as u32,
            words,
        );
    }
    let after = T::decode_all(&read::<R, u32>(client, after_handle)?);
    let rewards = read::<R, u32>(client, rewards_handle)?;
    let moved = read::<R, u32>(client, moved_handle)?;
    Ok((0..n)
        .map(|b| {
            std::array::from_fn(|d| DeviceSlide {
                after: after[4 * b + d],
                reward: rewards[4 * b + d],
                moved: moved[4 * b + d] == 1,
            })
        })
        .collect())
}

/// Unit `b` spawns one tile on board `b` with RNG state `rngs[b]`, writing the board back to
/// `out` and the advanced RNG state back to `rngs[b]`.
#[cube(launch_unchecked)]
pub fn spawn_kernel<T: DeviceTiles>(
    boards: &Array<u32>,
    rngs: &mut Array<u32>,
    out: &mut Array<u32>,
    count: u32,
    #[comptime] words: usize,
) {
    let b = ABSOLUTE_POS as u32;
    if b < count {
        let mut board = T::load(boards, b as usize * words);
        let mut state = rngs[b as usize];
        spawn::<T>(&mut board, &mut state);
        T::store(&board, out, b as usize * words);
        rngs[b as usize] = state;
    }
}

/// Each board with one tile spawned from the matching xorshift32 state, and the states after.
pub fn launch_spawns<R: Runtime, T: GpuTiles>(
    client: &ComputeClient<R>,
    boards: &[BoardOf<T>],
    rngs: &[u32],
) -> Result<(Vec<BoardOf<T>>, Vec<u32>)> {
    assert_eq!(boards.len(), rngs.len(), "one RNG state per board");
    if boards.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let words = T::WORDS;
    let n = boards.len();
    let boards_handle = upload(client, &T::encode_all(boards));
    let rngs_handle = upload(client, rngs);
    let out_handle = client.empty(n * words * 4);
    let (count, dim) = grid(client, n);
    // SAFETY: units past `n` touch nothing; unit b touches only slot b.
    unsafe {
        spawn_kernel::launch_unchecked::<T::Device, R>(
            client,
            count,
            dim,
            ArrayArg::from_raw_parts(boards_handle, n * words),
            ArrayArg::from_raw_parts(rngs_handle.clone(), n),
            ArrayArg::from_raw_parts(out_handle.clone(), n * words),
            n as u32,
            words,
        );
    }
    let out = T::decode_all(&read::<R, u32>(client, out_handle)?);
    Ok((out, read::<R, u32>(client, rngs_handle)?))
}

/// Unit `g` plays game `g` with uniformly random legal moves, as the host's `random_episode`
/// does with `XorShift32::for_worker(seed, g)`: the start is two spawns; each turn draws
/// `below(legal count)` over the legal directions in canonical order, then spawns. Writes the
/// final board to `boards` and `(score, moves)` to `stats[2g..]`.
#[cube(launch_unchecked)]
pub fn random_game_kernel<T: DeviceTiles>(
    boards: &mut Array<u32>,
    stats: &mut Array<u32>,
    seed: u32,
    count: u32,
    #[comptime] words: usize,
) {
    let g = ABSOLUTE_POS as u32;
    if g < count {
        let mut state = rng::worker_state(seed, g);
        let mut board = initial::<T>(&mut state);
        let mut score = 0u32;
        let mut moves = 0u32;
        loop {
            let s0 = slide::<T>(&board, 0u32);
            let s1 = slide::<T>(&board, 1u32);
            let s2 = slide::<T>(&board, 2u32);
            let s3 = slide::<T>(&board, 3u32);
            let m0 = select(s0.moved, 1u32, 0u32);
            let m1 = select(s1.moved, 1u32, 0u32);
            let m2 = select(s2.moved, 1u32, 0u32);
            let m3 = select(s3.moved, 1u32, 0u32);
            let legal = m0 + m1 + m2 + m3;
            if legal == 0u32 {
                break;
            }
            let k = rng::below(&mut state, legal);
            // The direction of the k-th legal slide.
            let d = select(
                k < m0,
                0u32,
                select(k < m0 + m1, 1u32, select(k < m0 + m1 + m2, 2u32, 3u32)),
            );
            let chosen: Slide = slide::<T>(&board, d);
            score += chosen.reward;
            moves += 1u32;
            set_board(&mut board, &chosen.board);
            spawn::<T>(&mut board, &mut state);
        }
        T::store(&board, boards, g as usize * words);
        stats[2 * g as usize] = score;
        stats[2 * g as usize + 1] = moves;
    }
}

/// A random game as the device played it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceGameEnd<B> {
    /// The final board.
    pub board: B,
    /// The sum of the rewards.
    pub score: u32,
    /// Moves played.
    pub moves: u32,
}

/// Plays `count` random games on the device (game `g` seeded as worker `g` of `seed`).
pub fn launch_random_games<R: Runtime, T: GpuTiles>(
    client: &ComputeClient<R>,
    count: usize,
    seed: u32,
) -> Result<Vec<DeviceGameEnd<BoardOf<T>>>> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let words = T::WORDS;
    let boards_handle = client.empty(count * words * 4);
    let stats_handle = client.empty(count * 2 * 4);
    let (cubes, dim) = grid(client, count);
    // SAFETY: units past `count` write nothing; unit g writes only its own slots.
    unsafe {
        random_game_kernel::launch_unchecked::<T::Device, R>(
            client,
            cubes,
            dim,
            ArrayArg::from_raw_parts(boards_handle.clone(), count * words),
            ArrayArg::from_raw_parts(stats_handle.clone(), count * 2),
            seed,
            count as u32,
            words,
        );
    }
    let boards = T::decode_all(&read::<R, u32>(client, boards_handle)?);
    let stats = read::<R, u32>(client, stats_handle)?;
    Ok(boards
        .into_iter()
        .enumerate()
        .map(|(g, board)| DeviceGameEnd {
            board,
            score: stats[2 * g],
            moves: stats[2 * g + 1],
        })
        .collect())
}
