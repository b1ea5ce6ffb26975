"""Hypothesis strategies for arbitrary VALID transcript histories (SPEC §1).

``histories()`` builds a list of records with every record type (user,
assistant, system incl. local_command, attachment, progress, tool_use_summary,
tombstone, entries) and every block type, shaped like real Claude Code
sessions: streamed assistant fragments sharing ``message.id`` with
tool-result-only user records between them, interrupted calls, orphan and
duplicate results, server/mcp tool uses with and without results, media inside
tool results, isVirtual/isMeta records, synthetic API error replies,
tombstones pointing at real records, attachments anywhere, whitespace and null
contents, non-ASCII text and big integers. Kept small so ~200 examples run fast.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st

Rec = dict[str, Any]

# --------------------------------------------------------------------------
# scalars
# --------------------------------------------------------------------------

# ASCII, JSON-special characters, White_Space beyond ASCII (U+3000, U+0085),
# U+001C (Python-isspace but not White_Space), non-ASCII, emoji (1 and 2 code points)
_ALPHABET = [*'ab Z\n\t{}"\\é中', "\u3000", "\x85", "\x1c", "😀", "👍🏽", "\x00"]

short_texts = st.one_of(
    st.lists(st.sampled_from(_ALPHABET), max_size=8).map("".join),
    st.sampled_from(["", " ", "\n", " \t\n", "\u3000", "\x1c", "x  ", "ok"]),
    st.text(st.characters(exclude_categories=("Cs",)), max_size=4),
)
keys = st.text(st.sampled_from(list("abkz_é😀")), max_size=4)

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-10, 10),
    st.integers(-(2**80), 2**80),
    st.floats(allow_nan=False, allow_infinity=False),
    short_texts,
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=6,
)
json_objects = st.dictionaries(keys, json_values, max_size=3)

# --------------------------------------------------------------------------
# blocks
# --------------------------------------------------------------------------


text_blocks = st.builds(lambda t: {"type": "text", "text": t}, short_texts)
image_blocks = st.builds(
    lambda d: {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": d}},
    st.sampled_from(("iVBOR", "R0lGOD", "")),
)
document_blocks = st.one_of(
    st.builds(
        lambda d: {
            "type": "document",
            "source": {"type": "text", "media_type": "text/plain", "data": d},
        },
        short_texts,
    ),
    st.just(
        {
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBER"},
        }
    ),
)
unknown_blocks = st.builds(
    lambda t, extra: {**extra, "type": t},
    st.sampled_from(("container_upload", "search_result", "foo")),
    json_objects,
)
thinking_blocks = st.one_of(
    st.builds(
        lambda t: {"type": "thinking", "thinking": t, "signature": "EqQBCkgIARA"}, short_texts
    ),
    st.just({"type": "redacted_thinking", "data": "EmwKAhgBEgy"}),
)
# what may sit inside a tool_result list
tool_result_inner = st.one_of(text_blocks, text_blocks, image_blocks, document_blocks)
# what a user prompt's list may hold
user_blocks = st.one_of(text_blocks, text_blocks, image_blocks, document_blocks, unknown_blocks)
# a field of an attachment, as §5 sees it: str, int (also big), or anything else
attachment_field = st.one_of(
    short_texts,
    st.integers(-5, 2**70),
    st.sampled_from((1.5, 2.0, True, False, None)),
    st.builds(list),
    st.builds(dict),
)
server_pairs = (
    ("server_tool_use", "web_search_tool_result"),
    ("server_tool_use", "web_fetch_tool_result"),
    ("mcp_tool_use", "mcp_tool_result"),
)


def tool_result_block(draw: Any, tool_use_id: str) -> Rec:
    blk: Rec = {"type": "tool_result", "tool_use_id": tool_use_id}
    shape = draw(st.integers(0, 5))
    if shape <= 2:
        blk["content"] = draw(short_texts)
    elif shape <= 4:
        blk["content"] = draw(st.lists(tool_result_inner, max_size=3))
    elif draw(st.booleans()):
        blk["content"] = None
    # (else: no content key)
    err = draw(st.integers(0, 3))
    if err == 0:
        blk["is_error"] = True
    elif err == 1:
        blk["is_error"] = False
    return blk


# --------------------------------------------------------------------------
# histories
# --------------------------------------------------------------------------


def _pick(draw: Any, items: Any) -> Any:
    """One element of a non-empty sequence (cheaper than a fresh sampled_from)."""
    return items[draw(st.integers(0, len(items) - 1))]


class _Builder:
    def __init__(self, draw: Any) -> None:
        self.draw = draw
        self.records: list[Rec] = []
        self.prefix = draw(st.integers(0, 2**32 - 1))
        # a few histories use ids like "user_001" (not hexadecimal)
        self.hex_ids = draw(st.integers(0, 9)) > 0
        self.timestamps = _pick(draw, ["all", "some", "none"])
        self.n = 0
        self.n_tools = 0
        self.n_msgs = 0
        self.tool_ids: list[str] = []
        self.last_uuid: str | None = None
        self.pending_results: list[Rec] = []

    # ids -------------------------------------------------------------
    def uuid(self) -> str:
        self.n += 1
        if self.hex_ids:
            return f"{self.prefix:08x}-{self.n:04x}-4abc-8def-{self.n * 7919:012x}"
        return f"rec_{self.n:03d}"

    def tool_id(self, kind: str = "toolu") -> str:
        self.n_tools += 1
        tid = f"{kind}_{self.n_tools:02d}"
        self.tool_ids.append(tid)
        return tid

    def old_tool_id(self) -> str:
        if self.tool_ids and self.draw(st.booleans()):
            return _pick(self.draw, self.tool_ids)
        return "toolu_unknown"

    # records ---------------------------------------------------------
    def base(self, type_: str) -> Rec:
        uuid = self.uuid()
        rec: Rec = {"type": type_, "uuid": uuid, "parentUuid": self.last_uuid, "sessionId": "s1"}
        if self.timestamps == "all" or (self.timestamps == "some" and self.draw(st.booleans())):
            rec["timestamp"] = f"2025-01-01T00:{self.n // 60:02d}:{self.n % 60:02d}Z"
        self.last_uuid = uuid
        return rec

    def emit(self, rec: Rec) -> Rec:
        self.records.append(rec)
        return rec

    def user(self, content: Any, **flags: Any) -> Rec:
        return self.emit(
            self.base("user") | {"message": {"role": "user", "content": content}} | flags
        )

    def user_flags(self) -> dict[str, Any]:
        flag = self.draw(st.integers(0, 19))
        if flag < 3:
            return {"isMeta": True}
        if flag == 3:
            return {"isVirtual": True}
        if flag == 4:
            return {"isCompactSummary": True, "isVisibleInTranscriptOnly": True}
        if flag == 5:
            return {"isMeta": False}
        return {}

    def prompt(self) -> None:
        shape = self.draw(st.integers(0, 5))
        content: Any
        if shape <= 2:
            content = self.draw(short_texts)
        elif shape == 3:
            content = None
        else:
            content = self.draw(st.lists(user_blocks, max_size=3))
        self.user(content, **self.user_flags())

    def results_user(self, ids: list[str]) -> None:
        """A tool-result-only user record (maybe with noise) answering ``ids``."""
        draw = self.draw
        blocks = [tool_result_block(draw, tid) for tid in ids]
        noise = draw(st.integers(0, 9))
        if noise == 0 and ids:
            blocks.append(tool_result_block(draw, ids[0]))  # duplicate result
        elif noise == 1:
            blocks.append(tool_result_block(draw, self.old_tool_id()))  # orphan / stale
        elif noise == 2:
            blocks.append({"type": "text", "text": _pick(draw, ["", " ", "\n"])})
        elif noise == 3:
            blocks.insert(0, {"type": "text", "text": "[Request interrupted by user]"})
        elif noise == 4 and len(blocks) > 1:
            blocks.reverse()
        flags: dict[str, Any] = {}
        if ids:
            flags["toolUseResult"] = {"stdout": "ok", "n": 1}
            if draw(st.booleans()):
                flags["sourceToolAssistantUUID"] = self.last_uuid
        self.user(blocks, **flags)

    def assistant(self, content: Any, mid: Any, **extra: Any) -> Rec:
        rec = self.base("assistant")
        message: Rec = {"role": "assistant", "content": content, "type": "message"}
        if mid is not _ABSENT:
            message["id"] = mid
        message["model"] = extra.pop("model", "claude-sonnet-4-5")
        if self.draw(st.integers(0, 3)) == 0:
            message["usage"] = {"input_tokens": 12, "output_tokens": 2**40}
        rec["message"] = message
        rec["requestId"] = "req_1"
        rec.update(extra)
        return self.emit(rec)

    def assistant_turn(self) -> None:
        draw = self.draw
        self.n_msgs += 1
        mid_kind = draw(st.integers(0, 9))
        mid: Any = (
            f"msg_{self.n_msgs:02d}" if mid_kind < 8 else (None if mid_kind == 8 else _ABSENT)
        )
        flags: dict[str, Any] = {}
        flag = draw(st.integers(0, 19))
        if flag == 0:
            flags["isVirtual"] = True
        elif flag == 1:
            flags["isMeta"] = True
        if draw(st.integers(0, 9)) == 0:  # a string content
            self.assistant(draw(short_texts), mid, **flags)
            return
        outstanding: list[str] = []
        n_fragments = draw(st.integers(1, 4))
        for _ in range(n_fragments):
            blocks: list[Rec] = []
            if self.pending_results and draw(st.booleans()):
                # the result of a server tool use streamed in a later fragment
                blocks.append(self.pending_results.pop(0))
            for _ in range(1 if draw(st.integers(0, 4)) else 2):
                blocks += self.fragment_blocks(outstanding)
            self.assistant(blocks, mid, **flags)
            if outstanding and draw(st.integers(0, 2)) > 0:
                # tool-result-only user record between fragments
                answered = outstanding if draw(st.booleans()) else outstanding[:1]
                self.results_user(answered)
                outstanding = [t for t in outstanding if t not in answered]
        self.pending_results = []
        if outstanding and draw(st.integers(0, 3)) > 0:
            self.results_user(outstanding)
        # (else: interrupted calls, never answered)

    def fragment_blocks(self, outstanding: list[str]) -> list[Rec]:
        draw = self.draw
        kind = draw(st.integers(0, 11))
        if kind <= 1:
            return [draw(thinking_blocks)]
        if kind <= 4:
            return [draw(text_blocks)]
        if kind <= 6:
            tid = self.old_tool_id() if draw(st.integers(0, 9)) == 0 else self.tool_id()
            outstanding.append(tid)
            return [
                {
                    "type": "tool_use",
                    "id": tid,
                    "name": _pick(draw, ["Bash", "Read", "Écrire"]),
                    "input": draw(json_objects),
                }
            ]
        if kind <= 8:
            use_type, result_type = _pick(draw, server_pairs)
            sid = self.tool_id("srvtoolu")
            use: Rec = {"type": use_type, "id": sid, "name": "web_search", "input": {"query": "q"}}
            if use_type == "mcp_tool_use":
                use["server_name"] = "srv"
            result: Rec = {
                "type": result_type,
                "tool_use_id": sid,
                "content": [{"type": "web_search_result", "url": "https://e.x", "title": "t"}],
            }
            where = draw(st.integers(0, 2))
            if where == 0:
                return [use, result]
            if where == 1:
                if draw(st.booleans()):
                    self.pending_results.append(result)  # answered by a later fragment
                return [use]  # else unanswered
            return [result, use]
        if kind == 9:
            return [draw(unknown_blocks)]
        if kind == 10:
            return [{"type": "text", "text": _pick(draw, ["", " ", "\n\n"])}]
        return [draw(image_blocks)]

    def api_error(self) -> None:
        self.n_msgs += 1
        model = "<synthetic>" if self.draw(st.integers(0, 3)) else "claude-sonnet-4-5"
        self.assistant(
            [{"type": "text", "text": "API Error: 529 overloaded"}],
            f"msg_{self.n_msgs:02d}",
            isApiErrorMessage=True,
            model=model,
        )

    def system(self) -> None:
        rec = self.base("system")
        subtype = _pick(
            self.draw, ["local_command", "local_command", "informational", "compact_boundary"]
        )
        rec["subtype"] = subtype
        rec["content"] = self.draw(short_texts)
        rec["level"] = "info"
        rec["isMeta"] = False
        self.emit(rec)

    def attachment(self) -> None:
        draw = self.draw
        rec = self.base("attachment")
        field_value = attachment_field
        kind = draw(st.integers(0, 8))
        att: Rec
        if kind == 0:
            att = {
                "type": _pick(draw, ["memory", "nested_memory"]),
                "path": "/p/CLAUDE.md",
                "content": draw(short_texts),
            }
        elif kind == 1:
            att = {"type": "date"}
            if draw(st.integers(0, 4)):
                att["date"] = "2025-01-02" if draw(st.booleans()) else draw(field_value)
        elif kind == 2:
            att = {"type": "queued_command", "prompt": draw(field_value)}
        elif kind == 3:
            att = {"type": "edited_text_file", "filename": "a.py", "snippet": draw(short_texts)}
        elif kind == 4:
            att = {"type": "todo", "item": draw(field_value), "count": draw(field_value)}
        elif kind == 5:
            att = {"type": "hook_additional_context", "content": draw(short_texts)}
        elif kind == 6:
            att = {"type": "hook_success", "content": draw(field_value)}
        else:
            att = {"type": "plan_mode", "planExists": draw(st.booleans())}
        rec["attachment"] = att
        self.emit(rec)

    def noise(self) -> None:
        draw = self.draw
        kind = draw(st.integers(0, 4))
        if kind == 0:
            rec = self.base("progress")
            rec["data"] = {"type": "bash_progress", "output": "..."}
            rec["toolUseID"] = self.old_tool_id()
            rec["parentToolUseID"] = rec["toolUseID"]
            self.emit(rec)
        elif kind == 1:
            rec = self.base("tool_use_summary")
            rec["summary"] = "Ran 2 commands"
            rec["precedingToolUseIds"] = list(self.tool_ids[-2:])
            self.emit(rec)
        elif kind == 2:
            self.emit({"type": "summary", "summary": "Session", "leafUuid": self.last_uuid})
        elif kind == 3:
            self.emit({"type": "file-history-snapshot", "messageId": "m", "snapshot": {"a": [1]}})
        else:
            self.emit(
                {"type": _pick(draw, ["queue-operation", "custom-title"]), "uuid": self.uuid()}
            )

    def orphan_results(self) -> None:
        self.results_user([self.old_tool_id()])


_ABSENT = object()

# the _Builder method of each event, weighted by repetition
_EVENTS = [
    "prompt",
    "prompt",
    "prompt",
    "assistant_turn",
    "assistant_turn",
    "assistant_turn",
    "assistant_turn",
    "api_error",
    "system",
    "attachment",
    "attachment",
    "noise",
    "orphan_results",
]


@st.composite
def histories(draw: Any, max_events: int = 10) -> list[Rec]:
    """A valid history (SPEC §1): a list of JSON-shaped record dicts."""
    b = _Builder(draw)
    n_events = draw(st.integers(0, max_events))
    for _ in range(n_events):
        getattr(b, _pick(draw, _EVENTS))()
    records = b.records
    # tombstones, pointing mostly at real records, placed anywhere
    for _ in range(draw(st.integers(0, 2))):
        uuids = [r["uuid"] for r in records if isinstance(r.get("uuid"), str)]
        target = _pick(draw, uuids) if uuids and draw(st.integers(0, 3)) else "gone-uuid"
        position = draw(st.integers(0, len(records)))
        message = {"uuid": target, "role": "assistant", "content": []}
        records.insert(position, {"type": "tombstone", "message": message})
    return records


# --------------------------------------------------------------------------
# options
# --------------------------------------------------------------------------

attachment_templates = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {},
        optional={
            "date": st.sampled_from([None, "D={date}", "{{{date}}}", ""]),
            "memory": st.sampled_from([None, "{path} -> {content}"]),
            "todo": st.sampled_from(["todo {item} #{count}", "{item}"]),
            "hook_additional_context": st.just(None),
            "plan_mode": st.just("plan mode is on"),
        },
    ),
)


@st.composite
def api_options(draw: Any) -> dict[str, Any]:
    """Random keyword arguments for normalize_for_api."""
    opts: dict[str, Any] = {}
    if draw(st.integers(0, 3)) == 0:
        opts["strict"] = True
    if draw(st.booleans()):
        opts["max_media"] = _pick(draw, [None, 0, 1, 2, 3, 100])
    if draw(st.integers(0, 3)) == 0:
        opts["short_ids"] = True
    if draw(st.integers(0, 3)) == 0:
        opts["ensure_user_first"] = False
    templates = draw(attachment_templates)
    if templates is not None:
        opts["attachment_templates"] = templates
    return opts


count_options = st.fixed_dictionaries(
    {},
    optional={
        "chars_per_token": st.sampled_from([1.0, 3.3, 4.0, 0.1, 2.5]),
        "tokens_per_message": st.integers(0, 5),
        "tokens_per_image": st.sampled_from([0, 85, 1600]),
        "tokens_per_document": st.sampled_from([0, 3000]),
    },
)

# --------------------------------------------------------------------------
# invalid histories (one corruption of a valid one)
# --------------------------------------------------------------------------

_CORRUPTIONS = [
    ("record", 5),
    ("record", "user"),
    ("delete", "type"),
    ("set", "type", 7),
    ("delete", "uuid"),
    ("set", "uuid", None),
    ("delete", "message"),
    ("set", "message", "hi"),
    ("msg_delete", "content"),
    ("msg_set", "content", 3),
    ("msg_delete", "role"),
    ("msg_set", "uuid", 1),
    ("block", "bare"),
    ("block_delete", "type"),
    ("block_delete", "text"),
    ("block_delete", "id"),
    ("block_delete", "tool_use_id"),
    ("block_set", "content", {"x": 1}),
    ("set", "subtype", None),
    ("set", "content", ["x"]),
    ("set", "attachment", None),
    ("set", "data", "x"),
    ("delete", "toolUseID"),
    ("set", "precedingToolUseIds", "x"),
    ("delete", "summary"),
]


@st.composite
def invalid_histories(draw: Any) -> list[Any]:
    """A valid history with one corruption applied (which may still be valid:
    e.g. deleting a field an entry does not need); callers compare outcomes."""
    records: list[Any] = copy.deepcopy(draw(histories(max_events=6)))
    if not records:
        return [5]
    i = draw(st.integers(0, len(records) - 1))
    rec = records[i]
    op = _pick(draw, _CORRUPTIONS)
    if op[0] == "record":
        records[i] = op[1]
    elif op[0] == "delete":
        rec.pop(op[1], None)
    elif op[0] == "set":
        rec[op[1]] = op[2]
    elif op[0].startswith("msg_") and isinstance(rec.get("message"), dict):
        if op[0] == "msg_delete":
            rec["message"].pop(op[1], None)
        else:
            rec["message"][op[1]] = op[2]
    elif op[0].startswith("block"):
        content = (
            rec.get("message", {}).get("content") if isinstance(rec.get("message"), dict) else None
        )
        if isinstance(content, list) and content:
            j = draw(st.integers(0, len(content) - 1))
            blk = content[j]
            inner = blk.get("content") if isinstance(blk, dict) else None
            if isinstance(inner, list) and inner and draw(st.booleans()):
                content, j = inner, 0  # corrupt a block nested in a tool_result
                blk = content[0]
            if op[0] == "block":
                content[j] = "bare string"
            elif op[0] == "block_delete":
                blk.pop(op[1], None)
            else:
                blk[op[1]] = op[2]
    return records
