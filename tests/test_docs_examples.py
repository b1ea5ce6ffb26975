"""Every ```python block of the README and of docs/ runs.

- README: each block pasted alone into a fresh interpreter (``python -c``), from a
  folder that holds only a copy of ``examples/``, with no API key in the environment
  and every proxy pointing at a closed port (no network).
- docs/: each page's blocks run in order in one namespace (a page reads top to
  bottom), from the same kind of folder. The namespace holds fake provider clients
  (``client``/``anthropic_client``, ``openai_client``, ``genai_client``,
  ``bedrock``) that record each request and check it with ``msgnorm.check`` against
  that provider's rules, so a page's request is one the provider would accept; a
  page that names a client must have called it. A block that imports an optional
  engine or framework (Ray, Daft, pydantic-ai, LangChain, polars) runs where the
  test extra installs it; where it is not installable (pydantic-ai before CPython
  3.11, no wheel for the platform or for a free-threaded CPython) that block alone is left out and the test reports it as skipped,
  after the page's other blocks ran. A page that starts Ray shuts it down.
- In both, the ``# ...`` comment lines right after a ``print(`` line are what it
  prints, checked in order (a line ending in `` ...`` is checked up to the dots).

Blocks that cannot run here are not ```python blocks (``text``, ``sh``, ``pycon``).
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgnorm
import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
EXAMPLES = ROOT / "examples"

_FENCE = re.compile(r"^```python[ \t]*$")
_END = re.compile(r"^```[ \t]*$")


def python_blocks(path: Path) -> list[tuple[int, str]]:
    """The top-level ```python blocks of a Markdown file: (first code line, code)."""
    blocks: list[tuple[int, str]] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    start: int | None = None
    for i, line in enumerate(lines):
        if start is None and _FENCE.match(line):
            start = i + 1
        elif start is not None and _END.match(line):
            blocks.append((start + 1, "\n".join(lines[start:i]) + "\n"))
            start = None
    assert start is None, f"{path}: a ```python block opened at line {start} is never closed"
    return blocks


def _pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md")) if DOCS.is_dir() else []


def _readme_blocks() -> list[tuple[int, str]]:
    return python_blocks(README) if README.exists() else []


def _with_examples(tmp_path: Path) -> Path:
    if not EXAMPLES.is_dir():
        pytest.skip(f"{EXAMPLES} is not beside the tests (testing an installed wheel elsewhere)")
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["examples"]
    return tmp_path


def shown_output(code: str) -> list[str]:
    """The output a block shows: the ``# ...`` comment lines right after a ``print(``
    line, comment marks removed."""
    shown: list[str] = []
    after_print = False
    for line in code.splitlines():
        stripped = line.strip()
        if after_print and line.startswith("# "):
            shown.append(line[2:])
            continue
        after_print = stripped.startswith("print(")
    return shown


def assert_shown(where: str, code: str, stdout: str) -> None:
    """What the block says it prints, it prints, in that order; a shown line ending
    in `` ...`` stands for any printed line that starts with what comes before the
    dots (space included)."""
    printed = iter(stdout.splitlines())
    for expected in shown_output(code):
        head = expected[:-3] if expected.endswith(" ...") else None
        found = any(
            got == expected or (head is not None and got.startswith(head)) for got in printed
        )
        assert found, f"{where}: {expected!r} not printed (in that order):\n{stdout}"


def _offline_env() -> dict[str, str]:
    keyless = {
        k: v for k, v in os.environ.items() if not re.search(r"API_KEY|TOKEN|SECRET|PROXY", k)
    }
    closed = "http://127.0.0.1:9"  # discard port: nothing listens
    return {**keyless, "HTTP_PROXY": closed, "HTTPS_PROXY": closed, "ALL_PROXY": closed}


def test_the_blocks_are_found(tmp_path: Path) -> None:
    """The extractor takes ```python blocks only, with the line each starts on."""
    probe = tmp_path / "probe.md"
    probe.write_text("```python\nx = 1\n```\n\n```text\nnot python\n```\n```python\ny = 2\n```\n")
    assert python_blocks(probe) == [(2, "x = 1\n"), (9, "y = 2\n")]
    code = "for i in (1, 2):\n    print(i)\n# 1\n# 2\nx = 3  # not shown\nprint(x)\n# 3\n# 4 \n"
    assert shown_output(code) == ["1", "2", "3", "4 "]
    assert_shown("probe", "print(1)\n# 1\nprint('a b')\n# a ...\n", "1\na b c\n")
    with pytest.raises(AssertionError, match="not printed"):
        assert_shown("probe", "print(2)\n# 2\nprint(1)\n# 1\n", "1\n2\n")  # order
    with pytest.raises(AssertionError, match="not printed"):
        assert_shown("probe", "print(1)\n# 1 ...\n", "12\n")
    if not README.exists():
        pytest.skip("the README is not beside the tests")
    assert len(_readme_blocks()) >= 1
    assert sum(len(python_blocks(p)) for p in _pages()) >= 10


