//! `cubesearch launch --gpus K -- train …`: starts `train` as K processes of this program, one
//! a GPU of this host, with the environment `torchrun` gives its workers (`RANK`,
//! `LOCAL_RANK`, `WORLD_SIZE`, `MASTER_ADDR`, `MASTER_PORT`; see
//! `cubesearch_train::rendezvous`). Rank 0 prints and saves; the others are silent. When a
//! rank fails, the others are stopped (they would wait for it forever inside NCCL).

use crate::args::Common;
use cubesearch_core::{Backend, Error, Result};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// `launch`.
pub fn run(common: &Common, gpus: u32, port: Option<u16>, command: &[String]) -> Result<()> {
    if command.first().map(String::as_str) != Some("train") {
        return Err(Error::parse(
            "launch starts ranks of `train`: cubesearch launch --gpus K -- train GAME …",
        ));
    }
    if std::env::var_os("WORLD_SIZE").is_some() {
        return Err(Error::parse(
            "launch was started as a rank itself (WORLD_SIZE is set): start it directly",
        ));
    }
    check_gpus(gpus)?;
    let master_port = match port {
        Some(p) if p < u16::MAX => p,
        Some(p) => {
            return Err(Error::parse(format!(
                "--port {p}: rank 0 listens on the port after it; use one below 65535"
            )))
        }
        None => free_port()? - 1,
    };
    let exe = std::env::current_exe()
        .map_err(|e| Error::parse(format!("cannot find this program to start its ranks: {e}")))?;
    let args = with_global_flags(common, command);
    let mut children: Vec<(usize, Child)> = Vec::new();
    for rank in 0..gpus as usize {
        let mut cmd = Command::new(&exe);
        cmd.args(&args)
            .env("RANK", rank.to_string())
            .env("LOCAL_RANK", rank.to_string())
            .env("WORLD_SIZE", gpus.to_string())
            .env("MASTER_ADDR", "127.0.0.1")
            .env("MASTER_PORT", master_port.to_string())
            .stdin(Stdio::null());
        if std::env::var_os("NCCL_NVLS_ENABLE").is_none() {
            // NVLink multicast can take a shared host's GPUs out of service.
            cmd.env("NCCL_NVLS_ENABLE", "0");
        }
        if rank > 0 {
            cmd.stdout(Stdio::null());
        }
        match cmd.spawn() {
            Ok(child) => children.push((rank, child)),
            Err(e) => {
                stop(&mut children);
                return Err(Error::parse(format!("cannot start rank {rank}: {e}")));
            }
        }
    }
    wait(children)
}

/// Refuses more ranks than this host has CUDA GPUs.
fn check_gpus(gpus: u32) -> Result<()> {
    #[cfg(feature = "cuda")]
    {
        let found = cubesearch_core::backend::cuda_device_count();
        if (gpus as usize) > found {
            return Err(Error::parse(format!(
                "--gpus {gpus}: this host has {found} CUDA GPU(s)"
            )));
        }
        Ok(())
    }
    #[cfg(not(feature = "cuda"))]
    Err(Error::parse(format!(
        "--gpus {gpus}: ranks train on CUDA GPUs, and this build has no cuda feature"
    )))
}

/// A port no one listens on now, above 1 (rank 0 listens on `MASTER_PORT + 1`).
fn free_port() -> Result<u16> {
    for _ in 0..16 {
        let port = std::net::TcpListener::bind(("0.0.0.0", 0))
            .and_then(|l| l.local_addr())
            .map_err(|e| Error::parse(format!("no free port for the ranks: {e}")))?
            .port();
        if port > 1 {
            return Ok(port);
        }
    }
    Err(Error::parse("no free port for the ranks"))
}

/// The ranks' command line: `command`, with the flags given to `launch` itself that it does
/// not name.
fn with_global_flags(common: &Common, command: &[String]) -> Vec<String> {
    let names = |flag: &str| {
        command
            .iter()
            .any(|a| a == flag || a.starts_with(&format!("{flag}=")))
    };
    let mut args = command.to_vec();
    if common.backend != Backend::Auto && !names("--backend") {
        args.extend(["--backend".into(), common.backend.name().into()]);
    }
    if common.seed != 1 && !names("--seed") {
        args.extend(["--seed".into(), common.seed.to_string()]);
    }
    if common.json && !names("--json") {
        args.push("--json".into());
    }
    args
}

/// Kills and reaps every child still running.
fn stop(children: &mut [(usize, Child)]) {
    for (_, child) in children.iter_mut() {
        let _ = child.kill();
    }
    for (_, child) in children.iter_mut() {
        let _ = child.wait();
    }
}

/// Waits for every rank; the first to fail stops the others.
fn wait(mut children: Vec<(usize, Child)>) -> Result<()> {
    loop {
        let mut i = 0;
        while i < children.len() {
            let (rank, child) = &mut children[i];
            match child.try_wait() {
                Ok(Some(status)) if status.success() => {
                    children.remove(i);
                }
                Ok(Some(status)) => {
                    let rank = *rank;
                    children.remove(i);
                    stop(&mut children);
                    return Err(Error::Unsupported(format!(
                        "rank {rank} failed ({status}); the other ranks were stopped"
                    )));
                }
                Ok(None) => i += 1,
                Err(e) => {
                    let rank = *rank;
                    stop(&mut children);
                    return Err(Error::Unsupported(format!("rank {rank}: {e}")));
                }
            }
        }
        if children.is_empty() {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
