//! Resource limits a hostile or runaway program meets (docs/CLI.md,
//! "Limits"): sizes as the command line writes them (`256M`, `2GiB`), and
//! reading an input file without ever holding more of it than the limit.

use std::io::Read;
use std::path::Path;

use super::{io_reason, Failure, EXIT_NO_INPUT};

/// Parses a size: a number of bytes, optionally followed by `K`, `M`, `G`
/// or `T` (each a power of 1024; `KB`, `KiB` and lower case mean the same).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("`{s}` is not a size (e.g. 512M, 2G, 1048576)"))?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => {
            return Err(format!(
                "`{s}`: unknown size unit `{unit}` (use K, M, G or T)"
            ))
        }
    };
    let bytes = n
        .checked_mul(1u64 << shift)
        .ok_or_else(|| format!("`{s}` is too large"))?;
    if bytes == 0 {
        return Err(format!("`{s}`: a limit must be at least 1 byte"));
    }
    Ok(bytes)
}

pub use vm::memory::format_size;

/// Opens `path` to read it whole, refusing (status 66) a directory and a
/// file whose size is larger than `limit` bytes. Gives the file and its
/// size when it has one (a regular file; not a pipe or a device such as
/// `/dev/zero`, which [`read_bounded`] refuses as it reads). Read it
/// through [`Read::take`]`(limit + 1)` and refuse it with [`too_large`]
/// if that much comes: the file may grow.
pub fn open_bounded(path: &Path, limit: u64) -> Result<(std::fs::File, Option<u64>), Failure> {
    if path.is_dir() {
        return Err(cannot(path, "it is a directory".into()));
    }
    let file = std::fs::File::open(path).map_err(|e| cannot(path, io_reason(&e)))?;
    let known = file
        .metadata()
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len());
    if known.is_some_and(|len| len > limit) {
        return Err(too_large(path, limit));
    }
    Ok((file, known))
}

/// Reads the whole of `path`, refusing (status 66) a file larger than
/// `limit` bytes: by its size when it has one, else (a pipe, a device such
/// as `/dev/zero`) as soon as one byte more than `limit` has been read.
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, Failure> {
    let (file, known) = open_bounded(path, limit)?;
    let mut bytes = Vec::with_capacity(known.unwrap_or(0) as usize);
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| cannot(path, io_reason(&e)))?;
    if bytes.len() as u64 > limit {
        return Err(too_large(path, limit));
    }
    Ok(bytes)
}

/// `path` cannot be read, for `reason` (status 66).
pub fn cannot(path: &Path, reason: String) -> Failure {
    Failure {
        status: EXIT_NO_INPUT,
        message: format!("vm: cannot read `{}`: {reason}", path.display()),
    }
}

/// `path` is larger than `limit` bytes (status 66).
pub fn too_large(path: &Path, limit: u64) -> Failure {
    cannot(
        path,
        format!(
            "it is larger than the limit of {} (--max-source=SIZE raises it)",
            format_size(limit)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_in_powers_of_1024() {
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert_eq!(parse_size("256M"), Ok(256 << 20));
        assert_eq!(parse_size("256mb"), Ok(256 << 20));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("3k"), Ok(3 << 10));
        assert!(parse_size("0").is_err());
        assert!(parse_size("12X").is_err());
        assert!(parse_size("M").is_err());
        assert!(parse_size("99999999999T").is_err());
    }
}
