//! Host side of the expectimax kernels: the network's weights on the device (uploaded once),
//! and [`launch_expectimax`], which runs a whole search of a batch of roots between uploading
//! them and reading back each root's best action and action values.

use super::multilevel::{actions_kernel, layer_kernel, leaf_blocks_kernel};
use super::naive::naive_kernel;
use super::reduce::{reduce_kernel, root_fold_kernel, root_kernel, FOLD_PLANE, ROOT_WORDS};
use super::{NetLayout, ACTIONS, BLOCK, SPAWNS};
use crate::fib::GpuTiles;
use crate::launch::{cube_count, grid, read, upload};
use cubecl::prelude::*;
use cubecl::server::Handle;
use cubesearch_core::{Error, Result};
use cubesearch_games::fib::{symmetry_cell, BoardOf};
use std::collections::HashMap;
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

/// An n-tuple network in device memory: every table in one f32 buffer; the lookups, one per
/// (shape, symmetry) in the host network's order, are compiled into the kernels
/// ([`NetLayout`]).
pub struct DeviceNetwork {
    weights: Handle,
    weight_len: usize,
    layout: NetLayout,
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
                let cells = shape.iter().map(|&c| symmetry_cell(s, c as usize) as u8);
                lookups.push((offset as u32, cells.collect()));
            }
            offset += table.len();
        }
        if offset >= u32::MAX as usize {
            return Err(Error::Unsupported(
                "the network has too many weights".into(),
            ));
        }
        // A failed allocation does not come back as an error (the runtime's thread panics and
        // the kernels read nothing), so a network past the device's largest buffer is refused.
        let largest = client.properties().memory.max_page_size;
        if offset as u64 * 4 > largest {
            return Err(Error::Unsupported(format!(
                "the network's {} MiB of weights exceed this device's largest buffer ({} MiB)",
                (offset * 4) >> 20,
                largest >> 20
            )));
        }
        let flat: Vec<f32> = tables.iter().flatten().copied().collect();
        Ok(Self {
            weights: client.create_from_slice(f32::as_bytes(&flat)),
            weight_len: flat.len(),
            layout: NetLayout::new(lookups),
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

/// Most 4-byte words one buffer of a search holds (128 MiB: lavapipe's largest storage buffer).
/// Larger batches are cut into chunks of roots ([`words_per_root`]).
pub const MAX_ENTRIES: usize = 1 << 25;

/// Leaf paths of one root searched `layers` deep: `4 · BLOCK^layers`.
pub fn leaf_paths(layers: u32) -> usize {
    ACTIONS as usize * (BLOCK as usize).pow(layers)
}

/// Words a root takes in a search's largest buffer: the naive search's leaf entries (one word
/// each), or the multilevel search's deepest afterstates (`words` a board; their leaves never
/// reach memory).
pub fn words_per_root(method: ExpectimaxMethod, layers: u32, words: usize) -> usize {
    match method {
        ExpectimaxMethod::Multilevel if layers > 0 => leaf_paths(layers - 1) * words,
        _ => leaf_paths(layers),
    }
}

/// The cube grid for `groups` reduction blocks of `BLOCK` units (two dimensions past 65535).
fn blocks<R: Runtime>(client: &ComputeClient<R>, groups: usize) -> (CubeCount, CubeDim) {
    (cube_count(client, groups), CubeDim::new_1d(BLOCK))
}

/// How a search runs on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchShape {
    /// How the tree is generated.
    pub method: ExpectimaxMethod,
    /// Fold blocks with plane ops (only where [`plane_ops_fit`] says the device has them).
    pub plane_ops: bool,
    /// Most words one buffer of a chunk of roots holds ([`MAX_ENTRIES`] unless a test wants
    /// small chunks; at least one root a chunk).
    pub max_entries: usize,
}

impl SearchShape {
    /// `method` with plane ops where the device has them, in chunks of [`MAX_ENTRIES`].
    pub fn on<R: Runtime>(client: &ComputeClient<R>, method: ExpectimaxMethod) -> Self {
        Self {
            method,
            plane_ops: plane_ops_fit(client),
            max_entries: MAX_ENTRIES,
        }
    }
}

/// Whether the device offers plane ops on planes of exactly 32 units, the fold's shape.
pub fn plane_ops_fit<R: Runtime>(client: &ComputeClient<R>) -> bool {
    let props = client.properties();
    props.features.plane.contains(cubecl::features::Plane::Ops)
        && props.hardware.plane_size_min == FOLD_PLANE
        && props.hardware.plane_size_max == FOLD_PLANE
}

/// Device buffers that searches reuse from call to call: once they fit, a search allocates
/// nothing. A buffer is kept per role and replaced when a call needs another size.
#[derive(Default)]
pub struct Workspace {
    buffers: HashMap<Role, (usize, Handle)>,
    /// The live-list counter, zero between searches (the root kernel clears it); `None` until
    /// uploaded, and again after a failed search, which may have left it counting.
    live_count: Option<Handle>,
}

/// What a workspace buffer holds.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Role {
    /// Part 0 (boards), 1 (lens) or 2 (rewards so far) of generated level `k`.
    Level(u32, u32),
    /// Part 0 (values) or 1 (lens) of the entries of reduction `k`.
    Folded(u32, u32),
    /// The list of live deepest afterstates.
    Live,
    /// The roots' results.
    Results,
}

