//! The Arrow PyCapsule interface, both ways, on the Arrow C data and C stream
//! interfaces of `arrow-array` (its `ffi` feature).
//!
//! In: any object with `__arrow_c_array__` (a schema capsule and an array
//! capsule) or `__arrow_c_stream__` (a stream capsule) becomes its field and its
//! arrays (one, or the stream's chunks). Out: [`ArrowStream`], a small object
//! with `__arrow_c_stream__` (chunks), or its [`ArrowArray`] (one array, also
//! with `__arrow_c_array__`), that `pyarrow.array`, `pyarrow.chunked_array`,
//! `polars.Series` and friends take without a copy.
//!
//! The producer's `requested_schema` is ignored (the interface allows it: a
//! producer may hand back its own type); the consumer casts if it needs to.
//!
//! The `unsafe` here is the C interfaces' contract; each block says why it holds.

use arrow_array::ffi::{from_ffi, from_ffi_and_data_type, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{make_array, ArrayRef};
use arrow_schema::{ArrowError, Field, FieldRef};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};
use std::collections::VecDeque;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::{Arc, Mutex};

const SCHEMA: &CStr = c"arrow_schema";
const ARRAY: &CStr = c"arrow_array";
const STREAM: &CStr = c"arrow_array_stream";

/// What a producer gave: the field, and its arrays (one for an array, the
/// chunks for a stream) with whether it was a stream.
pub struct Imported {
    pub field: Field,
    pub chunks: Vec<ArrayRef>,
    pub is_stream: bool,
}

