//! How the ranks of a run find each other, read from the environment a launcher sets (the names
//! PyTorch's `torchrun` uses): `RANK`, `WORLD_SIZE`, `LOCAL_RANK` (the GPU on this host), and
//! either `MASTER_ADDR` + `MASTER_PORT` or `RENDEZVOUS_FILE` (a path every rank can read,
//! which must not exist before the run). Rank 0 makes the run's NCCL id and hands it to the
//! others; nothing else passes between them outside NCCL. Rank 0 listens on `MASTER_PORT + 1`:
//! under `torchrun` its own store holds `MASTER_PORT` on the first host.

use cubesearch_core::{Error, Result};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The bytes of an NCCL unique id.
pub const ID_BYTES: usize = 128;

/// How long a rank waits for the others to turn up.
pub const PATIENCE: Duration = Duration::from_secs(300);

/// Where rank 0 hands out the id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rendezvous {
    /// Rank 0 listens on `port` (`MASTER_PORT + 1`, all addresses); the others connect to `host:port`.
    Tcp {
        /// Rank 0's host, as the others reach it.
        host: String,
        /// The port rank 0 listens on.
        port: u16,
    },
    /// Rank 0 writes the id to this file (a new name, then a rename); the others wait for it.
    File(PathBuf),
}

/// This process's place in a run of several ranks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ranks {
    /// This rank, `0..world`.
    pub rank: usize,
    /// Ranks in the run.
    pub world: usize,
    /// The GPU of this host that this rank trains on.
    pub local_rank: usize,
    /// Where the ranks meet to start.
    pub rendezvous: Rendezvous,
}

/// Reads variable `name` as a number.
fn number(name: &str, value: Option<String>) -> Result<usize> {
    let value = value.ok_or_else(|| {
        Error::parse(format!(
            "{name} is not set: a launcher sets RANK, WORLD_SIZE and LOCAL_RANK together"
        ))
    })?;
    value
        .trim()
        .parse()
        .map_err(|_| Error::parse(format!("{name}={value}: expected a number")))
}

impl Ranks {
    /// The run this process is a rank of, from the environment; `None` when `WORLD_SIZE` is
    /// not set (no launcher).
    pub fn from_env() -> Result<Option<Ranks>> {
        Self::from_vars(|name| std::env::var(name).ok())
    }

    /// [`Ranks::from_env`] over any source of variables.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Option<Ranks>> {
        let Some(world) = var("WORLD_SIZE") else {
            return Ok(None);
        };
        let world = number("WORLD_SIZE", Some(world))?;
        let rank = number("RANK", var("RANK"))?;
        let local_rank = match var("LOCAL_RANK") {
            Some(v) => number("LOCAL_RANK", Some(v))?,
            None if world == 1 => 0,
            None => number("LOCAL_RANK", None)?,
        };
        if world == 0 || rank >= world {
            return Err(Error::parse(format!(
                "RANK={rank} of WORLD_SIZE={world}: ranks run from 0 to WORLD_SIZE - 1"
            )));
        }
        let rendezvous =
            match (
                var("MASTER_ADDR"),
                var("MASTER_PORT"),
                var("RENDEZVOUS_FILE"),
            ) {
                (_, _, Some(file)) if !file.is_empty() => Rendezvous::File(PathBuf::from(file)),
                (Some(host), Some(port), _) => Rendezvous::Tcp {
                    host,
                    port: port
                        .trim()
                        .parse::<u16>()
                        .ok()
                        .and_then(|p| p.checked_add(1))
                        .ok_or_else(|| {
                            Error::parse(format!(
                                "MASTER_PORT={port}: expected a port number below 65535"
                            ))
                        })?,
                },
                _ if world == 1 => Rendezvous::File(PathBuf::new()),
                _ => return Err(Error::parse(
                    "ranks meet through MASTER_ADDR and MASTER_PORT, or RENDEZVOUS_FILE: set one",
                )),
            };
        Ok(Some(Ranks {
            rank,
            world,
            local_rank,
            rendezvous,
        }))
    }

    /// The run's id on every rank: rank 0 makes it (`make`) and hands it out, the others wait
    /// for it (at most `patience`).
    pub fn share_id(
        &self,
        make: impl FnOnce() -> Result<[u8; ID_BYTES]>,
        patience: Duration,
    ) -> Result<[u8; ID_BYTES]> {
        if self.world == 1 {
            return make();
        }
        match (&self.rendezvous, self.rank) {
            (Rendezvous::Tcp { port, .. }, 0) => {
                // Bind before making the id: a port in use fails fast.
                let listener = TcpListener::bind(("0.0.0.0", *port)).map_err(|e| {
                    Error::parse(format!("rank 0 cannot listen on port {port}: {e}"))
                })?;
                let id = make()?;
                hand_out(&listener, &id, self.world, patience)?;
                Ok(id)
            }
            (Rendezvous::Tcp { host, port }, rank) => {
                fetch(host, *port, rank, self.world, patience)
            }
            (Rendezvous::File(path), 0) => {
                if path.exists() {
                    return Err(Error::parse(format!(
                        "RENDEZVOUS_FILE {} exists already: remove it (it would hand the other \
                         ranks a stale id)",
                        path.display()
                    )));
                }
                let id = make()?;
                cubesearch_core::io::write_atomically(path, &file_words(&id, self.world))?;
                Ok(id)
            }
            (Rendezvous::File(path), _) => wait_for_file(path, self.world, patience),
        }
    }
}

