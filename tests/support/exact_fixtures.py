"""The exact-count fixtures: texts and records we wrote, and the content text
(SPEC §6.3) as a plain reference reads it.

``cd tests && python -m support.exact_fixtures`` (tiktoken installed, the rank files
reachable as tests/support/bpe_files.py finds them) writes their tiktoken counts
to tests/data/exact_tokens.json; tests/test_exact_tokens.py checks msgnorm against
the stored counts, and recounts with tiktoken when it can.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from support.bpe_files import tiktoken_encoding

STORED = Path(__file__).resolve().parent.parent / "data" / "exact_tokens.json"

_PROSE = (
    "The lighthouse keeper wrote the same line in his log every night: calm sea, "
    "steady light, no ships. On the ninth night he wrote something else. It wasn't "
    "a storm; it was a rowing boat with nobody in it, drifting past the rocks at "
    "half past two, its oars shipped neatly as if someone had meant to come back."
)
_CODE = (
    "def merge(a: list[int], b: list[int]) -> list[int]:\n"
    "    out, i, j = [], 0, 0\n"
    "    while i < len(a) and j < len(b):\n"
    "        if a[i] <= b[j]:\n"
    "            out.append(a[i]); i += 1\n"
    "        else:\n"
    "            out.append(b[j]); j += 1\n"
    "    return out + a[i:] + b[j:]\n"
)
_RUST = 'fn main() {\n\tlet v: Vec<u32> = (1..=10).filter(|x| x % 3 == 0).collect();\n\tprintln!("{v:?}");\n}'
_CJK = (
    "我们在山脚下的小镇住了三天，每天早上都去河边的茶馆喝茶。"
    "町の図書館は古い倉庫を改装したもので、二階の窓から港が見える。"
    "오늘은 비가 와서 우산을 두 개나 잃어버렸다."
)
_EMOJI = "Shipped it 🚀🚀 — tests green ✅, coffee ☕️ gone, team 👩‍💻👨‍💻 happy 🎉 flags 🇳🇴🇰🇷"
_MIXED = (
    "Résumé: naïve café in Zürich; Ελληνικά λόγια; русский текст; עברית; العربية; "
    "हिन्दी वाक्य; ไทย; 1,234.56 € and ¥7,890 — ‘quotes’ «guillemets»"
)
_WHITESPACE = (
    "columns:" + " " * 40 + "end\n" + "\t" * 12 + "tabbed\n\n\n\n" + " " * 300 + "x" + " " * 25
)
_LOG = "\n".join(
    f"2026-03-{d:02d}T0{d % 10}:15:42Z INFO worker[{d * 7}] processed batch={d * 131} ok"
    for d in range(1, 16)
)
_INPUT = {
    "file_path": "/home/dev/project/src/parser/tokens.py",
    "old_string": "    return out + a[i:] + b[j:]\n",
    "new_string": "    out.extend(a[i:])\n    out.extend(b[j:])\n    return out\n",
    "replace_all": False,
    "limits": [1, 20, 300, None],
    "note": "keep the ‘quotes’ and 日本語",
}

TEXTS: dict[str, str] = {
    "english prose": _PROSE,
    "python code": _CODE,
    "rust code": _RUST,
    "CJK prose": _CJK,
    "emoji": _EMOJI,
    "mixed scripts": _MIXED,
    "whitespace runs": _WHITESPACE,
    "log lines": _LOG,
    "compact JSON": json.dumps(_INPUT, separators=(",", ":"), ensure_ascii=False),
    "pretty JSON": json.dumps(_INPUT, indent=2, ensure_ascii=False),
    "contractions and case": "THEY'LL say it's FINE; We'VE heard You'RE done. I'M not. don't",
    "digits": "3.14159265358979 and 1000000007 and 0x7fffffff and 2026-11-28",
    "paths and URLs": "see https://example.org/a/b?c=1&d=two#frag and ../../etc//hosts///",
}


def _user(content: Any, uuid: str) -> dict[str, Any]:
    return {"type": "user", "uuid": uuid, "message": {"role": "user", "content": content}}


def _assistant(content: Any, uuid: str) -> dict[str, Any]:
    msg = {"id": f"msg_{uuid}", "role": "assistant", "model": "gpt-4o", "content": content}
    return {"type": "assistant", "uuid": uuid, "message": msg}


RECORDS: list[dict[str, Any]] = [
    _user(_PROSE, "u1"),
    _assistant([{"type": "text", "text": _CODE}], "a1"),
    _assistant(
        [
            {"type": "thinking", "thinking": "Which file?", "signature": "c2ln"},
            {"type": "text", "text": "Editing the parser."},
            {"type": "tool_use", "id": "call_1", "name": "Edit", "input": _INPUT},
        ],
        "a2",
    ),
    _user(
        [
            {
                "type": "tool_result",
                "tool_use_id": "call_1",
                "content": "The file /home/dev/project/src/parser/tokens.py has been updated.",
            }
        ],
        "u2",
    ),
    _assistant(
        [
            {"type": "tool_use", "id": "call_2", "name": "Bash", "input": {"command": "ls -la"}},
            {"type": "tool_use", "id": "call_3", "name": "Read", "input": {"path": "日志.txt"}},
        ],
        "a3",
    ),
    _user(
        [
            {
                "type": "tool_result",
                "tool_use_id": "call_2",
                "content": [{"type": "text", "text": _LOG}],
            },
            {
                "type": "tool_result",
                "tool_use_id": "call_3",
                "content": [
                    {"type": "text", "text": _CJK},
                    {
                        "type": "image",
                        "source": {
                            "type": "base64",
                            "media_type": "image/png",
                            "data": "iVBORw0KGgo=",
                        },
                    },
                    {"type": "text", "text": _EMOJI},
                ],
            },
        ],
        "u3",
    ),
    {"type": "system", "uuid": "s1", "subtype": "informational", "content": "not a message"},
    _user([{"type": "text", "text": _MIXED}, {"type": "text", "text": _WHITESPACE}], "u4"),
    _assistant([{"type": "text", "text": _RUST}], "a4"),
    _user("", "u5"),
    {"type": "summary", "summary": "a summary entry", "leafUuid": "a4"},
]


def _block_parts(block: dict[str, Any]) -> list[str]:
    kind = block.get("type")
    if kind == "text":
        return [block["text"]]
    if kind in ("tool_use", "server_tool_use", "mcp_tool_use"):
        compact = json.dumps(block.get("input"), separators=(",", ":"), ensure_ascii=False)
        return [block.get("name", "") + compact]
    if kind == "tool_result":
        return _content_parts(block.get("content"))
    return []


def _content_parts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [p for b in content if isinstance(b, dict) for p in _block_parts(b)]
    return []


def reference_content(record: dict[str, Any]) -> str | None:
    """SPEC §6.3's content text of ``record``, read plainly (``None``: not a message)."""
    if record.get("type") not in ("user", "assistant"):
        return None
    return "\n".join(_content_parts(record.get("message", {}).get("content")))


def tiktoken_counts(encoding: Any) -> dict[str, Any]:
    """The fixtures' counts by a tiktoken ``Encoding``."""
    texts = {k: len(encoding.encode_ordinary(t)) for k, t in TEXTS.items()}
    records = []
    for r in RECORDS:
        text = reference_content(r)
        records.append(0 if text is None else len(encoding.encode_ordinary(text)) + 3)
    return {"texts": texts, "records": records}


def main() -> None:
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for name in ("o200k_base", "cl100k_base"):
            enc = tiktoken_encoding(name, Path(scratch))
            if enc is None:
                raise SystemExit(f"{name}: tiktoken or the rank file is missing")
            out[name] = tiktoken_counts(enc)
    STORED.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {STORED}")


if __name__ == "__main__":
    main()
