"""SPEC §6 tokenizer families: ``tokenizer=`` on every counting function, "auto"
from ``message.model``, "chars" as the §6 formula, the calibrated estimates against
exact o200k_base counts of our own texts, ``exact=True``'s dispatch, and the
content text the exact counter encodes."""

from __future__ import annotations

import json
import math
import sys
import types
from pathlib import Path
from typing import Any

import msgnorm
import msgspec
import pytest
from msgnorm import _native
from support.bpe_files import tiktoken_encoding
from support.helpers import asst, image, text, tool_result, tool_use, user

FAMILIES = ("claude", "o200k_base", "gemini")
DATA = Path(__file__).parent / "data" / "tokens"


def _history(model: Any = None) -> list[dict[str, Any]]:
    kw = {} if model is None else {"model": model}
    return [
        user("u1", "Please read the file and tell me what the function on line 1234 does."),
        asst(
            "a1",
            [
                text("Let me look at it."),
                tool_use("t1", "Read", {"file_path": "/src/app/main.py", "limit": 200}),
            ],
            **kw,
        ),
        user("u2", [tool_result("t1", "def main():\n    return 42\n")]),
        asst("a2", [text("It returns 42.")], **kw),
    ]


def _chars(records: list[dict[str, Any]]) -> list[int]:
    """SPEC §6's formula, written out for these records (text, J() of tool calls)."""
    out = []
    for r in records:
        c = r["message"]["content"]
        if isinstance(c, str):
            n = len(c)
        else:
            n = 0
            for b in c:
                if b["type"] == "text":
                    n += len(b["text"])
                elif b["type"] == "tool_use":
                    n += len(b["name"]) + sum(len(k) for k in b["input"])
                    n += sum(len(v) if isinstance(v, str) else 4 for v in b["input"].values())
                elif b["type"] == "tool_result":
                    n += len(b["content"])
        out.append(math.ceil(n / 4) + 3)
    return out


def test_chars_is_the_section_6_formula() -> None:
    h = _history()
    assert msgnorm.count_tokens_per_record(h, tokenizer="chars") == _chars(h)
    # any §6 option selects it
    assert msgnorm.count_tokens_per_record(h, chars_per_token=4) == _chars(h)
    assert msgnorm.count_tokens_per_record(h, tokens_per_message=3) == _chars(h)


@pytest.mark.parametrize("family", FAMILIES)
def test_a_section_6_option_with_a_family_is_a_type_error(family: str) -> None:
    for opt in ("chars_per_token", "tokens_per_message", "tokens_per_image", "tokens_per_document"):
        with pytest.raises(TypeError, match=opt):
            msgnorm.count_tokens(_history(), tokenizer=family, **{opt: 3})
        with pytest.raises(TypeError, match=opt):
            msgnorm.trim_to_budget(_history(), 100, tokenizer=family, **{opt: 3})


def test_an_unknown_tokenizer_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="tokenizer must be one of"):
        msgnorm.count_tokens(_history(), tokenizer="llama")
    with pytest.raises(ValueError, match="exact=True"):
        msgnorm.count_tokens(_history(), tokenizer="cl100k_base")


@pytest.mark.parametrize(
    ("model", "family"),
    [
        (None, "claude"),
        ("claude-sonnet-4-5-20250929", "claude"),
        ("anthropic.claude-3-5-sonnet-20240620-v1:0", "claude"),
        ("us.anthropic.claude-opus-4-1-20250805-v1:0", "claude"),
        ("claude-3-5-sonnet@20240620", "claude"),
        ("gpt-4o-2024-08-06", "o200k_base"),
        ("o3-mini", "o200k_base"),
        ("openai.gpt-oss-120b-1:0", "o200k_base"),
        ("gemini-2.5-pro", "gemini"),
        ("publishers/google/models/gemini-1.5-flash-002", "gemini"),
        ("some-local-model", "claude"),
    ],
)
def test_auto_is_the_family_of_the_model(model: Any, family: str) -> None:
    h = _history(model)
    want = msgnorm.count_tokens_per_record(h, tokenizer=family)
    assert msgnorm.count_tokens_per_record(h) == want
    assert msgnorm.count_tokens_per_record(h, tokenizer="auto") == want
    # the three input kinds agree
    raw = msgspec.json.encode(h)
    assert msgnorm.count_tokens_per_record(raw) == want
    assert msgnorm.count_tokens_per_record(raw.decode()) == want


