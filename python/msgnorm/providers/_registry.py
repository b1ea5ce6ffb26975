"""The provider names, and the frameworks registered beside them.

Framework adapters (:mod:`msgnorm.frameworks`) register here when their package
is imported; this package never imports them at module level, so imports run
one way: frameworks import providers.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["PROVIDERS", "framework", "frameworks", "is_framework", "register_framework"]

#: The provider names ``source=`` and ``target=`` take (and the framework names of
#: :data:`msgnorm.frameworks.FRAMEWORKS`: that framework's message objects).
PROVIDERS: tuple[str, ...] = (
    "anthropic",
    "openai-chat",
    "openai-responses",
    "gemini",
    "bedrock",
)

_FRAMEWORKS: dict[str, str] = {}
"""Framework name -> the module of its adapter (imported when first used)."""


def register_framework(name: str, module: str) -> None:
    """Makes ``name`` a ``source=``/``target=`` whose objects the adapter ``module``
    reads (``_to_anthropic``) and writes (``_from_anthropic``)."""
    _FRAMEWORKS[name] = module


def frameworks() -> tuple[str, ...]:
    """The registered framework names, in registration order."""
    return tuple(_FRAMEWORKS)


def is_framework(name: str) -> bool:
    return name in _FRAMEWORKS


def framework(name: str) -> Any:
    """The adapter module of framework ``name`` (imported now)."""
    return importlib.import_module(_FRAMEWORKS[name])


def _plain(item: Any) -> Any:
    """A pydantic object (e.g. ``google.genai.types.Content``) as JSON-shaped data."""
    dump = getattr(item, "model_dump", None)
    if callable(dump) and not isinstance(item, dict):
        return dump(mode="json", exclude_none=True)
    return item
