//! What the alpha-beta walks ([`crate::alphabeta`]) are worth at their leaves: the game's own
//! `score` ([`RuleLeaves`]) or a learned n-tuple network's value ([`NetworkLeaves`]), read on
//! the device from the weights of a [`DeviceLeaves`], rounded and clamped as the host's
//! learned evaluation rounds them, so that a device search and a CPU one give the same values.

use crate::device_game::{DeviceGame, ONGOING};
use crate::launch::{check_buffer, upload};
use crate::ntuple::{check_lookups, lut_words};
use crate::selfplay::{value, DeviceTupleGame};
use crate::td::TdNet;
use cubecl::prelude::*;
use cubesearch_core::{Error, Result};

/// The network a walk reads at its leaves; one element each, unread, when the leaves are the
/// game's own scores.
#[derive(CubeLaunch, CubeType)]
pub struct LeafNet {
    /// The weights, every stage's tables.
    pub weights: Array<f32>,
    /// The lookups and stages ([`lut_words`]).
    pub lut: Array<u32>,
    /// Lookups of one value.
    pub lookups: u32,
    /// Score units a unit of the network's value.
    pub per_unit: f32,
    /// Leaf scores stay inside ±(`win` − 1).
    pub win: i32,
    /// 0, unknown to the compiler ([`crate::exact::unfused()`]).
    pub zero: u32,
}

/// What the leaf network's lookups are compiled for: cells a lookup, bits a cell (both 0 for
/// the game's own scores).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LeafShape {
    /// Cells a lookup reads.
    pub len: u32,
    /// Bits a cell takes in an index.
    pub bits: u32,
}

/// How a walk scores a leaf, a finished game or a position without moves.
#[cube]
pub trait Leaves: 'static + Send + Sync {
    /// The positions scored.
    type State: CubeType + Clone + Copy;
    /// The negamax value of `state` for the side to move.
    fn score(state: &Self::State, net: &LeafNet, #[comptime] shape: LeafShape) -> i32;
}

/// The game's own `DeviceGame::score`.
pub struct RuleLeaves<G>(std::marker::PhantomData<G>);

#[cube]
impl<G: DeviceGame> Leaves for RuleLeaves<G> {
    type State = G::State;

    fn score(state: &G::State, _net: &LeafNet, #[comptime] _shape: LeafShape) -> i32 {
        G::score(state)
    }
}

/// A finished game keeps the game's own score; a position in play is worth the network's
/// value times `per_unit`, rounded half away from zero and kept inside ±(`win` − 1), as the
/// host's `network_evaluation` scores it.
pub struct NetworkLeaves<G>(std::marker::PhantomData<G>);

#[cube]
impl<G: DeviceTupleGame> Leaves for NetworkLeaves<G> {
    type State = G::State;

    fn score(state: &G::State, net: &LeafNet, #[comptime] shape: LeafShape) -> i32 {
        let mut score = G::score(state);
        if G::outcome(state) == ONGOING {
            let v = value::<G>(
                state,
                &net.weights,
                &net.lut,
                net.lookups,
                shape.len,
                shape.bits,
            );
            let limit = f32::cast_from(net.win);
            let scaled = f32::clamp(
                crate::exact::unfused(v * net.per_unit, net.zero),
                -limit,
                limit,
            );
            // Rounded as Rust's `round`: the cast cuts toward zero, and the rest is exact.
            let whole = i32::cast_from(scaled);
            let rest = scaled - f32::cast_from(whole);
            let rounded =
                whole + select(rest >= 0.5f32, 1i32, select(rest <= -0.5f32, -1i32, 0i32));
            score = i32::clamp(rounded, 1i32 - net.win, net.win - 1i32);
        }
        score
    }
}

/// A network as leaves read it, on the host: its weights and lookup table, and how its value
/// becomes a score.
#[derive(Clone, Debug)]
pub struct LeafNetwork {
    weights: Vec<f32>,
    lut: Vec<u32>,
    lookups: u32,
    shape: LeafShape,
    per_unit: f32,
    win: i32,
}

impl LeafNetwork {
    /// `net` read at the leaves, its value times `per_unit` a score kept inside ±(`win` − 1).
    pub fn new(net: &TdNet, per_unit: f32, win: i32) -> Result<Self> {
        let weights: Vec<f32> = net.tables.concat();
        check_lookups(&net.lookups, net.bits, &net.stages, weights.len())?;
        let Some((lut, len)) = lut_words(&net.lookups, &net.stages) else {
            return Err(Error::Unsupported(
                "a network at the device's leaves needs lookups of one size".into(),
            ));
        };
        Ok(Self {
            weights,
            lut,
            lookups: net.lookups.len() as u32,
            shape: LeafShape {
                len,
                bits: net.bits,
            },
            per_unit,
            win,
        })
    }

    /// Loop iterations a leaf's value takes: its lookups four at a time and its stage
    /// thresholds.
    pub fn loops_per_leaf(&self) -> u32 {
        self.lookups.div_ceil(4) + self.lut.len() as u32 - self.lookups * (self.shape.len + 1)
    }
}

/// The leaves' network in one device's memory (for the game's own scores, a placeholder).
pub struct DeviceLeaves {
    weights: (cubecl::server::Handle, usize),
    lut: (cubecl::server::Handle, usize),
    lookups: u32,
    pub(crate) shape: LeafShape,
    per_unit: f32,
    win: i32,
}

impl DeviceLeaves {
    /// `network` uploaded to `client`'s device.
    pub fn upload<R: Runtime>(client: &ComputeClient<R>, network: &LeafNetwork) -> Result<Self> {
        check_buffer(client, "the leaf network", network.weights.len() as u64 * 4)?;
        Ok(Self {
            weights: (
                client.create_from_slice(f32::as_bytes(&network.weights)),
                network.weights.len(),
            ),
            lut: (upload(client, &network.lut), network.lut.len()),
            lookups: network.lookups,
            shape: network.shape,
            per_unit: network.per_unit,
            win: network.win,
        })
    }

    /// The placeholder of walks scored by the game's own rules.
    pub(crate) fn rules<R: Runtime>(client: &ComputeClient<R>) -> Self {
        Self {
            weights: (client.create_from_slice(f32::as_bytes(&[0.0f32])), 1),
            lut: (upload(client, &[0u32]), 1),
            lookups: 0,
            shape: LeafShape::default(),
            per_unit: 0.0,
            win: 0,
        }
    }

    /// The kernel argument.
    pub(crate) fn arg<R: Runtime>(&self) -> LeafNetLaunch<R> {
        // SAFETY (of the raw parts): each handle holds the length stored beside it.
        unsafe {
            LeafNetLaunch::new(
                ArrayArg::from_raw_parts(self.weights.0.clone(), self.weights.1),
                ArrayArg::from_raw_parts(self.lut.0.clone(), self.lut.1),
                self.lookups,
                self.per_unit,
                self.win,
                0u32,
            )
        }
    }
}
