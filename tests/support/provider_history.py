"""A generated OpenAI Chat Completions history for the provider-adapter benchmarks.

Turns of: a user question, an assistant message with one or two tool calls, their
tool results, and the assistant's answer (text lengths drawn from a seeded RNG).
"""

from __future__ import annotations

import json
import random
from typing import Any

_WORDS = "the a tool file line error value user model test data run path result ok".split()


def _text(rng: random.Random, lo: int, hi: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(lo, hi)))


def openai_chat_history(n: int, seed: int = 0) -> list[dict[str, Any]]:
    """``n`` Chat Completions messages, a system message first."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = [{"role": "system", "content": "You are a coding agent."}]
    turn = 0
    while len(out) < n:
        turn += 1
        out.append({"role": "user", "content": _text(rng, 10, 60)})
        calls = [
            {
                "id": f"call_{turn}_{k}",
                "type": "function",
                "function": {
                    "name": rng.choice(("read_file", "run", "grep")),
                    "arguments": json.dumps(
                        {"path": f"src/{_text(rng, 1, 2)}.py", "n": k}, separators=(",", ":")
                    ),
                },
            }
            for k in range(rng.randint(1, 2))
        ]
        out.append({"role": "assistant", "content": None, "tool_calls": calls})
        for c in calls:
            out.append({"role": "tool", "tool_call_id": c["id"], "content": _text(rng, 20, 150)})
        out.append({"role": "assistant", "content": _text(rng, 10, 80)})
    return out[:n]