def test_the_families_differ_and_each_input_kind_agrees() -> None:
    h = _history()
    raw = msgspec.json.encode(h)
    counts = {}
    for t in FAMILIES:
        counts[t] = msgnorm.count_tokens_per_record(h, tokenizer=t)
        assert msgnorm.count_tokens_per_record(raw, tokenizer=t) == counts[t]
        assert msgnorm.count_tokens(h, tokenizer=t) == sum(counts[t])
    assert len({tuple(c) for c in counts.values()}) == 3


def test_budget_functions_take_the_tokenizer() -> None:
    h = _history() * 5
    for t in (*FAMILIES, "chars"):
        per = msgnorm.count_tokens_per_record(h, tokenizer=t)
        budget = sum(per[-4:])
        k = msgnorm.find_cutoff(h, budget, tokenizer=t)
        assert msgnorm.count_tokens(h[k:], tokenizer=t) <= budget
        kept = msgnorm.trim_to_budget(h, budget, tokenizer=t)
        assert msgnorm.count_tokens(kept, tokenizer=t) <= budget
        _, keep = msgnorm.split_for_summary(h, budget, tokenizer=t)
        assert keep == h[k:]
        assert msgnorm.prompt_tokens(h, tokenizer=t) == sum(per)


def test_images_cost_what_the_family_charges() -> None:
    h = [user("u1", [image()])]
    assert msgnorm.count_tokens(h, tokenizer="chars") == 1603
    assert msgnorm.count_tokens(h, tokenizer="o200k_base") == 765 + 3
    assert msgnorm.count_tokens(h, tokenizer="gemini") > 258


def _fixture() -> list[dict[str, Any]]:
    """Our own texts (tests/data/tokens/o200k.json) with their exact o200k_base
    counts (the content text's tokens + 3), computed once with tiktoken."""
    return json.loads((DATA / "o200k.json").read_text())