/// A rank's greeting: a tag, then the world size and the rank it expects (u64, little-endian).
const HELLO: &[u8; 8] = b"cs-rank1";

/// Rank 0's side: `world − 1` ranks connect, each says who it is, each gets the id.
fn hand_out(
    listener: &TcpListener,
    id: &[u8; ID_BYTES],
    world: usize,
    patience: Duration,
) -> Result<()> {
    let until = Instant::now() + patience;
    listener
        .set_nonblocking(true)
        .map_err(|e| Error::parse(format!("rendezvous: {e}")))?;
    let mut seen = vec![false; world];
    seen[0] = true;
    while seen.iter().any(|s| !s) {
        match listener.accept() {
            Ok((mut stream, _)) => {
                stream
                    .set_nonblocking(false)
                    .and_then(|_| stream.set_read_timeout(Some(Duration::from_secs(10))))
                    .map_err(|e| Error::parse(format!("rendezvous: {e}")))?;
                let mut hello = [0u8; 24];
                if stream.read_exact(&mut hello).is_err() || &hello[..8] != HELLO {
                    continue; // not one of ours
                }
                let their_world = u64::from_le_bytes(hello[8..16].try_into().expect("8"));
                let rank = u64::from_le_bytes(hello[16..24].try_into().expect("8")) as usize;
                if their_world != world as u64 || rank == 0 || rank >= world || seen[rank] {
                    return Err(Error::parse(format!(
                        "rendezvous: a rank says it is {rank} of {their_world}, in a run of {world}"
                    )));
                }
                stream
                    .write_all(id)
                    .map_err(|e| Error::parse(format!("rendezvous: rank {rank}: {e}")))?;
                seen[rank] = true;
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if Instant::now() >= until {
                    let missing: Vec<usize> = (0..world).filter(|&r| !seen[r]).collect();
                    return Err(Error::parse(format!(
                        "rendezvous: ranks {missing:?} did not connect within {} s",
                        patience.as_secs()
                    )));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(Error::parse(format!("rendezvous: {e}"))),
        }
    }
    Ok(())
}

/// A follower's side: connect to rank 0 (retrying until it listens), say who it is, read the id.
fn fetch(
    host: &str,
    port: u16,
    rank: usize,
    world: usize,
    patience: Duration,
) -> Result<[u8; ID_BYTES]> {
    let until = Instant::now() + patience;
    let mut hello = [0u8; 24];
    hello[..8].copy_from_slice(HELLO);
    hello[8..16].copy_from_slice(&(world as u64).to_le_bytes());
    hello[16..24].copy_from_slice(&(rank as u64).to_le_bytes());
    let mut last = String::new();
    while Instant::now() < until {
        let addrs = (host, port)
            .to_socket_addrs()
            .map_err(|e| Error::parse(format!("MASTER_ADDR={host}: {e}")))?;
        for addr in addrs {
            match TcpStream::connect_timeout(&addr, Duration::from_secs(5)) {
                Ok(mut stream) => {
                    let mut id = [0u8; ID_BYTES];
                    let got = stream
                        .set_read_timeout(Some(patience))
                        .and_then(|_| stream.write_all(&hello))
                        .and_then(|_| stream.read_exact(&mut id));
                    match got {
                        Ok(()) => return Ok(id),
                        Err(e) => last = e.to_string(),
                    }
                }
                Err(e) => last = e.to_string(),
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Err(Error::parse(format!(
        "rendezvous: rank {rank} could not reach rank 0 at {host}:{port} within {} s ({last})",
        patience.as_secs()
    )))
}

/// The id file: the tag, the world size, the id.
fn file_words(id: &[u8; ID_BYTES], world: usize) -> Vec<u8> {
    [&HELLO[..], &(world as u64).to_le_bytes(), id].concat()
}

fn wait_for_file(path: &Path, world: usize, patience: Duration) -> Result<[u8; ID_BYTES]> {
    let until = Instant::now() + patience;
    loop {
        if let Ok(bytes) = std::fs::read(path) {
            if bytes.len() != 16 + ID_BYTES || &bytes[..8] != HELLO {
                return Err(Error::parse(format!(
                    "RENDEZVOUS_FILE {}: not a rendezvous file",
                    path.display()
                )));
            }
            let their_world = u64::from_le_bytes(bytes[8..16].try_into().expect("8"));
            if their_world != world as u64 {
                return Err(Error::parse(format!(
                    "RENDEZVOUS_FILE {}: written for {their_world} ranks, this run has {world}",
                    path.display()
                )));
            }
            return Ok(bytes[16..].try_into().expect("ID_BYTES"));
        }
        if Instant::now() >= until {
            return Err(Error::parse(format!(
                "rendezvous: RENDEZVOUS_FILE {} did not appear within {} s",
                path.display(),
                patience.as_secs()
            )));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn the_environment_names_the_rank_and_the_rendezvous() {
        assert_eq!(Ranks::from_vars(vars(&[])).unwrap(), None);
        let tcp = Ranks::from_vars(vars(&[
            ("WORLD_SIZE", "4"),
            ("RANK", "2"),
            ("LOCAL_RANK", "1"),
            ("MASTER_ADDR", "10.0.0.1"),
            ("MASTER_PORT", "29500"),
        ]))
        .unwrap()
        .unwrap();
        assert_eq!((tcp.rank, tcp.world, tcp.local_rank), (2, 4, 1));
        assert_eq!(
            tcp.rendezvous,
            Rendezvous::Tcp {
                host: "10.0.0.1".into(),
                port: 29501
            }
        );
        for bad in [
            vec![
                ("WORLD_SIZE", "2"),
                ("RANK", "2"),
                ("LOCAL_RANK", "0"),
                ("RENDEZVOUS_FILE", "f"),
            ],
            vec![("WORLD_SIZE", "two"), ("RANK", "0")],
            vec![("WORLD_SIZE", "2"), ("RANK", "0"), ("LOCAL_RANK", "0")],
            vec![
                ("WORLD_SIZE", "2"),
                ("LOCAL_RANK", "0"),
                ("RENDEZVOUS_FILE", "f"),
            ],
            vec![
                ("WORLD_SIZE", "2"),
                ("RANK", "1"),
                ("LOCAL_RANK", "1"),
                ("MASTER_ADDR", "h"),
                ("MASTER_PORT", "x"),
            ],
        ] {
            let err = Ranks::from_vars(vars(&bad)).unwrap_err();
            assert!(matches!(err, Error::Parse(_)), "{bad:?}: {err}");
        }
        // One rank alone needs no rendezvous.
        let alone = Ranks::from_vars(vars(&[("WORLD_SIZE", "1"), ("RANK", "0")]))
            .unwrap()
            .unwrap();
        assert_eq!(
            alone.share_id(|| Ok([7; ID_BYTES]), PATIENCE).unwrap(),
            [7; ID_BYTES]
        );
    }

    /// Every rank gets rank 0's id, through a port or a file.
    #[test]
    fn every_rank_gets_rank_zeros_id() {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let dir = std::env::temp_dir().join(format!("cs-rendezvous-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("id");
        let _ = std::fs::remove_file(&file);
        for rendezvous in [
            Rendezvous::Tcp {
                host: "127.0.0.1".into(),
                port,
            },
            Rendezvous::File(file.clone()),
        ] {
            let ids: Vec<[u8; ID_BYTES]> = std::thread::scope(|s| {
                let handles: Vec<_> = (0..3)
                    .map(|rank| {
                        let ranks = Ranks {
                            rank,
                            world: 3,
                            local_rank: rank,
                            rendezvous: rendezvous.clone(),
                        };
                        s.spawn(move || {
                            let mut id = [0u8; ID_BYTES];
                            id[..5].copy_from_slice(b"rank0");
                            ranks.share_id(|| Ok(id), Duration::from_secs(30)).unwrap()
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).collect()
            });
            assert!(ids.iter().all(|id| &id[..5] == b"rank0"), "{rendezvous:?}");
        }
        // A file left from another run is refused, not handed out.
        let again = Ranks {
            rank: 0,
            world: 3,
            local_rank: 0,
            rendezvous: Rendezvous::File(file.clone()),
        };
        assert!(again.share_id(|| Ok([0; ID_BYTES]), PATIENCE).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
