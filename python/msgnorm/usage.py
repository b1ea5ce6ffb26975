"""What Claude Code sessions used and cost: one entry per API request, across files.

A streamed reply is written as several assistant records sharing ``message.id``
and ``requestId``, each with the usage known when it was written; output tokens
only grow, so the record with the most ``output_tokens`` is the request's usage.
Resumed sessions replay the same requests in other files: each request counts
once across all the files read. The files are read in the Rust core, on every
core, with the GIL released.
"""

from __future__ import annotations

import hashlib
import os
import stat
import warnings
from collections.abc import Iterable, Mapping
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict, Union, overload

import msgspec

from . import _native
from ._codex import COUNTS, is_rollout, rollout_requests
from .errors import MsgnormError
from .session import session_files

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "ModelPrices",
    "Usage",
    "UsageOptions",
    "session_usage",
    "usage_and_groups",
    "usage_files",
]

PathArg = Union[str, "os.PathLike[str]"]
By = Literal["session", "day", "model", "project"]

#: Prices of one model, in USD: ``input``, ``output``, ``cache_write_5m``,
#: ``cache_write_1h`` (defaults to ``cache_write_5m``) and ``cache_read`` per
#: million tokens, ``web_search`` per request.
ModelPrices = Mapping[str, float]


class Usage(msgspec.Struct, kw_only=True):
    """Token usage of a set of API requests, each counted once.

    ``input_tokens`` excludes the cache (as the API reports it);
    ``cache_creation_5m_input_tokens`` and ``cache_creation_1h_input_tokens`` split
    ``cache_creation_input_tokens`` by cache lifetime where the transcript says
    (``usage.cache_creation``). ``models`` holds the same fields per model,
    ``subagents`` the share of subagents' requests (``None`` inside ``models``
    and ``subagents``). ``cost`` is in USD, ``None`` without prices; models
    without a price are listed in ``unpriced`` and left out of ``cost``.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_creation_5m_input_tokens: int = 0
    cache_creation_1h_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    server_tool_use: dict[str, int] = {}
    requests: int = 0
    models: dict[str, Usage] = {}
    subagents: Usage | None = None
    cost: float | None = None
    unpriced: list[str] = []

    def to_dict(self) -> dict[str, Any]:
        """The fields as plain JSON-ready values."""
        out: dict[str, Any] = msgspec.to_builtins(self)
        return out


# --- prices -----------------------------------------------------------------


def _table_cost(t: Mapping[str, Any], p: ModelPrices) -> Decimal:
    def price(key: str, default: float = 0.0) -> Decimal:
        return Decimal(str(p.get(key, default)))

    w5 = price("cache_write_5m")
    w1 = price("cache_write_1h", float(w5))
    split = t["cache_creation_5m_input_tokens"] + t["cache_creation_1h_input_tokens"]
    # Writes the transcript does not split by lifetime are priced as 5-minute writes.
    rest = max(0, t["cache_creation_input_tokens"] - split)
    mtok = Decimal(1_000_000)
    cost: Decimal = (
        price("input") * t["input_tokens"] / mtok
        + price("output") * t["output_tokens"] / mtok
        + w5 * (t["cache_creation_5m_input_tokens"] + rest) / mtok
        + w1 * t["cache_creation_1h_input_tokens"] / mtok
        + price("cache_read") * t["cache_read_input_tokens"] / mtok
        + price("web_search") * t["server_tool_use"].get("web_search_requests", 0)
    )
    return cost


def _genai_cost(t: Mapping[str, Any], model: str) -> Decimal | None:
    try:
        import genai_prices
    except ImportError:  # the [prices] extra brings it
        return None
    one_hour = t["cache_creation_1h_input_tokens"]
    written = t["cache_creation_input_tokens"]
    usage = genai_prices.Usage(
        # genai-prices counts cached tokens inside input_tokens; the API does not
        input_tokens=t["input_tokens"] + written + t["cache_read_input_tokens"],
        output_tokens=t["output_tokens"],
        cache_write_tokens=written,
        cache_write_1h_tokens=min(one_hour, written),
        cache_read_tokens=t["cache_read_input_tokens"],
        web_searches=t["server_tool_use"].get("web_search_requests", 0),
    )
    try:
        calc = genai_prices.calc_price(usage, model, provider_id="anthropic")
    except LookupError:
        return None
    except ValueError:  # unknown model (genai-prices raises LookupError or ValueError)
        return None
    total: Decimal = Decimal(calc.total_price)
    return total


def _genai_available() -> bool:
    try:
        import genai_prices  # noqa: F401
    except ImportError:
        return False
    return True


# --- building Usage ---------------------------------------------------------


def _totals(t: Mapping[str, Any], **extra: Any) -> Usage:
    return Usage(
        **{k: t[k] for k in COUNTS},
        server_tool_use=dict(t["server_tool_use"]),
        **extra,
    )


def _priced(
    models: Mapping[str, Mapping[str, Any]], prices: Mapping[str, ModelPrices] | bool
) -> tuple[dict[str, Usage], float | None, list[str]]:
    out: dict[str, Usage] = {}
    total = Decimal(0)
    unpriced: list[str] = []
    any_price = False
    for name, t in models.items():
        cost: Decimal | None = None
        if isinstance(prices, Mapping):
            p = prices.get(name, prices.get("*"))
            cost = None if p is None else _table_cost(t, p)
        elif prices is True:
            cost = _genai_cost(t, name)
        if cost is None:
            if prices is not False and t["requests"]:
                unpriced.append(name)
        else:
            any_price = True
            total += cost
        out[name] = _totals(t, cost=None if cost is None else float(cost))
    return out, (float(total) if any_price else None), unpriced


def _usage(agg: Mapping[str, Any], prices: Mapping[str, ModelPrices] | bool) -> Usage:
    models, cost, unpriced = _priced(agg["models"], prices)
    sub_models, sub_cost, sub_unpriced = _priced(agg["subagent_models"], prices)
    subagents = _totals(agg["subagents"], models=sub_models, cost=sub_cost, unpriced=sub_unpriced)
    return _totals(agg["total"], models=models, subagents=subagents, cost=cost, unpriced=unpriced)


def _add_totals(a: dict[str, Any], b: Mapping[str, Any]) -> None:
    for k in COUNTS:
        a[k] += b[k]
    for k, v in b["server_tool_use"].items():
        a["server_tool_use"][k] = a["server_tool_use"].get(k, 0) + v


def _copy_totals(t: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(t)
    out["server_tool_use"] = dict(t["server_tool_use"])
    return out


def _merge(a: dict[str, Any] | None, b: Mapping[str, Any]) -> dict[str, Any]:
    """Two aggregates (``total``, ``models``, ``subagents``, ``subagent_models``) summed."""
    if a is None:
        return {
            "total": _copy_totals(b["total"]),
            "subagents": _copy_totals(b["subagents"]),
            "models": {k: _copy_totals(v) for k, v in b["models"].items()},
            "subagent_models": {k: _copy_totals(v) for k, v in b["subagent_models"].items()},
        }
    _add_totals(a["total"], b["total"])
    _add_totals(a["subagents"], b["subagents"])
    for key in ("models", "subagent_models"):
        for k, v in b[key].items():
            if k in a[key]:
                _add_totals(a[key][k], v)
            else:
                a[key][k] = _copy_totals(v)
    return a


# --- files and dates --------------------------------------------------------


def _row(path: str) -> tuple[str, bool, str, str]:
    """``(path, is a subagent file, session, project)``, the session and project
    being those of the file's records when they do not say."""
    parts = (path.replace(os.altsep, os.sep) if os.altsep else path).split(os.sep)
    if "subagents" in parts[:-1]:
        i = len(parts) - 1 - parts[::-1].index("subagents")
        return path, True, parts[i - 1] if i >= 1 else "", parts[i - 2] if i >= 2 else ""
    name = parts[-1]
    project = parts[-2] if len(parts) >= 2 else ""
    return path, name.startswith("agent-"), os.path.splitext(name)[0], project


