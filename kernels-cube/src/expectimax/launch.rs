//! Host side of the expectimax kernels: the network's weights on the device (uploaded once),
//! and [`launch_expectimax`], which runs a whole search of a batch of roots between uploading
//! them and reading back each root's best action and action values.

use super::multilevel::{
    actions_kernel, layer_kernel, leaf_blocks_kernel, transpositions_kernel, LevelLaunch,
    LiveListLaunch, TranspositionsLaunch,
};
use super::naive::naive_kernel;
use super::reduce::{reduce_kernel, root_fold_kernel, root_kernel, root_words};
use super::{TreeShape, COUNTERS};
use crate::launch::{check_buffer, cube_count, grid, planes_fit, read, upload, PLANE};
use crate::ntuple::{check_lookups, NetLayout, Stages};
use crate::stochastic::{outcome_weights, GpuStochasticGame};
use cubecl::prelude::*;
use cubecl::server::Handle;
use cubesearch_core::{reciprocal_weight, Error, Result};
use std::any::TypeId;
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

/// An n-tuple network in device memory: every table in one f32 buffer; the lookups, in the
/// host network's order, are compiled into the kernels ([`NetLayout`]).
pub struct DeviceNetwork {
    weights: Handle,
    weight_len: usize,
    layout: NetLayout,
}

impl DeviceNetwork {
    /// Uploads a network: its lookups as `(table offset in weights, cells)` in the order V
    /// sums them (every symmetry already one lookup of its own), cells of `bits` bits, its
    /// stages, and its weights, all tables one after another (stage after stage).
    pub fn upload<R: Runtime>(
        client: &ComputeClient<R>,
        bits: u32,
        lookups: Vec<(u32, Vec<u8>)>,
        stages: Stages,
        weights: &[f32],
    ) -> Result<Self> {
        check_lookups(&lookups, bits, &stages, weights.len())?;
        if weights.len() >= u32::MAX as usize {
            return Err(Error::Unsupported(
                "the network has too many weights".into(),
            ));
        }
        check_buffer(client, "the network's weights", weights.len() as u64 * 4)?;
        Ok(Self {
            weights: client.create_from_slice(f32::as_bytes(weights)),
            weight_len: weights.len(),
            layout: NetLayout::new(lookups, bits, stages),
        })
    }

    /// Weights in device memory.
    pub fn weight_count(&self) -> usize {
        self.weight_len
    }
}

/// What the device found at one root: the best action's index in the host's
/// `StochasticGame::ACTIONS` order (`None`: no legal action), and every action's value
/// (`None`: illegal).
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceRoot {
    /// The best action (the first of equal values).
    pub best: Option<u32>,
    /// Every action's value.
    pub actions: Vec<Option<f32>>,
}

/// Most 4-byte words one buffer of a search holds (512 MiB), or fewer where the device's
/// largest buffer is smaller (128 MiB on lavapipe). Larger batches are cut into chunks of roots
/// ([`words_per_root`]).
pub const MAX_ENTRIES: usize = 1 << 27;

/// Most leaf paths a root may have (`A · B^layers`, [`leaf_paths`]): a 3-layer search of a
/// game of 4 actions and 32 outcome slots.
pub const MAX_LEAF_PATHS: usize = 1 << 23;

/// Leaf paths of one root searched `layers` deep: `A · B^layers` (action slots, block), or
/// `None` past `usize`.
pub fn leaf_paths(tree: TreeShape, layers: u32) -> Option<usize> {
    (tree.block() as usize)
        .checked_pow(layers)?
        .checked_mul(tree.action_slots() as usize)
}

/// Words a root takes in a search's largest buffer: the naive search's leaf entries (one word
/// each), or the multilevel search's deepest afterstates (`words` a state; their leaves never
/// reach memory). `layers` within [`MAX_LEAF_PATHS`].
pub fn words_per_root(
    method: ExpectimaxMethod,
    tree: TreeShape,
    layers: u32,
    words: usize,
) -> usize {
    let paths = |l| leaf_paths(tree, l).unwrap_or(usize::MAX);
    match method {
        ExpectimaxMethod::Multilevel if layers > 0 => paths(layers - 1).saturating_mul(words),
        _ => paths(layers),
    }
}

/// The cube grid for `groups` reduction blocks of one unit a child.
fn blocks<R: Runtime>(
    client: &ComputeClient<R>,
    tree: TreeShape,
    groups: usize,
) -> (CubeCount, CubeDim) {
    (cube_count(client, groups), CubeDim::new_1d(tree.block()))
}

