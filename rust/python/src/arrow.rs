//! The Arrow kernel: one history per row of a binary/string Arrow array, read in
//! place through the Arrow C data interface (`arrow_ffi.rs`), the rows run on the
//! core's batch kernel with the GIL released, and the results built as an Arrow
//! struct array with arrow-rs builders, handed back through the same interface.

use crate::args::{api_args, params, ApiArgs, Counting};
use crate::arrow_ffi::{self, ArrowArray, ArrowStream};
use crate::batch::item_error;
use crate::errors::{guard, to_pyerr, Failure};
use arrow_array::builder::{BinaryViewBuilder, Int64Builder, StringBuilder, StringViewBuilder};
use arrow_array::cast::AsArray;
use arrow_array::types::{ByteArrayType, ByteViewType};
use arrow_array::{
    Array, ArrayRef, GenericBinaryArray, GenericByteArray, GenericByteViewArray,
    GenericStringArray, OffsetSizeTrait, StructArray,
};
use arrow_buffer::{ArrowNativeType, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, FieldRef, Fields};
use msgnorm_core::{batch, on_json, ApiOptions, CountParams, Error, Report};
use pyo3::prelude::*;
use std::sync::{Arc, Mutex};

/// What the kernel does to each row.
enum Job {
    /// `normalize_for_api` (of the session's main thread with `session`), and the
    /// output's token count when `counting` is given.
    Normalize {
        session: bool,
        opts: ApiOptions,
        counting: Option<CountParams>,
    },
    /// `count_tokens` (of the session's main thread with `session`).
    Count {
        session: bool,
        counting: CountParams,
    },
}

/// One row after the first phase: its normalized JSON (written right after the
/// pipeline, while the input is in cache), its repairs and its tokens.
#[derive(Default)]
struct Row {
    json: Vec<u8>,
    report: Report,
    tokens: Option<u64>,
}

/// One row's result: the repairs and tokens, or the row's error (`None`: a null row).
type Results = Vec<msgnorm_core::Result<Option<(Report, Option<u64>)>>>;

/// A row of the input: null, its bytes, or offsets that point outside the data.
#[derive(Clone, Copy)]
enum Cell<'a> {
    Null,
    Data(&'a [u8]),
    Broken,
}

/// The input's physical kind; the JSON column of the output has the same one.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Family {
    Binary,
    LargeBinary,
    Utf8,
    LargeUtf8,
    BinaryView,
    Utf8View,
}

impl Family {
    fn of(t: &DataType) -> Option<Family> {
        Some(match t {
            DataType::Binary => Family::Binary,
            DataType::LargeBinary => Family::LargeBinary,
            DataType::Utf8 => Family::Utf8,
            DataType::LargeUtf8 => Family::LargeUtf8,
            DataType::BinaryView => Family::BinaryView,
            DataType::Utf8View => Family::Utf8View,
            _ => return None,
        })
    }

    fn data_type(self) -> DataType {
        match self {
            Family::Binary => DataType::Binary,
            Family::LargeBinary => DataType::LargeBinary,
            Family::Utf8 => DataType::Utf8,
            Family::LargeUtf8 => DataType::LargeUtf8,
            Family::BinaryView => DataType::BinaryView,
            Family::Utf8View => DataType::Utf8View,
        }
    }
}

fn offset_cells<T: ByteArrayType>(a: &GenericByteArray<T>) -> Vec<Cell<'_>> {
    let offsets = a.value_offsets();
    let data = a.value_data();
    (0..a.len())
        .map(|i| {
            if a.is_null(i) {
                return Cell::Null;
            }
            let (Some(s), Some(e)) = (offsets.get(i), offsets.get(i + 1)) else {
                return Cell::Broken;
            };
            match (s.to_usize(), e.to_usize()) {
                (Some(s), Some(e)) => data.get(s..e).map_or(Cell::Broken, Cell::Data),
                _ => Cell::Broken,
            }
        })
        .collect()
}

fn view_cells<T: ByteViewType + ?Sized>(a: &GenericByteViewArray<T>) -> Vec<Cell<'_>>
where
    T::Native: AsRef<[u8]>,
{
    (0..a.len())
        .map(|i| {
            if a.is_null(i) {
                Cell::Null
            } else {
                Cell::Data(a.value(i).as_ref())
            }
        })
        .collect()
}