@pytest.mark.parametrize(
    ("line", "code"),
    _readme_blocks(),
    ids=[f"README.md:{line}" for line, _ in _readme_blocks()],
)
def test_readme_block_runs_pasted_alone(line: int, code: str, tmp_path: Path) -> None:
    folder = _with_examples(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        env=_offline_env(),
    )
    assert proc.returncode == 0, f"README.md:{line}\n{code}\n{proc.stderr}"
    assert_shown(f"README.md:{line}", code, proc.stdout)


# ---------------------------------------------------------------------------
# fake provider clients for docs/
# ---------------------------------------------------------------------------


class _Endpoint:
    """One ``create``-like method: checks the request against ``provider``'s rules."""

    def __init__(self, calls: list[tuple[str, dict[str, Any]]], provider: str) -> None:
        self.calls = calls
        self.provider = provider

    def __call__(self, *args: Any, **kw: Any) -> dict[str, Any]:
        assert not args, f"{self.provider}: pass the request as keywords"
        if self.provider == "anthropic":
            msgnorm.check(kw["messages"], "anthropic", system=kw.get("system"))
        elif self.provider == "openai-chat":
            msgnorm.check(kw["messages"], "openai-chat")
        elif self.provider == "openai-responses":
            msgnorm.check(kw["input"], "openai-responses", store=kw.get("store", True))
        elif self.provider == "gemini":
            msgnorm.check(kw["contents"], "gemini")
        else:
            msgnorm.check(kw["messages"], "bedrock", tools=kw.get("toolConfig"))
        self.calls.append((self.provider, kw))
        return {"id": f"fake-{len(self.calls)}"}


class _Namespace:
    def __init__(self, **attrs: Any) -> None:
        self.__dict__.update(attrs)


def fake_clients(calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    anthropic = _Namespace(messages=_Namespace(create=_Endpoint(calls, "anthropic")))
    openai = _Namespace(
        chat=_Namespace(completions=_Namespace(create=_Endpoint(calls, "openai-chat"))),
        responses=_Namespace(create=_Endpoint(calls, "openai-responses")),
    )
    genai = _Namespace(models=_Namespace(generate_content=_Endpoint(calls, "gemini")))
    bedrock = _Namespace(converse=_Endpoint(calls, "bedrock"))
    return {
        "client": anthropic,
        "anthropic_client": anthropic,
        "openai_client": openai,
        "genai_client": genai,
        "bedrock": bedrock,
    }


def test_the_fake_clients_refuse_what_the_provider_refuses() -> None:
    calls: list[tuple[str, dict[str, Any]]] = []
    fakes = fake_clients(calls)
    broken = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]},
    ]  # fmt: skip
    with pytest.raises(msgnorm.ProviderRuleError):
        fakes["client"].messages.create(model="m", max_tokens=1, messages=broken)
    assert calls == []
    fakes["client"].messages.create(model="m", max_tokens=1, messages=broken[:1])
    assert calls == [("anthropic", {"model": "m", "max_tokens": 1, "messages": broken[:1]})]


_PAGES = [p for p in _pages() if python_blocks(p)]

# top-level modules of optional extras that some platforms or Pythons cannot install
# an optional module a block imports -> what installs it
_OPTIONAL = {
    "ray": "msgnorm[ray]",
    "daft": "msgnorm[daft]",
    "pydantic_ai": "msgnorm[pydantic-ai]",
    "langchain": "msgnorm[langchain] and langchain",
    "langchain_core": "msgnorm[langchain]",
    "polars": "polars",
}


