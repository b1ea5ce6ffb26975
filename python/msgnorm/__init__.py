"""msgnorm: turn an LLM agent's raw message history into exactly what a model API accepts.

A typed model of Claude Code session transcripts (msgspec Structs) and a linear
Rust core for the normalization pipeline of docs/SPEC.md.
"""

from __future__ import annotations

from . import (
    arrow,  # the Arrow kernel; pyarrow is not imported (msgnorm.ray/.daft: on use)
    frameworks,  # registers the framework names; each adapter is imported on use
    model,
)
from ._api import (
    count_tokens,
    count_tokens_per_record,
    derive_short_message_id,
    derive_uuid,
    find_cutoff,
    normalize_for_api,
    normalize_for_api_report,
    normalize_messages,
    render_attachment,
    split_for_summary,
    to_anthropic,
    trim_to_budget,
)
from ._native import __version__
from .batch import (
    count_tokens_batch,
    default_num_threads,
    normalize_batch,
    normalize_batch_report,
)
from .conversation import Conversation
from .editing import (
    EditReport,
    clear_thinking,
    clear_thinking_report,
    clear_tool_results,
    clear_tool_results_report,
)
from .errors import (
    BudgetError,
    InvalidRecordError,
    JSONDecodeError,
    MsgnormError,
    PairingError,
    ProviderRuleError,
)
from .listing import SearchHit, SessionInfo, list_sessions, search_sessions
from .model import *  # noqa: F403 (the typed model: the names of its __all__)
from .provider_rules import Violation, check, validate
from .providers import (
    PROVIDERS,
    convert,
    convert_report,
    from_provider,
    rename_tools,
    to_bedrock,
    to_gemini,
    to_openai_chat,
    to_openai_responses,
    to_provider,
    to_provider_report,
    tool_name,
)
from .session import (
    LineIssue,
    LoadReport,
    Session,
    Thread,
    load_session,
    session_files,
)
from .usage import ModelPrices, Usage, session_usage

__all__ = [
    "PROVIDERS",
    "BudgetError",
    "Conversation",
    "EditReport",
    "InvalidRecordError",
    "JSONDecodeError",
    "LineIssue",
    "LoadReport",
    "ModelPrices",
    "MsgnormError",
    "PairingError",
    "ProviderRuleError",
    "SearchHit",
    "Session",
    "SessionInfo",
    "Thread",
    "Usage",
    "Violation",
    "__version__",
    "arrow",
    "check",
    "clear_thinking",
    "clear_thinking_report",
    "clear_tool_results",
    "clear_tool_results_report",
    "convert",
    "convert_report",
    "count_tokens",
    "count_tokens_batch",
    "count_tokens_per_record",
    "default_num_threads",
    "derive_short_message_id",
    "derive_uuid",
    "find_cutoff",
    "frameworks",
    "from_provider",
    "list_sessions",
    "load_session",
    "normalize_batch",
    "normalize_batch_report",
    "normalize_for_api",
    "normalize_for_api_report",
    "normalize_messages",
    "rename_tools",
    "render_attachment",
    "search_sessions",
    "session_files",
    "session_usage",
    "split_for_summary",
    "to_anthropic",
    "to_bedrock",
    "to_gemini",
    "to_openai_chat",
    "to_openai_responses",
    "to_provider",
    "to_provider_report",
    "tool_name",
    "trim_to_budget",
    "validate",
]
__all__ += model.__all__
