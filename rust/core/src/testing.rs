//! What the unit tests share.

use std::path::PathBuf;

/// A fresh directory under the system's temp dir (`tempfile`'s: a unique
/// name, created with the owner's permissions only), removed when dropped,
/// also when a test fails.
pub(crate) struct TempDir(tempfile::TempDir);

impl TempDir {
    pub(crate) fn new(name: &str) -> Self {
        let dir = tempfile::Builder::new()
            .prefix(&format!("msgnorm-{name}-"))
            .tempdir()
            .unwrap();
        TempDir(dir)
    }

    /// The file `name` in this directory, written with `text`.
    pub(crate) fn file(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    }
}
