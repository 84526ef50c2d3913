//! A test kernel that lays a device move generator bare: for each input position, its outcome,
//! its move count and every child `play(state, i)`, to be compared with the host's
//! `outcome`, `legal_moves` and `apply`. Generic over the game, though written for checkers.

use cubecl::prelude::*;
use cubesearch_core::Result;
use cubesearch_kernels::device_game::{DeviceGame, GpuGame};
use cubesearch_kernels::launch::{grid, read, upload};

/// What the device says about one position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceMoves<S> {
    /// `outcome` as a code (`Outcome::code`).
    pub outcome: u32,
    /// `move_count`.
    pub count: u32,
    /// `play(state, i)` for `i < min(count, max_children)`.
    pub children: Vec<S>,
}

/// `outcomes[p]`, `counts[p]` and `children[(p · max_children + i) · words ..]` for every
/// position `p` and move `i < min(count, max_children)`.
#[cube(launch_unchecked)]
pub fn movelist_kernel<G: DeviceGame>(
    states: &Array<u32>,
    outcomes: &mut Array<u32>,
    counts: &mut Array<u32>,
    children: &mut Array<u32>,
    positions: u32,
    #[comptime] words: usize,
    #[comptime] max_children: u32,
) {
    let p = ABSOLUTE_POS as u32;
    if p < positions {
        let offset = p as usize * words;
        let state = G::load(states, offset);
        let count = G::move_count(&state);
        outcomes[p as usize] = G::outcome(&state);
        counts[p as usize] = count;
        let listed = select(count < max_children, count, max_children);
        for i in 0..listed {
            let mut child = G::load(states, offset);
            G::play(&mut child, i);
            G::store(
                &child,
                children,
                (p as usize * max_children as usize + i as usize) * words,
            );
        }
    }
}

/// Runs [`movelist_kernel`](fn@movelist_kernel) on `states`, listing at most `max_children` children of each.
pub fn launch_movelists<R: Runtime, G: GpuGame>(
    client: &ComputeClient<R>,
    game: &G,
    states: &[G::State],
    max_children: u32,
) -> Result<Vec<DeviceMoves<G::State>>> {
    if states.is_empty() {
        return Ok(Vec::new());
    }
    let n = states.len();
    let words = G::STATE_WORDS;
    let states_handle = upload(client, &game.encode_all(states));
    let outcomes_handle = client.empty(n * 4);
    let counts_handle = client.empty(n * 4);
    let children_len = n * max_children as usize * words;
    let children_handle = upload(client, &vec![0u32; children_len.max(1)]);
    let (count, dim) = grid(client, n);
    // SAFETY: units past `n` do nothing; child `i < max_children` of position `p < n` is stored
    // inside its slot of `children`.
    unsafe {
        movelist_kernel::launch_unchecked::<G::Device, R>(
            client,
            count,
            dim,
            ArrayArg::from_raw_parts(states_handle, n * words),
            ArrayArg::from_raw_parts(outcomes_handle.clone(), n),
            ArrayArg::from_raw_parts(counts_handle.clone(), n),
            ArrayArg::from_raw_parts(children_handle.clone(), children_len.max(1)),
            n as u32,
            words,
            max_children,
        );
    }
    let read = |handle| read::<R, u32>(client, handle);
    let outcomes = read(outcomes_handle)?;
    let counts = read(counts_handle)?;
    let children = read(children_handle)?;
    Ok((0..n)
        .map(|p| {
            let listed = counts[p].min(max_children) as usize;
            let base = p * max_children as usize * words;
            DeviceMoves {
                outcome: outcomes[p],
                count: counts[p],
                children: (0..listed)
                    .map(|i| game.decode(&children[base + i * words..base + (i + 1) * words]))
                    .collect(),
            }
        })
        .collect())
}
