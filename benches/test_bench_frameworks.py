"""The LangChain adapter's repair, side by side: the lossless path
(``repair_langchain``: the repaired Anthropic shape matched back to the input's
own messages) against writing every message anew from the repaired shape (what
``normalize_langchain`` did before), on one LangChain history of N turns, valid
(``ok``) and with one interrupted tool call in the middle (``broken``).
Group ``langchain repair n=N <kind>``."""

from __future__ import annotations

from typing import Any

import pytest

lc = pytest.importorskip("langchain_core.messages")
from msgnorm.frameworks import _bridge  # noqa: E402
from msgnorm.frameworks import langchain as mlc  # noqa: E402

TURNS = 500  # four messages a turn


def _history(broken: bool) -> list[Any]:
    out: list[Any] = []
    for t in range(TURNS):
        out.append(lc.HumanMessage(f"question {t}", id=f"h{t}"))
        call = {"type": "tool_call", "id": f"call_{t}", "name": "get", "args": {"t": t}}
        out.append(
            lc.AIMessage(
                "",
                tool_calls=[call],
                id=f"a{t}",
                usage_metadata={"input_tokens": t, "output_tokens": 1, "total_tokens": t + 1},
            )
        )
        if not (broken and t == TURNS // 2):
            out.append(lc.ToolMessage(f"result {t}", tool_call_id=f"call_{t}", name="get"))
        out.append(lc.AIMessage(f"answer {t}", id=f"b{t}"))
    return out


def _anew(messages: list[Any]) -> list[Any]:
    shape, system = mlc._to_anthropic(messages)
    return mlc._from_anthropic(_bridge.convert_anthropic(shape, system))


@pytest.mark.parametrize("kind", ["ok", "broken"])
def test_lossless_repair(benchmark: Any, kind: str) -> None:
    benchmark.group = f"langchain repair n={TURNS * 4} {kind}"
    msgs = _history(kind == "broken")
    out = benchmark(mlc.repair_langchain, msgs)
    assert sum(o is m for o, m in zip(out, msgs, strict=False)) >= len(msgs) // 2


@pytest.mark.parametrize("kind", ["ok", "broken"])
def test_written_anew(benchmark: Any, kind: str) -> None:
    benchmark.group = f"langchain repair n={TURNS * 4} {kind}"
    msgs = _history(kind == "broken")
    out = benchmark(_anew, msgs)
    assert not any(o is m for o, m in zip(out, msgs, strict=False))
