//! Float arithmetic that rounds alike on every backend, so that kernels give the CPU's bits.
//!
//! GPU compilers take two liberties with f32 that the CPU does not: they contract `a·b + c` into
//! one fused multiply-add (rounded once where the CPU rounds twice), and Vulkan's and WGSL's
//! division is only accurate to 2.5 ulp (NVIDIA's Vulkan driver divides by a reciprocal; CUDA
//! and lavapipe round correctly). [`unfused()`] stops the first, [`div_rn()`] replaces the second.
//! Adds, subtractions and products are correctly rounded everywhere.

use cubecl::prelude::*;
use cubesearch_core::Result;

/// `x` unchanged, as a value no compiler can fuse into a later add: CUDA (and other GPU
/// compilers) contract `a·b + c` into one fused multiply-add, rounded once where the CPU rounds
/// the product and the sum each. `zero` must be 0 but unknown to the compiler (derived from a
/// kernel argument), so the product must be rounded to its bits first.
#[cube]
pub fn unfused(x: f32, zero: u32) -> f32 {
    f32::reinterpret(u32::reinterpret(x) ^ zero)
}

const SIGN: u32 = 0x8000_0000;
const FRACTION: u32 = 0x007f_ffff;
/// The significand's leading one, at bit 23.
const ONE: u32 = 0x0080_0000;
/// The exponent field all ones: an infinity or a NaN.
const INFINITY: u32 = 0x7f80_0000;

/// A finite, nonzero f32 as `significand · 2^(exponent − 150)`, the leading one at bit 23 (a
/// subnormal's shifted up to it, its exponent below 1).
#[derive(CubeType, Clone, Copy)]
struct Unpacked {
    significand: u32,
    exponent: i32,
}

/// [`Unpacked`] from the bits `u` of a finite, nonzero f32.
#[cube]
fn unpack(u: u32) -> Unpacked {
    let mut significand = u & FRACTION;
    let mut exponent = i32::cast_from((u >> 23u32) & 0xffu32);
    if exponent == 0i32 {
        let shift = significand.leading_zeros() - 8u32;
        significand <<= shift;
        exponent = 1i32 - i32::cast_from(shift);
    } else {
        significand |= ONE;
    }
    Unpacked {
        significand,
        exponent,
    }
}

/// `a / b` rounded to the nearest f32, ties to even, as IEEE 754 (and the CPU) divides, for
/// finite `a` and finite, nonzero `b` (subnormals in and out included), in integer operations
/// only, so that every backend gives the same bits: 25 steps of long division, unrolled. An
/// infinite or NaN operand, or a zero `b`, takes the device's own `/`, so a diverging run still
/// shows infinities and NaNs.
#[cube]
pub fn div_rn(a: f32, b: f32) -> f32 {
    let (ua, ub) = (u32::reinterpret(a), u32::reinterpret(b));
    let mut bits = (ua ^ ub) & SIGN;
    let exceptional =
        (ua & INFINITY) == INFINITY || (ub & INFINITY) == INFINITY || (ub & !SIGN) == 0u32;
    if exceptional {
        bits = u32::reinterpret(a / b);
    } else if (ua & !SIGN) != 0u32 {
        let (a, b) = (unpack(ua), unpack(ub));
        let (mut ma, mb) = (a.significand, b.significand);
        // The quotient's biased exponent, for a significand quotient in [1, 2).
        let mut e = a.exponent - b.exponent + 127i32;
        if ma < mb {
            ma <<= 1u32;
            e -= 1i32;
        }
        // 25 quotient bits (the leading one, 23 fraction bits, the rounding bit); what remains
        // is the sticky part (remainder < 2·mb < 2^25, so the shift fits).
        let mut q = 0u32;
        let mut r = ma;
        #[unroll]
        for _ in 0..25u32 {
            q <<= 1u32;
            if r >= mb {
                r -= mb;
                q |= 1u32;
            }
            r <<= 1u32;
        }
        let sticky = r != 0u32;
        if e >= 1i32 {
            let mut m = q >> 1u32;
            if (q & 1u32) == 1u32 && (sticky || (m & 1u32) == 1u32) {
                m += 1u32;
            }
            if m == ONE << 1u32 {
                m = ONE;
                e += 1i32;
            }
            if e >= 255i32 {
                bits |= INFINITY;
            } else {
                bits |= (u32::cast_from(e) << 23u32) | (m & FRACTION);
            }
        } else {
            // A subnormal quotient: the fraction field is q · 2^(e − 2).
            let s = u32::cast_from(2i32 - e);
            if s <= 25u32 {
                let mut m = q >> s;
                let half = (q >> (s - 1u32)) & 1u32;
                let below = q & ((1u32 << (s - 1u32)) - 1u32);
                if half == 1u32 && (sticky || below != 0u32 || (m & 1u32) == 1u32) {
                    m += 1u32;
                }
                // A carry into bit 23 makes the smallest normal, as its bits should.
                bits |= m;
            }
        }
    }
    f32::reinterpret(bits)
}

/// Unit `i` writes the bits of `a[i] / b[i]` ([`div_rn()`]), each taken as f32 bits.
#[cube(launch_unchecked)]
fn div_rn_kernel(a: &Array<u32>, b: &Array<u32>, quotients: &mut Array<u32>) {
    let i = ABSOLUTE_POS;
    if i < quotients.len() {
        quotients[i] = u32::reinterpret(div_rn(f32::reinterpret(a[i]), f32::reinterpret(b[i])));
    }
}

/// [`div_rn()`] of every pair on the device, for tests to hold to the CPU's `/`: bit patterns
/// in and out (so that no copy flushes a subnormal).
pub fn launch_div_rn<R: Runtime>(
    client: &ComputeClient<R>,
    pairs: &[(f32, f32)],
) -> Result<Vec<f32>> {
    if pairs.is_empty() {
        return Ok(Vec::new());
    }
    let bits =
        |f: fn(&(f32, f32)) -> f32| -> Vec<u32> { pairs.iter().map(|p| f(p).to_bits()).collect() };
    let (a, b) = (
        crate::launch::upload(client, &bits(|p| p.0)),
        crate::launch::upload(client, &bits(|p| p.1)),
    );
    let out = client.empty(pairs.len() * std::mem::size_of::<u32>());
    let (count, dim) = crate::launch::grid(client, pairs.len());
    // SAFETY: units past `pairs.len()` do nothing; unit i reads a[i], b[i] and writes
    // quotients[i] only.
    unsafe {
        div_rn_kernel::launch_unchecked::<R>(
            client,
            count,
            dim,
            ArrayArg::from_raw_parts(a, pairs.len()),
            ArrayArg::from_raw_parts(b, pairs.len()),
            ArrayArg::from_raw_parts(out.clone(), pairs.len()),
        );
    }
    Ok(crate::launch::read::<R, u32>(client, out)?
        .into_iter()
        .map(f32::from_bits)
        .collect())
}
