"""Provider message formats in and out (docs/PROVIDERS.md).

``from_provider`` turns a provider's messages into msgnorm records; ``to_openai_chat``,
``to_openai_responses``, ``to_gemini``, ``to_bedrock`` and ``to_provider`` run
:func:`msgnorm.normalize_for_api` and write the result in a provider's request shape;
``convert`` does both. The conversion itself runs in the Rust core.
"""

from __future__ import annotations

from . import _convert
from ._convert import *  # noqa: F403
from ._tools import rename_tools, tool_name

__all__ = ["rename_tools", "tool_name"]
__all__ += _convert.__all__
