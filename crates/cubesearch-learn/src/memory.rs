//! The weight tables' memory: on Linux one anonymous mapping, aligned to and asked to be backed
//! by 2 MiB pages; elsewhere, and for small networks, plain heap memory.
//!
//! A training move reads about 160 weights scattered over tables of up to 256 MB (2048's
//! `4x6patt`). On 4 KiB pages nearly every such read also misses the TLB (a core's
//! second-level TLB maps a few MiB of 4 KiB pages), and the page walk waits on memory too. With
//! 2 MiB pages the same TLB maps gigabytes. Linux backs a mapping with them when it asks
//! (`madvise(MADV_HUGEPAGE)`) under its default transparent-huge-page setting, `madvise`; when
//! it cannot, the mapping keeps 4 KiB pages and nothing else changes.

use cubesearch_core::{Error, Result};
use std::ops::{Deref, DerefMut};
use std::sync::atomic::AtomicU32;

/// A huge page, and the smallest table worth a mapping of its own.
const HUGE_PAGE: usize = 2 << 20;

/// `len` zeroed weights.
pub(crate) struct WeightMemory {
    memory: Memory,
}

enum Memory {
    Heap(Box<[AtomicU32]>),
    #[cfg(target_os = "linux")]
    Mapped {
        /// What `mmap` returned, and its length, for `munmap`.
        base: *mut libc::c_void,
        bytes: usize,
        /// The first weight (the first 2 MiB boundary in the mapping), and the weights.
        start: *const AtomicU32,
        len: usize,
    },
}

// SAFETY: the mapping is owned like a `Box<[AtomicU32]>`, whose elements are `Sync`.
unsafe impl Send for WeightMemory {}
// SAFETY: as above; every access goes through `&[AtomicU32]`.
unsafe impl Sync for WeightMemory {}

impl WeightMemory {
    /// `len` weights, all 0.0; an error, not an abort, when they do not fit in memory.
    pub(crate) fn zeroed(len: usize) -> Result<Self> {
        let bytes = len.saturating_mul(std::mem::size_of::<AtomicU32>()) as u64;
        check_fits(bytes, "the network's weights")?;
        #[cfg(target_os = "linux")]
        if let Some(memory) = Self::mapped(len) {
            return Ok(memory);
        }
        let mut heap = Vec::new();
        heap.try_reserve_exact(len)
            .map_err(|_| too_big(bytes, "the network's weights"))?;
        heap.extend((0..len).map(|_| AtomicU32::new(0)));
        Ok(WeightMemory {
            memory: Memory::Heap(heap.into_boxed_slice()),
        })
    }

    /// An anonymous mapping (zero-filled by the kernel) with room to start on a 2 MiB
    /// boundary, advised to use huge pages; `None` for small tables or when `mmap` fails.
    #[cfg(target_os = "linux")]
    fn mapped(len: usize) -> Option<Self> {
        let wanted = len.checked_mul(std::mem::size_of::<AtomicU32>())?;
        if wanted < HUGE_PAGE {
            return None;
        }
        let bytes = wanted.checked_add(HUGE_PAGE)?;
        // SAFETY: a fresh private anonymous mapping; no existing memory is touched.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return None;
        }
        let skip = (HUGE_PAGE - base as usize % HUGE_PAGE) % HUGE_PAGE;
        // SAFETY: `skip < HUGE_PAGE`, so `start .. start + wanted` lies inside the mapping.
        let start = unsafe { base.cast::<u8>().add(skip) };
        let advised = wanted.div_ceil(HUGE_PAGE) * HUGE_PAGE;
        // SAFETY: advice on pages of our own mapping (`advised ≤ bytes − skip`); a refusal
        // (no huge pages on this kernel) leaves ordinary pages.
        unsafe { libc::madvise(start.cast(), advised.min(bytes - skip), libc::MADV_HUGEPAGE) };
        Some(WeightMemory {
            memory: Memory::Mapped {
                base,
                bytes,
                start: start.cast(),
                len,
            },
        })
    }
}

impl Deref for WeightMemory {
    type Target = [AtomicU32];

    fn deref(&self) -> &[AtomicU32] {
        match &self.memory {
            Memory::Heap(weights) => weights,
            #[cfg(target_os = "linux")]
            // SAFETY: `len` zero-initialised `AtomicU32`s (all-zero bits are a valid value)
            // live at `start` for as long as the mapping, which `self` owns.
            Memory::Mapped { start, len, .. } => unsafe {
                std::slice::from_raw_parts(*start, *len)
            },
        }
    }
}

