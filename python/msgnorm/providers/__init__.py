"""Provider message formats in and out (docs/PROVIDERS.md).

``from_provider`` turns a provider's messages into msgnorm records; ``to_openai_chat``,
``to_openai_responses``, ``to_gemini``, ``to_bedrock`` and ``to_provider`` run
:func:`msgnorm.normalize_for_api` and write the result in a provider's request shape;
``convert`` does both. The conversion itself runs in the Rust core.
"""

from __future__ import annotations

from ._convert import (
    convert,
    convert_report,
    from_provider,
    to_bedrock,
    to_gemini,
    to_openai_chat,
    to_openai_responses,
    to_provider,
    to_provider_report,
)
from ._registry import PROVIDERS
from ._tools import rename_tools, tool_name

__all__ = [
    "PROVIDERS",
    "convert",
    "convert_report",
    "from_provider",
    "rename_tools",
    "to_bedrock",
    "to_gemini",
    "to_openai_chat",
    "to_openai_responses",
    "to_provider",
    "to_provider_report",
    "tool_name",
]