fn arrow_err(e: ArrowError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Reads `obj` through `__arrow_c_array__`, else `__arrow_c_stream__`; an object
/// with neither is a `TypeError`.
pub fn import(obj: &Bound<'_, PyAny>) -> PyResult<Imported> {
    let py = obj.py();
    if obj.hasattr(pyo3::intern!(py, "__arrow_c_array__"))? {
        let pair = obj.call_method0(pyo3::intern!(py, "__arrow_c_array__"))?;
        let pair = pair
            .cast::<PyTuple>()
            .map_err(|_| PyTypeError::new_err("__arrow_c_array__ did not return a tuple"))?;
        if pair.len() != 2 {
            return Err(PyTypeError::new_err(
                "__arrow_c_array__ did not return a (schema, array) pair",
            ));
        }
        let schema_capsule = pair.get_item(0)?.cast_into::<PyCapsule>()?;
        let array_capsule = pair.get_item(1)?.cast_into::<PyCapsule>()?;
        let schema_ptr = schema_capsule
            .pointer_checked(Some(SCHEMA))?
            .cast::<FFI_ArrowSchema>();
        // SAFETY: a capsule named "arrow_schema" holds a valid ArrowSchema
        // (the PyCapsule interface's contract), owned by the capsule, which
        // outlives this borrow (`schema_capsule` is alive until the end of
        // the function); we only read it.
        let schema = unsafe { schema_ptr.as_ref() };
        let array_ptr = array_capsule
            .pointer_checked(Some(ARRAY))?
            .cast::<FFI_ArrowArray>();
        // SAFETY: a capsule named "arrow_array" holds a valid ArrowArray;
        // `from_raw` moves it out and marks the capsule's copy released, so
        // the capsule's destructor does not release it a second time (the
        // interface's rule for a consumer that takes ownership).
        let array = unsafe { FFI_ArrowArray::from_raw(array_ptr.as_ptr()) };
        let field = Field::try_from(schema).map_err(arrow_err)?;
        // SAFETY: `array` was produced for `schema` by the same producer call.
        let data = unsafe { from_ffi(array, schema) }.map_err(arrow_err)?;
        return Ok(Imported {
            field,
            chunks: vec![make_array(data)],
            is_stream: false,
        });
    }
    if obj.hasattr(pyo3::intern!(py, "__arrow_c_stream__"))? {
        let capsule = obj
            .call_method0(pyo3::intern!(py, "__arrow_c_stream__"))?
            .cast_into::<PyCapsule>()?;
        let ptr = capsule
            .pointer_checked(Some(STREAM))?
            .cast::<FFI_ArrowArrayStream>();
        // SAFETY: a capsule named "arrow_array_stream" holds a valid stream;
        // `from_raw` moves it out and marks the capsule's copy released, and
        // the moved stream is released by its Drop when `stream` goes.
        let mut stream = unsafe { FFI_ArrowArrayStream::from_raw(ptr.as_ptr()) };
        let (field, chunks) = read_stream(&mut stream).map_err(arrow_err)?;
        return Ok(Imported {
            field,
            chunks,
            is_stream: true,
        });
    }
    Err(PyTypeError::new_err(
        "not an Arrow array: no __arrow_c_array__ or __arrow_c_stream__",
    ))
}

/// The stream's field and all its arrays.
fn read_stream(stream: &mut FFI_ArrowArrayStream) -> Result<(Field, Vec<ArrayRef>), ArrowError> {
    let closed = || ArrowError::CDataInterface("the Arrow stream is already released".into());
    let get_schema = stream.get_schema.ok_or_else(closed)?;
    let get_next = stream.get_next.ok_or_else(closed)?;
    let mut schema = FFI_ArrowSchema::empty();
    // SAFETY: `stream` is a live stream (its callbacks are set) and `schema` a
    // released ArrowSchema the callback may overwrite, as the C stream
    // interface specifies.
    let code = unsafe { get_schema(stream, &mut schema) };
    if code != 0 {
        return Err(stream_error(stream, code));
    }
    let field = Field::try_from(&schema)?;
    let mut chunks = Vec::new();
    loop {
        let mut array = FFI_ArrowArray::empty();
        // SAFETY: as for `get_schema`; `array` is a released ArrowArray the
        // callback may overwrite.
        let code = unsafe { get_next(stream, &mut array) };
        if code != 0 {
            return Err(stream_error(stream, code));
        }
        if array.is_released() {
            break; // the end of the stream
        }
        // SAFETY: the stream's arrays are of the stream's schema's type.
        let data = unsafe { from_ffi_and_data_type(array, field.data_type().clone()) }?;
        chunks.push(make_array(data));
    }
    Ok((field, chunks))
}

fn stream_error(stream: &mut FFI_ArrowArrayStream, code: c_int) -> ArrowError {
    let detail = stream.get_last_error.and_then(|get_last_error| {
        // SAFETY: the stream is live; the callback returns null or a string
        // valid until the stream's next call, which we copy at once.
        let p = unsafe { get_last_error(stream) };
        // SAFETY: non-null, so a NUL-terminated string (the interface's contract).
        (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    });
    ArrowError::CDataInterface(match detail {
        Some(d) => format!("cannot read the Arrow stream: {d}"),
        None => format!("cannot read the Arrow stream (error code {code})"),
    })
}

/// A chunked result, handed back through `__arrow_c_stream__`. Each export
/// hands out the same buffers again (shared, not copied).
#[pyclass(module = "msgnorm._native", name = "ArrowStream", frozen, subclass)]
pub struct ArrowStream {
    field: FieldRef,
    chunks: Vec<ArrayRef>,
}

/// A result of one array: the stream of that one chunk, also handed back
/// through `__arrow_c_array__`.
#[pyclass(module = "msgnorm._native", name = "ArrowArray", frozen, extends = ArrowStream)]
pub struct ArrowArray {}

impl ArrowStream {
    pub fn new(field: FieldRef, chunks: Vec<ArrayRef>) -> Self {
        Self { field, chunks }
    }
}

impl ArrowArray {
    pub fn new(field: FieldRef, array: ArrayRef) -> PyClassInitializer<Self> {
        PyClassInitializer::from(ArrowStream::new(field, vec![array])).add_subclass(Self {})
    }
}

fn schema_capsule<'py>(py: Python<'py>, field: &Field) -> PyResult<Bound<'py, PyCapsule>> {
    let schema = FFI_ArrowSchema::try_from(field).map_err(arrow_err)?;
    PyCapsule::new_with_value(py, schema, SCHEMA)
}

#[pymethods]
impl ArrowStream {
    /// The interface's schema export (it takes no requested schema).
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        schema_capsule(py, &self.field)
    }

    // `requested_schema` is accepted and ignored, as the interface allows.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let stream = export_stream(Arc::clone(&self.field), self.chunks.clone());
        PyCapsule::new_with_value(py, stream, STREAM)
    }

    fn __len__(&self) -> usize {
        self.chunks.iter().map(|a| a.len()).sum()
    }

    fn __repr__(&self) -> String {
        format!(
            "<msgnorm Arrow result: {}, {} rows in {} chunk(s)>",
            self.field.data_type(),
            self.__len__(),
            self.chunks.len()
        )
    }
}

#[pymethods]
impl ArrowArray {
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        slf: &Bound<'py, Self>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let _ = requested_schema;
        let py = slf.py();
        let stream = slf.as_super().get();
        let schema = schema_capsule(py, &stream.field)?;
        let one = stream
            .chunks
            .first()
            .ok_or_else(|| PyValueError::new_err("internal error: no output chunk"))?;
        let array = FFI_ArrowArray::new(&one.to_data());
        let array = PyCapsule::new_with_value(py, array, ARRAY)?;
        PyTuple::new(py, [schema, array])
    }
}

/// What an exported stream owns: its field, the arrays not handed out yet and
/// the last error's text.
struct Private {
    field: FieldRef,
    chunks: Mutex<VecDeque<ArrayRef>>,
    last_error: Mutex<Option<CString>>,
}

