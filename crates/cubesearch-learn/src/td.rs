//! Greedy play and TD(0) learning on afterstates (the seed's section 2.2).
//!
//! A game is played greedily: in state s the player takes the legal action maximising
//! `reward + V(afterstate)` (ties go to the first in canonical order: left, right, up, down).
//! Learning happens when the game is over, *backward* over its afterstates, as the seed's CPU
//! baseline does ("after each game ends, the history of the game is used ... to improve the
//! weights"): the last afterstate is moved toward 0 (nothing follows it), and afterstate
//! `s'_t` toward `r_{t+1} + V(s'_{t+1})`, where `r_{t+1}` is the reward of the next move and
//! `V(s'_{t+1})` is read after its own update. Each of the network's lookups moves by
//! `alpha / lookups · δ`, so `alpha` is the step on V itself.

use crate::network::{NTupleNetwork, WeightReads};
use cubesearch_core::rng::XorShift32;
use cubesearch_core::StochasticGame;
use cubesearch_games::fib::{BoardOf, Dir, Sliding, TileRule};
use multiversion::multiversion;

/// What one game came to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Episode {
    /// The sum of the rewards.
    pub score: u64,
    /// Moves played.
    pub moves: u32,
    /// The largest tile index reached.
    pub max_index: u8,
}

/// The greedy action in `s`: `(action, afterstate, reward)`, or `None` when the game is over.
#[inline]
pub fn greedy<R: TileRule>(
    game: &Sliding<R>,
    net: &NTupleNetwork,
    s: BoardOf<R>,
) -> Option<(Dir, BoardOf<R>, u32)> {
    let afters = game.afterstates(s);
    let values = afters.map(|a| a.map_or(0.0, |(after, _)| net.value::<R>(after)));
    best_move(&afters, values).map(|(k, after, reward)| (Dir::ALL[k], after, reward))
}

/// The legal afterstate (in canonical order) maximising `reward + value`, the first of equal
/// ones: its direction's number, the afterstate and the reward. `values[k]` is V of
/// `afters[k]` (ignored where the move is illegal).
#[inline(always)]
fn best_move<B: Copy>(afters: &[Option<(B, u32)>; 4], values: [f32; 4]) -> Option<(usize, B, u32)> {
    let mut best: Option<(f32, usize, B, u32)> = None;
    for (k, after) in afters.iter().enumerate() {
        if let Some((after, reward)) = *after {
            let v = reward as f32 + values[k];
            if best.is_none_or(|b| v > b.0) {
                best = Some((v, k, after, reward));
            }
        }
    }
    best.map(|(_, k, after, reward)| (k, after, reward))
}

/// One game's afterstates as learning reads them: each one's weight indices (the network's
/// lookups in order, made once while choosing the move) and the reward of the move to it.
/// Scratch space, reused from game to game.
#[derive(Debug, Default)]
pub struct Trajectory {
    indices: Vec<u32>,
    rewards: Vec<u32>,
    /// The four candidate afterstates' indices, as [`NTupleNetwork::indices_of`] lays them out.
    candidates: Vec<u32>,
}

impl Trajectory {
    /// The weight indices of the last game's afterstates, a block of the network's lookups
    /// each: every weight its learning changed.
    pub fn indices(&self) -> &[u32] {
        &self.indices
    }
}

/// [`greedy`] on the afterstates' weight indices: the chosen direction's number (0..4), the
/// afterstate and the reward. `candidates` gets the four afterstates' indices as
/// [`NTupleNetwork::indices_of`] lays them out (an illegal move's are the state's, valued and
/// ignored): made and valued four at once, vector instructions making them and the weight
/// loads overlapping.
#[inline(always)]
fn greedy_indexed<R: TileRule>(
    game: &Sliding<R>,
    net: &NTupleNetwork,
    s: BoardOf<R>,
    candidates: &mut [u32],
    reads: WeightReads,
) -> Option<(usize, BoardOf<R>, u32)> {
    let afters = game.afterstates(s);
    let candidates = &mut candidates[..4 * net.lookups()];
    net.indices_of::<R, 4>(afters.map(|a| a.map_or(s, |(after, _)| after)), candidates);
    // SAFETY: `indices_of` of `net` just wrote every index of `candidates`; `reads` is the
    // caller's.
    best_move(&afters, unsafe {
        net.values_at_unchecked(candidates, reads)
    })
}

