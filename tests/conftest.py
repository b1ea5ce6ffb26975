"""Shared fixtures: the ``impl`` fixture and the hypothesis profiles.

Every test runs against each (implementation, input kind) pair:

- ``("reference", "dicts")``: tests/support/reference.py on lists of dicts;
- ``("msgnorm", "dicts")``: the real package on lists of dicts;
- ``("msgnorm", "bytes")``: the real package on ``json.dumps(records).encode()``
  (JSON bytes in, JSON bytes of an array out; decoded here for comparison);
- ``("msgnorm", "structs")``: the real package on ``msgnorm.from_builtins(records)``
  (msgnorm Structs in, Structs out; turned back with ``msgnorm.to_builtins``).

The msgnorm params are skipped only when ``import msgnorm`` fails.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, reject, settings
from hypothesis.control import currently_in_test_context
from support import extra_deps, reference

# --------------------------------------------------------------------------
# hypothesis profiles: HYPOTHESIS_PROFILE, else "ci" when CI=true, else "dev"
# --------------------------------------------------------------------------

_common: dict[str, Any] = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}
# CI runs the same examples every time (derandomize): what passes here passes
# there; `dev` and `long` search afresh.
settings.register_profile("ci", max_examples=200, derandomize=True, **_common)
# .ci/run's tests of the built wheels: the same fixed examples, fewer of them (the
# README's command has run "ci" on the same source)
settings.register_profile("ci-wheel", max_examples=50, derandomize=True, **_common)
settings.register_profile("dev", max_examples=50, **_common)
settings.register_profile("long", max_examples=5000, **_common)
_default_profile = "ci" if os.environ.get("CI", "").lower() == "true" else "dev"
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or _default_profile)

# --------------------------------------------------------------------------
# implementations
# --------------------------------------------------------------------------

# Functions whose first argument is the record list (converted per kind).
RECORD_FUNCTIONS = frozenset(
    {
        "normalize_messages",
        "normalize_for_api",
        "to_anthropic",
        "count_tokens_per_record",
        "count_tokens",
        "find_cutoff",
        "trim_to_budget",
        "split_for_summary",
    }
)
# Of those, the ones that count tokens. The reference is SPEC §6's formula: msgnorm
# is compared with it under tokenizer="chars" (unless a test names a tokenizer or
# passes a §6 option, which selects it).
COUNTING_FUNCTIONS = frozenset(
    {
        "count_tokens_per_record",
        "count_tokens",
        "find_cutoff",
        "trim_to_budget",
        "split_for_summary",
    }
)
SECTION_6_OPTIONS = frozenset(
    {
        "tokenizer",
        "chars_per_token",
        "tokens_per_message",
        "tokens_per_image",
        "tokens_per_document",
    }
)
# Of those, the ones that return records (bytes in -> JSON array bytes out).
RECORD_OUTPUTS = frozenset(
    {"normalize_messages", "normalize_for_api", "to_anthropic", "trim_to_budget"}
)

PUBLIC_FUNCTIONS = (
    "derive_uuid",
    "derive_short_message_id",
    "normalize_messages",
    "normalize_for_api",
    "to_anthropic",
    "render_attachment",
    "count_tokens_per_record",
    "count_tokens",
    "find_cutoff",
    "trim_to_budget",
    "split_for_summary",
)


def _in_hypothesis() -> bool:
    return bool(currently_in_test_context())


def _decode(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return json.loads(bytes(value))
    if isinstance(value, tuple):
        return tuple(_decode(v) for v in value)
    return value


class Impl:
    """One implementation under one input kind.

    ``impl.normalize_for_api(records, **kw)`` etc. take and return plain
    JSON-shaped Python values whatever the kind; exceptions are those of the
    implementation (``impl.InvalidRecordError``, ``impl.PairingError``,
    ``impl.BudgetError``). With the "dicts" kind the wrapper also checks that
    the input was not mutated (§4: input records are never mutated).
    """

    def __init__(self, name: str, kind: str, module: ModuleType) -> None:
        self.name = name
        self.kind = kind
        self.module = module
        self.InvalidRecordError: type[ValueError] = module.InvalidRecordError
        self.PairingError: type[ValueError] = module.PairingError
        self.BudgetError: type[ValueError] = module.BudgetError

    def __repr__(self) -> str:
        return f"Impl({self.name!r}, {self.kind!r})"

    @property
    def id(self) -> str:
        return f"{self.name}-{self.kind}"

    def call(self, fn_name: str, *args: Any, **kwargs: Any) -> Any:
        fn: Callable[..., Any] = getattr(self.module, fn_name)
        if fn_name not in RECORD_FUNCTIONS:
            return fn(*args, **kwargs)
        if (
            self.name == "msgnorm"
            and fn_name in COUNTING_FUNCTIONS
            and not SECTION_6_OPTIONS & kwargs.keys()
        ):
            kwargs = {**kwargs, "tokenizer": "chars"}
        records, *rest = args
        if self.kind == "dicts":
            snapshot = copy.deepcopy(records)
            try:
                return fn(records, *rest, **kwargs)
            finally:
                assert records == snapshot, f"{self}: {fn_name} mutated its input"
        if self.kind == "bytes":
            data = json.dumps(records).encode()
            out = fn(data, *rest, **kwargs)
            if fn_name in RECORD_OUTPUTS:
                assert isinstance(out, bytes), f"{self}: {fn_name} on bytes returned {type(out)}"
                decoded = json.loads(out)
                assert isinstance(decoded, list), f"{self}: {fn_name} did not return a JSON array"
                return decoded
            return _decode(out)
        if self.kind == "structs":
            try:
                structs = self.module.from_builtins(records)
            except self.module.InvalidRecordError:
                # The typed model also checks the types of the optional fields it
                # names (e.g. `isMeta` must be a bool); a generated history it cannot
                # represent has no Struct form: hypothesis draws another one.
                if _in_hypothesis():
                    reject()
                raise
            out = fn(structs, *rest, **kwargs)
            if fn_name in RECORD_OUTPUTS and fn_name != "to_anthropic":
                assert isinstance(out, list), f"{self}: {fn_name} returned {type(out)}"
                return self.module.to_builtins(out)
            if fn_name == "split_for_summary":
                return tuple(self.module.to_builtins(part) for part in out)
            return out
        raise AssertionError(f"unknown input kind {self.kind!r}")

    def __getattr__(self, fn_name: str) -> Callable[..., Any]:
        if fn_name.startswith("_"):
            raise AttributeError(fn_name)

        def bound(*args: Any, **kwargs: Any) -> Any:
            return self.call(fn_name, *args, **kwargs)

        bound.__name__ = fn_name
        return bound


def run(impl: Impl, fn_name: str, records: Any, *args: Any, **kwargs: Any) -> Any:
    """Call ``fn_name`` of ``impl`` on ``records`` in ``impl``'s input kind."""
    return impl.call(fn_name, records, *args, **kwargs)


