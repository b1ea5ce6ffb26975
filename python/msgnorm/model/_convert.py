"""builtins <-> Structs, and JSON text <-> Structs.

Input is checked first by the reader every other entry point uses (SPEC §1,
``msgnorm._native.validate_records``): an invalid record or invalid JSON raises
the same :class:`msgnorm.InvalidRecordError` / :class:`msgnorm.JSONDecodeError`,
with the same message at the same place, whatever the input kind.  msgspec then
converts what the reader accepted; the Structs admit whatever SPEC §1 admits.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import msgspec
from msgspec import Struct

from .. import _native
from ..errors import MsgnormError
from ._structs import (
    _ASSISTANT_PAYLOAD_KEYS,
    _BLOCK_KEYS,
    _EXTRA,
    _PAYLOAD_KEYS,
    _RECORD_KEYS,
    _UNKNOWN_TAG,
    _USER_PAYLOAD_KEYS,
    AssistantMessage,
    Entry,
    Message,
    TombstoneMessage,
    ToolResultBlock,
    UnknownBlock,
    UserMessage,
    _UnknownPlaceholder,
)

# --------------------------------------------------------------------------- #
# builtins <-> Structs
# --------------------------------------------------------------------------- #


@contextmanager
def _nesting_guard() -> Iterator[None]:
    """Bulk conversions through msgspec, whose recursion into nested values is
    bounded by Python's recursion limit: a value nested past it is refused with a
    :class:`msgnorm.MsgnormError`, not a bare ``RecursionError``.

    The cyclic collector is left alone (its switch is the whole interpreter's):
    the Structs are defined with ``gc=False``, so the collector does not track
    them, and the containers the native calls build are kept out of its sight
    only while the call builds them.
    """
    try:
        yield
    except RecursionError:
        raise MsgnormError(
            "a value is nested too deeply for the typed model (Python's recursion limit); "
            "pass such a history as dicts or JSON bytes"
        ) from None


def _split_extra(d: dict[str, Any], known: frozenset[str]) -> dict[str, Any]:
    """A copy of ``d`` whose unknown keys are moved into the catch-all."""
    out = {k: v for k, v in d.items() if k in known}
    out[_EXTRA] = {k: v for k, v in d.items() if k not in known}
    return out


def _prep_blocks(content: list[Any]) -> tuple[list[Any] | None, bool]:
    """Prepare a content list for msgspec.convert.

    Returns (new list or None when unchanged, whether it holds unknown blocks).
    Malformed blocks are left in place for msgspec to report.
    """
    new: list[Any] | None = None
    unknown = False
    for j, b in enumerate(content):
        if type(b) is not dict:
            if not isinstance(b, dict):  # a Struct: already the model
                continue
            b = dict(b)  # a dict subclass: msgspec takes plain dicts
            if new is None:
                new = list(content)
            new[j] = b
        bt = b.get("type")
        known = _BLOCK_KEYS.get(bt) if type(bt) is str else None
        nb: Any = None
        if known is None:
            if type(bt) is str:
                nb = {"type": _UNKNOWN_TAG, "raw": b}
                unknown = True
        else:
            if not b.keys() <= known:
                nb = _split_extra(b, known)
            if bt == "tool_result":
                nb, unk = _prep_content(b, nb)
                unknown = unknown or unk
        if nb is not None:
            if new is None:
                new = list(content)
            new[j] = nb
    return new, unknown


def _prep_content(
    d: dict[str, Any], nd: dict[str, Any] | None
) -> tuple[dict[str, Any] | None, bool]:
    """``nd`` (``d``'s copy so far, or None) with ``d``'s list content prepared,
    and whether that content holds unknown blocks."""
    content = d.get("content")
    if type(content) is not list:
        return nd, False
    new, unknown = _prep_blocks(content)
    if new is not None:
        if nd is None:
            nd = dict(d)
        nd["content"] = new
    return nd, unknown


def _prep_record(d: dict[str, Any], rtype: str) -> tuple[dict[str, Any] | None, bool]:
    """Prepare a (valid) message record for msgspec.convert.

    Returns (new dict or None when unchanged, whether it holds unknown blocks).
    """
    nd: dict[str, Any] | None = None
    unknown = False
    known = _RECORD_KEYS[rtype]
    if not d.keys() <= known:
        nd = _split_extra(d, known)
    if rtype == "user" or rtype == "assistant":
        m = d["message"]
        nm: dict[str, Any] | None = None
        pknown = _PAYLOAD_KEYS[rtype]
        if type(m) is not dict:  # a dict subclass
            nm = dict(m)
        if not m.keys() <= pknown:
            nm = _split_extra(m, pknown)
        nm, unknown = _prep_content(m, nm)
        if nm is not None:
            if nd is None:
                nd = dict(d)
            nd["message"] = nm
    return nd, unknown


def _patch_blocks(content: list[Any]) -> None:
    for j, b in enumerate(content):
        cls = type(b)
        if cls is _UnknownPlaceholder:
            content[j] = UnknownBlock(b.raw)
        elif cls is ToolResultBlock and type(b.content) is list:
            _patch_blocks(b.content)


def _patch_unknown(rec: Any) -> None:
    """Replace the placeholders msgspec.convert built by UnknownBlocks."""
    if type(rec) is TombstoneMessage:
        return
    content = rec.message.content
    if type(content) is list:
        _patch_blocks(content)


_record_list_type = list[Message]


def _dirty_records(records: Sequence[Any]) -> list[int]:
    """Indices of the (valid) records that msgspec.convert cannot take as they are:
    not a message dict, unnamed fields, blocks of unknown type.

    The hot loop of from_builtins: written for speed (``frozenset.issuperset`` is
    the fastest C-level "no unnamed key" test), hence inlined.
    """
    rkeys = _RECORD_KEYS
    bkeys = _BLOCK_KEYS
    upk, apk = _USER_PAYLOAD_KEYS, _ASSISTANT_PAYLOAD_KEYS
    dirty: list[int] = []
    for i, d in enumerate(records):
        if type(d) is dict:
            t = d.get("type")
            known = rkeys.get(t) if type(t) is str else None
            if known is not None and known.issuperset(d):
                if t == "user" or t == "assistant":
                    m = d.get("message")
                    if type(m) is dict and (upk if t == "user" else apk).issuperset(m):
                        c = m.get("content")
                        if type(c) is not list:
                            continue
                        for b in c:
                            if type(b) is not dict:
                                break
                            bt = b.get("type")
                            bk = bkeys.get(bt) if type(bt) is str else None
                            if bk is None or not bk.issuperset(b):
                                break
                            if bt == "tool_result":
                                inner = b.get("content")
                                if type(inner) is list:
                                    for ib in inner:
                                        if type(ib) is not dict:
                                            break
                                        it = ib.get("type")
                                        ik = bkeys.get(it) if type(it) is str else None
                                        if ik is None or it == "tool_result":
                                            break
                                        if not ik.issuperset(ib):
                                            break
                                    else:
                                        continue
                                    break
                        else:
                            continue
                else:
                    continue
        dirty.append(i)
    return dirty


def from_builtins(records: Iterable[Any]) -> list[Message | Entry]:
    """Build the model from JSON-shaped values (``json.loads`` output), losslessly.

    Message records become Structs (unnamed fields in ``extra``, at every level;
    blocks of unknown type become :class:`UnknownBlock`); records of any other
    ``type`` become :class:`Entry` (a copy of the dict); msgnorm Structs among
    the records are kept as they are.  An invalid record raises
    :class:`msgnorm.InvalidRecordError` (a ``ValueError``) naming ``records[i].<path>``,
    as every msgnorm function does for the same records.  Loose values
    (``input``, ``toolUseResult``, ``usage``, ``attachment``...) are shared with
    the input, not copied.
    """
    if not isinstance(records, list):
        records = list(records)
    _native.validate_records(records)
    with _nesting_guard():
        return _from_builtins(records)


def _from_builtins(records: list[Any]) -> list[Message | Entry]:
    """The model of records the reader accepted (``validate_records``)."""
    prepared: list[Any] | None = None  # copy of records, made on the first change
    kept: list[int] = []  # entries, and Structs passed in: not converted
    unknown_at: list[int] = []
    record_keys = _RECORD_KEYS
    for i in _dirty_records(records):
        d = records[i]
        if type(d) is not dict:
            if not isinstance(d, dict):  # a Struct: already the model
                kept.append(i)
                continue
            d = dict(d)
            if prepared is None:
                prepared = list(records)
            prepared[i] = d
        t = d["type"]
        if t not in record_keys:
            kept.append(i)
            continue
        nd, unknown = _prep_record(d, t)
        if nd is not None:
            if prepared is None:
                prepared = list(records)
            prepared[i] = nd
        if unknown:
            unknown_at.append(i)
    source = records if prepared is None else prepared
    index_map: Sequence[int]
    if kept:
        skip = set(kept)
        index_map = [i for i in range(len(source)) if i not in skip]
        to_convert = [source[i] for i in index_map]
    else:
        index_map = range(len(source))
        to_convert = source
    try:
        converted: list[Any] = msgspec.convert(to_convert, _record_list_type)
    except msgspec.ValidationError as e:
        # Unreachable when the Structs admit what SPEC §1 admits (tests check it).
        raise MsgnormError(f"internal error: the typed model refused a valid record: {e}") from None
    if unknown_at:
        pos = {orig: k for k, orig in enumerate(index_map)} if kept else None
        for i in unknown_at:
            _patch_unknown(converted[i if pos is None else pos[i]])
    if not kept:
        return converted
    out: list[Any] = [None] * len(source)
    for k, i in enumerate(index_map):
        out[i] = converted[k]
    for i in kept:
        d = source[i]
        out[i] = Entry(d) if isinstance(d, dict) else d
    return out


def _flatten(d: dict[str, Any]) -> None:
    extra = d.pop(_EXTRA)
    d.update(extra)


def _blocks_have_extra(blocks: list[Any]) -> bool:
    for b in blocks:
        if not isinstance(b, Struct):  # UnknownBlock, a plain dict, or not a block
            continue
        if b.extra:
            return True
        if type(b) is ToolResultBlock and type(b.content) is list:
            if _blocks_have_extra(b.content):
                return True
    return False


def _has_extra(rec: Any) -> bool:
    """Whether some Struct of the record has a non-empty catch-all."""
    if getattr(rec, "extra", None):
        return True
    cls = type(rec)
    if cls is UserMessage or cls is AssistantMessage:
        m = rec.message
        if not isinstance(m, Struct):
            return False
        if m.extra:
            return True
        c = m.content
        return type(c) is list and _blocks_have_extra(c)
    return False


def _records_with_extra(records: Sequence[Any]) -> list[int]:
    user, assistant, entry = UserMessage, AssistantMessage, Entry
    unknown, tool_result = UnknownBlock, ToolResultBlock
    found: list[int] = []
    for i, rec in enumerate(records):
        cls = type(rec)
        if cls is entry:
            continue
        if cls is user or cls is assistant:
            if rec.extra:
                found.append(i)
                continue
            m = rec.message
            if not isinstance(m, Struct):  # not a payload: written as it is
                continue
            if m.extra:
                found.append(i)
                continue
            c = m.content
            if type(c) is list:
                for b in c:
                    bcls = type(b)
                    if bcls is unknown or bcls is dict or not isinstance(b, Struct):
                        continue
                    if b.extra or (
                        bcls is tool_result
                        and type(b.content) is list
                        and _blocks_have_extra(b.content)
                    ):
                        found.append(i)
                        break
        elif isinstance(rec, msgspec.Struct) and _has_extra(rec):
            # dicts pass through as they are; any other value is written as it is
            # (and refused, as every input kind refuses it, by the reader)
            found.append(i)
    return found


def _unflatten_blocks(blocks: list[Any], out: list[Any]) -> None:
    for b, ob in zip(blocks, out, strict=True):
        if not isinstance(b, Struct):  # UnknownBlock, a plain dict, or not a block
            continue
        if b.extra:
            _flatten(ob)
        if type(b) is ToolResultBlock and type(b.content) is list:
            _unflatten_blocks(b.content, ob["content"])


def _unflatten_record(rec: Any, d: dict[str, Any]) -> None:
    if rec.extra:
        _flatten(d)
    cls = type(rec)
    if cls is UserMessage or cls is AssistantMessage:
        m = rec.message
        dm = d["message"]
        if m.extra:
            _flatten(dm)
        c = m.content
        if type(c) is list:
            _unflatten_blocks(c, dm["content"])


def to_builtins(records: Sequence[Message | Entry]) -> list[dict[str, Any]]:
    """The records as plain JSON-shaped dicts, exactly as Claude Code writes them.

    The catch-all ``extra`` of every Struct is flattened back into its object,
    :class:`UnknownBlock` and :class:`Entry` become the plain dicts they hold (as
    do plain dicts among the records or blocks).  The result shares nothing with
    the Structs: msgspec.to_builtins builds new containers.
    """
    with _nesting_guard():
        out: list[dict[str, Any]] = msgspec.to_builtins(records)
        for i in _records_with_extra(records):
            _unflatten_record(records[i], out[i])
    return out


# --------------------------------------------------------------------------- #
# JSON
# --------------------------------------------------------------------------- #

_json_decoder = msgspec.json.Decoder()
_json_encoder = msgspec.json.Encoder()
_LEADING_WS = re.compile(rb"[ \t\r\n]*")


def _values(buf: bytes) -> Any:
    """The JSON values of text the reader accepted: an array's items, or one per line.

    A valid transcript that starts with ``[`` is an array (JSON Lines whose first
    line is an array hold a record that is not an object, which the reader refuses).
    """
    match = _LEADING_WS.match(buf)
    start = match.end() if match is not None else 0
    array = buf[start : start + 1] == b"["
    try:
        return _json_decoder.decode(buf) if array else _json_decoder.decode_lines(buf)
    except msgspec.DecodeError:
        # JSON that msgspec does not read (a number beyond a float's range, e.g.
        # 1e400): Python's json module reads any JSON the reader accepts.
        if array:
            return json.loads(buf)
        return [json.loads(line) for line in buf.split(b"\n") if line.strip()]


def decode(data: bytes | bytearray | memoryview | str) -> list[Message | Entry]:
    """Read a transcript, losslessly: a JSON array of records, or JSON Lines.

    A document whose first character is ``[`` is read as one JSON array of records
    (unless it only parses as JSON Lines, e.g. ``[1]`` followed by more lines);
    JSON Lines hold one record per line, blank lines skipped.  The input is read
    as :func:`msgnorm.normalize_for_api` reads it: invalid JSON raises
    :class:`msgnorm.JSONDecodeError` with line and column (in characters), an
    invalid record :class:`msgnorm.InvalidRecordError` naming its path, and
    empty input is invalid JSON.
    """
    if isinstance(data, str):
        _native.validate_records(data)
        buf = data.encode()
    else:
        buf = data if isinstance(data, bytes) else bytes(data)
        _native.validate_records(buf)
    with _nesting_guard():
        return _from_builtins(_values(buf))


def _decode_own(buf: bytes) -> list[Message | Entry]:
    """:func:`decode` of a JSON array msgnorm's core wrote itself (records its reader
    accepted, or records it made): converted without being read a second time."""
    with _nesting_guard():
        return _from_builtins(_values(buf))


def encode(records: Sequence[Message | Entry]) -> bytes:
    """The records as a JSON array (bytes), exactly as Claude Code writes them."""
    with_extra = _records_with_extra(records)
    mixed: list[Any] = list(records)
    with _nesting_guard():
        for i in with_extra:
            d: dict[str, Any] = msgspec.to_builtins(records[i])
            _unflatten_record(records[i], d)
            mixed[i] = d
        return _json_encoder.encode(mixed if with_extra else records)
