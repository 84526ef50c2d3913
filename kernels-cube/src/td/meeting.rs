//! What a [`DeviceTd`] does when it meets other trainers (one a GPU, each with its own copy of
//! the weights; `cubesearch_train::ranks`): it hands in its weights' changes since the
//! last meeting, `w − base`, each with a mark (1 where it changed the weight), and from the
//! sums over every trainer takes back `base + Σ changes / Σ marks`: each weight moves by the
//! mean change of the trainers that changed it, as the CPU's copies merge
//! (`NTupleNetwork::merge_copies`, which says why the mean). That becomes the base of the next
//! meeting. Everything stays on the device, so the sums can be taken by a collective (NCCL)
//! that reads and writes device memory.
//!
//! A contribution, the buffer a trainer hands in, is `[changes; marks]`: 2 f32 a weight.

use super::runtime::DeviceTd;
use crate::exact::div_rn;
use crate::stochastic::GpuStochasticGame;
use cubecl::prelude::*;
use cubecl::server::Handle;

/// `contribution[i] = weights[i] − base[i]`, and `contribution[total + i]` 1 where that is
/// not 0, else 0.
#[cube(launch_unchecked)]
fn td_changes_kernel(
    weights: &Array<f32>,
    base: &Array<f32>,
    contribution: &mut Array<f32>,
    total: u32,
) {
    let i = ABSOLUTE_POS;
    if i < total as usize {
        let change = weights[i] - base[i];
        let mut mark = 0.0f32;
        if change != 0.0 {
            mark = 1.0;
        }
        contribution[i] = change;
        contribution[total as usize + i] = mark;
    }
}

/// `weights[i] = base[i] = base[i] + sum[i] / max(sum[total + i], 1)`, `sum` being the
/// contributions' sum.
#[cube(launch_unchecked)]
fn td_take_mean_kernel(
    weights: &mut Array<f32>,
    base: &mut Array<f32>,
    sum: &Array<f32>,
    total: u32,
) {
    let i = ABSOLUTE_POS;
    if i < total as usize {
        let mut changed_by = sum[total as usize + i];
        if changed_by < 1.0 {
            changed_by = 1.0;
        }
        let w = base[i] + div_rn(sum[i], changed_by);
        weights[i] = w;
        base[i] = w;
    }
}

impl<R: Runtime, G: GpuStochasticGame> DeviceTd<R, G> {
    /// A device buffer of zeros, one for each weight (a meeting's first base).
    pub fn zero_weights(&self) -> Handle {
        self.client
            .create_from_slice(f32::as_bytes(&vec![0.0f32; self.weight_count()]))
    }

    /// The f32 of a contribution (see the module docs): twice [`DeviceTd::weight_count`].
    pub fn contribution_len(&self) -> usize {
        2 * self.weight_count()
    }

    /// Fails unless this trainer can meet others: the meeting kernels index a contribution,
    /// two f32 a weight, 32-bit, and it must fit in one of the device's buffers.
    pub fn check_can_meet(&self) -> cubesearch_core::Result<()> {
        if self.contribution_len() > u32::MAX as usize {
            return Err(cubesearch_core::Error::Unsupported(format!(
                "{} weights: trainers meet over networks of at most 2^31 weights",
                self.weight_count()
            )));
        }
        crate::launch::check_buffer(
            &self.client,
            "a meeting's changes (two f32 a weight)",
            self.contribution_len() as u64 * 4,
        )
    }

    /// A contribution of no changes (zeros), in a new device buffer.
    pub fn no_changes(&self) -> Handle {
        self.client
            .create_from_slice(f32::as_bytes(&vec![0.0f32; self.contribution_len()]))
    }

    /// This trainer's contribution: the weights' changes since `base` (a buffer of
    /// [`DeviceTd::weight_count`] f32) and their marks, in a new device buffer.
    pub fn changes_since(&self, base: &Handle) -> Handle {
        let n = self.weight_count();
        let changes = self.client.empty(self.contribution_len() * 4);
        let (cubes, dim) = crate::launch::grid(&self.client, n);
        // SAFETY: weights and base hold `n` f32, the contribution `2n`; unit i touches
        // elements i and n + i only.
        unsafe {
            td_changes_kernel::launch_unchecked::<R>(
                &self.client,
                cubes,
                dim,
                ArrayArg::from_raw_parts(self.weights.clone(), n),
                ArrayArg::from_raw_parts(base.clone(), n),
                ArrayArg::from_raw_parts(changes.clone(), 2 * n),
                n as u32,
            );
        }
        changes
    }

    /// Takes `base` moved by the mean change of the trainers that changed each weight (`sum`:
    /// the sum of every trainer's contribution) as the weights, and as the next meeting's
    /// `base` (a buffer of [`DeviceTd::weight_count`] f32).
    pub fn take_mean(&mut self, base: &Handle, sum: &Handle) {
        let n = self.weight_count();
        let (cubes, dim) = crate::launch::grid(&self.client, n);
        // SAFETY: weights and base hold `n` f32, sum `2n`; unit i touches elements i and
        // n + i only.
        unsafe {
            td_take_mean_kernel::launch_unchecked::<R>(
                &self.client,
                cubes,
                dim,
                ArrayArg::from_raw_parts(self.weights.clone(), n),
                ArrayArg::from_raw_parts(base.clone(), n),
                ArrayArg::from_raw_parts(sum.clone(), 2 * n),
                n as u32,
            );
        }
    }
}
