//! Host side of the expectimax kernels: the network's weights on the device (uploaded once),
//! and [`launch_expectimax`], which runs a whole search of a batch of roots between uploading
//! them and reading back each root's best action and action values.

use super::multilevel::{actions_kernel, leaves_kernel, outcomes_kernel};
use super::naive::naive_kernel;
use super::reduce::{reduce_kernel, root_kernel};
use super::{ACTIONS, BLOCK, LOOKUP_WORDS, OUTCOMES, SPAWNS};
use crate::fib::GpuTiles;
use crate::launch::{grid, read, upload};
use cubecl::prelude::*;
use cubecl::server::Handle;
use cubesearch_core::{Error, Result};
use cubesearch_games::fib::{symmetry_cell, BoardOf};
use std::str::FromStr;

/// How the tree is generated (seed 4.4, Figure 9).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExpectimaxMethod {
    /// One unit per root-to-leaf path, every level recomputed on the way (Algorithm 1).
    Naive,
    /// One level at a time: each upper node computed once, invalid subtrees skipped.
    #[default]
    Multilevel,
}

impl ExpectimaxMethod {
    /// Both methods.
    pub const ALL: [ExpectimaxMethod; 2] = [ExpectimaxMethod::Naive, ExpectimaxMethod::Multilevel];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            ExpectimaxMethod::Naive => "naive",
            ExpectimaxMethod::Multilevel => "multilevel",
        }
    }
}

impl FromStr for ExpectimaxMethod {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "naive" => Ok(Self::Naive),
            "multilevel" => Ok(Self::Multilevel),
            _ => Err(Error::parse(format!(
                "bad expectimax method '{s}': naive or multilevel"
            ))),
        }
    }
}

/// An n-tuple network in device memory: every table in one f32 buffer, and one lookup
/// description per (shape, symmetry) in the host network's order.
pub struct DeviceNetwork {
    weights: Handle,
    weight_len: usize,
    lookups: Handle,
    lookup_count: u32,
    bits: u32,
}

impl DeviceNetwork {
    /// Uploads a network of `bits`-bit cells with these shapes and tables (`tables[t]` belongs
    /// to `shapes[t]`; each shape is looked up in the 8 symmetries, as the host network does).
    pub fn upload<R: Runtime>(
        client: &ComputeClient<R>,
        bits: u32,
        shapes: &[Vec<u8>],
        tables: &[Vec<f32>],
    ) -> Result<Self> {
        if shapes.len() != tables.len() || shapes.iter().any(|s| s.is_empty() || s.len() > 8) {
            return Err(Error::Unsupported(
                "a device network needs one table per shape of 1 to 8 cells".into(),
            ));
        }
        let mut lookups = Vec::new();
        let mut offset = 0usize;
        for (shape, table) in shapes.iter().zip(tables) {
            if table.len() != 1usize << (bits as usize * shape.len()) {
                return Err(Error::Unsupported(format!(
                    "a table of {} weights does not fit a {}-cell shape of {bits}-bit cells",
                    table.len(),
                    shape.len()
                )));
            }
            for s in 0..8 {
                let mut words = [0u32; LOOKUP_WORDS as usize];
                words[0] = offset as u32;
                words[1] = shape.len() as u32;
                for (j, &c) in shape.iter().enumerate() {
                    words[2 + j] = symmetry_cell(s, c as usize) as u32;
                }
                lookups.extend_from_slice(&words);
            }
            offset += table.len();
        }
        if offset >= u32::MAX as usize {
            return Err(Error::Unsupported(
                "the network has too many weights".into(),
            ));
        }
        let flat: Vec<f32> = tables.iter().flatten().copied().collect();
        Ok(Self {
            weights: client.create_from_slice(f32::as_bytes(&flat)),
            weight_len: flat.len(),
            lookup_count: (lookups.len() / LOOKUP_WORDS as usize) as u32,
            lookups: upload(client, &lookups),
            bits,
        })
    }