impl Workspace {
    /// The buffer of `role`, of `bytes` bytes (its contents are whatever the last search left).
    fn buffer<R: Runtime>(
        &mut self,
        client: &ComputeClient<R>,
        role: Role,
        bytes: usize,
    ) -> Handle {
        match self.buffers.get(&role) {
            Some((size, handle)) if *size == bytes => handle.clone(),
            _ => {
                let handle = client.empty(bytes);
                self.buffers.insert(role, (bytes, handle.clone()));
                handle
            }
        }
    }

    /// The live-list counter (zero).
    fn live_count<R: Runtime>(&mut self, client: &ComputeClient<R>) -> Handle {
        self.live_count
            .get_or_insert_with(|| upload(client, &[0]))
            .clone()
    }
}

/// An `layers`-layer expectimax of every root under `net`: the whole search on the device, roots
/// in chunks, one read of the results a chunk; the buffers come from `workspace`.
pub fn launch_expectimax<R: Runtime, T: GpuTiles>(
    client: &ComputeClient<R>,
    net: &DeviceNetwork,
    roots: &[BoardOf<T>],
    layers: u32,
    shape: SearchShape,
    workspace: &mut Workspace,
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
    if layers > 3 {
        return Err(Error::Unsupported(format!(
            "{layers} layers: the device search goes at most 3 layers deep ({} leaf paths a root)",
            leaf_paths(3)
        )));
    }
    if shape.plane_ops && !plane_ops_fit(client) {
        return Err(Error::Unsupported(format!(
            "this device has no plane ops on {FOLD_PLANE}-unit planes"
        )));
    }
    let per_root = words_per_root(shape.method, layers, T::WORDS);
    let chunk = (shape.max_entries.min(MAX_ENTRIES) / per_root).max(1);
    let plan = Plan {
        layers,
        shape,
        spawns: Spawns::of::<T>(),
    };
    let mut out = Vec::with_capacity(roots.len());
    for part in roots.chunks(chunk) {
        let found = search_chunk::<R, T>(client, net, part, plan, workspace);
        if found.is_err() {
            workspace.live_count = None;
        }
        out.extend(found?);
    }
    Ok(out)
}

/// What every chunk of one call searches with.
#[derive(Clone, Copy)]
struct Plan {
    layers: u32,
    shape: SearchShape,
    spawns: Spawns,
}

/// The spawn tiles and their probabilities, passed to the kernels by value.
#[derive(Clone, Copy)]
struct Spawns {
    tiles: [u32; 2],
    probs: [f32; 2],
}

impl Spawns {
    fn of<T: GpuTiles>() -> Self {
        let p = |i: usize| T::SPAWNS[i].1 as f32 / T::SPAWN_TOTAL as f32;
        Self {
            tiles: [T::SPAWNS[0].0 as u32, T::SPAWNS[1].0 as u32],
            probs: [p(0), p(1)],
        }
    }
}