/// The cells of a chunk (borrowed from its buffers: no copy).
fn cells(a: &dyn Array, family: Family) -> Vec<Cell<'_>> {
    match family {
        Family::Binary => offset_cells(a.as_binary::<i32>()),
        Family::LargeBinary => offset_cells(a.as_binary::<i64>()),
        Family::Utf8 => offset_cells(a.as_string::<i32>()),
        Family::LargeUtf8 => offset_cells(a.as_string::<i64>()),
        Family::BinaryView => view_cells(a.as_binary_view()),
        Family::Utf8View => view_cells(a.as_string_view()),
    }
}

/// Phase one of a row: read, normalize and write it (or count it).
fn run_row(cell: &Cell<'_>, job: &Job) -> msgnorm_core::Result<Option<Row>> {
    let data = match *cell {
        Cell::Null => return Ok(None),
        Cell::Data(d) => d,
        Cell::Broken => {
            return Err(Error::value(
                "the row's offsets point outside the array's data (a malformed Arrow array)",
            ))
        }
    };
    match job {
        Job::Normalize {
            session,
            opts,
            counting,
        } => {
            let mut report = Report::default();
            let json = if *session {
                on_json::normalize_session(data, opts, &mut report)?
            } else {
                on_json::normalize_for_api(data, opts, &mut report)?
            };
            let tokens = match counting {
                Some(p) => Some(sum(&on_json::count_tokens_per_record(&json, p)?)),
                None => None,
            };
            Ok(Some(Row {
                json,
                report,
                tokens,
            }))
        }
        Job::Count { session, counting } => {
            let per = if *session {
                on_json::count_session_tokens(data, counting)?
            } else {
                on_json::count_tokens_per_record(data, counting)?
            };
            Ok(Some(Row {
                tokens: Some(sum(&per)),
                ..Row::default()
            }))
        }
    }
}

fn sum(per: &[u64]) -> u64 {
    per.iter().fold(0u64, |a, &b| a.saturating_add(b))
}