def test_o200k_estimate_against_exact_counts_of_our_texts() -> None:
    # The bounds the estimate meets today on our own texts (held out of the fit):
    # the median error and the worst CJK prose and compact JSON. Our CJK prose
    # is overcounted by up to 15% (the real CJK texts the weights are fitted on
    # sum to 0.99 of their tokens): an overcount is the safe side, an undercount
    # of CJK is held to 10%. Traditional Chinese, whose characters o200k_base
    # often splits into byte tokens, is held to the same bounds. The §6 formula
    # counts CJK prose at under half its tokens.
    errors = []
    for case in _fixture():
        rec = [user("u1", case["text"])]
        est = msgnorm.count_tokens(rec, tokenizer="o200k_base")
        err = est / case["exact"] - 1
        errors.append(abs(err))
        if case["kind"] == "cjk":
            assert -0.10 <= err <= 0.15, case["name"]
            assert msgnorm.count_tokens(rec, tokenizer="chars") < 0.5 * case["exact"]
        if case["kind"] == "json":
            assert abs(err) <= 0.15, case["name"]
    errors.sort()
    assert errors[len(errors) // 2] <= 0.07
    assert sum(e <= 0.10 for e in errors) >= 0.75 * len(errors)
    assert sum(e <= 0.15 for e in errors) >= 0.95 * len(errors)


def test_rare_han_and_gaps_are_read_and_cost_more() -> None:
    # the features' columns of the Han characters o200k_base has no token for,
    # and of the runs of two or more spaces or tabs (benches/calibrate_tokens.py)
    rare_han, gaps = 15, 16
    text_ = "幾鬱的  x\t\t y z"
    for src in ([user("u1", text_)], [asst("a1", [tool_use("t1", "W", {"s": text_})])]):
        f = _native._token_features(msgspec.json.encode(src))[0]
        assert (f[rare_han], f[gaps]) == (2, 2)
    # 幾 and 鬱 are two o200k tokens each, 的 and 是 one: the rare pair costs more
    rare = [user("u1", "幾鬱" * 50)]
    common = [user("u1", "的是" * 50)]
    for t in ("o200k_base", "claude", "gemini"):
        assert msgnorm.count_tokens(rare, tokenizer=t) > msgnorm.count_tokens(common, tokenizer=t)
    # indentation costs more than single spaces between the same words
    spaced = [user("u1", "\n".join(["a b c"] * 40))]
    indented = [user("u1", "\n".join(["    a    b    c"] * 40))]
    assert msgnorm.count_tokens(indented, tokenizer="o200k_base") > msgnorm.count_tokens(
        spaced, tokenizer="o200k_base"
    )


def test_the_fixture_counts_are_tiktokens(tmp_path: Path) -> None:
    pytest.importorskip("tiktoken")
    enc = tiktoken_encoding("o200k_base", tmp_path)  # offline: MSGNORM_BPE_DIR or tiktoken's cache
    if enc is None:
        pytest.skip("o200k_base's BPE file is not available (MSGNORM_BPE_DIR, TIKTOKEN_CACHE_DIR)")
    for case in _fixture():
        assert len(enc.encode(case["text"], disallowed_special=())) + 3 == case["exact"]


def test_claude_errs_high_where_chars_undercounts() -> None:
    # CJK text and compact JSON: the §6 formula counts a quarter token a character
    cjk = [user("u1", "这是一个关于令牌计数的测试句子，我们希望估计值不要太低。" * 20)]
    assert msgnorm.count_tokens(cjk, tokenizer="claude") > 2 * msgnorm.count_tokens(
        cjk, tokenizer="chars"
    )
    call = [asst("a1", [tool_use("t1", "Edit", {"a": 1, "b": [1, 2, 3], "c": {"d": "e"}})])]
    assert msgnorm.count_tokens(call, tokenizer="claude") > msgnorm.count_tokens(
        call, tokenizer="chars"
    )


def test_content_texts() -> None:
    h = [{"type": "summary", "summary": "s"}, *_history()]
    want = [
        None,
        "Please read the file and tell me what the function on line 1234 does.",
        'Let me look at it.\nRead{"file_path":"/src/app/main.py","limit":200}',
        "def main():\n    return 42\n",
        "It returns 42.",
    ]
    assert _native.content_texts(h) == want
    assert _native.content_texts(msgspec.json.encode(h)) == want


def test_exact_dispatches_to_the_exact_counter(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Any, str]] = []

    def exact_counts(records: Any, encoding: str) -> list[int]:
        calls.append((records, encoding))
        return [0 if t is None else len(t) + 3 for t in _native.content_texts(records)]

    mod = types.ModuleType("msgnorm._exact")
    mod.exact_counts = exact_counts  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "msgnorm._exact", mod)
    h = _history()
    want = [len(t) + 3 for t in _native.content_texts(h)]
    assert msgnorm.count_tokens_per_record(h, tokenizer="o200k_base", exact=True) == want
    assert msgnorm.count_tokens(h, tokenizer="cl100k_base", exact=True) == sum(want)
    assert [e for _, e in calls] == ["o200k_base", "cl100k_base"]
    for t in ("claude", "gemini", "chars", "auto"):
        with pytest.raises(ValueError, match="exact=True needs"):
            msgnorm.count_tokens(h, tokenizer=t, exact=True)


def test_conversation_and_batch_take_the_tokenizer() -> None:
    h = _history()
    for t in (*FAMILIES, "chars"):
        conv = msgnorm.Conversation(tokenizer=t)
        conv.append(h)
        assert conv.count_tokens() == msgnorm.count_tokens(h, tokenizer=t)
        again = msgnorm.Conversation.from_bytes(conv.to_bytes())
        assert again.count_tokens() == conv.count_tokens()
        assert msgnorm.count_tokens_batch([h, h], tokenizer=t) == [conv.count_tokens()] * 2
    with pytest.raises(TypeError):
        msgnorm.Conversation(tokenizer="claude", chars_per_token=3)


def test_a_tool_inputs_json_escapes_count_and_every_input_kind_agrees() -> None:
    s = 'say "hi"\n\tthen C:\\dir\n' * 10
    call = [asst("a1", [tool_use("t1", "Write", {"content": s, "n": 1})])]
    said = [asst("a1", [text(s)])]
    escapes = 14  # the features' column of the escapes (benches/calibrate_tokens.py)
    # a tool input's quotes, backslashes, newlines and tabs are escapes; a text's are not
    assert _native._token_features(msgspec.json.encode(call))[0][escapes] == 6 * 10
    assert _native._token_features(msgspec.json.encode(said))[0][escapes] == 0
    for t in FAMILIES:
        for recs in (call, said):
            per = msgnorm.count_tokens_per_record(recs, tokenizer=t)
            assert msgnorm.count_tokens_per_record(msgspec.json.encode(recs), tokenizer=t) == per
    # the escapes are what o200k's compact JSON pays for: the call costs more than the text
    assert msgnorm.count_tokens(call, tokenizer="o200k_base") > msgnorm.count_tokens(
        said, tokenizer="o200k_base"
    )