def _jsonl_under(root: str) -> list[tuple[str, os.stat_result]]:
    """Every ``*.jsonl`` file under ``root`` with its ``stat``, as
    ``Path(root).rglob`` finds them (symbolic links to directories are not
    followed, unreadable directories are passed over), in ``Path`` order."""
    found: list[tuple[str, os.stat_result]] = []
    stack = [root]
    while stack:
        d = stack.pop()
        try:
            with os.scandir(d) as it:
                entries = list(it)
        except PermissionError:
            continue
        for e in entries:
            try:
                if e.is_dir(follow_symlinks=False):
                    stack.append(e.path)
                elif e.name.endswith(".jsonl"):
                    st = e.stat()
                    if stat.S_ISREG(st.st_mode):
                        found.append((e.path, st))
            except OSError:  # gone, or a broken link: not a file
                continue
    found.sort(key=lambda f: os.path.normcase(f[0]).split(os.sep))
    return found


def _usage_files(paths: PathArg | Iterable[PathArg]) -> list[tuple[str, os.stat_result]]:
    """:func:`usage_files` as strings, with each file's ``stat``."""
    items: list[PathArg] = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    out: list[tuple[str, os.stat_result]] = []
    seen: set[tuple[int, int]] = set()
    for item in items:
        p = Path(item).expanduser()
        if p.is_dir():
            found = _jsonl_under(str(p))
        else:
            found = [(str(q), q.stat()) for q in session_files(p)]
        for q, st in found:
            key = (st.st_dev, st.st_ino)
            if key not in seen:
                seen.add(key)
                out.append((q, st))
    return out


