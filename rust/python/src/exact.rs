//! Exact BPE counts (SPEC §6.3): a rank table built once from its file, and
//! the counts of texts and of records' content texts, the GIL released.

use crate::errors::released;
use msgnorm_core::exact::{self, Encoding};
use msgnorm_core::json;
use msgnorm_core::Error;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::PyList;

/// An encoding's ranks, read from its `.tiktoken` file (`msgnorm._exact` keeps one per encoding).
#[pyclass(frozen, module = "msgnorm._native")]
pub(crate) struct Bpe {
    inner: exact::Bpe,
}

#[pymethods]
impl Bpe {
    #[new]
    fn new(py: Python<'_>, encoding: &str, data: &[u8]) -> PyResult<Self> {
        let enc = Encoding::from_name(encoding);
        released(py, || {
            let enc = enc.ok_or_else(|| {
                Error::value(format!(
                    "encoding: expected 'o200k_base' or 'cl100k_base', not {encoding:?}"
                ))
            })?;
            Ok(Bpe {
                inner: exact::Bpe::from_tiktoken(enc, data)?,
            })
        })
    }

    #[getter]
    fn encoding(&self) -> &'static str {
        self.inner.encoding().name()
    }

    /// Tokens of `text` (tiktoken's `len(encode_ordinary(text))`).
    fn count(&self, py: Python<'_>, text: PyBackedStr) -> PyResult<u64> {
        released(py, || Ok(self.inner.count(&text)))
    }

    /// Tokens of each text.
    fn count_many(&self, py: Python<'_>, texts: Vec<PyBackedStr>) -> PyResult<Vec<u64>> {
        released(py, || {
            Ok(texts.iter().map(|t| self.inner.count(t)).collect())
        })
    }

    /// Tokens of each record of a list of dicts or Structs, read directly
    /// (`count_records` of their JSON, without writing it): the content texts
    /// are gathered holding the GIL, the merge runs without it.
    fn count_list(&self, records: &Bound<'_, PyList>) -> PyResult<Vec<u64>> {
        let texts = crate::budget::list_content_texts(records)?;
        released(records.py(), || {
            Ok(texts
                .iter()
                .map(|t| exact::record_count(&self.inner, t.as_deref()))
                .collect())
        })
    }

    /// Tokens of each record of a JSON array or JSON Lines: 0 for a record that is not a
    /// message, else its content text's + 3.
    fn count_records(&self, py: Python<'_>, data: &[u8]) -> PyResult<Vec<u64>> {
        released(py, || exact::record_counts(&self.inner, json::utf8(data)?))
    }
}
