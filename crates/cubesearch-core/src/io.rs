//! Files written safely.
//!
//! Every output goes through two steps: [`check_output`] before any work starts, and
//! [`write_atomically`] once there is something to write. An output is a regular file or a
//! new path; a device, a FIFO, a socket or a folder is refused, and a symbolic link is written
//! through to the file it names (the link stays, its target is replaced atomically). A write
//! goes to a temporary file beside its target (`.NAME.tmpPID-N`, a long NAME cut short and
//! tagged with its digest so that the name fits), synced, then renamed over it, so the target
//! is never half written; the temporary files that a run killed mid-write left behind are
//! removed once the process that made them is gone, and never before.
//!
//! [`refuse_collisions`] checks, before any work too, that no output of a run is another of
//! its outputs or one of its inputs, under any name (a symbolic link, a hard link, `./`).

use crate::error::{Error, Result};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes `bytes` to `path` (or, for a symbolic link, the file it names) through a temporary
/// file beside it, synced to disk and renamed over it, so that the file is never left half
/// written. The same checks as [`check_output`] come first; on failure the temporary file is
/// removed and the error names `path`.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let target = landing(path)?;
    let tmp = temporary_beside(&target)?;
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, &target)?;
        sync_folder(&target);
        Ok(())
    })();
    result.map_err(|source| {
        let _ = std::fs::remove_file(&tmp);
        io_error(path, source)
    })
}

/// Checks, before any work, that `path` can be written the way [`write_atomically`] writes it:
/// it is a regular file, a symbolic link to one, or a new name in a folder that takes new
/// files. Also removes the temporary files that earlier runs, now ended, left beside it.
pub fn check_output(path: &Path) -> Result<()> {
    let target = landing(path)?;
    let probe = temporary_beside(&target)?;
    std::fs::File::create(&probe).map_err(|e| io_error(path, e))?;
    let _ = std::fs::remove_file(&probe);
    remove_stale_temporaries(&target);
    Ok(())
}

/// Refuses, with one line, a run in which an output (`outputs`, each with the flag that names
/// it) is the same file as another output or as an input: the later write would replace the
/// earlier, or the input would be lost. Two inputs may share a file. Names are compared after
/// symbolic links and `.`/`..` are resolved (a new file by its folder's resolved path), and on
/// Unix existing files by device and inode too, which also catches hard links.
pub fn refuse_collisions(inputs: &[(&str, &Path)], outputs: &[(&str, &Path)]) -> Result<()> {
    let ids: Vec<_> = outputs.iter().map(|(_, p)| FileId::of(p)).collect();
    for (i, &(flag, path)) in outputs.iter().enumerate() {
        for (j, &(other, _)) in outputs.iter().enumerate().take(i) {
            if ids[i].is(&ids[j]) {
                return Err(Error::parse(format!(
                    "{other} and {flag} name the same file ({}): give each output its own file",
                    path.display()
                )));
            }
        }
        for &(input, input_path) in inputs {
            if ids[i].is(&FileId::of(input_path)) {
                return Err(Error::parse(format!(
                    "{flag} would overwrite {input} ({}): give the output another file",
                    path.display()
                )));
            }
        }
    }
    Ok(())
}

/// Whether `a` and `b` name one file ([`refuse_collisions`]' test).
pub fn same_file(a: &Path, b: &Path) -> bool {
    FileId::of(a).is(&FileId::of(b))
}

/// What tells a file apart whatever it is called.
struct FileId {
    /// The path with links and `.`/`..` resolved: the file's own, or for a new file its
    /// folder's joined with its name.
    path: PathBuf,
    /// Device and inode of an existing file (Unix).
    inode: Option<(u64, u64)>,
}