fn i64_of(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn too_big(what: &str) -> Error {
    Error::value(format!(
        "the normalized JSON of this chunk is over {what}: pass large_binary/large_utf8 \
         (or smaller chunks)"
    ))
}

/// Phase two: the rows' JSON copied into one buffer, each row into its own slice
/// on the pool (a row's buffer is freed as soon as it is copied); the JSON column
/// is built on that buffer without a further copy (views: through the builder).
fn write_phase(
    phase1: Vec<msgnorm_core::Result<Option<Row>>>,
    family: Family,
    threads: usize,
) -> msgnorm_core::Result<(ArrayRef, Results)> {
    let mut ends = Vec::with_capacity(phase1.len() + 1);
    ends.push(0usize);
    let mut total = 0usize;
    for r in &phase1 {
        if let Ok(Some(row)) = r {
            total = total
                .checked_add(row.json.len())
                .ok_or_else(|| too_big("the address space"))?;
        }
        ends.push(total);
    }
    let fits = match family {
        Family::Binary | Family::Utf8 => i32::try_from(total).is_ok(),
        Family::LargeBinary | Family::LargeUtf8 => i64::try_from(total).is_ok(),
        Family::BinaryView | Family::Utf8View => {
            ends.windows(2).all(|w| u32::try_from(w[1] - w[0]).is_ok())
        }
    };
    if !fits {
        return Err(too_big(match family {
            Family::Binary | Family::Utf8 => "2 GiB",
            _ => "4 GiB in one row",
        }));
    }
    let mut results: Results = Vec::with_capacity(phase1.len());
    let mut valid = Vec::with_capacity(phase1.len());
    let mut values = vec![0u8; total];
    {
        let mut jobs = Vec::with_capacity(phase1.len());
        let mut rest: &mut [u8] = &mut values;
        for (r, w) in phase1.into_iter().zip(ends.windows(2)) {
            let (slot, tail) = std::mem::take(&mut rest).split_at_mut(w[1] - w[0]);
            rest = tail;
            let (out, json) = match r {
                Ok(Some(row)) => (Ok(Some((row.report, row.tokens))), row.json),
                Ok(None) => (Ok(None), Vec::new()),
                Err(e) => (Err(e), Vec::new()),
            };
            valid.push(matches!(out, Ok(Some(_))));
            results.push(out);
            jobs.push(Mutex::new((slot, json)));
        }
        batch::map(&jobs, threads, |job| {
            let mut job = job
                .lock()
                .map_err(|_| Error::value("internal error: a poisoned output slot"))?;
            let (slot, json) = &mut *job;
            slot.copy_from_slice(json);
            *json = Vec::new();
            Ok(())
        })?
        .into_iter()
        .collect::<msgnorm_core::Result<Vec<()>>>()?;
    }
    let column = json_column(values, &ends, NullBuffer::from(valid), family)?;
    Ok((column, results))
}

fn json_column(
    values: Vec<u8>,
    ends: &[usize],
    nulls: NullBuffer,
    family: Family,
) -> msgnorm_core::Result<ArrayRef> {
    fn offsets<O: OffsetSizeTrait>(ends: &[usize]) -> msgnorm_core::Result<OffsetBuffer<O>> {
        let o: Option<Vec<O>> = ends.iter().map(|&e| O::from_usize(e)).collect();
        let o = o.ok_or_else(|| too_big("2 GiB"))?;
        Ok(OffsetBuffer::new(ScalarBuffer::from(o)))
    }
    let internal = |e: arrow_schema::ArrowError| Error::value(format!("internal error: {e}"));
    let nulls = (nulls.null_count() > 0).then_some(nulls);
    let buf = Buffer::from_vec(values);
    Ok(match family {
        Family::Binary => Arc::new(
            GenericBinaryArray::<i32>::try_new(offsets(ends)?, buf, nulls).map_err(internal)?,
        ),
        Family::LargeBinary => Arc::new(
            GenericBinaryArray::<i64>::try_new(offsets(ends)?, buf, nulls).map_err(internal)?,
        ),
        Family::Utf8 => Arc::new(
            GenericStringArray::<i32>::try_new(offsets(ends)?, buf, nulls).map_err(internal)?,
        ),
        Family::LargeUtf8 => Arc::new(
            GenericStringArray::<i64>::try_new(offsets(ends)?, buf, nulls).map_err(internal)?,
        ),
        Family::BinaryView | Family::Utf8View => {
            let rows = ends.windows(2).enumerate().map(|(i, w)| {
                let valid = nulls.as_ref().is_none_or(|n| n.is_valid(i));
                valid.then(|| &buf[w[0]..w[1]])
            });
            if family == Family::BinaryView {
                let mut b = BinaryViewBuilder::with_capacity(ends.len() - 1);
                for r in rows {
                    b.append_option(r);
                }
                Arc::new(b.finish())
            } else {
                let mut b = StringViewBuilder::with_capacity(ends.len() - 1);
                for r in rows {
                    match r {
                        Some(bytes) => b.append_value(utf8(bytes)?),
                        None => b.append_null(),
                    }
                }
                Arc::new(b.finish())
            }
        }
    })
}

fn utf8(bytes: &[u8]) -> msgnorm_core::Result<&str> {
    std::str::from_utf8(bytes)
        .map_err(|_| Error::value("internal error: the normalized JSON is not UTF-8"))
}

fn repair_fields() -> Fields {
    Report::default()
        .items()
        .iter()
        .map(|(name, _)| Field::new(*name, DataType::Int64, true))
        .collect()
}

fn tokens_column(results: &Results) -> ArrayRef {
    let mut b = Int64Builder::with_capacity(results.len());
    for r in results {
        let tokens = r.as_ref().ok().and_then(|r| r.as_ref()).and_then(|r| r.1);
        b.append_option(tokens.map(i64_of));
    }
    Arc::new(b.finish())
}

fn error_column(results: &Results) -> ArrayRef {
    let mut b = StringBuilder::new();
    for r in results {
        match r {
            Err(e) => b.append_value(e.to_string()),
            Ok(_) => b.append_null(),
        }
    }
    Arc::new(b.finish())
}

fn nulls(c: &[Cell<'_>]) -> Option<NullBuffer> {
    let valid: Vec<bool> = c.iter().map(|c| !matches!(c, Cell::Null)).collect();
    let nb = NullBuffer::from(valid);
    (nb.null_count() > 0).then_some(nb)
}

/// The output struct's fields for `job` on input of `family`.
fn out_fields(job: &Job, family: Family) -> Fields {
    let tokens = Field::new("tokens", DataType::Int64, true);
    let error = Field::new("error", DataType::Utf8, true);
    match job {
        Job::Normalize { .. } => Fields::from(vec![
            Field::new("normalized", family.data_type(), true),
            Field::new("repairs", DataType::Struct(repair_fields()), true),
            tokens,
            error,
        ]),
        Job::Count { .. } => Fields::from(vec![tokens, error]),
    }
}

/// One chunk through the kernel (called with the GIL released).
fn chunk(
    a: &dyn Array,
    family: Family,
    job: &Job,
    threads: usize,
) -> msgnorm_core::Result<(StructArray, Results)> {
    if a.data_type() != &family.data_type() {
        return Err(Error::value(format!(
            "a chunk of the stream is {}, not {}",
            a.data_type(),
            family.data_type()
        )));
    }
    let c = cells(a, family);
    let phase1 = batch::map(&c, threads, |cell| run_row(cell, job))?;
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(4);
    let results = if let Job::Normalize { .. } = job {
        let (json, results) = write_phase(phase1, family, threads)?;
        columns.push(json);
        let mut reps: Vec<Int64Builder> = (0..Report::default().items().len())
            .map(|_| Int64Builder::with_capacity(results.len()))
            .collect();
        let mut ok = Vec::with_capacity(results.len());
        for r in &results {
            match r {
                Ok(Some((report, _))) => {
                    for (b, (_, n)) in reps.iter_mut().zip(report.items()) {
                        b.append_value(i64_of(n as u64));
                    }
                    ok.push(true);
                }
                _ => {
                    reps.iter_mut().for_each(|b| b.append_null());
                    ok.push(false);
                }
            }
        }
        let reps: Vec<ArrayRef> = reps
            .into_iter()
            .map(|mut b| Arc::new(b.finish()) as ArrayRef)
            .collect();
        columns.push(Arc::new(
            StructArray::try_new(repair_fields(), reps, Some(NullBuffer::from(ok)))
                .map_err(|e| Error::value(format!("internal error: {e}")))?,
        ));
        results
    } else {
        phase1
            .into_iter()
            .map(|r| r.map(|row| row.map(|row| (row.report, row.tokens))))
            .collect()
    };
    columns.push(tokens_column(&results));
    columns.push(error_column(&results));
    let out = StructArray::try_new(out_fields(job, family), columns, nulls(&c))
        .map_err(|e| Error::value(format!("internal error: {e}")))?;
    Ok((out, results))
}

/// Runs `job` on every row of `array` (any object with `__arrow_c_array__` or
/// `__arrow_c_stream__`): an Arrow array for an array, a chunked array for a stream.
fn run<'py>(
    py: Python<'py>,
    array: &Bound<'py, PyAny>,
    job: Job,
    num_threads: Option<usize>,
    raise_first: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let imported = arrow_ffi::import(array).map_err(|e: PyErr| {
        let tname = array
            .get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_default();
        let producer = ["__arrow_c_array__", "__arrow_c_stream__"]
            .iter()
            .any(|m| array.hasattr(*m).unwrap_or(false));
        let msg = if !producer {
            format!(
                "expected an Arrow array (an object with __arrow_c_array__ or __arrow_c_stream__), \
                 not {tname}"
            )
        } else {
            format!("cannot read the Arrow array: {e}")
        };
        to_pyerr(py, Failure::Core(Error::value(msg)))
    })?;
    let arrow_ffi::Imported {
        field,
        chunks,
        is_stream,
    } = imported;
    let Some(family) = Family::of(field.data_type()) else {
        let msg = format!(
            "expected an Arrow array of binary, large_binary, utf8 or large_utf8 \
             (one JSON history per row), not {}",
            field.data_type()
        );
        return Err(to_pyerr(py, Failure::Core(Error::value(msg))));
    };
    let threads = batch::threads(num_threads);
    let done = py.detach(|| {
        guard(|| {
            let mut out = Vec::with_capacity(chunks.len());
            for a in &chunks {
                out.push(chunk(a.as_ref(), family, &job, threads).map_err(Failure::Core)?);
            }
            Ok(out)
        })
    });
    let done = done.map_err(|e| to_pyerr(py, e))?;
    if raise_first {
        let mut base = 0;
        for (a, (_, results)) in chunks.iter().zip(&done) {
            if let Some((i, Err(e))) = results.iter().enumerate().find(|(_, r)| r.is_err()) {
                return Err(PyErr::from_value(item_error(py, base + i, e.clone())?));
            }
            base += a.len();
        }
    }
    let out_field: FieldRef = Arc::new(Field::new(
        field.name(),
        DataType::Struct(out_fields(&job, family)),
        true,
    ));
    let arrays: Vec<ArrayRef> = done
        .into_iter()
        .map(|(s, _)| Arc::new(s) as ArrayRef)
        .collect();
    if is_stream {
        Ok(Bound::new(py, ArrowStream::new(out_field, arrays))?.into_any())
    } else {
        let one = arrays.into_iter().next().ok_or_else(|| {
            to_pyerr(
                py,
                Failure::Core(Error::value("internal error: no output chunk")),
            )
        })?;
        Ok(Bound::new(py, ArrowArray::new(out_field, one))?.into_any())
    }
}

/// The Arrow kernel over every row. With `api`, `normalize_for_api`: a struct
/// array of `normalized`, `repairs`, `tokens` (of the output; null unless
/// `counting`) and `error`; without, `count_tokens` of the rows as given: a
/// struct array of `tokens` and `error` (`counting` required).
#[pyfunction]
#[pyo3(signature = (array, session, num_threads, raise_first, api, counting))]
pub fn arrow_kernel<'py>(
    py: Python<'py>,
    array: &Bound<'py, PyAny>,
    session: bool,
    num_threads: Option<usize>,
    raise_first: bool,
    api: Option<ApiArgs<'py>>,
    counting: Option<Counting>,
) -> PyResult<Bound<'py, PyAny>> {
    let counting = counting.map(params);
    if let Some(p) = &counting {
        p.check().map_err(|e| to_pyerr(py, Failure::Core(e)))?;
    }
    let job = match (api, counting) {
        (Some(api), counting) => Job::Normalize {
            session,
            opts: api_args(py, api)?,
            counting,
        },
        (None, Some(counting)) => Job::Count { session, counting },
        (None, None) => {
            let msg = "internal error: counting without its parameters";
            return Err(to_pyerr(py, Failure::Core(Error::value(msg))));
        }
    };
    run(py, array, job, num_threads, raise_first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{BinaryArray, LargeStringArray};

    #[test]
    fn rows_nulls_and_errors() {
        let a = BinaryArray::from(vec![
            Some(&br#"[{"type":"user","uuid":"u","message":{"role":"user","content":"hi"}}]"#[..]),
            None,
            Some(&b"[{oops"[..]),
        ]);
        let job = Job::Normalize {
            session: false,
            opts: ApiOptions::default(),
            counting: Some(CountParams::default()),
        };
        let (s, results) = chunk(&a, Family::Binary, &job, 2).unwrap();
        assert_eq!(s.len(), 3);
        assert!(s.is_valid(0) && s.is_null(1) && s.is_valid(2));
        assert!(results[0].is_ok() && results[2].is_err());
        let json = s.column(0).as_binary::<i32>();
        assert!(json.is_valid(0) && json.is_null(1) && json.is_null(2));
        let err = s.column(3).as_string::<i32>();
        assert!(err.is_null(0) && err.value(2).contains("line 1 column 3"));
    }

    #[test]
    fn text_in_text_out() {
        let a = LargeStringArray::from(vec![Some("[]")]);
        let job = Job::Count {
            session: false,
            counting: CountParams::default(),
        };
        let (s, _) = chunk(&a, Family::LargeUtf8, &job, 1).unwrap();
        assert_eq!(
            s.column(0)
                .as_primitive::<arrow_array::types::Int64Type>()
                .value(0),
            0
        );
    }
}
