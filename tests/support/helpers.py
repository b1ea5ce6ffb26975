"""Literal record and block builders for the hand-written tests.

They only spell out JSON shapes (no normalization logic), so expected outputs
built with them are still written by hand from the SPEC.
"""

from __future__ import annotations

import uuid as _uuid
from typing import Any

import pytest

Rec = dict[str, Any]


def text(t: str) -> Rec:
    return {"type": "text", "text": t}


def thinking(t: str = "hmm", signature: str = "sig") -> Rec:
    return {"type": "thinking", "thinking": t, "signature": signature}


def redacted(data: str = "xyz") -> Rec:
    return {"type": "redacted_thinking", "data": data}


def tool_use(id: str, name: str = "Bash", input: Any = None) -> Rec:
    return {"type": "tool_use", "id": id, "name": name, "input": {} if input is None else input}


def server_tool_use(id: str, name: str = "web_search", input: Any = None) -> Rec:
    return {
        "type": "server_tool_use",
        "id": id,
        "name": name,
        "input": {"query": "q"} if input is None else input,
    }


def mcp_tool_use(id: str, name: str = "fetch") -> Rec:
    return {"type": "mcp_tool_use", "id": id, "name": name, "server_name": "srv", "input": {}}


def server_result(id: str, type: str = "web_search_tool_result") -> Rec:
    return {"type": type, "tool_use_id": id, "content": []}


_NO = object()


def tool_result(id: str, content: Any = "ok", *, is_error: Any = _NO) -> Rec:
    blk: Rec = {"type": "tool_result", "tool_use_id": id}
    if content is not _NO:
        blk["content"] = content
    if is_error is not _NO:
        blk["is_error"] = is_error
    return blk


def missing(id: str) -> Rec:
    """§4.6: the synthetic result for a missing id."""
    return {
        "type": "tool_result",
        "tool_use_id": id,
        "content": "[Tool result missing due to internal error]",
        "is_error": True,
    }


def image(data: str = "iVBORw0KGgo=") -> Rec:
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}


def document(data: str = "JVBERi0=", source_type: str = "base64") -> Rec:
    media = "text/plain" if source_type == "text" else "application/pdf"
    return {"type": "document", "source": {"type": source_type, "media_type": media, "data": data}}


def user(uuid: str, content: Any, **extra: Any) -> Rec:
    return {"type": "user", "uuid": uuid, "message": {"role": "user", "content": content}, **extra}


def meta_user(uuid: str, content: Any, **extra: Any) -> Rec:
    return user(uuid, content, isMeta=True, **extra)


def asst(uuid: str, content: Any, *, mid: Any = _NO, model: Any = _NO, **extra: Any) -> Rec:
    message: Rec = {"role": "assistant", "content": content}
    if mid is not _NO:
        message["id"] = mid
    if model is not _NO:
        message["model"] = model
    return {"type": "assistant", "uuid": uuid, "message": message, **extra}


def system(uuid: str, content: str, subtype: str = "informational", **extra: Any) -> Rec:
    return {"type": "system", "uuid": uuid, "subtype": subtype, "content": content, **extra}


def local_command(uuid: str, content: str, **extra: Any) -> Rec:
    return system(uuid, content, subtype="local_command", **extra)


def attachment(uuid: str, att: Rec, **extra: Any) -> Rec:
    return {"type": "attachment", "uuid": uuid, "attachment": att, **extra}


def date_att(uuid: str, date: Any = "2025-01-02", **extra: Any) -> Rec:
    return attachment(uuid, {"type": "date", "date": date}, **extra)


def reminder(t: str) -> str:
    """§5: the wrapped text of an attachment."""
    return "<system-reminder>\n" + t + "\n</system-reminder>"


def progress(uuid: str, tool_use_id: str = "t1") -> Rec:
    return {
        "type": "progress",
        "uuid": uuid,
        "data": {"type": "bash_progress"},
        "toolUseID": tool_use_id,
    }


def tool_use_summary(uuid: str) -> Rec:
    return {
        "type": "tool_use_summary",
        "uuid": uuid,
        "summary": "ran ls",
        "precedingToolUseIds": ["t1"],
    }


def tombstone(target_uuid: str) -> Rec:
    return {"type": "tombstone", "message": {"uuid": target_uuid}}


def entry(type: str = "summary", **extra: Any) -> Rec:
    return {"type": type, **extra}


def tool_loops(n: int) -> list[Rec]:
    """A first user record, then ``n`` tool loops (an assistant tool_use, its result)."""
    out = [user("u", "go")]
    for i in range(n):
        out.append(asst(f"a{i}", [text("looking"), tool_use(f"t{i}", "Read", {"path": "x"})]))
        out.append(user(f"r{i}", [tool_result(f"t{i}", "y" * 200)]))
    return out


def uuid5(prefix: str, assistant_uuid: str) -> str:
    """§4.6/§4.10: uuid5(NAMESPACE_URL, prefix + assistant uuid), prefix being
    "msgnorm:tool-results:" or "msgnorm:first-user:"."""
    return str(_uuid.uuid5(_uuid.NAMESPACE_URL, prefix + assistant_uuid))


def results_uuid(assistant_uuid: str) -> str:
    return uuid5("msgnorm:tool-results:", assistant_uuid)


def first_user_uuid(assistant_uuid: str) -> str:
    return uuid5("msgnorm:first-user:", assistant_uuid)


def raises_invalid(impl: Any, index: int, path: str) -> Any:
    """Context manager: an InvalidRecordError (a ValueError) naming index and path."""
    return _Raises(impl.InvalidRecordError, index=index, path=path)


def raises_pairing(impl: Any, index: int, ids: list[str]) -> Any:
    return _Raises(impl.PairingError, index=index, ids=ids)


class _Raises:
    def __init__(self, cls: type[BaseException], **attrs: Any) -> None:
        self.cls = cls
        self.attrs = attrs
        self._ctx: Any = None

    def __enter__(self) -> Any:
        self._ctx = pytest.raises(self.cls)
        self.info = self._ctx.__enter__()
        return self.info

    def __exit__(self, *exc: Any) -> bool:
        suppressed: bool = self._ctx.__exit__(*exc)
        err = self.info.value
        assert isinstance(err, ValueError)
        for key, want in self.attrs.items():
            got = getattr(err, key)
            if key == "ids":
                got = list(got)
            assert got == want, f"{key}: {got!r} != {want!r}"
        if "path" in self.attrs:
            assert self.attrs["path"] in str(err)
        return suppressed
