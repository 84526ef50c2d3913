//! The device twin of `cubesearch_core::StochasticGame`: a one-player game where every action
//! is followed by a chance event. The expectimax kernels ([`crate::expectimax`]) and the TD(0)
//! trainer ([`crate::td`]) are generic over [`DeviceStochasticGame`]; [`GpuStochasticGame`] ties
//! a host game to its twin.
//!
//! Actions are numbered `0..ACTIONS` in the host's `StochasticGame::ACTIONS` order. A chance
//! event picks one of `OUTCOMES` outcome *slots*; a slot may be impossible in a given
//! afterstate. Each slot has a weight independent of the state, and the probability of a
//! possible outcome `o` in afterstate `s` is `w(o) / Σ w(o')` over the slots possible in `s`;
//! the host lists the possible outcomes in slot order with the same weights.

use crate::launch::read;
use cubecl::prelude::*;
use cubesearch_core::{Result, StochasticGame};

/// What playing an action did.
#[derive(CubeType, Clone, Copy)]
pub struct Acted {
    /// The points it scored (0 when it was illegal).
    pub reward: u32,
    /// Whether it was legal (it changed the state).
    pub legal: bool,
}

/// A stochastic game's rules on the device. Implemented once per game with `#[cube] impl`;
/// the parity tests (`cubesearch_search::StochasticRules`) hold it to the host's rules.
#[cube]
pub trait DeviceStochasticGame: 'static + Send + Sync {
    /// A position (or an afterstate: a position before its chance event) in registers.
    type State: CubeType + Clone + Copy;

    /// Reads the state stored at `words[offset..offset + STATE_WORDS]`.
    fn load(words: &Array<u32>, offset: usize) -> Self::State;
    /// Stores `state` at `words[offset..offset + STATE_WORDS]`.
    fn store(state: &Self::State, words: &mut Array<u32>, offset: usize);
    /// Overwrites `to` with `from` (a variable of a generic associated type cannot be
    /// reassigned, and `let x = state.field` aliases the field: compute, then write).
    fn assign(to: &mut Self::State, from: &Self::State);
    /// Plays action `action` (`0..ACTIONS`) in place: its reward, and whether it was legal. An
    /// illegal action leaves the state unchanged and scores 0.
    fn act(state: &mut Self::State, action: u32) -> Acted;
    /// Applies outcome slot `outcome` (`0..OUTCOMES`) in place if it can happen in this
    /// afterstate; `false`, the state unchanged, if it cannot.
    fn chance(state: &mut Self::State, outcome: u32) -> bool;
    /// [`DeviceStochasticGame::chance`] through a numbering of the slots that may depend on the
    /// state: slot `slot` applies outcome `σ(slot)` for a permutation `σ` of the slots that
    /// keeps every slot's weight (`w(σ(k)) = w(k)`) and the possible outcomes' order (the
    /// expectimax mean adds them in slot order). A game may so move its possible outcomes to
    /// the low slots, which lets whole planes of a search block idle; `chance` itself is always
    /// a correct implementation.
    fn chance_packed(state: &mut Self::State, slot: u32) -> bool;
    /// The weight of outcome slot `outcome`, whatever the state: the host's
    /// `StochasticGame::chance_outcomes` weight of that outcome.
    fn outcome_weight(outcome: u32) -> u32;
    /// Draws one chance outcome in place, exactly as the host's `sample_chance` draws it (the
    /// same xorshift32 draws in the same order).
    fn sample_chance(state: &mut Self::State, rng: &mut u32);
    /// A start position drawn exactly as the host's `initial(rng)` draws it.
    fn initial(rng: &mut u32) -> Self::State;
    /// The value of cell `c` that an n-tuple lookup reads (below `2^bits` of the network).
    fn cell(state: &Self::State, c: u32) -> u32;
    /// How far a game got, reported for each finished game (a higher number is further).
    fn progress(state: &Self::State) -> u32;
    /// What a multi-stage network's thresholds compare: the host's
    /// `TupleBoard::stage_progress` (for most games `progress`).
    fn stage_progress(state: &Self::State) -> u32;
    /// The state that lane `lane` of the plane holds, for every lane of the plane: a plane
    /// shuffle of each of its words. Called with the whole plane active, on devices with
    /// planes only.
    fn from_lane(state: &Self::State, lane: u32) -> Self::State;
}