impl FileId {
    fn of(path: &Path) -> FileId {
        let resolved = std::fs::canonicalize(path).unwrap_or_else(|_| {
            let folder = std::fs::canonicalize(folder_of(path));
            match (folder, path.file_name()) {
                (Ok(folder), Some(name)) => folder.join(name),
                _ => std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()),
            }
        });
        #[cfg(unix)]
        let inode = {
            use std::os::unix::fs::MetadataExt;
            std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
        };
        #[cfg(not(unix))]
        let inode = None;
        FileId {
            path: resolved,
            inode,
        }
    }

    fn is(&self, other: &FileId) -> bool {
        self.path == other.path || (self.inode.is_some() && self.inode == other.inode)
    }
}

/// The file a write of `path` replaces: `path`, or the file its symbolic links lead to.
fn landing(path: &Path) -> Result<PathBuf> {
    let refuse = |why: String| {
        io_error(
            path,
            std::io::Error::new(std::io::ErrorKind::InvalidInput, why),
        )
    };
    let meta = match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(path.to_path_buf()),
        Err(e) => return Err(io_error(path, e)),
        Ok(meta) => meta,
    };
    let target = if meta.file_type().is_symlink() {
        std::fs::canonicalize(path).map_err(|_| {
            refuse("a symbolic link to nothing: give a file, or make the link's target".into())
        })?
    } else {
        path.to_path_buf()
    };
    let kind = std::fs::metadata(&target)
        .map_err(|e| io_error(path, e))?
        .file_type();
    match kind_of(&kind) {
        None => Ok(target),
        Some(kind) => Err(refuse(format!(
            "is {kind}, not a regular file: give a file name to write"
        ))),
    }
}

/// What a file that is not a regular file is, for the error that refuses it.
fn kind_of(kind: &std::fs::FileType) -> Option<&'static str> {
    if kind.is_file() {
        return None;
    }
    if kind.is_dir() {
        return Some("a folder");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_char_device() || kind.is_block_device() {
            return Some("a device");
        }
        if kind.is_fifo() {
            return Some("a FIFO");
        }
        if kind.is_socket() {
            return Some("a socket");
        }
    }
    Some("not a plain file")
}

/// Syncs the folder holding `path`, so that a rename into it survives a crash (best effort:
/// not every system can open a folder).
fn sync_folder(path: &Path) {
    #[cfg(unix)]
    if let Ok(folder) = std::fs::File::open(folder_of(path)) {
        let _ = folder.sync_all();
    }
    #[cfg(not(unix))]
    let _ = path;
}