fn export_stream(field: FieldRef, chunks: Vec<ArrayRef>) -> FFI_ArrowArrayStream {
    let private = Box::new(Private {
        field,
        chunks: Mutex::new(chunks.into()),
        last_error: Mutex::new(None),
    });
    FFI_ArrowArrayStream {
        get_schema: Some(stream_get_schema),
        get_next: Some(stream_get_next),
        get_last_error: Some(stream_get_last_error),
        release: Some(stream_release),
        private_data: Box::into_raw(private).cast::<c_void>(),
    }
}

/// The stream's private data.
///
/// # Safety
/// `stream` is a stream made by [`export_stream`] and not released: its
/// `private_data` is the `Box<Private>` leaked there, freed only by
/// [`stream_release`], after which the consumer makes no other call.
unsafe fn private<'a>(stream: *mut FFI_ArrowArrayStream) -> &'a Private {
    // SAFETY: see the function's contract.
    unsafe { &*((*stream).private_data as *const Private) }
}

fn fail(p: &Private, e: &ArrowError) -> c_int {
    let text = CString::new(e.to_string().replace('\0', " ")).unwrap_or_default();
    if let Ok(mut last) = p.last_error.lock() {
        *last = Some(text);
    }
    22 // EINVAL
}

unsafe extern "C" fn stream_get_schema(
    stream: *mut FFI_ArrowArrayStream,
    out: *mut FFI_ArrowSchema,
) -> c_int {
    // SAFETY: a consumer calls this on a live stream of ours.
    let p = unsafe { private(stream) };
    match FFI_ArrowSchema::try_from(p.field.as_ref()) {
        Ok(schema) => {
            // SAFETY: `out` points to a released ArrowSchema the consumer
            // gave us to fill (the C stream interface); writing without
            // dropping the old value is right, it owns nothing.
            unsafe { std::ptr::write(out, schema) };
            0
        }
        Err(e) => fail(p, &e),
    }
}

unsafe extern "C" fn stream_get_next(
    stream: *mut FFI_ArrowArrayStream,
    out: *mut FFI_ArrowArray,
) -> c_int {
    // SAFETY: a consumer calls this on a live stream of ours.
    let p = unsafe { private(stream) };
    let next = p.chunks.lock().ok().and_then(|mut q| q.pop_front());
    let array = match next {
        Some(a) => FFI_ArrowArray::new(&a.to_data()),
        None => FFI_ArrowArray::empty(), // released: the end of the stream
    };
    // SAFETY: `out` points to a released ArrowArray to fill, as above.
    unsafe { std::ptr::write(out, array) };
    0
}

unsafe extern "C" fn stream_get_last_error(stream: *mut FFI_ArrowArrayStream) -> *const c_char {
    // SAFETY: a consumer calls this on a live stream of ours.
    let p = unsafe { private(stream) };
    match p.last_error.lock() {
        // the string lives in the private data until the next failure or the
        // release, as the interface allows
        Ok(last) => last.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()),
        Err(_) => std::ptr::null(),
    }
}

unsafe extern "C" fn stream_release(stream: *mut FFI_ArrowArrayStream) {
    if stream.is_null() {
        return;
    }
    // SAFETY: `stream` is a live stream of ours (a consumer releases once; a
    // released stream has `release` set to None and is not called again).
    let s = unsafe { &mut *stream };
    if !s.private_data.is_null() {
        // SAFETY: `private_data` is the Box leaked by `export_stream`, freed
        // here once (set to null right after).
        drop(unsafe { Box::from_raw(s.private_data.cast::<Private>()) });
        s.private_data = std::ptr::null_mut();
    }
    s.get_schema = None;
    s.get_next = None;
    s.get_last_error = None;
    s.release = None;
}

#[cfg(test)]
mod tests {
    //! The C interfaces both ways, in the binding's own test binary (run
    //! under valgrind too: see CHANGELOG.md): every `unsafe` block of this
    //! file is reached by one of these tests.
    use super::*;
    use arrow_array::{Array, Int64Array, StringArray};
    use arrow_schema::DataType;

    fn strings() -> (FieldRef, Vec<ArrayRef>) {
        let field = Arc::new(Field::new("text", DataType::Utf8, true));
        let a: ArrayRef = Arc::new(StringArray::from(vec![Some("a"), None, Some("ccc")]));
        let b: ArrayRef = Arc::new(StringArray::from(vec!["dd"; 5]));
        (field, vec![a, b])
    }