/// How a search runs on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchShape {
    /// How the tree is generated.
    pub method: ExpectimaxMethod,
    /// Fold blocks with plane ops (only where [`planes_fit`] says the device has them; used
    /// for the games whose blocks fit them, [`TreeShape::plane_fold_fits`]).
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
            plane_ops: planes_fit(client),
            max_entries: MAX_ENTRIES,
        }
    }
}

/// Device buffers that searches reuse from call to call: once they fit, a search allocates
/// nothing. A buffer is kept per role and replaced when a call needs another size.
#[derive(Default)]
pub struct Workspace {
    buffers: HashMap<Role, (usize, Handle)>,
    /// The multilevel search's counters, zero between searches (the root kernel clears them);
    /// `None` until uploaded, and again after a failed search, which may have left them counting.
    counters: Option<Handle>,
    /// Each game's table of reciprocal weights (see [`super::reduce`]) and its length, by the
    /// game's type.
    recips: HashMap<TypeId, (Handle, usize)>,
}

/// What a workspace buffer holds.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Role {
    /// Part 0 (states), 1 (lens) or 2 (rewards so far) of generated level `k`.
    Level(u32, u32),
    /// Part 0 (values) or 1 (lens) of the entries of reduction `k`.
    Folded(u32, u32),
    /// The list of live deepest afterstates.
    Live,
    /// The transposition table of the deepest afterstates.
    Table,
    /// The distinct deepest afterstates.
    Distinct,
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

    /// The multilevel search's counters (zero).
    fn counters<R: Runtime>(&mut self, client: &ComputeClient<R>) -> Handle {
        self.counters
            .get_or_insert_with(|| upload(client, &[0; COUNTERS]))
            .clone()
    }

    /// Game `G`'s reciprocal weights: entry `W` is [`reciprocal_weight`]`(W)` for every total
    /// `W` a set of its outcome slots can weigh (entry 0 unused), made and uploaded on first use.
    fn recips<R: Runtime, G: GpuStochasticGame>(
        &mut self,
        client: &ComputeClient<R>,
    ) -> Result<(Handle, usize)> {
        if let Some(table) = self.recips.get(&TypeId::of::<G>()) {
            return Ok(table.clone());
        }
        let weights = outcome_weights::<R, G>(client)?;
        let most: u64 = weights.iter().map(|&w| w as u64).sum();
        if most >= 1 << 24 {
            return Err(Error::Unsupported(format!(
                "{}: outcome weights totalling {most} do not fit the device's exact f32 sums",
                G::NAME
            )));
        }
        let table: Vec<f32> = (0..=most as u32)
            .map(|w| if w == 0 { 0.0 } else { reciprocal_weight(w) })
            .collect();
        let entry = (client.create_from_slice(f32::as_bytes(&table)), table.len());
        self.recips.insert(TypeId::of::<G>(), entry.clone());
        Ok(entry)
    }
}

/// What an expectimax reads and keeps on the device: the uploaded network, the search's shape
/// and the buffers kept from call to call.
pub struct Searcher<'a> {
    /// The evaluation.
    pub net: &'a DeviceNetwork,
    /// How the search runs.
    pub shape: SearchShape,
    /// Buffers reused from call to call.
    pub workspace: &'a mut Workspace,
}

/// An `layers`-layer expectimax of every root under the searcher's network: the whole search
/// on the device, roots in chunks, one read of the results a chunk.
pub fn launch_expectimax<R: Runtime, G: GpuStochasticGame>(
    client: &ComputeClient<R>,
    game: &G,
    roots: &[G::State],
    layers: u32,
    searcher: Searcher<'_>,
) -> Result<Vec<DeviceRoot>> {
    let Searcher {
        net,
        shape,
        workspace,
    } = searcher;
    let tree = TreeShape::of::<G>();
    if tree.actions == 0 || tree.actions > 32 || tree.outcomes == 0 {
        return Err(Error::Unsupported(format!(
            "{}: the device expectimax takes 1 to 32 actions and at least one chance outcome \
             ({} actions, {} outcomes)",
            G::NAME,
            tree.actions,
            tree.outcomes
        )));
    }
    let max_units = client.properties().hardware.max_units_per_cube;
    if tree.block() > max_units {
        return Err(Error::Unsupported(format!(
            "{}: a block of {} outcome slots × {} action slots needs cubes of {} units; this \
             device has at most {max_units}",
            G::NAME,
            tree.outcome_slots(),
            tree.action_slots(),
            tree.block()
        )));
    }
    if leaf_paths(tree, layers).is_none_or(|p| p > MAX_LEAF_PATHS) {
        return Err(Error::Unsupported(format!(
            "{layers} layers of {}: the device search takes at most {MAX_LEAF_PATHS} leaf paths \
             a root ({} action slots, blocks of {})",
            G::NAME,
            tree.action_slots(),
            tree.block()
        )));
    }
    if shape.plane_ops && !planes_fit(client) {
        return Err(Error::Unsupported(format!(
            "this device has no plane ops on {PLANE}-unit planes"
        )));
    }
    let per_root = words_per_root(shape.method, tree, layers, G::STATE_WORDS);
    let largest = (client.properties().memory.max_page_size / 4).min(MAX_ENTRIES as u64);
    let chunk = (shape.max_entries.min(largest as usize) / per_root).max(1);
    let plan = Plan {
        layers,
        shape,
        tree,
        recips: workspace.recips::<R, G>(client)?,
    };
    let mut out = Vec::with_capacity(roots.len());
    for part in roots.chunks(chunk) {
        let found = search_chunk::<R, G>(client, game, net, part, &plan, workspace);
        if found.is_err() {
            workspace.counters = None;
        }
        out.extend(found?);
    }
    Ok(out)
}

