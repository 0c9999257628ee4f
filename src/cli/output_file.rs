//! The files a command writes (`--profile-out`, `--html`, `vm inline
//! --emit` and its other files, `vm report -o`): opened before the work,
//! so that a path that cannot be written is reported first, and written
//! to a temporary file beside the target that is renamed into place only
//! once whole. A reader never sees an empty or cut-off file; a run that
//! is interrupted, or fails, leaves the target as it was (or absent).
//!
//! A target that is not a regular file (`/dev/null`, `/dev/stdout`, a
//! pipe) is written directly: there is nothing to replace. A symbolic
//! link is followed, and the file it names replaced. Should the target's
//! directory not let a file be created beside it, an existing target that
//! may be written is written directly, as before.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::signals::Removal;
use super::{Failure, EXIT_NO_INPUT};

/// A file being written: see the module's doc.
pub struct OutputFile {
    /// The target, as given (for messages).
    path: PathBuf,
    /// The temporary file and the target it replaces, if written that way.
    rename: Option<(PathBuf, PathBuf)>,
    file: Option<File>,
    /// Removes the temporary should a second signal end the process.
    _removal: Option<Removal>,
}

impl OutputFile {
    /// Opens `path` for writing (66, with the reason, if it cannot be).
    pub fn create(path: &Path) -> Result<OutputFile, Failure> {
        OutputFile::open(path).map_err(|e| cannot_write(path, &e))
    }

    fn open(path: &Path) -> io::Result<OutputFile> {
        let meta = std::fs::metadata(path);
        if let Ok(m) = &meta {
            if m.is_dir() {
                return Err(io::Error::other("it is a directory"));
            }
            if !m.is_file() {
                return Ok(OutputFile::direct(path, File::create(path)?));
            }
        }
        // The file a symbolic link names is the one to replace.
        let target = match &meta {
            Ok(_) => std::fs::canonicalize(path)?,
            Err(_) => path.to_path_buf(),
        };
        let name = target
            .file_name()
            .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
        let tmp = target.with_file_name(format!(".{name}.{}.partial", std::process::id()));
        let removal = Removal::file(&tmp);
        let create = || File::options().write(true).create_new(true).open(&tmp);
        // One of that name can only be left by a process of this id that
        // was killed: it is stale.
        let created = create().or_else(|e| match e.kind() {
            io::ErrorKind::AlreadyExists => std::fs::remove_file(&tmp).and_then(|()| create()),
            _ => Err(e),
        });
        let file = match created {
            Ok(f) => f,
            // A directory that lets no file be made beside the target.
            Err(e) if meta.is_ok() && e.kind() == io::ErrorKind::PermissionDenied => {
                drop(removal);
                return Ok(OutputFile::direct(path, File::create(path)?));
            }
            Err(e) => return Err(e),
        };
        if let Ok(m) = &meta {
            let _ = file.set_permissions(m.permissions());
        }
        Ok(OutputFile {
            path: path.to_path_buf(),
            rename: Some((tmp, target)),
            file: Some(file),
            _removal: Some(removal),
        })
    }

    fn direct(path: &Path, file: File) -> OutputFile {
        OutputFile {
            path: path.to_path_buf(),
            rename: None,
            file: Some(file),
            _removal: None,
        }
    }

    /// The target, as given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The temporary file written, if the target is replaced by renaming.
    pub fn temporary(&self) -> Option<&Path> {
        self.rename.as_ref().map(|(tmp, _)| tmp.as_path())
    }

    /// Writes the file with `write` (handed a buffered writer) and puts it
    /// in place; on a failure the target is left as it was.
    pub fn commit_with(
        self,
        write: impl FnOnce(&mut io::BufWriter<&mut File>) -> io::Result<()>,
    ) -> io::Result<()> {
        self.commit_unbuffered(|file| {
            let mut w = io::BufWriter::with_capacity(1 << 20, file);
            write(&mut w)?;
            w.into_inner().map(|_| ()).map_err(|e| e.into_error())
        })
    }

