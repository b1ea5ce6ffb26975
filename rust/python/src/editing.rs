//! Context editing: clearing tool results, tool inputs and thinking.

use crate::errors::{to_pyerr, Failure};
use crate::fields::fields_dict;
use crate::input::with_records;
use msgnorm_core::read::ReadOpts;
use msgnorm_core::{CountParams, Error};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Context editing: `(output, EditReport dict)` of `records` edited as
/// [`EditArgs`] say.
#[pyfunction]
pub(crate) fn clear_context<'py>(
    py: Python<'py>,
    records: &Bound<'py, PyAny>,
    args: EditArgs,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
    let t = args.tool_options(py, args.clear_at_least)?;
    let th = args.thinking();
    // The options are checked before the records are read.
    t.check().map_err(|e| to_pyerr(py, Failure::Core(e)))?;
    let (tools, thinking) = (args.tools.then_some(&t), th);
    // The trigger counts as `count_tokens` does by default (SPEC §6: "auto").
    let p = CountParams {
        tokenizer: msgnorm_core::tokens::Tokenizer::Auto,
        ..CountParams::default()
    };
    let (out, rep) = with_records!(
        py,
        records,
        ReadOpts::COUNT,
        |src, recs| msgnorm_core::editing::edit(
            &mut recs,
            tools,
            thinking,
            &p,
            &|b| src.tool_info(b),
            None
        )
        .map(|rep| (recs, rep)),
        |w, out| (w.records(&out.0)?, out.1),
    );
    Ok((out, edit_report(py, &rep)?))
}

/// The context-editing options as the Python side passes them: one dict
/// (`editing._tool_args` and the thinking keys), read by name.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct EditArgs {
    pub tools: bool,
    trigger_kind: String,
    trigger_value: u64,
    keep: usize,
    pub clear_at_least: u64,
    exclude_tools: Vec<String>,
    clear_all_inputs: bool,
    clear_inputs_of: Vec<String>,
    placeholder: String,
    pub thinking: bool,
    keep_turns: Option<usize>,
}

impl EditArgs {
    /// The trigger `("input_tokens" | "tool_uses", n)`.
    pub(crate) fn trigger(&self, py: Python<'_>) -> PyResult<msgnorm_core::editing::Trigger> {
        trigger(py, &self.trigger_kind, self.trigger_value)
    }

    /// `clear_tool_uses` options with `clear_at_least` (a conversation's
    /// policy holds its own: 0 here); `clear_tool_inputs` is cleared for every
    /// tool with `clear_all_inputs`, else for `clear_inputs_of`.
    pub(crate) fn tool_options(
        &self,
        py: Python<'_>,
        clear_at_least: u64,
    ) -> PyResult<msgnorm_core::editing::ToolOptions> {
        use msgnorm_core::editing::ClearInputs;
        Ok(msgnorm_core::editing::ToolOptions {
            trigger: self.trigger(py)?,
            keep: self.keep,
            clear_at_least,
            exclude_tools: self.exclude_tools.clone(),
            clear_inputs: if self.clear_all_inputs {
                ClearInputs::All
            } else if self.clear_inputs_of.is_empty() {
                ClearInputs::None
            } else {
                ClearInputs::Tools(self.clear_inputs_of.clone())
            },
            placeholder: self.placeholder.clone(),
        })
    }

    /// The thinking options (`None`: thinking is not cleared).
    pub(crate) fn thinking(&self) -> Option<msgnorm_core::editing::ThinkingOptions> {
        self.thinking
            .then_some(msgnorm_core::editing::ThinkingOptions {
                keep_turns: self.keep_turns,
            })
    }
}

/// A context edit's report as the `EditReport` dict.
pub(crate) fn edit_report<'py>(
    py: Python<'py>,
    rep: &msgnorm_core::editing::EditReport,
) -> PyResult<Bound<'py, PyDict>> {
    let d = fields_dict!(
        py,
        rep,
        [
            results_cleared,
            inputs_cleared,
            thinking_cleared,
            tokens_before,
            tokens_after,
        ]
    );
    d.set_item(
        "tokens_saved",
        rep.tokens_before.saturating_sub(rep.tokens_after),
    )?;
    d.set_item("first_changed", rep.first_changed)?;
    Ok(d)
}

/// A context edit's trigger from its Python spelling.
fn trigger(py: Python<'_>, kind: &str, value: u64) -> PyResult<msgnorm_core::editing::Trigger> {
    use msgnorm_core::editing::Trigger;
    match kind {
        "input_tokens" => Ok(Trigger::InputTokens(value)),
        "tool_uses" => Ok(Trigger::ToolUses(value)),
        other => Err(to_pyerr(
            py,
            Failure::Core(Error::value(format!(
                "trigger type must be 'input_tokens' or 'tool_uses', not {other:?}"
            ))),
        )),
    }
}
