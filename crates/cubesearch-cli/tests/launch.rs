//! `cubesearch launch`: training over NCCL ranks, one process a GPU (needs CUDA GPUs; none: nothing to check).
#![cfg(feature = "cuda")]

use cubesearch::games::Game2048;
use cubesearch::NTupleNetwork;

/// `launch` on a CUDA host: one rank a GPU trains, counts every game and saves (here one
/// rank, or two where the host has two GPUs).
#[test]
fn launch_trains_over_nccl() {
    let found = cubesearch_core::backend::cuda_device_count();
    if found == 0 {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("w.safetensors");
    let gpus = found.min(2).to_string();
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_cubesearch"))
        .args([
            "launch",
            "--gpus",
            &gpus,
            "--",
            "train",
            "2048",
            "--backend",
            "cuda",
        ])
        .args(["--games", "20000", "--units", "2048", "--json", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let json: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(json["games"], 20000);
    assert_eq!(json["ranks"].as_u64(), Some(gpus.parse().unwrap()));
    let (_, meta) = NTupleNetwork::load::<Game2048>(&out, None).unwrap();
    assert_eq!(meta.games, 20000);
}