/// What every chunk of one call searches with.
struct Plan {
    layers: u32,
    shape: SearchShape,
    tree: TreeShape,
    /// The reciprocal weights and their count.
    recips: (Handle, usize),
}

fn search_chunk<R: Runtime, G: GpuStochasticGame>(
    client: &ComputeClient<R>,
    game: &G,
    net: &DeviceNetwork,
    roots: &[G::State],
    plan: &Plan,
    workspace: &mut Workspace,
) -> Result<Vec<DeviceRoot>> {
    let Plan {
        layers,
        shape,
        tree,
        ref recips,
    } = *plan;
    let n = roots.len();
    if n == 0 {
        return Ok(Vec::new());
    }
    let roots_handle = upload(client, &game.encode_all(roots));
    // Zero layers have no chance level: the naive kernel's action entries are the leaves.
    let (mut values, mut lens, mut entries, mut reductions) = match shape.method {
        ExpectimaxMethod::Multilevel if layers > 0 => {
            let (v, l, entries) = multilevel::<R, G>(client, net, roots_handle, n, plan, workspace);
            (v, l, entries, layers - 1)
        }
        _ => {
            let (v, l, entries) = naive::<R, G>(client, net, roots_handle, n, plan, workspace);
            (v, l, entries, layers)
        }
    };
    let block = tree.block() as usize;
    // Fold each block of siblings into its parent, deepest remaining layer first; the last
    // fold is the root kernel's.
    while reductions > 1 {
        let groups = entries / block;
        let out_values = workspace.buffer(client, Role::Folded(reductions, 0), groups * 4);
        let out_lens = workspace.buffer(client, Role::Folded(reductions, 1), groups * 4);
        let (count, dim) = blocks(client, tree, groups);
        // SAFETY: cube g reads the g-th block of entries of the level below and writes entry
        // g; cubes past `groups` only take part in the cube's barriers.
        unsafe {
            reduce_kernel::launch_unchecked::<G::Device, R>(
                client,
                count,
                dim,
                ArrayArg::from_raw_parts(values, entries),
                ArrayArg::from_raw_parts(lens, entries),
                ArrayArg::from_raw_parts(out_values.clone(), groups),
                ArrayArg::from_raw_parts(out_lens.clone(), groups),
                ArrayArg::from_raw_parts(recips.0.clone(), recips.1),
                2 * reductions + 1,
                groups as u32,
                tree,
                shape.plane_ops,
            );
        }
        values = out_values;
        lens = out_lens;
        entries = groups;
        reductions -= 1;
    }
    let root_words = root_words(tree.actions) as usize;
    let out_words = n * root_words;
    let out = workspace.buffer(client, Role::Results, out_words * 4);
    let counters = workspace.counters(client);
    if reductions == 1 {
        let (count, dim) = blocks(client, tree, n);
        // SAFETY: cube r reads the blocks of root r's action entries and writes its own words;
        // unit 0 clears the counters; cubes past `n` only take part in the barriers.
        unsafe {
            root_fold_kernel::launch_unchecked::<G::Device, R>(
                client,
                count,
                dim,
                ArrayArg::from_raw_parts(values, entries),
                ArrayArg::from_raw_parts(lens, entries),
                ArrayArg::from_raw_parts(out.clone(), out_words),
                ArrayArg::from_raw_parts(counters, COUNTERS),
                ArrayArg::from_raw_parts(recips.0.clone(), recips.1),
                3,
                n as u32,
                tree,
                shape.plane_ops,
            );
        }
    } else {
        let (count, dim) = grid(client, n);
        // SAFETY: unit r reads root r's action entries and writes its own words; unit 0
        // clears the counters.
        unsafe {
            root_kernel::launch_unchecked::<R>(
                client,
                count,
                dim,
                ArrayArg::from_raw_parts(values, entries),
                ArrayArg::from_raw_parts(lens, entries),
                ArrayArg::from_raw_parts(out.clone(), out_words),
                ArrayArg::from_raw_parts(counters, COUNTERS),
                n as u32,
                tree,
            );
        }
    }
    let out = read::<R, u32>(client, out)?;
    Ok(out
        .chunks(root_words)
        .map(|words| DeviceRoot {
            best: (words[0] < tree.actions).then_some(words[0]),
            actions: (0..tree.actions as usize)
                .map(|a| (words[1] >> a & 1 == 1).then_some(f32::from_bits(words[2 + a])))
                .collect(),
        })
        .collect())
}

