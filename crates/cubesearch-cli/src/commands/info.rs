//! `cubesearch info`: every backend, whether it answers, its device and limits.

use crate::args::Common;
use crate::output::emit;
use cubesearch_core::backend;
use cubesearch_core::Result;
use serde_json::json;

pub fn run(common: &Common) -> Result<()> {
    let backends = backend::info();
    let text = || {
        let mut out = String::new();
        for b in &backends {
            let state = if b.available {
                "available"
            } else {
                "unavailable"
            };
            out += &format!(
                "{:<5} {state}: {}\n",
                b.name,
                b.device.as_deref().or(b.why.as_deref()).unwrap_or("")
            );
            if let (Some(why), true) = (&b.why, b.device.is_some()) {
                out += &format!("      {why}\n");
            }
            if let Some(l) = &b.limits {
                out += &format!(
                    "      shared memory {} KiB/cube, max cube dim {:?} ({} units), plane ops {}{}, u64 {}, f32 atomic add {}{}{}\n",
                    l.shared_memory_per_cube / 1024,
                    l.max_cube_dim,
                    l.max_units_per_cube,
                    if l.plane_ops { "yes" } else { "no" },
                    if l.plane_ops { format!(" (size {}..{})", l.plane_size.0, l.plane_size.1) } else { String::new() },
                    if l.u64 { "yes" } else { "no" },
                    if l.f32_atomic_add { "yes" } else { "no" },
                    l.multiprocessors.map(|m| format!(", {m} multiprocessors")).unwrap_or_default(),
                    l.loop_iterations.map(|n| format!(", loops stop after {n} iterations")).unwrap_or_default(),
                );
            }
        }
        out.trim_end().to_string()
    };
    emit(common.json, text, json!({ "backends": backends }));
    Ok(())
}
