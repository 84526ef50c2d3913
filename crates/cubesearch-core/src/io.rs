//! Files written safely.

use crate::error::{Error, Result};
use std::io::Write;
use std::path::Path;

/// Writes `bytes` to a temporary file beside `path` (`.NAME.tmpPID`), syncs it to disk, and
/// renames it to `path`, so that `path` is never left half written. On failure the temporary
/// file is removed and the error names `path`.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let io_error = |source| Error::Io {
        path: path.display().to_string(),
        source,
    };
    let name = path
        .file_name()
        .ok_or_else(|| {
            io_error(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a file name",
            ))
        })?
        .to_string_lossy()
        .into_owned();
    let tmp = path.with_file_name(format!(".{name}.tmp{}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    result.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io_error(e)
    })
}

#[cfg(test)]
mod tests {
    use super::write_atomically;

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