    /// A consumer in C's place: the stream's callbacks called one by one.
    #[test]
    fn an_exported_stream_hands_out_its_schema_and_chunks_then_ends() {
        let (field, chunks) = strings();
        let mut stream = export_stream(Arc::clone(&field), chunks.clone());
        let get_schema = stream.get_schema.unwrap();
        let get_next = stream.get_next.unwrap();
        let get_last_error = stream.get_last_error.unwrap();
        let mut schema = FFI_ArrowSchema::empty();
        // SAFETY: `stream` is a live stream of ours; `schema` a released
        // schema to fill.
        assert_eq!(unsafe { get_schema(&mut stream, &mut schema) }, 0);
        assert_eq!(
            Field::try_from(&schema).unwrap().data_type(),
            &DataType::Utf8
        );
        for want in &chunks {
            let mut array = FFI_ArrowArray::empty();
            // SAFETY: as above; `array` a released array to fill.
            assert_eq!(unsafe { get_next(&mut stream, &mut array) }, 0);
            assert!(!array.is_released());
            // SAFETY: the array was exported for the stream's field.
            let data = unsafe { from_ffi_and_data_type(array, DataType::Utf8) }.unwrap();
            assert_eq!(&make_array(data).to_data(), &want.to_data());
        }
        let mut end = FFI_ArrowArray::empty();
        // SAFETY: as above.
        assert_eq!(unsafe { get_next(&mut stream, &mut end) }, 0);
        assert!(
            end.is_released(),
            "the end of the stream is a released array"
        );
        // SAFETY: the stream is live; no failure so far: no message.
        assert!(unsafe { get_last_error(&mut stream) }.is_null());
        let release = stream.release.unwrap();
        // SAFETY: the stream is live and released once here; `Drop` then
        // sees it released and does nothing.
        unsafe { release(&mut stream) };
        assert!(stream.release.is_none() && stream.private_data.is_null());
        // a second release is refused by the interface (release is None); a
        // null stream is ignored
        // SAFETY: null is checked first.
        unsafe { stream_release(std::ptr::null_mut()) };
    }

    #[test]
    fn a_stream_reads_back_what_was_exported() {
        let (field, chunks) = strings();
        let mut stream = export_stream(Arc::clone(&field), chunks.clone());
        let (got, arrays) = read_stream(&mut stream).unwrap();
        assert_eq!(got.data_type(), field.data_type());
        assert_eq!(arrays.len(), 2);
        for (a, b) in arrays.iter().zip(&chunks) {
            assert_eq!(a.to_data(), b.to_data());
        }
        // the stream was left drained; dropping it releases it
    }

    unsafe extern "C" fn failing_next(
        _stream: *mut FFI_ArrowArrayStream,
        _out: *mut FFI_ArrowArray,
    ) -> c_int {
        5
    }

    unsafe extern "C" fn failing_message(_stream: *mut FFI_ArrowArrayStream) -> *const c_char {
        c"the producer ran out of luck".as_ptr()
    }

    #[test]
    fn a_producers_error_is_reported_with_its_message() {
        let (field, chunks) = strings();
        let mut stream = export_stream(field, chunks);
        stream.get_next = Some(failing_next);
        stream.get_last_error = Some(failing_message);
        let e = read_stream(&mut stream).unwrap_err().to_string();
        assert!(e.contains("the producer ran out of luck"), "{e}");
        stream.get_last_error = None;
        let e = read_stream(&mut stream).unwrap_err().to_string();
        assert!(e.contains("error code 5"), "{e}");
        // released: the callbacks are gone
        let release = stream.release.unwrap();
        // SAFETY: a live stream of ours, released once.
        unsafe { release(&mut stream) };
        let e = read_stream(&mut stream).unwrap_err().to_string();
        assert!(e.contains("already released"), "{e}");
    }

    /// The PyCapsule interface, both ways, in an embedded interpreter: our
    /// own result objects are producers like any other.
    #[test]
    fn capsules_round_trip_an_array_and_a_stream() {
        Python::attach(|py| {
            let (field, chunks) = strings();
            let one: ArrayRef = Arc::new(Int64Array::from(vec![1, 2, 3]));
            let int_field = Arc::new(Field::new("n", DataType::Int64, false));
            let array = Bound::new(py, ArrowArray::new(int_field, Arc::clone(&one))).unwrap();
            let got = import(array.as_any()).unwrap();
            assert!(!got.is_stream);
            assert_eq!(got.chunks.len(), 1);
            assert_eq!(got.chunks[0].to_data(), one.to_data());

            let stream = Bound::new(py, ArrowStream::new(field, chunks.clone())).unwrap();
            let got = import(stream.as_any()).unwrap();
            assert!(got.is_stream);
            assert_eq!(got.chunks.len(), 2);
            assert_eq!(got.chunks[1].to_data(), chunks[1].to_data());
            assert_eq!(got.chunks[0].len(), 3);

            let e = import(py.None().bind(py)).err().unwrap();
            assert!(e.to_string().contains("not an Arrow array"));
        });
    }
}