/// The folder holding `path` (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Today's date (UTC) as game records (PDN, GGF) write it, `YYYY.MM.DD`.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}.{m:02}.{d:02}")
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (H. Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// The error about `path`.
fn io_error(path: &Path, source: std::io::Error) -> Error {
    Error::Io {
        path: path.display().to_string(),
        source,
    }
}

/// The longest file name most systems take (`NAME_MAX`), in bytes.
const NAME_MAX: usize = 255;

/// The longest NAME kept whole in a temporary name: room is left for the dot, `.tmp`, a
/// process id and a call count (`-` and up to 20 digits).
const TEMPORARY_NAME_MAX: usize = NAME_MAX - ".".len() - ".tmp".len() - 10 - 21;

/// The prefix of every temporary file a write of `path` goes through: `.NAME.tmp`, where a
/// NAME too long to fit is cut and tagged with the whole name's digest (names that share a
/// beginning still differ).
fn temporary_prefix(path: &Path) -> Result<String> {
    let name = path.file_name().ok_or_else(|| {
        let why = std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file name");
        io_error(path, why)
    })?;
    let name = name.to_string_lossy();
    if name.len() <= TEMPORARY_NAME_MAX {
        return Ok(format!(".{name}.tmp"));
    }
    let tag = digest([name.as_bytes()]);
    let tag = tag.trim_start_matches("fnv1a64:");
    let mut cut = TEMPORARY_NAME_MAX - 1 - tag.len();
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    Ok(format!(".{}~{tag}.tmp", &name[..cut]))
}

/// A new temporary file name beside `path`: `.NAME.tmpPID-N`, unique to this process and call.
fn temporary_beside(path: &Path) -> Result<PathBuf> {
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let prefix = temporary_prefix(path)?;
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    Ok(path.with_file_name(format!("{prefix}{}-{call}", std::process::id())))
}

/// Removes the temporary files beside `path` whose process has ended: what a run killed
/// mid-write left. Those of live processes (another run writing the same file) stay, and so
/// does everything where liveness cannot be told.
fn remove_stale_temporaries(path: &Path) {
    let Ok(prefix) = temporary_prefix(path) else {
        return;
    };
    for entry in std::fs::read_dir(folder_of(path))
        .into_iter()
        .flatten()
        .flatten()
    {
        let name = entry.file_name();
        let Some(owner) = name
            .to_string_lossy()
            .strip_prefix(&prefix)
            .and_then(|rest| {
                let pid = rest.split_once('-').map_or(rest, |(pid, _)| pid);
                pid.parse::<u32>().ok()
            })
        else {
            continue;
        };
        if process_has_ended(owner) == Some(true) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Whether process `pid` has ended; `None` where this system cannot say.
pub fn process_has_ended(pid: u32) -> Option<bool> {
    if pid == std::process::id() {
        return Some(false);
    }
    let proc = Path::new("/proc");
    (cfg!(target_os = "linux") && proc.join("self").exists())
        .then(|| !proc.join(pid.to_string()).exists())
}

/// A digest of `parts`' bytes in order, `fnv1a64:` and 16 hex digits: FNV-1a, a few lines,
/// and any flipped byte changes it (it tells files apart; it is no defence against forgery).
pub fn digest<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in parts.into_iter().flatten() {
        hash = (hash ^ *byte as u64).wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("fnv1a64:{hash:016x}")
}

#[cfg(test)]
mod tests {
    use super::{check_output, civil_from_days, refuse_collisions, same_file, write_atomically};
    use std::path::Path;

    #[test]
    fn dates_are_civil() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_783), (2024, 3, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn only_the_temporary_files_of_ended_processes_go() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.safetensors");
        // A process that has ended, and one that lives, each with a file. The live one is this
        // test's parent: this process's own probe files (`temporary_beside`) could take its
        // name.
        let mut ended = std::process::Command::new("true").spawn().unwrap();
        ended.wait().unwrap();
        let dead = format!(".w.safetensors.tmp{}", ended.id());
        let live = format!(
            ".w.safetensors.tmp{}-0",
            std::os::unix::process::parent_id()
        );
        for name in [&dead, &live, &".other.tmp12345".to_string()] {
            std::fs::write(dir.path().join(name), b"half").unwrap();
        }
        check_output(&path).unwrap();
        assert_eq!(
            names(dir.path()),
            [".other.tmp12345".to_string(), live.clone()]
        );
        assert_eq!(std::fs::read(dir.path().join(&live)).unwrap(), b"half");
    }

    #[test]
    fn outputs_that_are_not_regular_files_are_refused_before_any_write() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no/such/dir/w.safetensors");
        let err = check_output(&missing).unwrap_err().to_string();
        assert!(err.starts_with(&missing.display().to_string()), "{err}");
        let err = check_output(dir.path()).unwrap_err().to_string();
        assert!(err.contains("is a folder"), "{err}");
        let err = write_atomically(dir.path(), b"x").unwrap_err().to_string();
        assert!(err.contains("is a folder"), "{err}");
        #[cfg(unix)]
        {
            let fifo = dir.path().join("fifo");
            let made = std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap();
            assert!(made.success());
            for err in [
                check_output(&fifo).unwrap_err(),
                write_atomically(&fifo, b"x").unwrap_err(),
            ] {
                assert!(err.to_string().contains("is a FIFO"), "{err}");
            }
            let null = Path::new("/dev/null");
            let err = check_output(null).unwrap_err().to_string();
            assert!(err.contains("is a device"), "{err}");
            let link = dir.path().join("dangling");
            std::os::unix::fs::symlink(dir.path().join("nowhere"), &link).unwrap();
            let err = check_output(&link).unwrap_err().to_string();
            assert!(err.contains("symbolic link to nothing"), "{err}");
            let socket = dir.path().join("socket");
            let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
            let err = check_output(&socket).unwrap_err().to_string();
            assert!(err.contains("is a socket"), "{err}");
            assert!(names(dir.path()).iter().all(|n| !n.contains(".tmp")));
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_is_written_through_to_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("run7.csv");
        let link = dir.path().join("latest.csv");
        std::fs::write(&target, b"old").unwrap();
        std::os::unix::fs::symlink(&target, &link).unwrap();
        check_output(&link).unwrap();
        write_atomically(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        assert_eq!(names(dir.path()), ["latest.csv", "run7.csv"]);
    }

    #[test]
    fn writes_the_bytes_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        write_atomically(&path, b"first").unwrap();
        write_atomically(&path, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        assert_eq!(names(dir.path()), ["out.txt"]);
        let missing = dir.path().join("no/such/dir/out.txt");
        let err = write_atomically(&missing, b"x").unwrap_err().to_string();
        assert!(err.starts_with(&missing.display().to_string()), "{err}");
        assert!(write_atomically(Path::new("/"), b"x").is_err());
    }

    #[test]
    fn a_name_as_long_as_the_system_takes_is_written_and_its_leftovers_cleaned() {
        let dir = tempfile::tempdir().unwrap();
        for len in [200, 248, 255] {
            let path = dir.path().join("w".repeat(len - 3) + ".st");
            check_output(&path).unwrap();
            write_atomically(&path, b"weights").unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), b"weights");
        }
        // A run killed mid-write left a temporary of a long name: the next check removes it.
        let path = dir.path().join("x".repeat(250));
        let prefix = super::temporary_prefix(&path).unwrap();
        assert!(prefix.len() + 31 <= super::NAME_MAX, "{prefix}");
        let mut ended = std::process::Command::new("true").spawn().unwrap();
        ended.wait().unwrap();
        std::fs::write(
            dir.path().join(format!("{prefix}{}-0", ended.id())),
            b"half",
        )
        .unwrap();
        check_output(&path).unwrap();
        assert!(names(dir.path()).iter().all(|n| !n.contains(".tmp")));
        // Two long names that share their beginning keep apart.
        let other = dir.path().join("x".repeat(249) + "y");
        assert_ne!(prefix, super::temporary_prefix(&other).unwrap());
    }

    #[test]
    fn an_output_may_not_be_another_output_or_an_input() {
        let dir = tempfile::tempdir().unwrap();
        let w = dir.path().join("w.st");
        let c = dir.path().join("c.csv");
        let (w, c) = (w.as_path(), c.as_path());
        let w2 = w.with_extension("2");
        assert!(refuse_collisions(&[("--resume", w)], &[("--out", &w2)]).is_ok());
        // Two inputs may be one file; a new output is compared by its folder and name.
        assert!(refuse_collisions(&[("--p1", w), ("--p2", w)], &[("--curve", c)]).is_ok());
        let err = refuse_collisions(&[], &[("--out", w), ("--curve", w)]).unwrap_err();
        let err = err.to_string();
        assert!(
            err.starts_with("--out and --curve name the same file"),
            "{err}"
        );
        let dotted = dir.path().join("sub/../w.st");
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let err = refuse_collisions(&[("--resume", w)], &[("--curve", &dotted)]).unwrap_err();
        assert!(
            err.to_string().contains("--curve would overwrite --resume"),
            "{err}"
        );
        #[cfg(unix)]
        {
            std::fs::write(w, b"weights").unwrap();
            let link = dir.path().join("link.st");
            std::os::unix::fs::symlink(w, &link).unwrap();
            let hard = dir.path().join("hard.st");
            std::fs::hard_link(w, &hard).unwrap();
            for alias in [&link, &hard] {
                assert!(same_file(w, alias));
                assert!(refuse_collisions(&[("--weights", w)], &[("--out", alias)]).is_err());
            }
            assert!(!same_file(w, c));
        }
    }
}
