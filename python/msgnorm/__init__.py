"""msgnorm: turn an LLM agent's raw message history into exactly what a model API accepts.

A typed model of Claude Code session transcripts (msgspec Structs) and a linear
Rust core for the normalization pipeline of docs/SPEC.md.
"""

from __future__ import annotations

from . import (
    _api,
    arrow,  # the Arrow kernel; pyarrow is not imported (msgnorm.ray/.daft: on use)
    batch,
    conversation,
    errors,
    frameworks,  # registers the framework names; each adapter is imported on use
    model,
    providers,
    session,
)
from ._api import *  # noqa: F403
from ._native import __version__
from .batch import *  # noqa: F403
from .conversation import *  # noqa: F403
from .editing import (
    EditReport,
    clear_thinking,
    clear_thinking_report,
    clear_tool_results,
    clear_tool_results_report,
)
from .errors import *  # noqa: F403
from .listing import SearchHit, SessionInfo, list_sessions, search_sessions
from .model import *  # noqa: F403
from .provider_rules import Violation, check, validate
from .providers import *  # noqa: F403
from .session import *  # noqa: F403
from .usage import ModelPrices, Usage, session_usage

__all__ = [
    "EditReport",
    "ModelPrices",
    "SearchHit",
    "SessionInfo",
    "Usage",
    "Violation",
    "__version__",
    "arrow",
    "check",
    "clear_thinking",
    "clear_thinking_report",
    "clear_tool_results",
    "clear_tool_results_report",
    "frameworks",
    "list_sessions",
    "search_sessions",
    "session_usage",
    "validate",
]
__all__ += _api.__all__
__all__ += batch.__all__
__all__ += conversation.__all__
__all__ += errors.__all__
__all__ += model.__all__
__all__ += providers.__all__
__all__ += session.__all__