def import_msgnorm() -> ModuleType:
    """``import msgnorm``, skipping the test (only) when that import fails."""
    try:
        import msgnorm
    except ImportError as exc:
        pytest.skip(f"msgnorm is not importable yet ({exc}); build it with `maturin develop`")
    return msgnorm


IMPL_PARAMS = [
    pytest.param(("reference", "dicts"), id="reference-dicts"),
    pytest.param(("msgnorm", "dicts"), id="msgnorm-dicts"),
    pytest.param(("msgnorm", "bytes"), id="msgnorm-bytes"),
    pytest.param(("msgnorm", "structs"), id="msgnorm-structs"),
]


def make_impl(name: str, kind: str) -> Impl:
    if name == "reference":
        return Impl(name, kind, reference)
    return Impl(name, kind, import_msgnorm())


@pytest.fixture(scope="module", params=IMPL_PARAMS)
def impl(request: pytest.FixtureRequest) -> Impl:
    """The implementation under test (module-scoped so hypothesis tests may use it)."""
    name, kind = request.param
    return make_impl(name, kind)


@pytest.fixture(scope="session")
def ref() -> Impl:
    """The reference implementation (the oracle of the differential tests)."""
    return Impl("reference", "dicts", reference)


# --------------------------------------------------------------------------
# the test extra's missing dependencies (a free-threaded CPython lacks those
# without a free-threaded wheel): listed with the tests that skipped for them
# --------------------------------------------------------------------------

_skipped: dict[str, list[str]] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped and isinstance(report.longrepr, tuple):
        reason = str(report.longrepr[2]).removeprefix("Skipped: ")
        _skipped.setdefault(reason, []).append(report.nodeid)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    missing = extra_deps.missing()
    if not missing:
        return
    tr = terminalreporter
    tr.section("test dependencies not installed")
    tr.write_line(f"{extra_deps.interpreter()}: not installed: {', '.join(missing)}")
    needles = {m.lower().replace("-", "_").split("[")[0] for m in missing}
    needles |= {n.split("_")[0] for n in needles if "_" in n}
    for reason, ids in sorted(_skipped.items()):
        text = reason.lower().replace("-", "_")
        if any(n in text for n in needles):
            tr.write_line(f"{len(ids):5d} skipped: {reason}")