/// The naive generation: every leaf path's entry, replayed from its root. Returns the entries'
/// values, lens and count.
fn naive<R: Runtime, G: GpuStochasticGame>(
    client: &ComputeClient<R>,
    net: &DeviceNetwork,
    roots: Handle,
    n: usize,
    plan: &Plan,
    workspace: &mut Workspace,
) -> (Handle, Handle, usize) {
    let Plan { layers, tree, .. } = *plan;
    let paths = leaf_paths(tree, layers).expect("checked by launch_expectimax");
    let leaves = n * paths;
    let values = workspace.buffer(client, Role::Level(0, 2), leaves * 4);
    let lens = workspace.buffer(client, Role::Level(0, 1), leaves * 4);
    let (count, dim) = grid(client, leaves);
    // SAFETY: units past `leaves` write nothing; unit p writes only entry p, and reads its root
    // and the network's buffers within their lengths.
    unsafe {
        naive_kernel::launch_unchecked::<G::Device, R>(
            client,
            count,
            dim,
            ArrayArg::from_raw_parts(roots, n * G::STATE_WORDS),
            ArrayArg::from_raw_parts(net.weights.clone(), net.weight_len),
            ArrayArg::from_raw_parts(values.clone(), leaves),
            ArrayArg::from_raw_parts(lens.clone(), leaves),
            paths as u32,
            leaves as u32,
            layers,
            G::STATE_WORDS,
            tree,
            net.layout.clone(),
        );
    }
    (values, lens, leaves)
}

/// A generated level in device memory: `nodes` nodes, each `words` words of state, a len and
/// the rewards so far.
struct LevelBuffers {
    states: Handle,
    lens: Handle,
    accs: Handle,
    nodes: usize,
    words: usize,
}

impl LevelBuffers {
    /// Level `k`'s buffers for `nodes` nodes of `words` words each.
    fn of<R: Runtime>(
        client: &ComputeClient<R>,
        workspace: &mut Workspace,
        k: u32,
        nodes: usize,
        words: usize,
    ) -> Self {
        Self {
            states: workspace.buffer(client, Role::Level(k, 0), nodes * words * 4),
            lens: workspace.buffer(client, Role::Level(k, 1), nodes * 4),
            accs: workspace.buffer(client, Role::Level(k, 2), nodes * 4),
            nodes,
            words,
        }
    }

    /// The level as a kernel argument.
    fn arg<R: Runtime>(&self) -> LevelLaunch<R> {
        // SAFETY: each buffer was made for these lengths (`of`).
        unsafe {
            LevelLaunch::new(
                ArrayArg::from_raw_parts(self.states.clone(), self.nodes * self.words),
                ArrayArg::from_raw_parts(self.lens.clone(), self.nodes),
                ArrayArg::from_raw_parts(self.accs.clone(), self.nodes),
            )
        }
    }
}