/// A host stochastic game with a device twin.
pub trait GpuStochasticGame: StochasticGame {
    /// The device rules.
    type Device: DeviceStochasticGame;
    /// u32 words a state takes in device memory.
    const STATE_WORDS: usize;
    /// Chance outcome slots of an afterstate, possible or not.
    const OUTCOMES: u32;
    /// The path entries an averaged TD launch keeps for a game before it learns them backward
    /// ([`TdShape::cap`](crate::td::TdShape::cap)), where the game has measured one better than
    /// the default (`None`: as many as the paths' memory allows, 1024 for 65,536 games).
    const TD_PATH: Option<u32> = None;

    /// Writes `state` as exactly [`GpuStochasticGame::STATE_WORDS`] words.
    fn encode(&self, state: &Self::State, out: &mut [u32]);
    /// Reads a state written by [`GpuStochasticGame::encode`].
    fn decode(&self, words: &[u32]) -> Self::State;

    /// Encodes many states into one word buffer, ready to upload.
    fn encode_all(&self, states: &[Self::State]) -> Vec<u32> {
        let mut words = vec![0; states.len() * Self::STATE_WORDS];
        for (s, chunk) in states.iter().zip(words.chunks_exact_mut(Self::STATE_WORDS)) {
            self.encode(s, chunk);
        }
        words
    }

    /// Decodes a word buffer of states.
    fn decode_all(&self, words: &[u32]) -> Vec<Self::State> {
        words
            .chunks_exact(Self::STATE_WORDS)
            .map(|w| self.decode(w))
            .collect()
    }
}

/// Action `action` of a game with `actions` actions, numbered in slots padded past them
/// (`slots ≥ actions`): a padded slot is never legal.
#[cube]
pub fn act_slot<G: DeviceStochasticGame>(
    state: &mut G::State,
    action: u32,
    #[comptime] actions: u32,
    #[comptime] slots: u32,
) -> Acted {
    let mut acted = Acted {
        reward: 0u32,
        legal: false,
    };
    if comptime!(actions == slots) || action < actions {
        let a = G::act(state, action);
        acted.reward = a.reward;
        acted.legal = a.legal;
    }
    acted
}

/// Outcome slot `outcome` of a game with `outcomes` slots, numbered in slots padded past them
/// (`slots ≥ outcomes`): a padded slot is never possible. `packed` goes through
/// [`DeviceStochasticGame::chance_packed`].
#[cube]
pub fn chance_slot<G: DeviceStochasticGame>(
    state: &mut G::State,
    outcome: u32,
    #[comptime] outcomes: u32,
    #[comptime] slots: u32,
    #[comptime] packed: bool,
) -> bool {
    let mut happened = false;
    if comptime!(outcomes == slots) || outcome < outcomes {
        if comptime!(packed) {
            happened = G::chance_packed(state, outcome);
        } else {
            happened = G::chance(state, outcome);
        }
    }
    happened
}

/// Unit 0 writes every outcome slot's weight to `out`.
#[cube(launch_unchecked)]
pub fn outcome_weights_kernel<G: DeviceStochasticGame>(
    out: &mut Array<u32>,
    #[comptime] outcomes: u32,
) {
    if ABSOLUTE_POS == 0 {
        #[unroll]
        for o in 0..outcomes {
            out[o as usize] = G::outcome_weight(o);
        }
    }
}

/// Every outcome slot's weight as the device has it: the host sizes the expectimax fold's
/// table of reciprocal weights from them.
pub fn outcome_weights<R: Runtime, G: GpuStochasticGame>(
    client: &ComputeClient<R>,
) -> Result<Vec<u32>> {
    let outcomes = G::OUTCOMES as usize;
    let out = client.empty(outcomes * 4);
    // SAFETY: one unit writes `outcomes` words of a buffer that long.
    unsafe {
        outcome_weights_kernel::launch_unchecked::<G::Device, R>(
            client,
            CubeCount::Static(1, 1, 1),
            CubeDim::new_1d(1),
            ArrayArg::from_raw_parts(out.clone(), outcomes),
            G::OUTCOMES,
        );
    }
    read::<R, u32>(client, out)
}
