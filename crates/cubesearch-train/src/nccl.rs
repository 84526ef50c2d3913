//! The real [`Collective`]: NCCL, one process a GPU, through cudarc's NCCL bindings (loaded at
//! run time like the rest of CUDA, so a build needs no CUDA). The weights' changes are summed
//! in place in the trainer's own device buffer, on a stream of this collective's, with no copy
//! through the host; only a meeting's few control words and finished games go by the host.

use crate::collective::Collective;
use crate::rendezvous::{Ranks, ID_BYTES, PATIENCE};
use cubecl::cuda::CudaRuntime;
use cubecl::prelude::*;
use cubecl::server::Handle;
use cubesearch_core::{Error, Result};
use cudarc::driver::{CudaContext, CudaStream, DevicePtr};
use cudarc::nccl::{result as nccl, sys};
use std::sync::Arc;

fn failed(what: &str, e: impl std::fmt::Debug) -> Error {
    Error::Device {
        backend: "cuda",
        why: format!("NCCL {what}: {e:?}"),
    }
}

/// One rank's NCCL communicator, on a stream of its own on the rank's GPU.
pub struct NcclCollective {
    ranks: Ranks,
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    comm: sys::ncclComm_t,
}

// SAFETY: the communicator is used by one thread at a time (`&mut self`), which NCCL allows.
unsafe impl Send for NcclCollective {}

impl NcclCollective {
    /// Joins the run `ranks` describes on GPU `ranks.local_rank` (rank 0 hands out the run's
    /// id through the rendezvous; every rank waits for the others at most
    /// [`PATIENCE`]).
    pub fn start(ranks: &Ranks) -> Result<Self> {
        // SAFETY: only tries to open the library.
        if !unsafe { sys::is_culib_present() } {
            return Err(Error::Unsupported(
                "NCCL's library was not found: put the directory holding libnccl.so (a link \
                 named libnccl.so to libnccl.so.2 will do) on LD_LIBRARY_PATH"
                    .into(),
            ));
        }
        let context = CudaContext::new(ranks.local_rank).map_err(|e| failed("device", e))?;
        let stream = context.new_stream().map_err(|e| failed("stream", e))?;
        let id = ranks.share_id(
            || {
                let id = nccl::get_uniqueid().map_err(|e| failed("id", e))?;
                Ok(id.internal.map(|c| c as u8))
            },
            PATIENCE,
        )?;
        let id = sys::ncclUniqueId {
            internal: id.map(|b| b as std::ffi::c_char),
        };
        debug_assert_eq!(std::mem::size_of::<sys::ncclUniqueId>(), ID_BYTES);
        context.bind_to_thread().map_err(|e| failed("device", e))?;
        let mut comm = std::mem::MaybeUninit::uninit();
        // SAFETY: `comm` is written by a successful init; every rank passes the same id and
        // world size and its own rank.
        let comm = unsafe {
            nccl::comm_init_rank(comm.as_mut_ptr(), ranks.world as i32, id, ranks.rank as i32)
                .map_err(|e| failed("init", e))?;
            comm.assume_init()
        };
        Ok(Self {
            ranks: ranks.clone(),
            context,
            stream,
            comm,
        })
    }

    /// Sums `count` elements at `ptr` over every rank, in place, and waits for it.
    ///
    /// # Safety
    /// `ptr` is device memory of this rank's GPU holding `count` elements of `dtype`, which no
    /// other work touches until this returns.
    unsafe fn sum_in_place(
        &mut self,
        ptr: u64,
        count: usize,
        dtype: sys::ncclDataType_t,
    ) -> Result<()> {
        self.context
            .bind_to_thread()
            .map_err(|e| failed("device", e))?;
        // SAFETY: per this function's contract.
        unsafe {
            nccl::all_reduce(
                ptr as *const _,
                ptr as *mut _,
                count,
                dtype,
                sys::ncclRedOp_t::ncclSum,
                self.comm,
                self.stream.cu_stream() as _,
            )
            .map_err(|e| failed("all-reduce", e))?;
        }
        self.stream
            .synchronize()
            .map_err(|e| failed("all-reduce", e))
    }
}

impl Drop for NcclCollective {
    fn drop(&mut self) {
        // SAFETY: the communicator was made by `start` and is not used after this.
        unsafe {
            let _ = nccl::comm_destroy(self.comm);
        }
    }
}

impl Collective<CudaRuntime> for NcclCollective {
    fn rank(&self) -> usize {
        self.ranks.rank
    }

    fn world(&self) -> usize {
        self.ranks.world
    }

    fn sum_u64(&mut self, values: &mut [u64]) -> Result<()> {
        if values.is_empty() {
            return Ok(());
        }
        let stream = self.stream.clone();
        let buffer = stream.clone_htod(values).map_err(|e| failed("copy", e))?;
        {
            let (ptr, _sync) = buffer.device_ptr(&stream);
            // SAFETY: `buffer` holds `values.len()` u64 on this rank's GPU, used only here.
            unsafe { self.sum_in_place(ptr, values.len(), sys::ncclDataType_t::ncclUint64)? };
        }
        let sums = stream.clone_dtoh(&buffer).map_err(|e| failed("copy", e))?;
        values.copy_from_slice(&sums);
        Ok(())
    }

    fn sum_f32(
        &mut self,
        client: &ComputeClient<CudaRuntime>,
        values: Handle,
        len: usize,
    ) -> Result<Handle> {
        // The trainer's launches must be done with the buffer before NCCL reads it.
        cubecl::future::block_on(client.sync()).map_err(|e| failed("sync", e))?;
        let resource = client
            .get_resource(values.clone())
            .map_err(|e| failed("buffer", e))?;
        if (resource.resource().size as usize) < len * 4 {
            return Err(failed("buffer", "shorter than its length"));
        }
        // SAFETY: the resource is `values`' device memory (kept alive by `resource`) on this
        // rank's GPU, holding `len` f32; the client has finished every launch (synced above)
        // and starts none until this returns.
        unsafe {
            self.sum_in_place(
                resource.resource().ptr,
                len,
                sys::ncclDataType_t::ncclFloat32,
            )?
        };
        Ok(values)
    }
}
