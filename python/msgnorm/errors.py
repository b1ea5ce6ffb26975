"""msgnorm's exceptions. Every one is a ``ValueError``."""

from __future__ import annotations

from typing import Any

__all__ = [
    "BudgetError",
    "InvalidRecordError",
    "JSONDecodeError",
    "MsgnormError",
    "PairingError",
    "ProviderRuleError",
]


class MsgnormError(ValueError):
    """Base class of msgnorm's errors (also raised for bad arguments and internal errors)."""


class InvalidRecordError(MsgnormError):
    """A record breaks SPEC §1.

    ``index`` is the record's position in the input (``None`` when the input as a
    whole is not a list of records) and ``path`` the bad field, e.g.
    ``records[3].message.content``.
    """

    def __init__(self, message: str, index: int | None = None, path: str = "records") -> None:
        super().__init__(message)
        self.index = index
        self.path = path

    @property
    def reason(self) -> str:
        """The message without the leading path, e.g. ``missing required field``."""
        text = str(self)
        prefix = self.path + ": "
        return text[len(prefix) :] if text.startswith(prefix) else text


class JSONDecodeError(MsgnormError):
    """The input is not valid JSON; ``line`` and ``column`` are 1-based, the column
    in characters (as Python's :mod:`json` counts); ``lineno``/``colno`` are the
    same numbers under :class:`json.JSONDecodeError`'s names."""

    def __init__(self, message: str, line: int = 0, column: int = 0) -> None:
        super().__init__(message)
        self.line = line
        self.column = column

    @property
    def lineno(self) -> int:
        return self.line

    @property
    def colno(self) -> int:
        return self.column


class PairingError(MsgnormError):
    """``strict=True`` and a record would need a tool-pairing repair (SPEC §4 steps 5-6)."""

    def __init__(self, message: str, index: int = 0, ids: list[str] | None = None) -> None:
        super().__init__(message)
        self.index = index
        self.ids = list(ids or [])
        #: The Anthropic rules the history breaks that normalize_for_api would have
        #: repaired (:class:`msgnorm.Violation`, as :func:`msgnorm.validate` names them).
        self.violations: list[Any] = []


class BudgetError(MsgnormError):
    """No safe suffix of the history fits the token budget (SPEC §7)."""


class ProviderRuleError(MsgnormError):
    """A history breaks provider rules (``msgnorm.check``).

    ``violations`` lists every one (:class:`msgnorm.Violation`); ``index`` and
    ``path`` are the first one's.
    """

    def __init__(self, violations: list[Any]) -> None:
        self.violations = list(violations)
        first = self.violations[0] if self.violations else None
        self.index: int | None = first.index if first is not None else None
        self.path: str = first.path if first is not None else ""
        lines = [f"{v.path}: {v.rule}: {v.message}" for v in self.violations[:5]]
        more = len(self.violations) - len(lines)
        if more > 0:
            lines.append(f"... and {more} more")
        n = len(self.violations)
        super().__init__(
            f"{n} provider rule violation{'s' if n != 1 else ''}:\n" + "\n".join(lines)
        )