/// The multi-level generation (`layers` ≥ 1): the roots' actions, a kernel per layer down to
/// the deepest afterstates (the last of them listing the valid ones), their transpositions
/// found, then one kernel that plays the distinct afterstates' outcomes and actions and folds
/// each block of leaves at once. Returns the entries of the deepest afterstates (one reduction
/// done; a transposition's entry is read through its mark).
fn multilevel<R: Runtime, G: GpuStochasticGame>(
    client: &ComputeClient<R>,
    net: &DeviceNetwork,
    roots: Handle,
    n: usize,
    plan: &Plan,
    workspace: &mut Workspace,
) -> (Handle, Handle, usize) {
    let Plan {
        layers,
        shape,
        tree,
        ref recips,
    } = *plan;
    let words = G::STATE_WORDS;
    let block = tree.block() as usize;
    let per_root = leaf_paths(tree, layers - 1).expect("checked by launch_expectimax");
    let deepest = n * per_root;
    let counters = workspace.counters(client);
    let live = workspace.buffer(client, Role::Live, deepest * 4);
    // Typically one node of the deepest level in seven is live, and one live afterstate in
    // seven has a key of its own: slots for a quarter of the nodes leave most of them free,
    // and never outnumber the units that clear them.
    let slots = (deepest / 4).next_power_of_two();
    let table = workspace.buffer(client, Role::Table, slots * 4);
    let live_list = || {
        // SAFETY: the buffers' own lengths.
        unsafe {
            LiveListLaunch::new(
                ArrayArg::from_raw_parts(counters.clone(), COUNTERS),
                ArrayArg::from_raw_parts(live.clone(), deepest),
                ArrayArg::from_raw_parts(table.clone(), slots),
            )
        }
    };
    // The roots' action slots (len 1).
    let mut level = LevelBuffers::of(
        client,
        workspace,
        0,
        n * tree.action_slots() as usize,
        words,
    );
    // The roots' lens and rewards are not read: bound to the roots' buffer.
    let roots = LevelBuffers {
        states: roots.clone(),
        lens: roots.clone(),
        accs: roots,
        nodes: n,
        words,
    };
    let (count, dim) = grid(client, level.nodes);
    // SAFETY: unit i reads its root and writes node i (and one slot of the live list, which
    // has room for every node of the deepest level).
    unsafe {
        actions_kernel::launch_unchecked::<G::Device, R>(
            client,
            count,
            dim,
            roots.arg(),
            level.arg(),
            live_list(),
            0,
            level.nodes as u32,
            words,
            tree,
            true,
            layers == 1,
        );
    }
    // Afterstates of len 2k − 1 → their block of children a layer down (len 2k + 1).
    for k in 1..layers {
        let next = LevelBuffers::of(client, workspace, k, level.nodes * block, words);
        let (count, dim) = grid(client, next.nodes);
        // SAFETY: unit i reads its parent and writes node i (and one list slot).
        unsafe {
            layer_kernel::launch_unchecked::<G::Device, R>(
                client,
                count,
                dim,
                level.arg(),
                next.arg(),
                live_list(),
                2 * k - 1,
                next.nodes as u32,
                words,
                tree,
                k == layers - 1,
            );
        }
        level = next;
    }
    let distinct = workspace.buffer(client, Role::Distinct, deepest * 4);
    let multiprocessors = client
        .properties()
        .hardware
        .num_streaming_multiprocessors
        .unwrap_or(64) as usize;
    // Units stride over the live list: enough to fill the device, no more than the level.
    let (count, dim) = grid(client, deepest.min(multiprocessors * 2048));
    // SAFETY: units read listed nodes (below `deepest`) of the level and write their lens,
    // probe the table (indices below its length) and append to a list with room for every node.
    unsafe {
        transpositions_kernel::launch_unchecked::<R>(
            client,
            count,
            dim,
            level.arg(),
            live_list(),
            TranspositionsLaunch::new(
                ArrayArg::from_raw_parts(table.clone(), slots),
                ArrayArg::from_raw_parts(distinct.clone(), deepest),
            ),
            per_root as u32,
            words,
        );
    }
    // Enough cubes to fill the device; each loops over the distinct list. On an H200, 24 a
    // multiprocessor searched 256 roots 1.09 times as fast as 16.
    let (count, dim) = blocks(client, tree, deepest.min(multiprocessors * 24));
    // SAFETY: a cube reads the distinct afterstates (node numbers below `deepest`) and the
    // network, and only its unit 0 writes the afterstate's entry, after the fold's barriers.
    unsafe {
        leaf_blocks_kernel::launch_unchecked::<G::Device, R>(
            client,
            count,
            dim,
            level.arg(),
            ArrayArg::from_raw_parts(counters.clone(), COUNTERS),
            ArrayArg::from_raw_parts(distinct, deepest),
            ArrayArg::from_raw_parts(net.weights.clone(), net.weight_len),
            ArrayArg::from_raw_parts(recips.0.clone(), recips.1),
            2 * layers - 1,
            words,
            tree,
            net.layout.clone(),
            shape.plane_ops,
        );
    }
    (level.accs, level.lens, deepest)
}