fn search_chunk<R: Runtime, T: GpuTiles>(
    client: &ComputeClient<R>,
    net: &DeviceNetwork,
    roots: &[BoardOf<T>],
    plan: Plan,
    workspace: &mut Workspace,
) -> Result<Vec<DeviceRoot>> {
    let Plan {
        layers,
        shape,
        spawns,
    } = plan;
    let n = roots.len();
    if n == 0 {
        return Ok(Vec::new());
    }
    let roots_handle = upload(client, &T::encode_all(roots));
    // Zero layers have no chance level: the naive kernel's 4 entries a root are the leaves.
    let (mut values, mut lens, mut entries, mut reductions) = match shape.method {
        ExpectimaxMethod::Multilevel if layers > 0 => {
            let (v, l, entries) = multilevel::<R, T>(client, net, roots_handle, n, plan, workspace);
            (v, l, entries, layers - 1)
        }
        _ => {
            let (v, l, entries) = naive::<R, T>(client, net, roots_handle, n, plan, workspace);
            (v, l, entries, layers)
        }
    };
    // Fold each block of BLOCK siblings into its parent, deepest remaining layer first; the
    // last fold is the root kernel's.
    while reductions > 1 {
        let groups = entries / BLOCK as usize;
        let out_values = workspace.buffer(client, Role::Folded(reductions, 0), groups * 4);
        let out_lens = workspace.buffer(client, Role::Folded(reductions, 1), groups * 4);
        let (count, dim) = blocks(client, groups);
        // SAFETY: cube g reads entries g·BLOCK.. of the level below and writes entry g; cubes
        // past `groups` only take part in the cube's barriers.
        unsafe {
            reduce_kernel::launch_unchecked::<R>(
                client,
                count,
                dim,
                ArrayArg::from_raw_parts(values, entries),
                ArrayArg::from_raw_parts(lens, entries),
                ArrayArg::from_raw_parts(out_values.clone(), groups),
                ArrayArg::from_raw_parts(out_lens.clone(), groups),
                spawns.probs[0],
                spawns.probs[1],
                2 * reductions + 1,
                groups as u32,
                shape.plane_ops,
            );
        }
        values = out_values;
        lens = out_lens;
        entries = groups;
        reductions -= 1;
    }
    let out_words = n * ROOT_WORDS as usize;
    let out = workspace.buffer(client, Role::Results, out_words * 4);
    let live_count = workspace.live_count(client);
    if reductions == 1 {
        let (count, dim) = blocks(client, n);
        // SAFETY: cube r reads root r's 4 · BLOCK entries and writes its own words; unit 0
        // clears the live-list counter; cubes past `n` only take part in the barriers.
        unsafe {
            root_fold_kernel::launch_unchecked::<R>(
                client,
                count,
                dim,
                ArrayArg::from_raw_parts(values, entries),
                ArrayArg::from_raw_parts(lens, entries),
                ArrayArg::from_raw_parts(out.clone(), out_words),
                ArrayArg::from_raw_parts(live_count, 1),
                spawns.probs[0],
                spawns.probs[1],
                3,
                n as u32,
                shape.plane_ops,
            );
        }
    } else {
        let (count, dim) = grid(client, n);
        // SAFETY: unit r reads root r's 4 entries and writes its own words; unit 0 clears the
        // live-list counter.
        unsafe {
            root_kernel::launch_unchecked::<R>(
                client,
                count,
                dim,
                ArrayArg::from_raw_parts(values, entries),
                ArrayArg::from_raw_parts(lens, entries),
                ArrayArg::from_raw_parts(out.clone(), out_words),
                ArrayArg::from_raw_parts(live_count, 1),
                n as u32,
            );
        }
    }
    let out = read::<R, u32>(client, out)?;
    Ok(out
        .chunks(ROOT_WORDS as usize)
        .map(|words| {
            let legal = words[0] >> 4;
            DeviceRoot {
                best: (words[0] & 15 < ACTIONS).then_some(words[0] & 15),
                actions: std::array::from_fn(|a| {
                    (legal >> a & 1 == 1).then_some(f32::from_bits(words[1 + a]))
                }),
            }
        })
        .collect())
}

/// The naive generation: every leaf path's entry, replayed from its root. Returns the entries'
/// values, lens and count.
fn naive<R: Runtime, T: GpuTiles>(
    client: &ComputeClient<R>,
    net: &DeviceNetwork,
    roots: Handle,
    n: usize,
    plan: Plan,
    workspace: &mut Workspace,
) -> (Handle, Handle, usize) {
    let Plan { layers, spawns, .. } = plan;
    let paths = leaf_paths(layers);
    let leaves = n * paths;
    let values = workspace.buffer(client, Role::Level(0, 2), leaves * 4);
    let lens = workspace.buffer(client, Role::Level(0, 1), leaves * 4);
    let (count, dim) = grid(client, leaves);
    // SAFETY: units past `leaves` write nothing; unit p writes only entry p, and reads its root
    // and the network's buffers within their lengths.
    unsafe {
        naive_kernel::launch_unchecked::<T::Device, R>(
            client,
            count,
            dim,
            ArrayArg::from_raw_parts(roots, n * T::WORDS),
            ArrayArg::from_raw_parts(net.weights.clone(), net.weight_len),
            ArrayArg::from_raw_parts(values.clone(), leaves),
            ArrayArg::from_raw_parts(lens.clone(), leaves),
            spawns.tiles[0],
            spawns.tiles[1],
            paths as u32,
            leaves as u32,
            layers,
            T::WORDS,
            net.layout.clone(),
        );
    }
    (values, lens, leaves)
}

/// Level `k`'s buffers for `nodes` nodes: boards (`words` each), valid lengths, rewards so far.
fn level_buffers<R: Runtime>(
    client: &ComputeClient<R>,
    workspace: &mut Workspace,
    k: u32,
    nodes: usize,
    words: usize,
) -> (Handle, Handle, Handle) {
    (
        workspace.buffer(client, Role::Level(k, 0), nodes * words * 4),
        workspace.buffer(client, Role::Level(k, 1), nodes * 4),
        workspace.buffer(client, Role::Level(k, 2), nodes * 4),
    )
}

