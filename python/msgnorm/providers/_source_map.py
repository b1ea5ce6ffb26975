"""``to_provider_report(..., source_map=True)``: for each message of a provider's
request, the input records it came from.

The records are normalized with their source map (``normalize_for_api_report``),
then each record is written on its own in the target's shape: the messages it
gives are its messages, in order, except that where the target joins
consecutive turns of one role (Gemini, Bedrock) a record's first message joins
the one before. System messages at the head of the request come from the
``system_prompt`` records. The result is checked against the request itself:
a request whose messages do not line up (blocks the target cannot carry were
dropped and that changed its turns) raises instead of guessing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._api import normalize_for_api_report
from ..errors import MsgnormError

#: Targets whose writer joins consecutive messages of one role.
_JOINING = ("gemini", "bedrock")


def messages_of(out: Any) -> list[Any]:
    """The message list of a target's output."""
    if isinstance(out, list):
        return out
    if isinstance(out, dict):
        for key in ("messages", "contents"):
            if isinstance(out.get(key), list):
                return list(out[key])
    return []


def _role(m: Any) -> Any:
    if isinstance(m, dict):
        return m.get("role", m.get("type"))
    return None


def _is_system_prompt(r: Any) -> bool:
    return isinstance(r, dict) and r.get("type") == "system" and r.get("subtype") == "system_prompt"


def provider_source_map(
    records: list[Any],
    target: str,
    out: Any,
    write_one: Callable[[Any], Any],
    *,
    normalize: bool,
    max_media: int | None,
) -> list[list[int]]:
    """``write_one(record)``: the target's output for that one normalized record."""
    prompts = [i for i, r in enumerate(records) if _is_system_prompt(r)]
    if normalize:
        normalized, report = normalize_for_api_report(records, source_map=True, max_media=max_media)
        sources: list[list[int]] = report["source_map"]
    else:
        kept = [i for i, r in enumerate(records) if not _is_system_prompt(r)]
        normalized = [records[i] for i in kept]
        sources = [[i] for i in kept]
    mapped: list[list[int]] = []
    roles: list[Any] = []
    for rec, src in zip(normalized, sources, strict=True):
        for k, m in enumerate(messages_of(write_one(rec))):
            role = _role(m)
            if k == 0 and target in _JOINING and roles and roles[-1] == role:
                mapped[-1] = sorted(set(mapped[-1]) | set(src))
            else:
                mapped.append(list(src))
                roles.append(role)
    msgs = messages_of(out)
    head = len(msgs) - len(mapped)
    if (
        head < 0
        or any(_role(m) not in ("system", "developer") for m in msgs[:head])
        or [_role(m) for m in msgs[head:]] != roles
    ):
        raise MsgnormError(
            f"source_map: the {target} request's messages do not line up with the records "
            "(blocks the target cannot carry were dropped and that changed its turns); "
            "normalize_for_api_report(records, source_map=True) maps the records"
        )
    return [list(prompts) for _ in range(head)] + mapped
