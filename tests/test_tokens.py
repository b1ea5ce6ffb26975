"""SPEC §6 Approximate token counting."""

from __future__ import annotations

import pytest
from support.helpers import (
    asst,
    attachment,
    document,
    entry,
    image,
    local_command,
    mcp_tool_use,
    progress,
    redacted,
    server_tool_use,
    text,
    thinking,
    tool_result,
    tool_use,
    user,
)


def count(impl, rec, **kw):
    return impl.count_tokens_per_record([rec], **kw)[0]


def test_string_content(impl):
    # §6: "ceil(chars / chars_per_token) + fixed + tokens_per_message"
    assert count(impl, user("u", "abcd")) == 1 + 3
    assert count(impl, user("u", "abcde")) == 2 + 3
    assert count(impl, user("u", "")) == 0 + 3
    # §1: null counts as the empty string
    assert count(impl, user("u", None)) == 3
    assert count(impl, asst("a", [])) == 3


def test_code_points_not_bytes(impl):
    # §6: "lengths are in Unicode code points"
    assert count(impl, user("u", "😀😀😀😀😀")) == 2 + 3  # 5 code points, 20 UTF-8 bytes
    assert count(impl, user("u", "👍🏽👍🏽")) == 1 + 3  # 4 code points (2 per emoji)
    assert count(impl, user("u", "日本語のテキスト")) == 2 + 3  # 8 code points, 24 bytes
    assert count(impl, user("u", [text("é" * 8)])) == 2 + 3


def test_non_messages_count_zero(impl):
    # §6: "0 for records other than user/assistant"
    records = [
        local_command("l", "x" * 100),
        attachment("t", {"type": "date", "date": "D"}),
        progress("p"),
        entry("summary", summary="s" * 50),
        {"type": "tombstone", "message": {"uuid": "x"}},
    ]
    assert impl.count_tokens_per_record(records) == [0, 0, 0, 0, 0]


def test_text_thinking_redacted(impl):
    # §6: "text -> len(text); thinking -> len(thinking); redacted_thinking -> len(data)"
    assert count(impl, asst("a", [text("abcd")])) == 1 + 3
    assert count(impl, asst("a", [thinking("abcdefgh", signature="s" * 100)])) == 2 + 3
    assert count(impl, asst("a", [redacted("abcdefghijkl")])) == 3 + 3


def test_tool_use_name_and_input(impl):
    # §6: "tool_use, server_tool_use -> len(name) + J(input)"; J: "a string counts
    # its length, an object the sum of len(key) + J(value), an array the sum of
    # its items, any other JSON value 4"
    inp = {
        "command": "ls -la",
        "n": 5,
        "f": 1.5,
        "b": True,
        "z": None,
        "arr": [1, "ab", {"k": "v"}],
    }
    # command(7)+ls -la(6)=13; n,f,b,z: 1+4 each = 20; arr(3) + 4 + 2 + (1+1) = 11 -> J = 44
    # name "Bash" = 4 -> 48 chars -> 12 tokens
    assert count(impl, asst("a", [tool_use("t1", "Bash", inp)])) == 12 + 3
    assert count(impl, asst("a", [server_tool_use("s1", "Bash", inp)])) == 12 + 3
    # the id is not counted
    assert (
        count(impl, asst("a", [tool_use("a-very-long-tool-use-id", "ab", {"cd": "ef"})])) == 2 + 3
    )


def test_numbers_count_four(impl):
    # §6: "any other JSON value 4" - including big integers, floats, booleans, null
    inp = {"a": 2**80, "b": -1, "c": 0.5, "d": False, "e": None, "f": []}
    # 5 * (1 + 4) + (1 + 0) = 26, + name "x" = 27 chars -> 7 tokens
    assert count(impl, asst("a", [tool_use("t1", "x", inp)])) == 7 + 3


def test_nested_input(impl):
    inp = {"outer": {"inner": [{"k": "vv"}, ["ab", 1]]}}
    # outer(5) + inner(5) + (k(1)+vv(2)) + (ab(2) + 4) = 19, + name "n" = 20 -> 5
    assert count(impl, asst("a", [tool_use("t1", "n", inp)])) == 5 + 3