def usage_files(paths: PathArg | Iterable[PathArg]) -> list[Path]:
    """The files :func:`session_usage` reads: every ``*.jsonl`` under a directory
    (subagent files included), a session file with its subagent files; each once."""
    return [Path(q) for q, _st in _usage_files(paths)]


def _instant(value: str | date | datetime, utc: bool, end: bool) -> datetime:
    """A ``--since``/``--until`` value as an aware datetime; a date is its
    midnight (``end``: the next midnight, so that the day is included)."""
    if isinstance(value, str):
        try:
            value = date.fromisoformat(value) if len(value) <= 10 else datetime.fromisoformat(value)
        except ValueError:
            raise MsgnormError(f"not an ISO date: {value!r} (e.g. 2026-01-31)") from None
    if not isinstance(value, datetime):
        value = datetime(value.year, value.month, value.day) + (
            timedelta(days=1) if end else timedelta()
        )
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc) if utc else value.astimezone()
    return value.astimezone(timezone.utc)


def _iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def _day(minute: str, utc: bool) -> str:
    if not minute:
        return "unknown"
    try:
        t = datetime.strptime(minute, "%Y-%m-%dT%H:%M").replace(tzinfo=timezone.utc)
    except ValueError:
        return "unknown"
    return (t if utc else t.astimezone()).date().isoformat()


# --- the per-file cache ----------------------------------------------------


class _Cached(msgspec.Struct, array_like=True):
    size: int
    mtime_ns: int
    name: str
    lines_skipped: int


_INDEX = "index.json"


def _through_cache(
    root: Path, rows: list[tuple[str, bool, str, str]], num_threads: int | None
) -> tuple[list[tuple[str, bool, str, str]], int]:
    """``rows`` with each file replaced by its cached requests (read again only
    when its size or mtime changed), and the skipped lines of all the files."""
    root.mkdir(parents=True, exist_ok=True)
    index_path = root / _INDEX
    index: dict[str, _Cached] = {}
    if index_path.exists():
        try:
            index = msgspec.json.decode(index_path.read_bytes(), type=dict[str, _Cached])
        except msgspec.DecodeError:
            index = {}  # a damaged index: every file is read again
    stale: list[tuple[int, str, os.stat_result]] = []
    for i, (path, _agent, _s, _p) in enumerate(rows):
        key = str(Path(path).resolve())
        st = os.stat(path)
        hit = index.get(key)
        if (
            hit is None
            or hit.size != st.st_size
            or hit.mtime_ns != st.st_mtime_ns
            or not (root / hit.name).is_file()
        ):
            stale.append((i, key, st))
    if stale:
        fresh = _native.usage_entries(
            [(rows[i][0], rows[i][1]) for i, _k, _st in stale], num_threads
        )
        for (_i, key, st), (data, skipped) in zip(stale, fresh, strict=True):
            name = hashlib.sha256(key.encode()).hexdigest()[:32] + ".entries"
            tmp = root / f"{name}.{os.getpid()}.tmp"
            tmp.write_bytes(data)
            os.replace(tmp, root / name)
            index[key] = _Cached(st.st_size, st.st_mtime_ns, name, skipped)
        tmp = root / f"{_INDEX}.{os.getpid()}.tmp"
        tmp.write_bytes(msgspec.json.encode(index))
        os.replace(tmp, index_path)
    out = []
    skipped_total = 0
    for path, _agent, session, project in rows:
        hit = index[str(Path(path).resolve())]
        skipped_total += hit.lines_skipped
        # the cached records say isSidechain themselves
        out.append((str(root / hit.name), False, session, project))
    return out, skipped_total


def _add_rollouts(
    raw: dict[str, Any],
    rollouts: list[Path],
    native_by: str,
    since_at: datetime | None,
    until_at: datetime | None,
) -> None:
    """Codex rollouts' requests added to the scan's ``total`` and ``groups``."""
    for path in rollouts:
        session, cwd, requests, skipped = rollout_requests(path)
        raw["lines_skipped"] += skipped
        for ts, agg in requests:
            if since_at is not None or until_at is not None:
                try:
                    at = datetime.fromisoformat(ts.replace("Z", "+00:00"))
                except ValueError:
                    continue
                if at.tzinfo is None:
                    at = at.replace(tzinfo=timezone.utc)
                if (since_at is not None and at < since_at) or (
                    until_at is not None and at >= until_at
                ):
                    continue
            raw["total"] = _merge(raw["total"], agg)
            if native_by:
                model = next(iter(agg["models"]))
                key = {"session": session, "project": cwd, "model": model, "minute": ts[:16]}
                groups = raw.setdefault("groups", {})
                groups[key[native_by]] = _merge(groups.get(key[native_by]), agg)