def optional_imports(code: str) -> set[str]:
    """The optional top-level modules a block imports."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names & _OPTIONAL.keys()


def _missing(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is None
    except ValueError:  # in sys.modules without a spec
        return False


@pytest.fixture
def ray_sandbox(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Ray, if a page starts it: local, no usage report, its files in a short
    temporary folder (its sockets' paths must be short), shut down afterwards."""
    temp = tempfile.mkdtemp(prefix="ray")
    monkeypatch.setenv("RAY_TMPDIR", temp)
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    try:
        yield
    finally:
        ray = sys.modules.get("ray")
        if ray is not None and ray.is_initialized():
            ray.shutdown()
        shutil.rmtree(temp, ignore_errors=True)


def test_optional_imports_are_found() -> None:
    code = "import ray\nimport msgnorm.ray\nfrom pydantic_ai.messages import X\nimport polars\n"
    assert optional_imports(code) == {"ray", "pydantic_ai", "polars"}
    assert optional_imports("from msgnorm.frameworks import pydantic_ai\n") == set()


@pytest.mark.parametrize("page", _PAGES, ids=[str(p.relative_to(ROOT)) for p in _PAGES])
def test_docs_page_blocks_run(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ray_sandbox: None
) -> None:
    monkeypatch.chdir(_with_examples(tmp_path))
    for key in [k for k in os.environ if re.search(r"API_KEY", k)]:
        monkeypatch.delenv(key)
    calls: list[tuple[str, dict[str, Any]]] = []
    fakes = fake_clients(calls)
    namespace: dict[str, Any] = {"__name__": "__docs__", **fakes}
    text = page.read_text(encoding="utf-8")
    left_out: list[str] = []
    for line, code in python_blocks(page):
        where = f"{page.relative_to(ROOT)}:{line}"
        missing = sorted(m for m in optional_imports(code) if _missing(m))
        if missing:
            extras = ", ".join(_OPTIONAL[m] for m in missing)
            left_out.append(f"{where} ({extras} is not installed for this Python)")
            continue
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(code, where, "exec"), namespace)
        except NameError as e:
            if not left_out:
                raise AssertionError(f"{where}: {type(e).__name__}: {e}\n{code}") from e
            # a name a block left out above defines
            left_out.append(f"{where} (needs {e.name}, from a block left out)")
            continue
        except Exception as e:
            raise AssertionError(f"{where}: {type(e).__name__}: {e}\n{code}") from e
        assert_shown(where, code, out.getvalue())
    called = {p for p, _ in calls}
    for name, provider in [
        ("openai_client.chat", "openai-chat"),
        ("openai_client.responses", "openai-responses"),
        ("genai_client.", "gemini"),
        ("bedrock.converse", "bedrock"),
        ("client.messages", "anthropic"),
    ]:
        if name in text:
            assert provider in called, f"{page.name}: {name} is in the page but never ran"
    ray = sys.modules.get("ray")
    assert ray is None or not ray.is_initialized(), f"{page.name} starts Ray and leaves it running"
    if left_out:
        pytest.skip("every other block ran; left out: " + "; ".join(left_out))


def test_the_api_page_names_every_public_name() -> None:
    """docs/api.md renders (``::: msgnorm.NAME``) or names (in backticks) every
    name of ``msgnorm.__all__`` and ``msgnorm.arrow.__all__``."""
    page = DOCS / "api.md"
    if not page.exists():
        pytest.skip("docs/ is not beside the tests")
    import msgnorm.arrow

    text = page.read_text(encoding="utf-8")
    rendered = set(re.findall(r"^::: msgnorm\.([\w.]+)$", text, re.M))
    named = set(re.findall(r"`(?:msgnorm\.)?([\w.]+)`", text))
    missing = [n for n in msgnorm.__all__ if n not in rendered | named]
    missing += [f"arrow.{n}" for n in msgnorm.arrow.__all__ if f"arrow.{n}" not in rendered | named]
    assert missing == []
    for name in rendered:  # each rendered name exists
        obj: Any = msgnorm
        for part in name.split("."):
            obj = getattr(obj, part)


def test_the_readme_is_short_and_its_first_commands_are_what_ci_runs() -> None:
    if not README.exists():
        pytest.skip("the README is not beside the tests")
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    first_sh = text.split("```sh\n", 1)[1].split("```", 1)[0]
    commands = [line for line in first_sh.splitlines() if line and not line.startswith("#")]
    assert len(commands) == 2
    assert commands[0] == "pip install . && msgnorm normalize examples/session.jsonl"
    ci = ROOT / ".ci" / "run"
    if ci.exists():  # CI runs the README's test command as written
        assert commands[1] in ci.read_text(encoding="utf-8")