    /// Weights in device memory.
    pub fn weight_count(&self) -> usize {
        self.weight_len
    }
}

/// What the device found at one root: the best action's index in the host's `Dir::ALL` order
/// (`None`: no legal action), its value, and every action's value (`None`: illegal).
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceRoot {
    /// The best action (the first of equal values).
    pub best: Option<u32>,
    /// Every action's value.
    pub actions: [Option<f32>; 4],
}

/// Most leaf entries one launch sequence holds (two buffers of 4 bytes each per entry, 128 MiB
/// each: lavapipe's largest storage buffer). Larger batches are cut into chunks of roots.
pub const MAX_ENTRIES: usize = 1 << 25;

/// Leaf paths of one root searched `layers` deep: `4 · BLOCK^layers`.
pub fn leaf_paths(layers: u32) -> usize {
    ACTIONS as usize * (BLOCK as usize).pow(layers)
}

/// The cube grid for `groups` reduction blocks of `BLOCK` units (two dimensions past 65535).
fn blocks(groups: usize) -> (CubeCount, CubeDim) {
    let x = groups.clamp(1, 65_535);
    let y = groups.div_ceil(x).max(1);
    (
        CubeCount::Static(x as u32, y as u32, 1),
        CubeDim::new_1d(BLOCK),
    )
}