# --- the entry point --------------------------------------------------------


class UsageOptions(TypedDict, total=False):
    """The keyword arguments :func:`session_usage` passes on to :func:`usage_and_groups`."""

    since: str | date | datetime | None
    until: str | date | datetime | None
    utc: bool
    prices: Mapping[str, ModelPrices] | bool | None
    num_threads: int | None
    cache: PathArg | None


@overload
def session_usage(
    paths: PathArg | Iterable[PathArg], *, by: None = None, **options: Unpack[UsageOptions]
) -> Usage: ...
@overload
def session_usage(
    paths: PathArg | Iterable[PathArg], *, by: By, **options: Unpack[UsageOptions]
) -> dict[str, Usage]: ...
def session_usage(
    paths: PathArg | Iterable[PathArg], *, by: By | None = None, **options: Unpack[UsageOptions]
) -> Usage | dict[str, Usage]:
    """The usage of every request in ``paths`` (a session file, a directory, or a
    list of them), each request counted once across all the files.

    Every file is read whole, every branch included (every branch was billed);
    subagent files are included and their share is also in ``Usage.subagents``;
    synthetic replies (``model: "<synthetic>"``) are left out. With ``by``
    (``"session"``, ``"day"``, ``"model"`` or ``"project"``: the record's ``cwd``)
    a ``dict[str, Usage]``, keys sorted. ``since``/``until`` (ISO dates or
    datetimes, in the local time zone unless ``utc``; ``until`` includes its
    day) keep the requests in that range; files last modified before ``since``
    are not read. ``prices``: ``None`` prices with genai-prices when it is
    installed (the ``[prices]`` extra), ``False`` never, or a table
    ``{model: {"input": ..., "output": ..., "cache_write_5m": ...,
    "cache_write_1h": ..., "cache_read": ..., "web_search": ...}}`` in USD per
    million tokens (``"*"`` for any other model). Lines that mention usage but
    cannot be read are skipped with a :class:`UserWarning` that counts them.
    ``cache``: a directory that keeps each file's requests keyed by its path,
    size and mtime, so that a second call reads only the files that changed.
    """
    total, groups = usage_and_groups(paths, by=by, stacklevel=3, **options)
    return total if groups is None else groups


def usage_and_groups(
    paths: PathArg | Iterable[PathArg],
    *,
    by: By | None = None,
    since: str | date | datetime | None = None,
    until: str | date | datetime | None = None,
    utc: bool = False,
    prices: Mapping[str, ModelPrices] | bool | None = None,
    num_threads: int | None = None,
    cache: PathArg | None = None,
    stacklevel: int = 2,
) -> tuple[Usage, dict[str, Usage] | None]:
    """:func:`session_usage`'s total and, with ``by``, its groups, from one reading."""
    if by not in (None, "session", "day", "model", "project"):
        raise MsgnormError(f"by must be one of session, day, model, project, not {by!r}")
    found = _usage_files(paths)
    since_at = None if since is None else _instant(since, utc, end=False)
    until_at = None if until is None else _instant(until, utc, end=True)
    if since_at is not None:
        cutoff = since_at.timestamp()
        found = [(f, st) for f, st in found if st.st_mtime >= cutoff]
    rollouts = [Path(f) for f, _st in found if is_rollout(Path(f))]
    if rollouts:  # Codex rollouts: read in Python, in their own shape
        found = [(f, st) for f, st in found if not is_rollout(Path(f))]
    native_by = {"day": "minute", None: ""}.get(by, by or "")
    rows = [_row(f) for f, _st in found]
    cached_skipped = 0
    if cache is not None:
        rows, cached_skipped = _through_cache(Path(cache).expanduser(), rows, num_threads)
    raw = _native.usage_scan(
        rows,
        native_by,
        None if since_at is None else _iso(since_at),
        None if until_at is None else _iso(until_at),
        num_threads,
    )
    if rollouts:
        _add_rollouts(raw, rollouts, native_by, since_at, until_at)
    skipped = raw["lines_skipped"] + cached_skipped
    if skipped:
        warnings.warn(
            f"msgnorm: {skipped} line(s) mentioning usage could not be read "
            "(not JSON, or a token count that is not a non-negative integer)",
            UserWarning,
            stacklevel=stacklevel,
        )
    price_arg: Mapping[str, ModelPrices] | bool
    price_arg = _genai_available() if prices is None else prices
    total = _usage(raw["total"], price_arg)
    if by is None:
        return total, None
    groups: dict[str, dict[str, Any]] = {}
    if by == "day":
        for minute, agg in raw["groups"].items():
            day = _day(minute, utc)
            groups[day] = _merge(groups.get(day), agg)
    else:
        groups = raw["groups"]
    return total, {k: _usage(groups[k], price_arg) for k in sorted(groups)}