    /// [`OutputFile::commit_with`] for a `write` that buffers its own
    /// writes (as [`profile::Profile::write_json`] does).
    pub fn commit_unbuffered(
        mut self,
        write: impl FnOnce(&mut File) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut file = self.file.take().expect("committed once");
        write(&mut file)?;
        if let Some((tmp, target)) = self.rename.take() {
            if let Err(e) = std::fs::rename(&tmp, target) {
                let _ = std::fs::remove_file(&tmp);
                return Err(e);
            }
        }
        Ok(())
    }

    /// Writes `text` and puts the file in place (66 if that fails).
    pub fn commit(self, text: &str) -> Result<(), Failure> {
        let path = self.path.clone();
        self.commit_with(|w| w.write_all(text.as_bytes()))
            .map_err(|e| cannot_write(&path, &e))
    }
}

impl Drop for OutputFile {
    /// Not committed, or the write failed: the temporary is removed.
    fn drop(&mut self) {
        self.file = None;
        if let Some((tmp, _)) = &self.rename {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// `vm: cannot write `PATH`: REASON`, status 66.
pub fn cannot_write(path: &Path, e: &io::Error) -> Failure {
    let reason = match e.kind() {
        io::ErrorKind::NotFound => "no such directory".into(),
        io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    };
    Failure {
        status: EXIT_NO_INPUT,
        message: format!("vm: cannot write `{}`: {reason}", path.display()),
    }
}

/// A usage error (status 2) if `output`, given as `flag`, is the program
/// `program` itself: writing it would overwrite the source.
pub fn not_the_program(program: &Path, output: Option<&Path>, flag: &str) -> Result<(), Failure> {
    use std::os::unix::fs::MetadataExt;
    let Some(output) = output else {
        return Ok(());
    };
    let (Ok(a), Ok(b)) = (std::fs::metadata(program), std::fs::metadata(output)) else {
        return Ok(());
    };
    if (a.dev(), a.ino()) == (b.dev(), b.ino()) {
        return Err(Failure::usage(format!(
            "vm: {flag}={} is the program itself, which it would overwrite: name another file",
            output.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh scratch directory for `name`.
    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("vm-output-file-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn the_target_is_replaced_only_when_whole() {
        let dir = scratch("replace");
        let target = dir.join("p.json");
        std::fs::write(&target, "earlier").unwrap();
        let f = OutputFile::create(&target).unwrap();
        // Until the commit, the target is as it was; the text goes beside it.
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "earlier");
        assert_eq!(names(&dir).len(), 2);
        f.commit("new").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(names(&dir), ["p.json"]);
        // Dropped without a commit, or failing in the middle: as it was.
        drop(OutputFile::create(&target).unwrap());
        let failed = OutputFile::create(&target)
            .unwrap()
            .commit_with(|w| w.write_all(b"part").and(Err(io::Error::other("no"))));
        assert!(failed.is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(names(&dir), ["p.json"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_stale_temporary_of_this_process_id_is_replaced() {
        let dir = scratch("stale");
        let target = dir.join("p.json");
        // Left by a killed process that had this id before us.
        let stale = dir.join(format!(".p.json.{}.partial", std::process::id()));
        std::fs::write(&stale, "cut off").unwrap();
        let f = OutputFile::create(&target).expect("the stale file is in the way");
        assert_eq!(f.temporary(), Some(stale.as_path()));
        f.commit("whole").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "whole");
        assert_eq!(names(&dir), ["p.json"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_link_is_followed_and_a_device_written_directly() {
        let dir = scratch("link");
        let real = dir.join("real.json");
        std::fs::write(&real, "earlier").unwrap();
        let link = dir.join("link.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        OutputFile::create(&link).unwrap().commit("new").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
        let null = OutputFile::create(Path::new("/dev/null")).unwrap();
        assert!(null.temporary().is_none());
        null.commit("gone").unwrap();
        let e = OutputFile::create(&dir).err().expect("a directory");
        assert!(e.message.ends_with("it is a directory"), "{}", e.message);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_program_itself_is_refused_by_any_path() {
        let dir = scratch("program");
        let prog = dir.join("p.bc");
        std::fs::write(&prog, "x").unwrap();
        let other = dir.join(".").join("p.bc");
        assert!(not_the_program(&prog, Some(&other), "--emit").is_err());
        assert!(not_the_program(&prog, Some(&dir.join("q.bc")), "--emit").is_ok());
        assert!(not_the_program(&prog, None, "--emit").is_ok());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
