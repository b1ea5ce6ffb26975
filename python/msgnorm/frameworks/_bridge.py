"""What every framework adapter shares: the Anthropic Messages shape as the bridge
to msgnorm records, through the core's provider adapters."""

from __future__ import annotations

import importlib
from typing import Any

from .. import providers


def need(module: str, adapter: str, package: str, extra: str) -> Any:
    """``module`` imported, or an ImportError that names the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError as e:  # pragma: no cover - the error names the extra
        raise ImportError(
            f"msgnorm's {adapter} adapter needs {package}: pip install 'msgnorm[{extra}]'"
        ) from e


def _system(system: list[str]) -> Any:
    if not system:
        return None
    if len(system) == 1:
        return system[0]
    return [{"type": "text", "text": s} for s in system]


def system_text(shape: dict[str, Any]) -> str:
    """The system prompt of an Anthropic request shape as one text ("" for none)."""
    system = shape.get("system")
    if isinstance(system, list):
        return "\n\n".join(b.get("text", "") for b in system if isinstance(b, dict))
    return system if isinstance(system, str) else ""


def from_anthropic(messages: list[dict[str, Any]], system: list[str]) -> list[dict[str, Any]]:
    return providers.from_provider(messages, "anthropic", system=_system(system))


def to_anthropic(records: Any, *, normalize: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = providers.to_provider(records, "anthropic", normalize=normalize)
    return out


def convert_anthropic(
    messages: list[dict[str, Any]], system: list[str], **options: Any
) -> dict[str, Any]:
    out: dict[str, Any] = providers.convert(
        messages, source="anthropic", target="anthropic", system=_system(system), **options
    )
    return out
