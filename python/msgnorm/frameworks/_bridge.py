"""What every framework adapter shares: the Anthropic Messages shape as the bridge
to msgnorm records, through the core's provider adapters."""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import importlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .. import providers
from ..errors import InvalidRecordError


def need(module: str, adapter: str, package: str, extra: str) -> Any:
    """``module`` imported, or an ImportError that names the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError as e:  # pragma: no cover - the error names the extra
        raise ImportError(
            f"msgnorm's {adapter} adapter needs {package}: pip install 'msgnorm[{extra}]'"
        ) from e


def plain(msg: Any, index: int, kind: str, **dump: Any) -> dict[str, Any]:
    """A framework message as a dict: a dict as it is, a pydantic model as its
    ``model_dump(**dump)``; anything else raises ``InvalidRecordError`` naming
    ``messages[index]`` and the ``kind`` expected."""
    if isinstance(msg, dict):
        return msg
    model_dump = getattr(msg, "model_dump", None)
    if callable(model_dump):
        out: dict[str, Any] = model_dump(**dump)
        return out
    raise InvalidRecordError(
        f"messages[{index}]: expected {kind} or dict, not {type(msg).__name__}",
        index,
        f"messages[{index}]",
    )


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


# --- repairs that keep what the framework keeps -------------------------------------

_THINKING = ("thinking", "redacted_thinking")
_ANTHROPIC_ID = re.compile(r"^[a-zA-Z0-9_-]+$")
_BEDROCK_ID = re.compile(r"^[a-zA-Z0-9_.:-]{1,64}$")


def provider_of(model: Any) -> tuple[str | None, str | None]:
    """The provider whose rules apply and the model's name, read from a model
    object (its class and name attributes) or a model name; ``(None, None)`` for a
    model that names no provider (a test or fake model)."""
    if model is None:
        return None, None
    if isinstance(model, str):
        name: str | None = model
        cls = ""
    else:
        cls = type(model).__name__.lower()
        name = None
        for attr in ("model_name", "model", "model_id"):
            value = getattr(model, attr, None)
            if isinstance(value, str) and value:
                name = value
                break
    if name and ":" in name and not name.startswith(("arn:", "us.", "eu.")):
        prefix, _, rest = name.partition(":")
        known = {
            "anthropic": "anthropic",
            "openai": "openai-chat",
            "openai-chat": "openai-chat",
            "openai-responses": "openai-responses",
            "google-gla": "gemini",
            "google-vertex": "gemini",
            "gemini": "gemini",
            "bedrock": "bedrock",
        }
        if prefix in known:
            return known[prefix], rest
    if "bedrock" in cls:
        return "bedrock", name
    if "anthropic" in cls:
        return "anthropic", name
    if "responses" in cls:
        return "openai-responses", name
    if "openai" in cls:
        use_responses = getattr(model, "use_responses_api", None)
        return ("openai-responses" if use_responses else "openai-chat"), name
    if "google" in cls or "gemini" in cls:
        return "gemini", name
    lowered = (name or "").lower()
    if lowered.startswith("claude"):
        return "anthropic", name
    if lowered.startswith(("gpt", "o1", "o3", "o4", "chatgpt", "codex")):
        return "openai-chat", name
    if lowered.startswith("gemini"):
        return "gemini", name
    if "fake" in cls or "test" in cls or "function" in cls:
        return None, None
    return None, name


def _id_ok(call_id: str, provider: str | None) -> bool:
    if provider == "anthropic":
        return bool(_ANTHROPIC_ID.match(call_id))
    if provider == "openai-chat":
        return len(call_id) <= 40
    if provider == "bedrock":
        return bool(_BEDROCK_ID.match(call_id))
    if provider is None:  # every provider's rules
        return len(call_id) <= 40 and bool(_ANTHROPIC_ID.match(call_id))
    return bool(call_id)


def _new_id(call_id: str, taken: set[str]) -> str:
    """A valid id for ``call_id`` (``[a-zA-Z0-9_-]``, at most 40 characters, the
    same for the same id), none of ``taken``."""
    clean = re.sub(r"[^a-zA-Z0-9_-]", "_", call_id)[:24] or "call"
    out = f"{clean}_{hashlib.sha256(call_id.encode()).hexdigest()[:8]}"
    base, k = out, 1
    while out in taken:  # a reused id: the second use, the third, ...
        k += 1
        out = f"{base}{k}"
    return out


def _rename_ids(messages: list[dict[str, Any]], provider: str | None) -> None:
    """Tool ids the provider refuses, and an id a later turn reuses, renamed the same
    way in the call and its result (in place; the dicts are the shape's copies)."""
    taken = {
        b["id"]
        for m in messages
        if m["role"] == "assistant" and isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_use" and isinstance(b.get("id"), str)
    }
    seen: set[str] = set()
    current: dict[str, str] = {}  # the id a result answers -> its name in the request
    for m in messages:
        if not isinstance(m["content"], list):
            continue
        if m["role"] == "assistant":
            current = {}
            renamed: list[dict[str, Any]] = []
            for b in m["content"]:
                if b.get("type") != "tool_use" or not isinstance(b.get("id"), str):
                    renamed.append(b)
                    continue
                old = b["id"]
                new = old
                if not _id_ok(old, provider) or old in seen:
                    new = _new_id(old, taken | seen)
                    taken.add(new)
                seen.add(new)
                current.setdefault(old, new)
                renamed.append(b if new == old else {**b, "id": new})
            m["content"] = renamed
        else:
            fixed: list[dict[str, Any]] = []
            for b in m["content"]:
                if b.get("type") == "tool_result" and b.get("tool_use_id") in current:
                    new = current[b["tool_use_id"]]
                    if new != b["tool_use_id"]:
                        b = {**b, "tool_use_id": new}
                fixed.append(b)
            m["content"] = fixed
            current = {}


def _rename_tools(messages: list[dict[str, Any]], provider: str | None) -> None:
    from ..providers._tools import tool_name

    target = (
        provider
        if provider in ("anthropic", "openai-chat", "openai-responses", "gemini", "bedrock")
        else "anthropic"
    )
    for m in messages:
        if m["role"] != "assistant" or not isinstance(m["content"], list):
            continue
        m["content"] = [
            {**b, "name": tool_name(b["name"], target)}
            if b.get("type") == "tool_use"
            and isinstance(b.get("name"), str)
            and tool_name(b["name"], target) != b["name"]
            else b
            for b in m["content"]
        ]


def _drop_foreign_thinking(
    messages: list[dict[str, Any]], made_by: list[str | None], model: str | None
) -> None:
    """Thinking of an assistant message a known other model wrote is dropped: its
    signature binds it to that model."""
    from ..providers._thinking import same_model

    if not model:
        return
    for m, by in zip(messages, made_by, strict=True):
        if m["role"] != "assistant" or not by or same_model(by, model):
            continue
        if isinstance(m["content"], list):
            m["content"] = [b for b in m["content"] if b.get("type") not in _THINKING]


def repair(
    messages: list[dict[str, Any]],
    system: list[str],
    *,
    provider: str | None = None,
    model: str | None = None,
    made_by: list[str | None] | None = None,
    clear_tool_results: Any = None,
    max_tokens: int | None = None,
) -> dict[str, Any]:
    """The Anthropic shape of a framework's history repaired for ``provider`` and
    ``model``: thinking another model signed dropped, ids and tool names the
    provider refuses (and ids a later turn reuses) renamed, then
    ``normalize_for_api``'s rules; ``clear_tool_results`` (``True`` or its
    options) and a ``max_tokens`` budget edit the records first."""
    shape = [
        {**m, "content": list(m["content"])} if isinstance(m["content"], list) else dict(m)
        for m in messages
    ]
    if made_by is not None:
        _drop_foreign_thinking(shape, made_by, model)
    _rename_ids(shape, provider)
    _rename_tools(shape, provider)
    if clear_tool_results is None and max_tokens is None:
        return convert_anthropic(shape, system)
    return to_anthropic(edited(from_anthropic(shape, system), clear_tool_results, max_tokens))


def edited(records: Any, clear_tool_results: Any, max_tokens: int | None) -> Any:
    """``records`` after a hook's edits: ``clear_tool_results`` (``True`` or its
    options; ``None`` or ``False``: none), then trimmed to a ``max_tokens`` budget."""
    from .. import _api, editing

    if clear_tool_results is not None and clear_tool_results is not False:
        options = {} if clear_tool_results is True else dict(clear_tool_results)
        records = editing.clear_tool_results(records, **options)
    if max_tokens is not None:
        records = _api.trim_to_budget(records, max_tokens)
    return records


@dataclasses.dataclass(kw_only=True, eq=False, repr=False)
class HookOptions:
    """What a framework hook repairs for: the target provider and model (read from
    the model in use where not given), ``clear_tool_results`` (``True`` or its
    options) and a token budget (``max_tokens``)."""

    provider: str | None = None
    model: str | None = None
    clear_tool_results: bool | Mapping[str, Any] | None = None
    max_tokens: int | None = None

    def target(
        self, found: Callable[[], tuple[str | None, str | None]]
    ) -> tuple[str | None, str | None]:
        """The provider and model to repair for: the ones given, else what
        ``found()`` reads from the model in use (asked only when needed)."""
        provider, name = self.provider, self.model
        if provider is None or name is None:
            found_provider, found_name = found()
            provider = provider or found_provider
            name = name or found_name
        return provider, name

    def edits(self) -> dict[str, Any]:
        """The editing options, as the repair functions take them."""
        return {"clear_tool_results": self.clear_tool_results, "max_tokens": self.max_tokens}


def lazy_class(module: str, name: str, define: Callable[[], type]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that defines class ``name`` on first use, with
    ``define()`` (which imports the framework it subclasses): the module imports
    without that framework."""
    defined: dict[str, type] = {}

    def __getattr__(attr: str) -> Any:
        if attr != name:
            raise AttributeError(f"module {module!r} has no attribute {attr!r}")
        if name not in defined:
            cls = define()
            cls.__module__ = module
            cls.__qualname__ = name
            defined[name] = cls
        return defined[name]

    return __getattr__


def tool_names(messages: list[dict[str, Any]]) -> dict[str, str]:
    """The name of every tool call of a repaired Anthropic shape, by its id."""
    return {
        b["id"]: b["name"]
        for msg in messages
        if msg["role"] == "assistant"
        for b in blocks_of(msg["content"])
        if b.get("type") == "tool_use"
    }


# --- matching the repaired shape to the framework's own objects -----------------------


def block_key(role: str, block: Any) -> str:
    return role + json.dumps(block, sort_keys=True, default=str)


def blocks_of(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return [b for b in content if isinstance(b, dict)]


class Unit:
    """One message of the framework's history: its role and its Anthropic blocks,
    each with the part of the message it came from (``None`` for a message with no
    blocks, such as a system prompt)."""

    __slots__ = ("blocks", "parts", "role", "roles")

    def __init__(
        self,
        role: str | None,
        blocks: list[dict[str, Any]],
        parts: list[int],
        roles: list[str] | None = None,
    ) -> None:
        self.role = role
        self.blocks = blocks
        self.parts = parts
        # each block's role, for a message that becomes turns of both roles
        self.roles = roles if roles is not None else [role or ""] * len(blocks)


#: a block of the plan: its part when unchanged, the block, the part it replaced
Item = tuple[int | None, dict[str, Any], int | None]
#: a message of the plan: the original it comes from (None: made), role, blocks
Entry = tuple[int | None, str, list[Item]]


def _opcodes(a: list[str], b: list[str]) -> list[tuple[str, int, int, int, int]]:
    """``difflib``'s opcodes from ``a`` to ``b``, the common head and tail matched
    first (a repair changes a few blocks: the diff runs on those)."""
    head = 0
    end = min(len(a), len(b))
    while head < end and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < end - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
        tail += 1
    ops: list[tuple[str, int, int, int, int]] = []
    if head:
        ops.append(("equal", 0, head, 0, head))
    mid_a, mid_b = a[head : len(a) - tail], b[head : len(b) - tail]
    if mid_a or mid_b:
        sm = difflib.SequenceMatcher(None, mid_a, mid_b, autojunk=False)
        for tag, i1, i2, j1, j2 in sm.get_opcodes():
            ops.append((tag, i1 + head, i2 + head, j1 + head, j2 + head))
    if tail:
        ops.append(("equal", len(a) - tail, len(a), len(b) - tail, len(b)))
    return ops


def reconcile(units: list[Unit], out: list[dict[str, Any]]) -> list[Entry]:
    """The repaired messages as a plan over the originals: for each output message,
    ``(original index or None, role, [(part or None, block, replaced part)])``. An
    original whose blocks came through unchanged has each block with its part; a
    block the repair changed has part ``None`` and the part it replaced, a made
    block neither. Originals with no blocks
    (system prompts) are placed before the next original that survives."""
    a: list[tuple[int, int, str]] = []
    for i, u in enumerate(units):
        if u.role is None:
            continue
        for k, b in enumerate(u.blocks):
            a.append((i, k, block_key(u.roles[k], b)))
    b_items: list[tuple[int, str, dict[str, Any], str]] = []
    for j, m in enumerate(out):
        for blk in blocks_of(m["content"]):
            b_items.append((j, m["role"], blk, block_key(m["role"], blk)))
    # events in output order: (owner original or None, out message, part or None, block)
    events: list[tuple[int | None, int, int | None, dict[str, Any]]] = []
    origins: dict[int, int] = {}  # a replaced block's event -> the part it replaced
    for tag, i1, i2, j1, j2 in _opcodes([x[2] for x in a], [x[3] for x in b_items]):
        if tag == "equal":
            for t in range(i2 - i1):
                i, k, _ = a[i1 + t]
                j, _, blk, _ = b_items[j1 + t]
                events.append((i, j, units[i].parts[k], blk))
        elif tag in ("replace", "insert"):
            n = (i2 - i1) if tag == "replace" else 0
            for t in range(j2 - j1):
                j, role, blk, _ = b_items[j1 + t]
                owner: int | None = None
                if t < n and units[a[i1 + t][0]].roles[a[i1 + t][1]] == role:
                    owner = a[i1 + t][0]
                    origins[len(events)] = units[owner].parts[a[i1 + t][1]]
                events.append((owner, j, None, blk))
    # an unowned block joins the owner before it in the same output message
    plan: list[Entry] = []
    last_j = -1
    for e, (owner, j, part, blk) in enumerate(events):
        role = out[j]["role"]
        item = (part, blk, origins.get(e))
        if plan and j == last_j and (owner is None or owner == plan[-1][0]):
            plan[-1][2].append(item)
        else:
            plan.append((owner, role, [item]))
        last_j = j
    # an original split over two plan entries by a made block is one entry
    merged: list[Entry] = []
    for entry in plan:
        if merged and entry[0] is not None and merged[-1][:2] == entry[:2]:
            merged[-1][2].extend(entry[2])
        else:
            merged.append(entry)
    # blockless originals before the next original that survives
    result: list[Entry] = []
    pending = [i for i, u in enumerate(units) if u.role is None]
    for entry in merged:
        if entry[0] is not None:
            while pending and pending[0] < entry[0]:
                result.append((pending.pop(0), "system", []))
        result.append(entry)
    for i in pending:
        result.append((i, "system", []))
    return result


def reassemble(
    messages: Sequence[Any],
    units: list[Unit],
    out: list[dict[str, Any]],
    rebuilt: Callable[[int, str, list[Item], dict[str, str]], list[Any]],
    made: Callable[[str, list[Item], dict[str, str]], list[Any]],
) -> list[Any]:
    """A framework's history from its repaired Anthropic shape ``out``: each message
    no repair touched is the input's own object, a repaired one is
    ``rebuilt(index, role, items, names)`` and one the repair made is
    ``made(role, items, names)`` (``names``: every tool call's name by its id)."""
    names = tool_names(out)
    result: list[Any] = []
    for owner, role, items in reconcile(units, out):
        if owner is not None and (units[owner].role is None or unchanged(units[owner], items)):
            result.append(messages[owner])
        elif owner is not None:
            result.extend(rebuilt(owner, role, items, names))
        else:
            result.extend(made(role, items, names))
    return result


def repaired(
    messages: Sequence[Any],
    units: list[Unit],
    anthropic: tuple[list[dict[str, Any]], list[str]],
    made_by: list[str | None],
    rebuilt: Callable[[int, str, list[Item], dict[str, str]], list[Any]],
    made: Callable[[str, list[Item], dict[str, str]], list[Any]],
    **options: Any,
) -> list[Any]:
    """A framework's history repaired: its Anthropic shape ``anthropic`` (messages,
    system) through :func:`repair` (``options``: ``provider``, ``model``,
    ``clear_tool_results``, ``max_tokens``; ``made_by``: each shaped message's
    model), then :func:`reassemble` with ``rebuilt`` and ``made``."""
    shape, system = anthropic
    out = repair(shape, system, made_by=made_by, **options)
    return reassemble(messages, units, out["messages"], rebuilt, made)


def unchanged(unit: Unit, blocks: list[Item]) -> bool:
    """Whether a plan entry holds exactly the original's blocks, all unchanged."""
    return len(blocks) == len(unit.blocks) and all(p is not None for p, _, _ in blocks)


def lossless(
    messages: Sequence[Any],
    to_anthropic_fn: Callable[[Sequence[Any]], tuple[list[dict[str, Any]], list[str]]],
    from_anthropic_fn: Callable[[dict[str, Any], dict[str, str]], list[Any]],
    *,
    results_in_caller: bool = False,
    rewrite: Callable[[Any], bool] | None = None,
    **options: Any,
) -> list[Any]:
    """A framework's messages repaired (``repair``'s options), message by message: a
    message no repair touched is the input's own object; a changed or made one is
    written by ``from_anthropic_fn`` from its repaired blocks (and the tool names
    by call id). ``results_in_caller``: the framework keeps tool results in the
    message that called (AgentScope), so a made result changes that message.
    ``rewrite``: whether a message is written again even when its blocks came
    through (the reader made up part of them, such as a missing call id)."""
    shape, system = to_anthropic_fn(messages)  # errors name the index in the history
    units: list[Unit] = []
    for msg in messages:
        own, _ = to_anthropic_fn([msg])
        blocks: list[dict[str, Any]] = []
        roles: list[str] = []
        for m in own:
            for b in blocks_of(m["content"]):
                blocks.append(b)
                roles.append(m["role"])
        role = roles[0] if roles else None
        units.append(Unit(role, blocks, list(range(len(blocks))), roles))
    out = repair(shape, system, **options)
    names = {
        b["id"]: b["name"]
        for m in out["messages"]
        if m["role"] == "assistant"
        for b in blocks_of(m["content"])
        if b.get("type") == "tool_use"
    }
    plan = reconcile(units, out["messages"])

    def made_results(entry: Entry) -> bool:
        return entry[0] is None and all(b.get("type") == "tool_result" for _, b, _ in entry[2])

    result: list[Any] = []
    k = 0
    while k < len(plan):
        owner, role, items = plan[k]
        if owner is None:
            result.extend(from_anthropic_fn({"messages": [_message(role, items)]}, names))
            k += 1
            continue
        group = [plan[k]]
        while k + len(group) < len(plan) and (
            plan[k + len(group)][0] == owner
            or (
                results_in_caller
                and made_results(plan[k + len(group)])
                and units[owner].roles[-1:] == ["assistant"]
            )
        ):
            group.append(plan[k + len(group)])
        k += len(group)
        every = [item for entry in group for item in entry[2]]
        if any(entry[0] is None for entry in group):
            every.append((None, {}, None))  # a made result joined the caller
        if rewrite is not None and rewrite(messages[owner]):
            every.append((None, {}, None))
        if units[owner].role is None or unchanged(units[owner], every):
            result.append(messages[owner])
        else:
            shape_out = {"messages": [_message(r, its) for _, r, its in group]}
            result.extend(from_anthropic_fn(shape_out, names))
    return result


def to_dicts(
    records: Any,
    from_anthropic_fn: Callable[[dict[str, Any]], list[dict[str, Any]]],
    as_objects: Callable[[list[dict[str, Any]]], list[Any]],
    *,
    normalize: bool,
    objects: bool,
) -> list[Any]:
    """msgnorm records as a framework's message dicts (``from_anthropic_fn`` of their
    Anthropic shape), or its objects (``as_objects``) with ``objects=True``."""
    out = from_anthropic_fn(to_anthropic(records, normalize=normalize))
    return as_objects(out) if objects else out


def lossless_dicts(
    messages: Sequence[Any],
    to_anthropic_fn: Callable[[Sequence[Any]], tuple[list[dict[str, Any]], list[str]]],
    from_anthropic_fn: Callable[[dict[str, Any], dict[str, str]], list[dict[str, Any]]],
    as_objects: Callable[[list[dict[str, Any]]], list[Any]],
    **options: Any,
) -> list[Any]:
    """:func:`lossless` (whose options these are; the provider ``"anthropic"`` unless
    given) for a framework whose messages are dicts or objects: a changed or made
    message is written as a dict, or as an object (``as_objects``) when any object
    went in."""
    options.setdefault("provider", "anthropic")
    objects = any(not isinstance(m, dict) for m in messages)

    def written(shape: dict[str, Any], names: dict[str, str]) -> list[Any]:
        out = from_anthropic_fn(shape, names)
        return as_objects(out) if objects else out

    return lossless(messages, to_anthropic_fn, written, **options)


def _message(role: str, items: list[Item]) -> dict[str, Any]:
    return {"role": role, "content": [b for _, b, _ in items]}