/// An `layers`-layer expectimax of every root under `net` with `method`: the whole search on
/// the device, roots in chunks of at most `max_entries` leaf paths (at least one root a chunk;
/// [`MAX_ENTRIES`] unless a test wants small chunks).
pub fn launch_expectimax<R: Runtime, T: GpuTiles>(
    client: &ComputeClient<R>,
    net: &DeviceNetwork,
    roots: &[BoardOf<T>],
    layers: u32,
    method: ExpectimaxMethod,
    max_entries: usize,
) -> Result<Vec<DeviceRoot>> {
    if net.bits != T::BITS {
        return Err(Error::Unsupported(format!(
            "the device network has {}-bit cells; {} boards have {}",
            net.bits,
            T::NAME,
            T::BITS
        )));
    }
    if T::SPAWNS.len() != SPAWNS as usize {
        return Err(Error::Unsupported(format!(
            "the expectimax kernels expect {SPAWNS} spawn tiles; {} has {}",
            T::NAME,
            T::SPAWNS.len()
        )));
    }
    let per_root = leaf_paths(layers.min(8));
    if layers > 4 || per_root > MAX_ENTRIES {
        return Err(Error::Unsupported(format!(
            "{layers} layers make {} leaf paths a root; the device search takes at most {MAX_ENTRIES} \
             (3 layers)",
            (ACTIONS as f64) * (BLOCK as f64).powi(layers as i32)
        )));
    }
    let chunk = (max_entries.min(MAX_ENTRIES) / per_root).max(1);
    let tiles: Vec<u32> = T::SPAWNS.iter().map(|&(k, _)| k as u32).collect();
    let probs: Vec<f32> = T::SPAWNS
        .iter()
        .map(|&(_, w)| w as f32 / T::SPAWN_TOTAL as f32)
        .collect();
    let tiles = upload(client, &tiles);
    let probs = client.create_from_slice(f32::as_bytes(&probs));
    let mut out = Vec::with_capacity(roots.len());
    for part in roots.chunks(chunk) {
        out.extend(search_chunk::<R, T>(
            client, net, part, layers, method, &tiles, &probs,
        )?);
    }
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
fn search_chunk<R: Runtime, T: GpuTiles>(
    client: &ComputeClient<R>,
    net: &DeviceNetwork,
    roots: &[BoardOf<T>],
    layers: u32,
    method: ExpectimaxMethod,
    tiles: &Handle,
    probs: &Handle,
) -> Result<Vec<DeviceRoot>> {
    let n = roots.len();
    if n == 0 {
        return Ok(Vec::new());
    }
    let words = T::WORDS;
    let roots_handle = upload(client, &T::encode_all(roots));
    let paths = leaf_paths(layers);
    let leaves = n * paths;
    let (mut values, mut lens) = match method {
        ExpectimaxMethod::Naive => {
            let values = client.empty(leaves * 4);
            let lens = client.empty(leaves * 4);
            let (count, dim) = grid(client, leaves);
            // SAFETY: units past `leaves` write nothing; unit p writes only entry p, and reads
            // its root and the network's buffers within their lengths.
            unsafe {
                naive_kernel::launch_unchecked::<T::Device, R>(
                    client,
                    count,
                    dim,
                    ArrayArg::from_raw_parts(roots_handle, n * words),
                    ArrayArg::from_raw_parts(net.weights.clone(), net.weight_len),
                    ArrayArg::from_raw_parts(
                        net.lookups.clone(),
                        net.lookup_count as usize * LOOKUP_WORDS as usize,
                    ),
                    ArrayArg::from_raw_parts(tiles.clone(), SPAWNS as usize),
                    ArrayArg::from_raw_parts(values.clone(), leaves),
                    ArrayArg::from_raw_parts(lens.clone(), leaves),
                    net.lookup_count,
                    paths as u32,
                    leaves as u32,
                    layers,
                    words,
                );
            }
            (values, lens)
        }
        ExpectimaxMethod::Multilevel => {
            multilevel::<R, T>(client, net, roots_handle, n, layers, tiles)?
        }
    };
    // Fold each block of BLOCK siblings into its parent, deepest layer first.
    let mut entries = leaves;
    for k in (1..=layers).rev() {
        let groups = entries / BLOCK as usize;
        let out_values = client.empty(groups * 4);
        let out_lens = client.empty(groups * 4);
        let (count, dim) = blocks(groups);
        // SAFETY: cube g reads entries g·BLOCK.. of the level below and writes entry g; cubes
        // past `groups` only take part in the cube's barriers.
        unsafe {
            reduce_kernel::launch_unchecked::<R>(
                client,
                count,
                dim,
                ArrayArg::from_raw_parts(values, entries),
                ArrayArg::from_raw_parts(lens, entries),
                ArrayArg::from_raw_parts(probs.clone(), SPAWNS as usize),
                ArrayArg::from_raw_parts(out_values.clone(), groups),
                ArrayArg::from_raw_parts(out_lens.clone(), groups),
                2 * k + 1,
                groups as u32,
            );
        }
        values = out_values;
        lens = out_lens;
        entries = groups;
    }
    let best = client.empty(n * 4);
    let actions = client.empty(n * ACTIONS as usize * 4);
    let legal = client.empty(n * ACTIONS as usize * 4);
    let (count, dim) = grid(client, n);
    // SAFETY: unit r reads root r's 4 entries and writes its own slots.
    unsafe {
        root_kernel::launch_unchecked::<R>(
            client,
            count,
            dim,
            ArrayArg::from_raw_parts(values, entries),
            ArrayArg::from_raw_parts(lens, entries),
            ArrayArg::from_raw_parts(best.clone(), n),
            ArrayArg::from_raw_parts(actions.clone(), n * ACTIONS as usize),
            ArrayArg::from_raw_parts(legal.clone(), n * ACTIONS as usize),
            n as u32,
        );
    }
    let best = read::<R, u32>(client, best)?;
    let actions = read::<R, f32>(client, actions)?;
    let legal = read::<R, u32>(client, legal)?;
    Ok((0..n)
        .map(|r| DeviceRoot {
            best: (best[r] < ACTIONS).then_some(best[r]),
            actions: std::array::from_fn(|a| {
                let i = r * ACTIONS as usize + a;
                (legal[i] == 1).then_some(actions[i])
            }),
        })
        .collect())
}

/// The multi-level generation: a kernel per depth from the roots down to the leaf entries.
/// One level's buffers for `nodes` nodes: boards (`words` each), valid lengths, rewards so far.
fn level_buffers<R: Runtime>(
    client: &ComputeClient<R>,
    nodes: usize,
    words: usize,
) -> (Handle, Handle, Handle) {
    (
        client.empty(nodes * words * 4),
        client.empty(nodes * 4),
        client.empty(nodes * 4),
    )
}

fn multilevel<R: Runtime, T: GpuTiles>(
    client: &ComputeClient<R>,
    net: &DeviceNetwork,
    roots: Handle,
    n: usize,
    layers: u32,
    tiles: &Handle,
) -> Result<(Handle, Handle)> {
    let words = T::WORDS;
    let zeros = upload(client, &vec![0u32; n]);
    // The current level: boards, lens, rewards so far; the roots are valid with len 0.
    let (mut boards, mut lens, mut accs) = (roots, zeros.clone(), zeros);
    let mut nodes = n;
    for k in 0..layers {
        // Player nodes (valid: len 2k) → afterstates (len 2k + 1).
        let next = nodes * ACTIONS as usize;
        let (b, l, a) = level_buffers(client, next, words);
        let (count, dim) = grid(client, next);
        // SAFETY: unit i reads its parent i / 4 and writes node i.
        unsafe {
            actions_kernel::launch_unchecked::<T::Device, R>(
                client,
                count,
                dim,
                ArrayArg::from_raw_parts(boards, nodes * words),
                ArrayArg::from_raw_parts(lens, nodes),
                ArrayArg::from_raw_parts(accs, nodes),
                ArrayArg::from_raw_parts(b.clone(), next * words),
                ArrayArg::from_raw_parts(l.clone(), next),
                ArrayArg::from_raw_parts(a.clone(), next),
                2 * k,
                next as u32,
                words,
            );
        }
        (boards, lens, accs, nodes) = (b, l, a, next);
        // Afterstates → chance outcomes (len 2k + 2).
        let next = nodes * OUTCOMES as usize;
        let (b, l, a) = level_buffers(client, next, words);
        let (count, dim) = grid(client, next);
        // SAFETY: unit i reads its parent i / OUTCOMES and writes node i.
        unsafe {
            outcomes_kernel::launch_unchecked::<T::Device, R>(
                client,
                count,
                dim,
                ArrayArg::from_raw_parts(boards, nodes * words),
                ArrayArg::from_raw_parts(lens, nodes),
                ArrayArg::from_raw_parts(accs, nodes),
                ArrayArg::from_raw_parts(tiles.clone(), SPAWNS as usize),
                ArrayArg::from_raw_parts(b.clone(), next * words),
                ArrayArg::from_raw_parts(l.clone(), next),
                ArrayArg::from_raw_parts(a.clone(), next),
                2 * k + 1,
                next as u32,
                words,
            );
        }
        (boards, lens, accs, nodes) = (b, l, a, next);
    }
    let next = nodes * ACTIONS as usize;
    let (values, out_lens) = (client.empty(next * 4), client.empty(next * 4));
    let (count, dim) = grid(client, next);
    // SAFETY: unit i reads its parent i / 4 and the network, and writes entry i.
    unsafe {
        leaves_kernel::launch_unchecked::<T::Device, R>(
            client,
            count,
            dim,
            ArrayArg::from_raw_parts(boards, nodes * words),
            ArrayArg::from_raw_parts(lens, nodes),
            ArrayArg::from_raw_parts(accs, nodes),
            ArrayArg::from_raw_parts(net.weights.clone(), net.weight_len),
            ArrayArg::from_raw_parts(
                net.lookups.clone(),
                net.lookup_count as usize * LOOKUP_WORDS as usize,
            ),
            ArrayArg::from_raw_parts(values.clone(), next),
            ArrayArg::from_raw_parts(out_lens.clone(), next),
            net.lookup_count,
            2 * layers,
            next as u32,
            words,
        );
    }
    Ok((values, out_lens))
}
