//! What a [`DeviceTd`] does when it meets other trainers (one a GPU, each with its own copy of
//! the weights; `cubesearch_search::td_ranks`): it hands in its weights' changes since the
//! last meeting, `w − base`, and takes back `base + Σ changes` over every trainer, which
//! becomes the base of the next meeting. Both stay on the device, so the sum can be taken by a
//! collective (NCCL) that reads and writes device memory.

use super::runtime::DeviceTd;
use super::storage::F16_MAX;
use crate::stochastic::GpuStochasticGame;
use cubecl::prelude::*;
use cubecl::server::Handle;

/// `changes[i] = weights[i] − base[i]`.
#[cube(launch_unchecked)]
fn td_changes_kernel(
    weights: &Array<f32>,
    base: &Array<f32>,
    changes: &mut Array<f32>,
    total: u32,
) {
    let i = ABSOLUTE_POS;
    if i < total as usize {
        changes[i] = weights[i] - base[i];
    }
}

/// `weights[i] = base[i] = base[i] + sum[i]`; with `copied`, the `F` copy the launches read
/// too, saturated as [`to_f16`](super::storage::to_f16) saturates it.
#[cube(launch_unchecked)]
fn td_take_sum_kernel<F: Float>(
    weights: &mut Array<f32>,
    base: &mut Array<f32>,
    sum: &Array<f32>,
    copy: &mut Array<F>,
    total: u32,
    #[comptime] copied: bool,
) {
    let i = ABSOLUTE_POS;
    if i < total as usize {
        let w = base[i] + sum[i];
        weights[i] = w;
        base[i] = w;
        if copied {
            copy[i] = F::cast_from(w.clamp(-F16_MAX, F16_MAX));
        }
    }
}

impl<R: Runtime, G: GpuStochasticGame> DeviceTd<R, G> {
    /// A device buffer of zeros, one for each weight (a meeting's first base).
    pub fn zero_weights(&self) -> Handle {
        self.client
            .create_from_slice(f32::as_bytes(&vec![0.0f32; self.weight_count()]))
    }

    /// The weights' changes since `base` (a buffer of [`DeviceTd::weight_count`] f32), in a
    /// new device buffer.
    pub fn changes_since(&self, base: &Handle) -> Handle {
        let n = self.weight_count();
        let changes = self.client.empty(n * 4);
        let (cubes, dim) = crate::launch::grid(&self.client, n);
        // SAFETY: the three buffers hold `n` f32; unit i touches element i only.
        unsafe {
            td_changes_kernel::launch_unchecked::<R>(
                &self.client,
                cubes,
                dim,
                ArrayArg::from_raw_parts(self.weights.clone(), n),
                ArrayArg::from_raw_parts(base.clone(), n),
                ArrayArg::from_raw_parts(changes.clone(), n),
                n as u32,
            );
        }
        changes
    }

    /// Takes `base + sum` as the weights, and as the next meeting's `base` (both buffers of
    /// [`DeviceTd::weight_count`] f32).
    pub fn take_sum(&mut self, base: &Handle, sum: &Handle) {
        match &self.half {
            Some(half) => self.launch_take_sum::<half::f16>(base, sum, (half, self.weight_count())),
            None => self.launch_take_sum::<f32>(base, sum, (&self.placeholder, 1)),
        }
    }

    fn launch_take_sum<F: Float + CubeElement>(
        &self,
        base: &Handle,
        sum: &Handle,
        (copy, copy_len): (&Handle, usize),
    ) {
        let n = self.weight_count();
        let (cubes, dim) = crate::launch::grid(&self.client, n);
        // SAFETY: weights, base and sum hold `n` f32, the copy `n` elements when there is
        // one; unit i touches element i only.
        unsafe {
            td_take_sum_kernel::launch_unchecked::<F, R>(
                &self.client,
                cubes,
                dim,
                ArrayArg::from_raw_parts(self.weights.clone(), n),
                ArrayArg::from_raw_parts(base.clone(), n),
                ArrayArg::from_raw_parts(sum.clone(), n),
                ArrayArg::from_raw_parts(copy.clone(), copy_len),
                n as u32,
                self.half.is_some(),
            );
        }
    }
}
