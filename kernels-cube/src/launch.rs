//! Launch shapes shared by the launchers.

use cubecl::prelude::*;
use cubesearch_core::{Error, Result, Stop};

/// How resumable walks (perft, alpha-beta subtrees) are cut into launches: each launch takes a
/// unit at most `steps` steps further, and at most `bytes` of walk memory are in use at once
/// (more roots wait for the next turn).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slicing {
    /// Steps of a walk a unit takes per launch (a step plays one move).
    pub steps: u32,
    /// Walk memory in use at once.
    pub bytes: usize,
}

impl Slicing {
    /// Roots a turn takes when each keeps `unit_bytes` of walk memory.
    pub fn roots_at_once(&self, unit_bytes: usize) -> usize {
        (self.bytes / unit_bytes.max(1)).max(1)
    }
}

/// Where resumable walks run: the device's client, how each walk is cut into launches, and
/// the memory walks keep from call to call.
pub struct Walker<'a, R: Runtime> {
    /// The device.
    pub client: &'a ComputeClient<R>,
    /// Launch and memory slices.
    pub slicing: Slicing,
    /// Buffers kept between calls.
    pub memory: &'a mut WalkMemory,
    /// Looked at between launches: raised, the walk ends with [`Error::Interrupted`].
    pub stop: &'a Stop,
}

/// What one turn of a walk's launches runs with: the device, the steps a launch, and the stop
/// looked at between launches.
#[derive(Clone, Copy)]
pub(crate) struct Turns<'a, R: Runtime> {
    pub client: &'a ComputeClient<R>,
    pub steps: u32,
    pub stop: &'a Stop,
}

/// Device memory that resumable walks keep from call to call: allocating tens of MiB costs a
/// GPU milliseconds a call, as much as a small perft takes.
#[derive(Default)]
pub struct WalkMemory {
    buffers: Vec<(cubecl::server::Handle, usize)>,
}

impl WalkMemory {
    /// Buffer `slot`, at least `bytes` long (grown, never shrunk). Its contents are whatever the
    /// last call left: kernels write a word before they read it.
    pub fn buffer<R: Runtime>(
        &mut self,
        client: &ComputeClient<R>,
        slot: usize,
        bytes: usize,
    ) -> cubecl::server::Handle {
        while self.buffers.len() <= slot {
            self.buffers.push((client.empty(4), 4));
        }
        let (handle, size) = &mut self.buffers[slot];
        if *size < bytes {
            *handle = client.empty(bytes);
            *size = bytes;
        }
        handle.clone()
    }
}

/// Runs a resumable kernel to the end: `launch(fresh, unfinished)` launches it once (`fresh` the
/// first time) with a zeroed one-word counter that each unit whose walk is not done adds one
/// to; launches go on until a launch leaves the counter at zero, or `stop` is raised between
/// two of them ([`Error::Interrupted`]: the walk is dropped).
pub fn launch_until_done<R: Runtime>(
    client: &ComputeClient<R>,
    stop: &Stop,
    mut launch: impl FnMut(bool, cubecl::server::Handle),
) -> cubesearch_core::Result<()> {
    let mut fresh = true;
    loop {
        if !fresh && stop.is_raised() {
            return Err(Error::Interrupted("the walk was stopped".into()));
        }
        let unfinished = upload(client, &[0u32]);
        launch(fresh, unfinished.clone());
        fresh = false;
        if read::<R, u32>(client, unfinished)?[0] == 0 {
            return Ok(());
        }
    }
}

/// Units per cube for one-unit-per-task kernels: 256 where the device allows it.
pub fn units_per_cube<R: Runtime>(client: &ComputeClient<R>) -> u32 {
    client
        .properties()
        .hardware
        .max_units_per_cube
        .clamp(32, 256)
}

/// The plane size that the plane-shuffle kernels are written for.
pub const PLANE: u32 = 32;

/// Whether the device offers plane ops on planes of exactly [`PLANE`] units (CUDA, NVIDIA's
/// Vulkan; not lavapipe, which has no plane ops through wgpu).
pub fn planes_fit<R: Runtime>(client: &ComputeClient<R>) -> bool {
    let props = client.properties();
    props.features.plane.contains(cubecl::features::Plane::Ops)
        && props.hardware.plane_size_min == PLANE
        && props.hardware.plane_size_max == PLANE
}

/// A grid of at least `units` units in cubes of `units_per_cube`, spread over two dimensions when
/// one is not enough (wgpu allows 65535 cubes per dimension). Kernels index with `ABSOLUTE_POS`
/// and ignore units past the end.
pub fn grid<R: Runtime>(client: &ComputeClient<R>, units: usize) -> (CubeCount, CubeDim) {
    let per_cube = units_per_cube(client);
    (
        cube_count(client, units.div_ceil(per_cube as usize)),
        CubeDim::new_1d(per_cube),
    )
}

/// At least `cubes` cubes (one at the least), spread over two dimensions when one is not
/// enough (wgpu allows 65535 cubes per dimension), as evenly as they go so few are left over.
/// Kernels index with `CUBE_POS` or `ABSOLUTE_POS` and ignore cubes past the end.
pub fn cube_count<R: Runtime>(client: &ComputeClient<R>, cubes: usize) -> CubeCount {
    let cubes = cubes.max(1) as u64;
    let max_x = client.properties().hardware.max_cube_count.0.min(65_535) as u64;
    let y = cubes.div_ceil(max_x);
    CubeCount::Static(cubes.div_ceil(y) as u32, y as u32, 1)
}

/// Refuses `what`, `bytes` long, where it would not fit in one of the device's buffers (wgpu's
/// largest binding, 128 MiB on lavapipe): a failed allocation does not come back as an error,
/// the runtime's thread panics and the kernels read nothing.
pub fn check_buffer<R: Runtime>(client: &ComputeClient<R>, what: &str, bytes: u64) -> Result<()> {
    let largest = client.properties().memory.max_page_size;
    if bytes > largest {
        return Err(Error::Unsupported(format!(
            "{what} take {} MiB, past this device's largest buffer ({} MiB)",
            bytes.div_ceil(1 << 20),
            largest >> 20
        )));
    }
    Ok(())
}

/// Uploads u32 words.
pub fn upload<R: Runtime>(client: &ComputeClient<R>, words: &[u32]) -> cubecl::server::Handle {
    client.create_from_slice(u32::as_bytes(words))
}

/// Reads a result buffer back (waiting for the device) as elements of `T`.
pub fn read<R: Runtime, T: CubeElement>(
    client: &ComputeClient<R>,
    handle: cubecl::server::Handle,
) -> cubesearch_core::Result<Vec<T>> {
    client
        .read_one(handle)
        .map(|bytes| T::from_bytes(&bytes).to_vec())
        .map_err(|e| cubesearch_core::Error::Device {
            backend: R::name(client),
            why: format!("{e:?}"),
        })
}

/// Reads elements `start..start + len` of a buffer of `total` elements of `T`.
pub fn read_range<R: Runtime, T: CubeElement>(
    client: &ComputeClient<R>,
    handle: cubecl::server::Handle,
    start: usize,
    len: usize,
    total: usize,
) -> cubesearch_core::Result<Vec<T>> {
    let size = std::mem::size_of::<T>() as u64;
    let tail = (total - start - len) as u64;
    read(
        client,
        handle
            .offset_start(start as u64 * size)
            .offset_end(tail * size),
    )
}
