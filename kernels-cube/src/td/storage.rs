//! How the GPU TD trainer stores the weights its averaging launches read (issue #6: "weights
//! f32; optional f16 storage on the GPU if it is faster and learns as well").
//!
//! Mixed precision, the usual way: the f32 weights stay the master copy that every update goes
//! into (and that is read back and saved), and an averaged launch, which only reads weights
//! while it plays, may read a second copy of them in f16 instead: half the bytes for the 4 × 24
//! lookups of every move, so more of the tables stays in cache. The apply kernel that moves the
//! master weights writes the f16 copy of each weight it changes, so the copy is never staler
//! than one launch, as the f32 reads are. An immediate launch reads the weights it is changing
//! with atomics: it has no read-only copy to shrink, so f16 storage there is an error.

use cubecl::features::TypeUsage;
use cubecl::ir::{ElemType, FloatKind, StorageType};
use cubecl::prelude::*;
use cubesearch_core::{Error, Result};
use std::fmt;
use std::str::FromStr;

/// The float type of the weight copy an averaged launch reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum WeightStorage {
    /// The f32 master weights themselves.
    #[default]
    F32,
    /// An f16 copy of the master weights (IEEE half: 11 significant bits, largest 65504).
    F16,
}

impl WeightStorage {
    /// `f32` or `f16`.
    pub fn name(self) -> &'static str {
        match self {
            WeightStorage::F32 => "f32",
            WeightStorage::F16 => "f16",
        }
    }

    /// Whether `client`'s device can keep f16 values in a buffer and compute with them
    /// (CUDA always; wgpu when the adapter has `SHADER_F16`).
    pub fn f16_supported<R: Runtime>(client: &ComputeClient<R>) -> bool {
        let usage = client
            .properties()
            .type_usage(StorageType::Scalar(ElemType::Float(FloatKind::F16)));
        usage.contains(TypeUsage::Buffer) && usage.contains(TypeUsage::Conversion)
    }
}

impl fmt::Display for WeightStorage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for WeightStorage {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "f32" => Ok(WeightStorage::F32),
            "f16" => Ok(WeightStorage::F16),
            other => Err(Error::parse(format!(
                "unknown weight storage '{other}': expected f32 or f16"
            ))),
        }
    }
}

/// The f16 copy of `weight` as the device writes it: nearest, ties to even, saturated at
/// ±65504 so that a weight past f16's range reads as the largest f16 rather than as infinity
/// (an infinite V would turn the master weights into NaN). The apply kernel saturates the
/// same way.
pub fn to_f16(weight: f32) -> half::f16 {
    half::f16::from_f32(weight.clamp(-F16_MAX, F16_MAX))
}

/// The largest finite f16, as an f32.
pub const F16_MAX: f32 = 65504.0;

/// Uploads the f16 copy of `weights`.
pub fn upload_f16<R: Runtime>(
    client: &ComputeClient<R>,
    weights: &[f32],
) -> cubecl::server::Handle {
    let copy: Vec<half::f16> = weights.iter().map(|&w| to_f16(w)).collect();
    client.create_from_slice(half::f16::as_bytes(&copy))
}