def test_tool_result(impl):
    # §6: "tool_result -> len of string content, or the sum over its list content"
    assert count(impl, user("u", [tool_result("t1", "abcdefgh")])) == 2 + 3
    assert count(impl, user("u", [tool_result("t1", [text("abcd"), text("efgh")])])) == 2 + 3
    assert count(impl, user("u", [tool_result("t1", None)])) == 0 + 3
    assert count(impl, user("u", [{"type": "tool_result", "tool_use_id": "t1"}])) == 0 + 3
    # the image inside costs tokens_per_image (A20)
    assert count(impl, user("u", [tool_result("t1", [text("abcd"), image()])])) == 1 + 1600 + 3


def test_media(impl):
    # §6: "image -> tokens_per_image fixed; document -> len(source.data) when
    # source.type == "text", else tokens_per_document fixed"
    assert count(impl, user("u", [image()])) == 1600 + 3
    assert (
        count(
            impl,
            user(
                "u",
                [image(), image()],
            ),
            tokens_per_image=10,
        )
        == 20 + 3
    )
    assert count(impl, user("u", [document("abcdefgh", source_type="text")])) == 2 + 3
    assert count(impl, user("u", [document("x" * 1000)])) == 3000 + 3
    assert count(impl, user("u", [document()]), tokens_per_document=7) == 7 + 3
    # fixed tokens are added after the ceil, not divided
    assert count(impl, user("u", [text("abcde"), image()]), chars_per_token=4.0) == 2 + 1600 + 3


def test_other_blocks_count_as_json(impl):
    # §6: "any other block -> J(block)"
    # {"type": "foo", "x": 1}: type(4)+foo(3) + x(1)+4 = 12 -> 3
    assert count(impl, asst("a", [{"type": "foo", "x": 1}])) == 3 + 3
    # A20: mcp_tool_use is not listed with tool_use: J(block)
    blk = mcp_tool_use("m1", "ab")
    # type(4)+mcp_tool_use(12) + id(2)+m1(2) + name(4)+ab(2) + server_name(11)+srv(3) + input(5)+{}(0) = 45
    assert blk == {
        "type": "mcp_tool_use",
        "id": "m1",
        "name": "ab",
        "server_name": "srv",
        "input": {},
    }
    assert count(impl, asst("a", [blk])) == 12 + 3


def test_chars_per_token_rounding(impl):
    # §6: ceil(chars / chars_per_token) as float division then ceil (A20)
    assert count(impl, user("u", "x" * 33), chars_per_token=3.3) == 10 + 3
    assert count(impl, user("u", "x" * 34), chars_per_token=3.3) == 11 + 3
    assert count(impl, user("u", "x" * 10), chars_per_token=3.3) == 4 + 3
    # 21 / 0.7 == 30.000000000000004 in IEEE doubles -> 31
    assert count(impl, user("u", "x" * 21), chars_per_token=0.7) == 31 + 3
    assert count(impl, user("u", "x" * 7), chars_per_token=1) == 7 + 3


def test_tokens_per_message(impl):
    # §6: "+ tokens_per_message"
    assert count(impl, user("u", "abcd"), tokens_per_message=0) == 1
    assert count(impl, user("u", "abcd"), tokens_per_message=10) == 11


def test_count_tokens_is_the_sum(impl):
    # §6: "count_tokens(records, ...) is the sum"
    records = [
        user("u", "abcd"),
        asst("a", [text("abcdefgh")]),
        progress("p"),
        user("v", [image()]),
    ]
    assert impl.count_tokens_per_record(records) == [4, 5, 0, 1603]
    assert impl.count_tokens(records) == 4 + 5 + 0 + 1603
    assert impl.count_tokens(records, tokens_per_message=0, tokens_per_image=0) == 1 + 2
    assert impl.count_tokens([]) == 0


@pytest.mark.parametrize("cpt", [0, -1.0, float("nan"), float("inf")])
def test_bad_chars_per_token(impl, cpt):
    # A20: chars_per_token must be a finite number > 0
    with pytest.raises(ValueError):
        impl.count_tokens_per_record([user("u", "x")], chars_per_token=cpt)