impl DerefMut for WeightMemory {
    fn deref_mut(&mut self) -> &mut [AtomicU32] {
        match &mut self.memory {
            Memory::Heap(weights) => weights,
            #[cfg(target_os = "linux")]
            // SAFETY: as in `deref`; `&mut self` makes this the only reference.
            Memory::Mapped { start, len, .. } => unsafe {
                std::slice::from_raw_parts_mut(start.cast_mut(), *len)
            },
        }
    }
}

impl std::fmt::Debug for WeightMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.memory {
            Memory::Heap(_) => "heap",
            #[cfg(target_os = "linux")]
            Memory::Mapped { .. } => "mapped, 2 MiB pages advised",
        };
        write!(f, "{} weights ({kind})", self.len())
    }
}

impl Drop for WeightMemory {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        if let Memory::Mapped { base, bytes, .. } = self.memory {
            // SAFETY: the mapping made in `mapped`, unmapped once; no reference outlives
            // `self`.
            unsafe { libc::munmap(base, bytes) };
        }
    }
}

/// Refuses `bytes` of `what` up front when they are more than the memory this process may
/// have: past it, the kernel's overcommit would let a mapping succeed and then kill the
/// process on first touch.
pub(crate) fn check_fits(bytes: u64, what: &str) -> Result<()> {
    match memory_limit() {
        Some(limit) if bytes > limit => Err(too_big(bytes, what)),
        _ => Ok(()),
    }
}

/// The error for `bytes` of `what` that do not fit.
fn too_big(bytes: u64, what: &str) -> Error {
    let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
    Error::Unsupported(format!(
        "{what} need {:.1} GiB: more than this machine gives this process{}; choose smaller \
         shapes, fewer stages or fewer threads",
        gib(bytes),
        memory_limit().map_or(String::new(), |limit| format!(" ({:.1} GiB)", gib(limit)))
    ))
}

/// The most memory this process may have, in bytes: the machine's, or less where a limit on the
/// address space (`ulimit -v`) or the cgroup (`memory.max`) says so; `None` when unknown.
fn memory_limit() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: sysconf and getrlimit only read the system's settings into our values.
        let physical = unsafe {
            let pages = libc::sysconf(libc::_SC_PHYS_PAGES);
            let size = libc::sysconf(libc::_SC_PAGESIZE);
            (pages > 0 && size > 0).then(|| pages as u64 * size as u64)
        };
        let address_space = unsafe {
            let mut limit = std::mem::zeroed::<libc::rlimit>();
            (libc::getrlimit(libc::RLIMIT_AS, &mut limit) == 0
                && limit.rlim_cur != libc::RLIM_INFINITY)
                .then_some(limit.rlim_cur)
        };
        let cgroup = std::fs::read_to_string("/sys/fs/cgroup/memory.max")
            .ok()
            .and_then(|text| text.trim().parse::<u64>().ok());
        [physical, address_space, cgroup]
            .into_iter()
            .flatten()
            .min()
    }
    #[cfg(not(target_os = "linux"))]
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering::Relaxed;

    #[test]
    fn small_and_large_tables_start_zeroed_and_keep_what_is_written() {
        for len in [0, 1, 1000, (HUGE_PAGE / 4) + 3, 3 * HUGE_PAGE] {
            let weights = WeightMemory::zeroed(len).expect("fits");
            assert_eq!(weights.len(), len);
            assert!(weights.iter().all(|w| w.load(Relaxed) == 0));
            for (i, w) in weights.iter().enumerate().step_by(4099) {
                w.store(i as u32 ^ 0xDEAD_BEEF, Relaxed);
            }
            for (i, w) in weights.iter().enumerate().step_by(4099) {
                assert_eq!(w.load(Relaxed), i as u32 ^ 0xDEAD_BEEF);
            }
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn large_tables_start_on_a_huge_page_boundary() {
        let weights = WeightMemory::zeroed(HUGE_PAGE).expect("fits");
        assert!(matches!(weights.memory, Memory::Mapped { .. }));
        assert_eq!(weights.as_ptr() as usize % HUGE_PAGE, 0);
    }

    #[test]
    fn weights_past_the_memory_are_an_error() {
        if memory_limit().is_some() {
            let e = WeightMemory::zeroed(usize::MAX / 8).expect_err("more than any machine");
            assert!(e.to_string().contains("GiB"), "{e}");
        }
    }
}
