"""``normalize_for_api`` one turn at a time, with an output prefix that never changes.

See ``docs/CONVERSATION.md``.  A :class:`Conversation` keeps the history appended
so far; each call normalizes only the open tail (the records since the last turn
that has settled) and returns exactly what :func:`msgnorm.normalize_for_api`
gives on the whole history.  The *settled* output records stay byte for byte as
they are while records are appended, so the provider's prompt cache keeps
hitting; :attr:`Conversation.rewrites` counts the rare events (a tombstone naming
a settled record, the media limit crossed) that made the whole history
normalize again.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from . import _api, _native
from .editing import EditEvent, _policy_args
from .errors import MsgnormError
from .model import encode
from .model._convert import _decode_own
from .session import Session

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._api import _ApiAndCosts

__all__ = ["Conversation"]

Kind = Literal["dicts", "structs", "bytes", "str"]
_KINDS = ("dicts", "structs", "bytes", "str")


def _has_structs(records: list[Any]) -> bool:
    """Any msgnorm Struct among the records (a decoded transcript may start with an Entry)."""
    return any(hasattr(type(r), "__struct_fields__") for r in records)


def _kind_of(records: Any) -> Kind:
    if isinstance(records, (bytes, bytearray, memoryview)):
        return "bytes"
    if isinstance(records, str):
        return "str"
    if isinstance(records, list) and _has_structs(records):
        return "structs"
    return "dicts"


class Conversation:
    """An agent's history, normalized incrementally (SPEC §4 on every turn, in
    O(new records + the open turn)).

    ``records`` (optional) and every :meth:`append` take any input kind: a list
    of dicts, a list of msgnorm Structs, or JSON ``bytes``/``str`` (an array or
    JSON Lines).  Outputs come in ``kind`` (by default the kind of the first
    records appended; ``"dicts"`` if none).  The options are those of
    :func:`msgnorm.normalize_for_api` and of the token counters.

    ``clear_tool_results`` and ``clear_thinking`` set a context-editing policy
    (``True``, or the options of :func:`msgnorm.clear_tool_results` /
    ``{"keep_turns": ...}``): when the output read after an append is over the
    trigger, old tool results (and thinking) are cleared as those functions do,
    and stay cleared; the settled output changes only at those events
    (:attr:`edits`).

    Settled dicts (and Structs) are shared between the lists that
    :meth:`for_api` returns: treat them as read-only.  Safe to use from several
    threads; :meth:`to_bytes` / :meth:`from_bytes` (and pickling) save and
    restore it.
    """

    @_api._with_options(_api._API_DEFAULTS, _api._COUNTING_DEFAULTS)
    def __init__(
        self,
        records: Any = None,
        *,
        kind: Kind | None = None,
        clear_tool_results: bool | Mapping[str, Any] | None = None,
        clear_thinking: bool | int | Literal["all"] | Mapping[str, Any] | None = None,
        **options: Unpack[_ApiAndCosts],
    ) -> None:
        if kind is not None and kind not in _KINDS:
            raise MsgnormError(f"kind must be one of {', '.join(map(repr, _KINDS))}, not {kind!r}")
        native = _native.Conversation(_api._api_of(options), _api._costs_of(options))
        policy = _policy_args(clear_tool_results, clear_thinking)
        if policy is not None:
            native.set_policy(policy)
        self._init(native, kind)
        if records is not None:
            self.append(records)

    def _init(self, native: _native.Conversation, kind: Kind | None) -> None:
        self._native = native
        self._kind: Kind | None = kind
        self._lock = threading.Lock()
        self._cache: list[Any] = []  # settled output records as dicts or Structs
        self._cache_rewrites = 0
        self._cache_edits = 0

    @classmethod
    def from_session(cls, session: Session, **options: Any) -> Conversation:
        """A conversation over a loaded session's chosen thread (:func:`msgnorm.load_session`)."""
        return cls(session.records, **options)

    @property
    def kind(self) -> Kind:
        """The kind outputs come in."""
        return self._kind or "dicts"

    def append(self, records: Any) -> int:
        """Appends records (any input kind); returns how many. On an invalid record
        nothing is appended, and the error names it by its index in the whole
        history (SPEC §1)."""
        if self._kind is None:
            with self._lock:  # the first append's kind, whichever thread wins
                if self._kind is None:
                    self._kind = _kind_of(records)
        if isinstance(records, (bytearray, memoryview)):
            records = bytes(records)
        if isinstance(records, (bytes, str)):
            data: bytes | str = records
        elif isinstance(records, list):
            try:
                data = encode(records) if _has_structs(records) else _encode(records)
            except (TypeError, msgspec.EncodeError) as e:
                raise MsgnormError(f"records: cannot be written as JSON: {e}") from None
            except RecursionError:
                raise MsgnormError(
                    "records: a value is nested too deeply to be written as JSON "
                    "(Python's recursion limit); nothing was appended"
                ) from None
        else:
            raise MsgnormError(
                f"records: expected a list of records, JSON bytes or a JSON str, "
                f"not {type(records).__name__}"
            )
        with self._lock:
            return int(self._native.append(data))

    def _convert(self, data: bytes) -> Any:
        kind = self.kind
        if kind == "bytes":
            return data
        if kind == "str":
            return data.decode()
        if kind == "structs":
            return _decode_own(data)
        try:
            return msgspec.json.decode(data)
        except (RecursionError, msgspec.DecodeError, msgspec.ValidationError) as e:
            why = "nested too deeply" if isinstance(e, RecursionError) else str(e)
            raise MsgnormError(
                f"the output cannot become Python objects ({why}); ask for kind='bytes' or 'str'"
            ) from None

    def for_api(self) -> Any:
        """What :func:`msgnorm.normalize_for_api` gives on the whole history so far."""
        kind = self.kind
        if kind in ("bytes", "str"):
            return self._convert(self._native.for_api())
        with self._lock:  # one state throughout: appends wait
            settled = self._native.settled_len
            if self._native.rewrites != self._cache_rewrites:
                self._cache, self._cache_rewrites = [], self._native.rewrites
            edits = self._native.edit_count
            if edits != self._cache_edits:
                # Output records from the first one an edit changed on are new.
                first = min(
                    (r["first_changed"] for _, r in self._native.edits()[self._cache_edits :]),
                    default=None,
                )
                if first is not None:
                    del self._cache[first:]
                self._cache_edits = edits
            if len(self._cache) < settled:
                more = self._native.json_range(len(self._cache), settled)
                self._cache.extend(self._convert(more))
            out = self._cache[:settled]
            tail = self._native.json_range(settled, len(self._native))
        out.extend(self._convert(tail))
        return out

    def to_anthropic(self) -> Any:
        """The ``messages`` parameter of the Anthropic Messages API."""
        return _api.to_anthropic(self._native.for_api())

    def __len__(self) -> int:
        """Output records."""
        return len(self._native)

    @property
    def input_len(self) -> int:
        """Records appended so far."""
        return int(self._native.input_len)

    @property
    def settled_len(self) -> int:
        """Output records that are settled: they stay byte for byte as they are
        while records are appended (until a rewrite)."""
        return int(self._native.settled_len)

    @property
    def rewrites(self) -> int:
        """How often the settled output had to change (the whole history normalized again)."""
        return int(self._native.rewrites)

    @property
    def edits(self) -> list[EditEvent]:
        """The times the context-editing policy fired (``clear_tool_results`` /
        ``clear_thinking``), oldest first. Each is where the settled output changed
        and the provider's prompt cache was invalidated: from ``first_changed`` on."""
        return [
            EditEvent(input_len=n, **report)  # type: ignore[typeddict-item]
            for n, report in self._native.edits()
        ]

    def cache_breakpoints(self) -> list[int]:
        """Up to 4 output positions, newest first, where an Anthropic ``cache_control``
        breakpoint (on the record's last block) stays valid across turns: the ends
        of the settled part as it grew."""
        return list(self._native.cache_breakpoints())

    def tail_report(self) -> dict[str, int]:
        """The repairs made in the open tail (the records since the settled part)."""
        return dict(self._native.tail_report())

    def count_tokens(self) -> int:
        """Approximate tokens of the output (SPEC §6), from cached per-record costs."""
        return int(self._native.count_tokens())

    def prompt_tokens(self, *, system: Any = None, tools: Any = None) -> int:
        """The size of the next request's prompt (SPEC §6.1): ``msgnorm.prompt_tokens``
        of the records appended so far, and anchored on usage given to
        :meth:`record_usage` too. Appending does not compute it: a call takes in the
        records appended since the last call (O(new records))."""
        return int(self._native.prompt_tokens(_api._extra_texts(system, tools)))

    def record_usage(self, usage: Any) -> None:
        """Takes a provider response's ``usage`` (Anthropic, OpenAI Responses or Chat,
        Gemini; a dict or the SDK's object) for the request made with the history so far: it anchors
        :meth:`prompt_tokens` as an assistant record's ``message.usage`` would (the
        assistant records at the history's end, or else the next one appended, are
        that request's reply). A usage without a prompt count is a ``MsgnormError``."""
        if not isinstance(usage, Mapping) and callable(getattr(usage, "model_dump", None)):
            # a provider SDK's usage object (pydantic): its fields as the API names them
            usage = usage.model_dump(by_alias=True)
        if not isinstance(usage, Mapping):
            raise MsgnormError(f"usage: expected a dict, not {type(usage).__name__}")
        if not self._native.record_usage(dict(usage)):
            raise MsgnormError(
                "usage: no prompt count (input_tokens, prompt_tokens or promptTokenCount > 0)"
            )

    def count_tokens_per_record(self) -> list[int]:
        """Approximate tokens of each output record (SPEC §6)."""
        return list(self._native.count_tokens_per_record())

    def trim_to_budget(self, max_tokens: int, *, pin: int = 0) -> Any:
        """SPEC §7 ``trim_to_budget`` on the output (the cut-off found from cached costs)."""
        budget = _api._count("max_tokens", max_tokens, False)
        return self._convert(self._native.trim_to_budget(budget, _api._count("pin", pin, True)))

    def split_for_summary(self, keep_tokens: int, *, pin: int = 0) -> tuple[Any, Any]:
        """SPEC §7 ``split_for_summary`` on the output: (what to summarise, what to keep)."""
        keep = _api._count("keep_tokens", keep_tokens, False)
        head, tail = self._native.split_for_summary(keep, _api._count("pin", pin, True))
        return self._convert(head), self._convert(tail)

    def to_bytes(self) -> bytes:
        """The conversation as plain data (the history, the settled output and its
        costs), compressed, for :meth:`from_bytes`: a server can keep it between
        requests."""
        return bytes(self._native.to_bytes())

    @classmethod
    def from_bytes(cls, data: bytes, *, kind: Kind | None = None) -> Conversation:
        """A conversation saved by :meth:`to_bytes`; damaged data raises
        :class:`msgnorm.MsgnormError`."""
        if kind is not None and kind not in _KINDS:
            raise MsgnormError(f"kind must be one of {', '.join(map(repr, _KINDS))}, not {kind!r}")
        self = cls.__new__(cls)
        self._init(_native.Conversation.from_bytes(bytes(data)), kind)
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restore, (self.to_bytes(), self._kind))

    def __repr__(self) -> str:
        edits = self._native.edit_count
        return (
            f"<msgnorm.Conversation: {self.input_len} records in, {len(self)} out, "
            f"{self.settled_len} settled, {self.rewrites} rewrites"
            + (f", {edits} edits>" if edits else ">")
        )


def _restore(data: bytes, kind: Kind | None) -> Conversation:
    return Conversation.from_bytes(data, kind=kind)


_encoder = msgspec.json.Encoder()


def _encode(records: list[Any]) -> bytes:
    return _encoder.encode(records)