/// The multi-level generation (`layers` ≥ 1): the roots' actions, a kernel per layer down to
/// the deepest afterstates (the last of them listing the valid ones), then one kernel that plays
/// the listed afterstates' outcomes and actions and folds each block of leaves at once. Returns
/// the entries of the deepest afterstates (one reduction done).
fn multilevel<R: Runtime, T: GpuTiles>(
    client: &ComputeClient<R>,
    net: &DeviceNetwork,
    roots: Handle,
    n: usize,
    plan: Plan,
    workspace: &mut Workspace,
) -> (Handle, Handle, usize) {
    let Plan {
        layers,
        shape,
        spawns,
    } = plan;
    let words = T::WORDS;
    let deepest = n * leaf_paths(layers - 1);
    let live_count = workspace.live_count(client);
    let live = workspace.buffer(client, Role::Live, deepest * 4);
    // The roots' 4 actions (len 1).
    let mut nodes = n * ACTIONS as usize;
    let (mut boards, mut lens, mut accs) = level_buffers(client, workspace, 0, nodes, words);
    let (count, dim) = grid(client, nodes);
    // SAFETY: unit i reads its root i / 4 and writes node i (and one slot of the live list,
    // which has room for every node of the deepest level).
    unsafe {
        actions_kernel::launch_unchecked::<T::Device, R>(
            client,
            count,
            dim,
            ArrayArg::from_raw_parts(roots.clone(), n * words),
            // Not read for roots: bound to the roots' buffer.
            ArrayArg::from_raw_parts(roots.clone(), n * words),
            ArrayArg::from_raw_parts(roots, n * words),
            ArrayArg::from_raw_parts(boards.clone(), nodes * words),
            ArrayArg::from_raw_parts(lens.clone(), nodes),
            ArrayArg::from_raw_parts(accs.clone(), nodes),
            ArrayArg::from_raw_parts(live_count.clone(), 1),
            ArrayArg::from_raw_parts(live.clone(), deepest),
            0,
            nodes as u32,
            words,
            true,
            layers == 1,
        );
    }
    // Afterstates of len 2k − 1 → their BLOCK children a layer down (len 2k + 1).
    for k in 1..layers {
        let next = nodes * BLOCK as usize;
        let (b, l, a) = level_buffers(client, workspace, k, next, words);
        let (count, dim) = grid(client, next);
        // SAFETY: unit i reads its parent i / BLOCK and writes node i (and one list slot).
        unsafe {
            layer_kernel::launch_unchecked::<T::Device, R>(
                client,
                count,
                dim,
                ArrayArg::from_raw_parts(boards, nodes * words),
                ArrayArg::from_raw_parts(lens, nodes),
                ArrayArg::from_raw_parts(accs, nodes),
                ArrayArg::from_raw_parts(b.clone(), next * words),
                ArrayArg::from_raw_parts(l.clone(), next),
                ArrayArg::from_raw_parts(a.clone(), next),
                ArrayArg::from_raw_parts(live_count.clone(), 1),
                ArrayArg::from_raw_parts(live.clone(), deepest),
                spawns.tiles[0],
                spawns.tiles[1],
                2 * k - 1,
                next as u32,
                words,
                k == layers - 1,
            );
        }
        (boards, lens, accs, nodes) = (b, l, a, next);
    }
    // Enough cubes to fill the device (16 a multiprocessor); each loops over the live list.
    let multiprocessors = client.properties().hardware.num_streaming_multiprocessors;
    let (count, dim) = blocks(
        client,
        nodes.min(multiprocessors.unwrap_or(64) as usize * 16),
    );
    // SAFETY: a cube reads the listed afterstates (node numbers below `nodes`) and the network,
    // and only its unit 0 writes the afterstate's entry, after the fold's barriers.
    unsafe {
        leaf_blocks_kernel::launch_unchecked::<T::Device, R>(
            client,
            count,
            dim,
            ArrayArg::from_raw_parts(boards, nodes * words),
            ArrayArg::from_raw_parts(lens.clone(), nodes),
            ArrayArg::from_raw_parts(accs.clone(), nodes),
            ArrayArg::from_raw_parts(live_count, 1),
            ArrayArg::from_raw_parts(live, deepest),
            ArrayArg::from_raw_parts(net.weights.clone(), net.weight_len),
            spawns.tiles[0],
            spawns.tiles[1],
            spawns.probs[0],
            spawns.probs[1],
            2 * layers - 1,
            words,
            net.layout.clone(),
            shape.plane_ops,
        );
    }
    (accs, lens, nodes)
}