/// Plays one game greedily with `net` from a start drawn by `rng`; when `step` is given (the
/// change per weight per unit of TD error, `alpha / lookups`), learns from it afterwards.
///
/// Compiled twice: for any x86-64 and for one with AVX2 and BMI2, picked at run time (the
/// symmetric views and indices of four boards at once fill 256-bit registers, and the weights
/// are read eight at a time by gathers: docs/BENCHMARKS.md). Both compute the same floats in
/// the same order.
#[multiversion(targets("x86_64+avx+avx2+bmi1+bmi2+popcnt+lzcnt"))]
pub fn play_episode<R: TileRule>(
    game: &Sliding<R>,
    net: &NTupleNetwork,
    rng: &mut XorShift32,
    step: Option<f32>,
    path: &mut Trajectory,
) -> Episode {
    // SAFETY: AVX2 is there when this clone runs.
    let reads =
        unsafe { WeightReads::new(multiversion::target::target_cfg_f!(target_feature = "avx2")) };
    let lookups = net.lookups();
    path.indices.clear();
    path.rewards.clear();
    path.candidates.resize(4 * lookups, 0);
    let mut s = game.initial(rng);
    let mut score = 0u64;
    while let Some((k, after, reward)) = greedy_indexed(game, net, s, &mut path.candidates, reads) {
        score += reward as u64;
        let chosen = path.candidates.chunks_exact(4).map(|four| four[k]);
        path.indices.extend(chosen);
        path.rewards.push(reward);
        s = game.sample_chance(&after, rng);
    }
    let episode = Episode {
        score,
        moves: path.rewards.len() as u32,
        max_index: s.max_index(R::BITS),
    };
    if let Some(step) = step {
        // SAFETY: `greedy_indexed`'s `indices_of` of `net` made every index.
        unsafe { learn_indexed(net, &path.indices, &path.rewards, step, reads) };
    }
    episode
}

/// The backward TD(0) pass over one game's `(afterstate, reward)` path (see the module docs).
pub fn learn<R: TileRule>(net: &NTupleNetwork, path: &[(BoardOf<R>, u32)], step: f32) {
    let lookups = net.lookups();
    let mut indices = vec![0; path.len() * lookups];
    for (&(after, _), block) in path.iter().zip(indices.chunks_exact_mut(lookups)) {
        net.indices::<R>(after, block);
    }
    let rewards: Vec<u32> = path.iter().map(|&(_, r)| r).collect();
    // SAFETY: `indices` of `net` made every index.
    unsafe { learn_indexed(net, &indices, &rewards, step, WeightReads::OneByOne) };
}

/// [`learn`] on the afterstates' weight indices (a block of lookups each) and rewards.
///
/// # Safety
/// Every index was made by [`NTupleNetwork::indices_of`] of `net` (so is below its
/// [`NTupleNetwork::weight_count`]), and `reads` by [`WeightReads::new`] under its promise.
#[inline(always)]
unsafe fn learn_indexed(
    net: &NTupleNetwork,
    indices: &[u32],
    rewards: &[u32],
    step: f32,
    reads: WeightReads,
) {
    let mut target = 0.0f32;
    for (block, &reward) in indices.chunks_exact(net.lookups()).zip(rewards).rev() {
        // SAFETY: the caller's promise.
        unsafe {
            let v = net.value_at_unchecked(block, reads);
            net.update_at_unchecked(block, step * (target - v));
            target = reward as f32 + net.value_at_unchecked(block, reads);
        }
    }
}

/// Plays one game with uniformly random legal moves (the baseline a trained network must beat).
pub fn random_episode<R: TileRule>(game: &Sliding<R>, rng: &mut XorShift32) -> Episode {
    let mut s = game.initial(rng);
    let mut legal = Vec::with_capacity(4);
    let (mut score, mut moves) = (0u64, 0u32);
    loop {
        legal.clear();
        game.legal_actions(&s, &mut legal);
        if legal.is_empty() {
            break;
        }
        let (_, after, reward) = legal[rng.below(legal.len() as u32) as usize];
        score += reward as u64;
        moves += 1;
        s = game.sample_chance(&after, rng);
    }
    Episode {
        score,
        moves,
        max_index: s.max_index(R::BITS),
    }
}
