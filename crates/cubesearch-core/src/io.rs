//! Files written safely.

use crate::error::{Error, Result};
use std::io::Write;
use std::path::Path;

/// Writes `bytes` to a temporary file beside `path` (`.NAME.tmpPID`), syncs it to disk, and
/// renames it to `path`, so that `path` is never left half written. On failure the temporary
/// file is removed and the error names `path`.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let (tmp, _) = temporary_beside(path)?;
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    result.map_err(|source| {
        let _ = std::fs::remove_file(&tmp);
        io_error(path, source)
    })
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

/// The temporary file a write of `path` goes through (`.NAME.tmpPID`, beside it), and the
/// prefix every such file has (`.NAME.tmp`), whichever process wrote it.
fn temporary_beside(path: &Path) -> Result<(std::path::PathBuf, String)> {
    let name = path.file_name().ok_or_else(|| {
        let why = std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file name");
        io_error(path, why)
    })?;
    let prefix = format!(".{}.tmp", name.to_string_lossy());
    let tmp = path.with_file_name(format!("{prefix}{}", std::process::id()));
    Ok((tmp, prefix))
}

/// Checks, before any work, that `path` can be written the way [`write_atomically`] writes it:
/// its folder exists and takes a new file, and `path` is not a folder. Also removes the
/// temporary files that interrupted writes of `path` by earlier runs left beside it.
pub fn check_writable(path: &Path) -> Result<()> {
    if path.is_dir() {
        let why = std::io::Error::new(std::io::ErrorKind::InvalidInput, "is a folder, not a file");
        return Err(io_error(path, why));
    }
    let (probe, stale) = temporary_beside(path)?;
    std::fs::File::create(&probe).map_err(|e| io_error(path, e))?;
    let _ = std::fs::remove_file(&probe);
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    for entry in std::fs::read_dir(folder).into_iter().flatten().flatten() {
        let file = entry.file_name();
        let file = file.to_string_lossy();
        if file
            .strip_prefix(&stale)
            .is_some_and(|pid| pid.parse::<u32>().is_ok())
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    Ok(())
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
    use super::{check_writable, civil_from_days, write_atomically};

    #[test]
    fn dates_are_civil() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_783), (2024, 3, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn outputs_are_checked_and_stale_temporary_files_go() {
        let dir = std::env::temp_dir().join(format!("cubesearch-check-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("w.safetensors");
        std::fs::write(dir.join(".w.safetensors.tmp12345"), b"half").unwrap();
        std::fs::write(dir.join(".other.tmp12345"), b"keep").unwrap();
        check_writable(&path).unwrap();
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, [".other.tmp12345"]);
        let missing = dir.join("no/such/dir/w.safetensors");
        let err = check_writable(&missing).unwrap_err().to_string();
        assert!(err.starts_with(&missing.display().to_string()), "{err}");
        let err = check_writable(&dir).unwrap_err().to_string();
        assert!(err.contains("folder"), "{err}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn writes_the_bytes_and_leaves_no_temporary_file() {
        let dir = std::env::temp_dir().join(format!("cubesearch-io-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out.txt");
        write_atomically(&path, b"first").unwrap();
        write_atomically(&path, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["out.txt"]);
        let missing = dir.join("no/such/dir/out.txt");
        let err = write_atomically(&missing, b"x").unwrap_err().to_string();
        assert!(err.starts_with(&missing.display().to_string()), "{err}");
        assert!(write_atomically(std::path::Path::new("/"), b"x").is_err());
        std::fs::remove_dir_all(&dir).ok();
    }
}
