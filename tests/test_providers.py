"""Provider adapters: from_provider, to_provider/to_<provider>, convert (docs/PROVIDERS.md).

Oracles are the providers' own SDK types, offline (tests/support/provider_oracles.py).
"""

from __future__ import annotations

import copy
import itertools
import json
import multiprocessing
import uuid
from pathlib import Path
from typing import Any

import msgnorm
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgnorm.provider_rules import repairable_violations
from support import external
from support.provider_fixtures import HISTORIES, PDF, PNG, request
from support.provider_oracles import check
from support.strategies import histories

PROVIDERS = msgnorm.PROVIDERS
test_external_corpus = external.corpus_check


def _records(source: str) -> list[dict[str, Any]]:
    messages, system = HISTORIES[source]
    return msgnorm.from_provider(messages, source, system=system)


# --------------------------------------------------------------------------
# round trips: what a provider accepted comes back unchanged
# --------------------------------------------------------------------------


@pytest.mark.parametrize("source", PROVIDERS)
def test_round_trip_gives_the_provider_messages_back(source: str) -> None:
    messages, system = HISTORIES[source]
    before = copy.deepcopy(messages)
    out = msgnorm.to_provider(_records(source), source)
    back, back_system = request(source, out)
    assert back == messages
    assert back_system == system
    assert messages == before  # input not mutated


@pytest.mark.parametrize("source", PROVIDERS)
def test_round_trip_is_stable_through_a_second_pass(source: str) -> None:
    first = msgnorm.to_provider(_records(source), source)
    msgs, system = request(source, first)
    again = msgnorm.convert(msgs, source=source, target=source, system=system)
    assert again == first


@pytest.mark.parametrize("source", PROVIDERS)
def test_same_format_hands_back_the_unchanged_messages_themselves(source: str) -> None:
    """convert(source=p, target=p): a message no step changed is the input's own
    object (the sharing rule of normalize_for_api); changed ones are new."""
    messages, system = HISTORIES[source]
    messages = copy.deepcopy(messages)
    before = copy.deepcopy(messages)
    out = msgnorm.convert(messages, source=source, target=source, system=system)
    back, _ = request(source, out)
    assert back == messages
    mine = {id(m) for m in messages}
    assert [m for m in back if id(m) in mine], "some unchanged message is shared"
    assert messages == before  # input not mutated
    # a message that needed a repair is not shared (its input stays as it was):
    # a tool call id over OpenAI's 40 characters is rewritten in the call and
    # its result
    if source == "openai-chat":
        long_id = "call_" + "x" * 45
        call = {"id": long_id, "type": "function", "function": {"name": "f", "arguments": "{}"}}
        broken = [
            *messages,
            {"role": "user", "content": "again"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": long_id, "content": "ok"},
        ]
        out = msgnorm.convert(broken, source=source, target=source)
        assert len(out[-1]["tool_call_id"]) <= 40
        assert out[-1]["tool_call_id"] == out[-2]["tool_calls"][0]["id"]
        assert out[-2] is not broken[-2] and out[-1] is not broken[-1]
        assert broken[-1]["tool_call_id"] == long_id


def test_a_tuple_is_not_handed_back_as_the_list_it_was_read_as() -> None:
    tupled = {"role": "user", "content": ({"type": "text", "text": "hi"},)}
    plain = {"role": "assistant", "content": "hello"}
    out = msgnorm.convert([tupled, plain], source="openai-chat", target="openai-chat")
    assert out[0] is not tupled and isinstance(out[0]["content"], list)
    assert out[1] is plain


# --------------------------------------------------------------------------
# long histories: read in slices while the next ones are converted
# --------------------------------------------------------------------------


def _chat_turns(first: int, turns: int, legacy: bool = False) -> list[dict[str, Any]]:
    """Chat turns ``first..first+turns``: a question, calls (two in every third
    turn; with ``legacy``, a legacy function_call in every seventh, whose id is
    made from its position), their results, an answer."""
    out: list[dict[str, Any]] = []
    for t in range(first, first + turns):
        out.append({"role": "user", "content": f"question {t}"})
        if legacy and t % 7 == 3:
            call = {"name": "read", "arguments": json.dumps({"t": t})}
            out.append({"role": "assistant", "content": None, "function_call": call})
            out.append({"role": "function", "name": "read", "content": f"file {t}"})
        else:
            ids = [f"c{t}_{k}" for k in range(2 if t % 3 == 0 else 1)]
            calls = [
                {"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}}
                for i in ids
            ]
            out.append({"role": "assistant", "content": f"step {t}", "tool_calls": calls})
            out += [{"role": "tool", "tool_call_id": i, "content": f"result {i}"} for i in ids]
        out.append({"role": "assistant", "content": f"answer {t}"})
    return out


def _pieces(source: str) -> list[list[Any]]:
    """A long history in ``source``'s format, in pieces of whole turns."""
    chats = [
        _chat_turns(k, _PIECE, legacy=source != "openai-chat") for k in range(0, _TURNS, _PIECE)
    ]
    if source == "openai-chat":
        return chats
    # the legacy calls' ids are made from a message's position in its piece: made
    # unique across pieces, as a tool id reused in a later turn is read as a new call
    return [
        json.loads(
            json.dumps(
                request(source, msgnorm.convert(c, source="openai-chat", target=source))[0]
            ).replace("call_legacy_", f"call_legacy_p{k}_")
        )
        for k, c in enumerate(chats)
    ]


# pieces of 80 turns are at most 512 messages (read at once, their records on one
# thread); the whole is read in slices and its records (over 2,048) in halves
_TURNS, _PIECE = 2400, 80


@pytest.mark.parametrize("source", PROVIDERS)
def test_a_long_history_reads_as_its_pieces_do(source: str) -> None:
    """Records of a long history (read in slices on a second thread) are the
    records of its pieces (read at once): the same blocks, and the uuids of a
    prefix, which a longer history keeps."""
    pieces = _pieces(source)
    whole = [m for piece in pieces for m in piece]
    assert len(whole) > 4 * 2048 and all(len(p) <= 512 for p in pieces)
    records = msgnorm.from_provider(whole, source)
    first = msgnorm.from_provider(pieces[0], source)
    assert records[: len(first)] == first
    # without uuids, each piece's records are the whole's records in turn
    got = [{k: v for k, v in r.items() if k != "uuid"} for r in records]
    want = [
        {k: v for k, v in r.items() if k != "uuid"}
        for piece in pieces
        for r in msgnorm.from_provider(piece, source)
    ]
    assert got == want


@pytest.mark.parametrize("target", PROVIDERS)
def test_a_long_history_converts_as_its_pieces_do(target: str) -> None:
    """convert() of a long OpenAI Chat history (read in slices on a second
    thread, its records read and written in halves) is its pieces' outputs in
    turn: no turn of one piece reaches into the next."""
    pieces = _pieces("openai-chat")
    whole = [m for piece in pieces for m in piece]
    out, report = msgnorm.convert_report(whole, source="openai-chat", target=target)
    outs = [msgnorm.convert_report(p, source="openai-chat", target=target) for p in pieces]
    assert request(target, out)[0] == [m for o, _ in outs for m in request(target, o)[0]]
    assert report == {k: sum(r.get(k, 0) for _, r in outs) for k in report}
    check(target, out)


def test_a_long_history_hands_back_its_unchanged_messages() -> None:
    chat = _chat_turns(0, _TURNS)
    chat[5000] = {**chat[5000], "content": "late  "}  # trailing whitespace: repaired
    tupled = 3000 + next(i for i, m in enumerate(chat[3000:]) if m.get("tool_calls"))
    chat[tupled] = {**chat[tupled], "tool_calls": tuple(chat[tupled]["tool_calls"])}
    out = msgnorm.convert(chat, source="openai-chat", target="openai-chat")
    assert len(out) == len(chat)
    shared = [i for i, (a, b) in enumerate(zip(out, chat, strict=True)) if a is b]
    changed = {i for i, m in enumerate(chat) if m.get("role") == "function" or i == tupled}
    assert out[tupled] == {**chat[tupled], "tool_calls": list(chat[tupled]["tool_calls"])}
    assert len(shared) > len(chat) - len(changed) - 2 and tupled not in shared


def test_a_long_history_names_the_first_bad_message() -> None:
    chat = _chat_turns(0, _TURNS)
    chat[4001] = {"role": "tool", "content": "no id"}
    with pytest.raises(msgnorm.InvalidRecordError, match=r"messages\[4001\]\.tool_call_id"):
        msgnorm.convert(chat, source="openai-chat", target="anthropic")
    # a message that is not JSON data is named before any the adapter refuses,
    # wherever it is, as when the whole list is converted first
    late = len(chat) - 100
    chat[late] = {"role": "user", "content": object()}
    with pytest.raises(msgnorm.InvalidRecordError, match=rf"messages\[{late}\]\.content: holds"):
        msgnorm.convert(chat, source="openai-chat", target="anthropic")
    with pytest.raises(msgnorm.InvalidRecordError, match=rf"messages\[{late}\]"):
        msgnorm.from_provider(chat, "openai-chat")


@pytest.mark.parametrize("source", ["openai-chat", "openai-responses"])
def test_a_field_named_provider_survives_the_round_trip(source: str) -> None:
    """A message's own fields are kept in provider_data beside msgnorm's
    ``provider`` key; one named ``provider`` (or starting with ``~``) must
    neither replace it nor be lost."""
    part = {
        "type": "image_url" if source == "openai-chat" else "input_image",
        "image_url": {"url": "https://x/a.png", "detail": "low", "provider": "cdn", "~k": 1}
        if source == "openai-chat"
        else "https://x/a.png",
    }
    if source == "openai-responses":
        part.update({"detail": "low", "provider": "cdn", "~k": 1})
    messages: list[dict[str, Any]] = [
        {
            "role": "user",
            "content": [
                {"type": "text" if source == "openai-chat" else "input_text", "text": "look"},
                part,
            ],
        },
        {"role": "assistant", "content": "ok"},
    ]
    if source == "openai-chat":
        messages[0].update({"name": "bob", "provider": "acme", "~odd": True})
    else:
        messages = [{"type": "message", **m} for m in messages]
    records = msgnorm.from_provider(messages, source)
    back = msgnorm.to_provider(records, source)
    assert back == messages


def test_a_legacy_function_call_keeps_its_arguments_text() -> None:
    # The legacy shape comes back as tool_calls (docs/PROVIDERS.md); its
    # arguments' own text is kept as a tool call's is, not re-serialized.
    args = '{"path": "a.py",  "n": 1}'
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": args}},
        {"role": "function", "name": "f", "content": "ok"},
    ]
    block = msgnorm.from_provider(messages, "openai-chat")[1]["message"]["content"][0]
    assert block["input"] == {"path": "a.py", "n": 1}
    assert block["provider_data"] == {
        "provider": "openai-chat",
        "arguments": args,
        "legacy_function_call": True,
    }
    # convert sends an accepted request as it came, legacy shape and all
    assert msgnorm.convert(messages, source="openai-chat", target="openai-chat") == messages
    out = msgnorm.to_provider(msgnorm.from_provider(messages, "openai-chat"), "openai-chat")
    assert out[1]["tool_calls"][0]["function"] == {"name": "f", "arguments": args}
    assert out[2] == {
        "role": "tool",
        "tool_call_id": out[1]["tool_calls"][0]["id"],
        "content": "ok",
    }


def test_the_records_own_fields_win_over_provider_data() -> None:
    # provider_data carries what a record has no place for; where it also names a
    # field the record itself has (records edited or built by hand), the record wins.
    user = {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "real"}}
    user["provider_data"] = {"provider": "openai-chat", "content": "stale", "name": "bob"}
    assert msgnorm.to_provider([user], "openai-chat") == [
        {"role": "user", "content": "real", "name": "bob"}
    ]

    def image(provider: str, **data: str) -> dict[str, Any]:
        block = {"type": "image", "source": {"type": "url", "url": "https://x/a.png"}}
        block["provider_data"] = {"provider": provider, **data}
        return {"type": "user", "uuid": "u2", "message": {"role": "user", "content": [block]}}

    chat = msgnorm.to_provider([image("openai-chat", url="https://y", detail="low")], "openai-chat")
    assert chat[0]["content"][0]["image_url"] == {"url": "https://x/a.png", "detail": "low"}
    resp = msgnorm.to_provider(
        [image("openai-responses", image_url="https://y", detail="high")], "openai-responses"
    )
    assert resp[0]["content"][0] == {
        "type": "input_image",
        "image_url": "https://x/a.png",
        "detail": "high",
    }


def test_deliberate_normalisations() -> None:
    # Anthropic: an assistant string content becomes a text block (SPEC §4 step 4)
    # where the steps run: on records, or a request that needs a repair
    # (convert of one that needs none sends it as it came)
    hello = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    assert msgnorm.convert(hello, source="anthropic", target="anthropic") == {"messages": hello}
    out = msgnorm.to_provider(msgnorm.from_provider(hello, "anthropic"), "anthropic")
    assert out == {
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "text", "text": "hello"}]},
        ]
    }
    # OpenAI Chat: two user messages in a row are merged (with a newline seam)
    # where the whole of SPEC §4 runs (records in); convert of a request that
    # breaks a rule runs only the steps of that rule (here tool pairing, for an
    # orphan result: the user messages stay apart)
    orphan_first = [
        {"role": "tool", "tool_call_id": "gone", "content": "late"},
        {"role": "user", "content": "a"},
        {"role": "user", "content": "b"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "f", "arguments": '{"x": 1}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]
    chat = msgnorm.to_provider(msgnorm.from_provider(orphan_first, "openai-chat"), "openai-chat")
    assert chat[0] == {
        "role": "user",
        "content": [{"type": "text", "text": "a\n"}, {"type": "text", "text": "b"}],
    }
    converted = msgnorm.convert(orphan_first, source="openai-chat", target="openai-chat")
    assert converted[1:] == orphan_first[1:]
    # arguments that were not compact are kept as given
    assert chat[1]["tool_calls"][0]["function"]["arguments"] == '{"x": 1}'
    # Responses: a user item keeps its own fields; an assistant text gets "type": "message".
    said = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]
    assert msgnorm.convert(said, source="openai-responses", target="openai-responses") == said
    items = msgnorm.to_provider(msgnorm.from_provider(said, "openai-responses"), "openai-responses")
    assert items == [
        {"role": "user", "content": "hi"},
        {"type": "message", "role": "assistant", "content": "yo"},
    ]
    # Gemini: REST camelCase keys in, camelCase out (the key style of the input);
    # to another source's history, snake_case
    image = {"type": "base64", "media_type": "image/png", "data": PNG}
    assert msgnorm.convert(
        [{"role": "user", "content": [{"type": "image", "source": image}]}],
        source="anthropic",
        target="gemini",
    ) == {
        "contents": [
            {"role": "user", "parts": [{"inline_data": {"mime_type": "image/png", "data": PNG}}]}
        ]
    }
    g = msgnorm.convert(
        [{"role": "user", "parts": [{"inlineData": {"mimeType": "image/png", "data": PNG}}]}],
        source="gemini",
        target="gemini",
    )
    assert g["contents"][0]["parts"] == [{"inlineData": {"mimeType": "image/png", "data": PNG}}]


# --------------------------------------------------------------------------
# oracles: every source converted to every target is what the target's SDK takes
# --------------------------------------------------------------------------


@pytest.mark.parametrize("target", PROVIDERS)
@pytest.mark.parametrize("source", PROVIDERS)
def test_output_validates_against_the_provider_sdk(source: str, target: str) -> None:
    out = msgnorm.to_provider(_records(source), target)
    check(target, out)


@pytest.mark.parametrize("target", PROVIDERS)
def test_oracles_reject_a_wrong_shape(target: str) -> None:
    out = msgnorm.to_provider(_records("anthropic"), target)
    bad = copy.deepcopy(out)
    messages, _ = request(target, bad)
    if target in ("openai-chat", "openai-responses"):
        messages[1]["bogus"] = 1
    elif target == "gemini":
        messages[0]["parts"][0]["bogus"] = 1
    elif target == "bedrock":
        messages[0]["content"][0] = {"txt": "x"}
    else:
        messages[0]["role"] = "human"
    with pytest.raises(Exception):  # noqa: B017 (each SDK raises its own error type)
        check(target, bad)


@pytest.mark.parametrize("target", PROVIDERS)
def test_corpus_sessions_validate_against_the_provider_sdk(target: str) -> None:
    """Every example transcript and corpus file, read flat, in each provider's format."""
    checked = 0
    for path in external.example_files() + external.corpus_files():
        records = []
        for line in path.read_bytes().removeprefix(b"\xef\xbb\xbf").splitlines():
            try:
                records.append(json.loads(line))
            except ValueError:
                continue  # blank, cut or doubled lines (§8.1 is load_session's business)
        try:
            msgnorm.normalize_for_api(records)
        except msgnorm.InvalidRecordError:
            continue  # files that normalize_for_api itself refuses
        check(target, msgnorm.to_provider(records, target))
        checked += 1
    assert checked > 0


# --------------------------------------------------------------------------
# differential: out → from_provider → normalize → out equals normalize → out
# --------------------------------------------------------------------------


@pytest.mark.parametrize("target", PROVIDERS)
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_provider_history_in_and_out_agrees_with_native_records(target: str, data: Any) -> None:
    records = data.draw(histories())
    native = msgnorm.to_provider(records, target)
    messages, system = request(target, native)
    via = msgnorm.convert(messages, source=target, target=target, system=system)
    assert via == native


# Anthropic output passes the history's own Anthropic blocks through, and the
# generated histories hold made-up block types; the corpus and fixtures cover it.
@pytest.mark.parametrize("target", [p for p in PROVIDERS if p != "anthropic"])
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_generated_histories_validate_against_the_provider_sdk(target: str, data: Any) -> None:
    records = data.draw(histories())
    check(target, msgnorm.to_provider(records, target))


# --------------------------------------------------------------------------
# records: uuids, system prompts, errors
# --------------------------------------------------------------------------


@pytest.mark.parametrize("source", PROVIDERS)
def test_records_are_msgnorm_records_with_derived_uuids(source: str) -> None:
    recs = _records(source)
    again = _records(source)
    assert recs == again  # deterministic
    uuids = [r["uuid"] for r in recs]
    assert len(set(uuids)) == len(uuids)
    # uuid5s in their canonical lowercase, hyphenated form
    assert all(str(uuid.UUID(u)) == u and uuid.UUID(u).version == 5 for u in uuids)
    assert recs[0]["type"] == "system" and recs[0]["subtype"] == "system_prompt"
    for r in recs[1:]:
        assert r["type"] in ("user", "assistant")
        assert r["message"]["role"] == r["type"]
    msgnorm.normalize_for_api(recs)  # valid records
    # a longer history keeps the uuids of its prefix; another history gets others
    messages, system = HISTORIES[source]
    prefix = msgnorm.from_provider(messages[:2], source, system=system)
    assert [r["uuid"] for r in prefix] == uuids[: len(prefix)]
    other = copy.deepcopy(messages)
    other[0] = copy.deepcopy(messages[-2])
    changed = msgnorm.from_provider(other, source, system=system)
    assert changed[1]["uuid"] != recs[1]["uuid"]


def test_system_prompts_are_carried_to_every_target() -> None:
    recs = msgnorm.from_provider(
        [
            {"role": "developer", "content": "Use metric units."},
            {"role": "user", "content": "hi"},
        ],
        "openai-chat",
    )
    assert recs[0]["role"] == "developer"
    assert msgnorm.to_openai_chat(recs)[0] == {"role": "developer", "content": "Use metric units."}
    assert msgnorm.to_openai_responses(recs)[0] == {
        "type": "message",
        "role": "developer",
        "content": "Use metric units.",
    }
    assert msgnorm.to_provider(recs, "anthropic")["system"] == "Use metric units."
    assert msgnorm.to_gemini(recs)["system_instruction"] == {
        "parts": [{"text": "Use metric units."}]
    }
    assert msgnorm.to_bedrock(recs)["system"] == [{"text": "Use metric units."}]
    _, report = msgnorm.to_provider_report(recs, "bedrock")
    assert report["dropped"] == 0  # carried, not dropped
    # the system= argument adds a prompt after the history's own
    out = msgnorm.to_openai_chat(recs, system="Be brief.")
    assert [m["role"] for m in out[:2]] == ["developer", "system"]


@pytest.mark.parametrize("prompt", ["", "   ", "  \x0c", "\u00a0\n"])
@pytest.mark.parametrize("target", PROVIDERS)
def test_a_blank_system_prompt_converts_to_a_fixed_point(target: str, prompt: str) -> None:
    """A blank system prompt (one definition of blank: Unicode White_Space) is
    written once and then stays: convert(x, p, p) gives x again."""
    recs = msgnorm.from_provider([{"role": "user", "content": "hi"}], "anthropic")
    out, report = msgnorm.to_provider_report(recs, target, system=prompt)
    messages, system = request(target, out)
    again = msgnorm.convert(messages, source=target, target=target, system=system)
    assert again == out
    if target == "bedrock":  # Bedrock refuses blank text: dropped and counted
        assert out["system"] == []
        assert report["blank_text_dropped"] == 1


def test_a_system_prompt_of_another_role_is_written_as_system() -> None:
    """A system_prompt record's role may be anything (another format's); OpenAI
    Chat and Responses know only system and developer, and read back what they wrote."""
    recs = [
        {
            "type": "system",
            "subtype": "system_prompt",
            "uuid": "s1",
            "role": "s.stem",
            "content": "x",
        },
        *msgnorm.from_provider([{"role": "user", "content": "hi"}], "anthropic"),
    ]
    for target in ("openai-chat", "openai-responses"):
        out = msgnorm.to_provider(recs, target)
        assert out[0]["role"] == "system", target
        assert msgnorm.convert(out, source=target, target=target) == out, target


def test_blank_means_unicode_white_space_in_every_writer() -> None:
    """U+001C is not White_Space (though Python's str.isspace says so): a text of it
    is kept by normalize_for_api and every provider writer; form feed is, and such
    a text is dropped by all of them."""
    kept = msgnorm.from_provider(
        [{"role": "user", "content": [{"type": "text", "text": "\x1c"}]}], "anthropic"
    )
    assert msgnorm.normalize_for_api(kept)[0]["message"]["content"] == [
        {"type": "text", "text": "\x1c"}
    ]
    for target in PROVIDERS:
        assert "\x1c" in _strings(msgnorm.to_provider(kept, target)), target
    blank = msgnorm.from_provider(
        [
            {"role": "user", "content": [{"type": "text", "text": "\x0c \u00a0"}]},
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "go"},
        ],
        "anthropic",
    )
    for target in PROVIDERS:
        texts = _strings(msgnorm.to_provider(blank, target))
        assert "\x0c \u00a0" not in texts, target
        assert "(no content)" in texts, target


def _strings(x: Any) -> list[str]:
    """Every string inside a JSON-shaped value."""
    if isinstance(x, str):
        return [x]
    if isinstance(x, dict):
        x = list(x.values())
    return [s for v in x for s in _strings(v)] if isinstance(x, list) else []


def test_unknown_source_or_target_lists_the_names() -> None:
    with pytest.raises(ValueError, match="openai-chat") as e:
        msgnorm.from_provider([], "openai")
    for name in PROVIDERS:
        assert repr(name) in str(e.value) or f'"{name}"' in str(e.value)
    with pytest.raises(ValueError, match="unknown target"):
        msgnorm.to_provider([], "claude")


@pytest.mark.parametrize(
    ("source", "messages", "path"),
    [
        ("openai-chat", [{"role": "user", "content": "a"}, {"role": "robot"}], "messages[1].role"),
        (
            "openai-chat",
            [{"role": "tool", "content": "x"}],
            "messages[0].tool_call_id",
        ),
        (
            "openai-chat",
            [{"role": "assistant", "tool_calls": [{"id": "a", "function": {}}]}],
            "messages[0].tool_calls[0].function.name",
        ),
        ("anthropic", [{"role": "user", "content": 3}], "messages[0].content"),
        ("anthropic", [{"role": "user", "content": [{"text": "x"}]}], "messages[0].content[0]"),
        ("openai-responses", [{"type": "function_call", "name": "f"}], "messages[0].call_id"),
        ("gemini", [{"role": "model"}], "messages[0].parts"),
        ("gemini", [{"role": "assistant", "parts": []}], "messages[0].role"),
        ("bedrock", [{"role": "user", "content": "hi"}], "messages[0].content"),
        ("bedrock", ["not a message"], "messages[0]"),
        ("openai-chat", [{"role": "user", "content": {1, 2}}], "messages[0].content"),
    ],
)
def test_a_message_that_does_not_fit_names_the_field(
    source: str, messages: list[Any], path: str
) -> None:
    with pytest.raises(msgnorm.InvalidRecordError) as e:
        msgnorm.from_provider(messages, source)
    assert e.value.path == path
    assert e.value.index == 0 or path.startswith("messages[1]")
    assert path in str(e.value)


def test_non_list_input_is_refused() -> None:
    with pytest.raises(msgnorm.InvalidRecordError):
        msgnorm.from_provider({"role": "user"}, "anthropic")  # type: ignore[arg-type]
    with pytest.raises(msgnorm.InvalidRecordError, match="records"):
        msgnorm.to_openai_chat("[]")


# --------------------------------------------------------------------------
# provider rules
# --------------------------------------------------------------------------


def _tool_history(call_id: str) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": call_id, "name": "f", "input": {}},
                {"type": "tool_use", "id": call_id + "!", "name": "f", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": call_id, "content": "a"},
                {"type": "tool_result", "tool_use_id": call_id + "!", "content": "b"},
            ],
        },
    ]


@pytest.mark.parametrize(("target", "limit"), [("openai-chat", 40), ("bedrock", 64)])
def test_tool_ids_are_rewritten_within_the_limit_and_stay_paired(target: str, limit: int) -> None:
    long_id = "toolu_" + "x" * 70
    out, report = msgnorm.to_provider_report(
        msgnorm.from_provider(_tool_history(long_id), "anthropic"), target
    )
    check(target, out)
    if target == "openai-chat":
        calls = [c["id"] for c in out[1]["tool_calls"]]
        results = [m["tool_call_id"] for m in out[2:]]
    else:
        calls = [b["toolUse"]["toolUseId"] for b in out["messages"][1]["content"]]
        results = [b["toolResult"]["toolUseId"] for b in out["messages"][2]["content"]]
    assert calls == results
    assert len(set(calls)) == 2
    for c in calls:
        assert 1 <= len(c) <= limit
        assert all(ch.isalnum() or ch in "_-" for ch in c)
    assert report["ids_rewritten"] == 2
    # deterministic
    assert (
        msgnorm.to_provider(msgnorm.from_provider(_tool_history(long_id), "anthropic"), target)
        == out
    )


def test_valid_ids_are_kept_and_rewritten_ids_avoid_them() -> None:
    out = msgnorm.to_openai_chat(msgnorm.from_provider(_tool_history("call_1"), "anthropic"))
    ids = [c["id"] for c in out[1]["tool_calls"]]
    assert ids[0] == "call_1"
    assert ids[1] != "call_1" and ids[1].startswith("call_1_")


def test_anthropic_ids_get_the_anthropic_charset() -> None:
    out = msgnorm.to_provider(
        msgnorm.from_provider(_tool_history("call.1"), "anthropic"), "anthropic"
    )
    check("anthropic", out)
    ids = [b["id"] for b in out["messages"][1]["content"]]
    assert all(i.replace("_", "").replace("-", "").isalnum() for i in ids)


def _named_history(name: str) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": name, "input": {"q": 1}}],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a"}]},
    ]


def _call_and_result_names(target: str, out: Any) -> tuple[list[str], list[str]]:
    if target == "anthropic":
        return [b["name"] for b in out["messages"][1]["content"]], []
    if target == "openai-chat":
        return [c["function"]["name"] for c in out[1]["tool_calls"]], []
    if target == "openai-responses":
        return [i["name"] for i in out if i.get("type") == "function_call"], []
    if target == "gemini":
        parts = [p for c in out["contents"] for p in c["parts"]]
        return (
            [p["function_call"]["name"] for p in parts if "function_call" in p],
            [p["function_response"]["name"] for p in parts if "function_response" in p],
        )
    return [b["toolUse"]["name"] for b in out["messages"][1]["content"]], []


@pytest.mark.parametrize("target", PROVIDERS)
@pytest.mark.parametrize("name", ["get weather", "mcp__srv__" + "x" * 60, "ns.tool", "1st"])
def test_invalid_tool_names_are_mapped_the_same_everywhere(target: str, name: str) -> None:
    records = msgnorm.from_provider(_named_history(name), "anthropic")
    out, report = msgnorm.to_provider_report(records, target)
    check(target, out)
    calls, results = _call_and_result_names(target, out)
    want = msgnorm.tool_name(name, target)
    assert calls == [want] and results in ([], [want])
    assert (want == name) == (report.get("tool_names_rewritten", 0) == 0)
    # the validator's name rule holds, with the definitions renamed the same way
    tools = {
        "anthropic": [{"name": name, "input_schema": {"type": "object"}}],
        "openai-chat": [{"type": "function", "function": {"name": name}}],
        "openai-responses": [{"type": "function", "name": name}],
        "gemini": [{"function_declarations": [{"name": name}]}],
        "bedrock": {"tools": [{"toolSpec": {"name": name, "inputSchema": {"json": {}}}}]},
    }[target]
    renamed = msgnorm.rename_tools(tools, target)
    messages, system = (
        (out["contents"], None)
        if target == "gemini"
        else (out["messages"], None)
        if target in ("anthropic", "bedrock")
        else (out, None)
    )
    found = msgnorm.validate(messages, target, system=system, tools=renamed)
    assert not [v for v in found if "name" in v.rule], found
    if want != name:
        assert [v for v in msgnorm.validate(messages, target, tools=tools) if "name" in v.rule]


def test_tool_name_is_a_pure_function_of_the_name() -> None:
    assert msgnorm.tool_name("get_weather") == "get_weather"
    a = msgnorm.tool_name("get weather")
    assert a.startswith("get_weather_") and len(a) == len("get_weather_") + 8
    assert msgnorm.tool_name("get weather") == a
    assert msgnorm.tool_name("get.weather") != a  # distinct names stay distinct
    assert msgnorm.tool_name("ns.tool", "gemini") == "ns.tool"
    assert msgnorm.tool_name("ns.tool", "openai-chat") != "ns.tool"
    assert len(msgnorm.tool_name("x" * 200, "bedrock")) == 64
    with pytest.raises(ValueError, match="unknown provider"):
        msgnorm.tool_name("f", "openai")
    with pytest.raises(TypeError):
        msgnorm.tool_name(5)  # type: ignore[arg-type]


def test_rename_tools_copies_and_keeps_server_tools() -> None:
    tools = [
        {"name": "get weather", "input_schema": {"type": "object"}},
        {"type": "web_search_20250305", "name": "web_search"},
        {"name": "ok", "input_schema": {"type": "object"}},
    ]
    before = copy.deepcopy(tools)
    out = msgnorm.rename_tools(tools, "anthropic")
    assert tools == before
    assert [t["name"] for t in out] == [msgnorm.tool_name("get weather"), "web_search", "ok"]
    assert out[2] is tools[2]  # unchanged entries are not copied
    config = {
        "tools": [{"toolSpec": {"name": "a b", "inputSchema": {"json": {}}}}],
        "toolChoice": {"tool": {"name": "a b"}},
    }
    renamed = msgnorm.rename_tools(config, "bedrock")
    want = msgnorm.tool_name("a b", "bedrock")
    assert renamed["toolChoice"]["tool"]["name"] == want
    assert renamed["tools"][0]["toolSpec"]["name"] == want
    assert config["toolChoice"]["tool"]["name"] == "a b"
    with pytest.raises(msgnorm.InvalidRecordError, match="tools"):
        msgnorm.rename_tools({"name": "x"}, "anthropic")
    with pytest.raises(ValueError, match="unknown provider"):
        msgnorm.rename_tools([], "claude")


def test_signed_thinking_is_kept_byte_identical_where_the_target_verifies_it() -> None:
    recs = _records("anthropic")
    thinking = HISTORIES["anthropic"][0][1]["content"][0]
    a = msgnorm.to_provider(recs, "anthropic")
    assert a["messages"][1]["content"][0] == thinking
    b = msgnorm.to_bedrock(recs)
    assert b["messages"][1]["content"][0] == {
        "reasoningContent": {
            "reasoningText": {"text": thinking["thinking"], "signature": thinking["signature"]}
        }
    }
    for target in ("openai-chat", "openai-responses", "gemini"):
        out, report = msgnorm.to_provider_report(recs, target)
        assert report["thinking_dropped"] == 1
        assert "I need the weather tool." not in json.dumps(out, default=str)


def test_reasoning_from_another_provider_is_dropped_and_counted() -> None:
    recs = _records("openai-responses")
    out, report = msgnorm.to_provider_report(recs, "anthropic")
    assert report["thinking_dropped"] == 1
    assert all(
        b.get("type") != "thinking"
        for m in out["messages"]
        for b in m["content"]
        if isinstance(b, dict)
    )
    items = msgnorm.to_openai_responses(recs)
    assert HISTORIES["openai-responses"][0][2] in items  # the reasoning item itself


def test_gemini_merges_turns_and_never_sends_empty_parts() -> None:
    recs = msgnorm.from_provider(
        [
            {"role": "user", "content": "a"},
            {"role": "assistant", "content": [{"type": "text", "text": "b"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "c"}]},
            {"role": "user", "content": [{"type": "text", "text": "d"}]},
        ],
        "anthropic",
    )
    out, report = msgnorm.to_provider_report(recs, "gemini")
    check("gemini", out)
    assert [c["role"] for c in out["contents"]] == ["user", "model", "user"]
    assert report["messages_merged"] == 1
    assert all(c["parts"] for c in out["contents"])


def _history_with(call: dict[str, Any], result: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "hi"}},
        {"type": "assistant", "uuid": "a1", "message": {"role": "assistant", "content": [call]}},
        {"type": "user", "uuid": "u2", "message": {"role": "user", "content": [result]}},
    ]


def _gemini_fixed_point(records: list[dict[str, Any]]) -> dict[str, Any]:
    out = msgnorm.to_provider(records, "gemini")
    again = msgnorm.convert(out["contents"], source="gemini", target="gemini")
    assert again == out
    return out


def test_gemini_keeps_a_tool_input_that_is_not_an_object() -> None:
    # As a tool input is kept as given (anthropic/tool-use-input-object is a
    # "none" repair), Gemini args are too, and read back as they were written.
    call = {"type": "tool_use", "id": "t1", "name": "f", "input": [1, 2]}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}
    out = _gemini_fixed_point(_history_with(call, result))
    assert out["contents"][1]["parts"][0]["function_call"]["args"] == [1, 2]
    # no input at all is written as the `{}` it reads back as
    del call["input"]
    out = _gemini_fixed_point(_history_with(call, result))
    assert out["contents"][1]["parts"][0]["function_call"]["args"] == {}


def test_gemini_writes_one_response_per_result_whatever_the_result_holds() -> None:
    # Only media move out of a tool result; a result or thinking block inside
    # one has no place in Gemini and is dropped, not written as a second response.
    call = {"type": "tool_use", "id": "t1", "name": "f", "input": {}}
    inner = [
        {"type": "text", "text": "a"},
        {"type": "tool_result", "tool_use_id": "t1", "content": "b", "is_error": True},
        {"type": "thinking", "thinking": "x", "signature": "s"},
    ]
    result = {"type": "tool_result", "tool_use_id": "t1", "content": inner}
    out, report = msgnorm.to_provider_report(_history_with(call, result), "gemini")
    parts = out["contents"][2]["parts"]
    assert [p["function_response"]["response"] for p in parts] == [{"output": "a"}]
    assert report["parts_dropped"] == 2
    _gemini_fixed_point(_history_with(call, result))


def test_gemini_names_a_response_as_its_nameless_call() -> None:
    call = {"type": "tool_use", "id": "t1", "input": {}}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}
    out = _gemini_fixed_point(_history_with(call, result))
    name = out["contents"][1]["parts"][0]["function_call"]["name"]
    assert out["contents"][2]["parts"][0]["function_response"]["name"] == name


def test_gemini_function_responses_pair_by_name_without_ids() -> None:
    contents = [
        {"role": "user", "parts": [{"text": "go"}]},
        {
            "role": "model",
            "parts": [
                {"function_call": {"name": "f", "args": {"i": 1}}},
                {"function_call": {"name": "g", "args": {}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"function_response": {"name": "g", "response": {"output": "G"}}},
                {"function_response": {"name": "f", "response": {"output": "F"}}},
            ],
        },
    ]
    recs = msgnorm.from_provider(contents, "gemini")
    calls = recs[1]["message"]["content"]
    results = recs[2]["message"]["content"]
    assert results[0]["tool_use_id"] == calls[1]["id"]
    assert results[1]["tool_use_id"] == calls[0]["id"]
    # normalize_for_api keeps both results: they answer the calls
    out = msgnorm.to_provider(recs, "anthropic")
    assert [b["content"] for b in out["messages"][2]["content"]] == ["G", "F"]


def test_bedrock_starts_with_user_and_alternates() -> None:
    recs = msgnorm.from_provider(
        [
            {"role": "assistant", "content": [{"type": "text", "text": "hello"}]},
            {"role": "user", "content": "  "},
        ],
        "anthropic",
    )
    out = msgnorm.to_bedrock(recs)
    check("bedrock", out)
    roles = [m["role"] for m in out["messages"]]
    assert roles[0] == "user"
    assert all(a != b for a, b in itertools.pairwise(roles))
    for m in out["messages"]:
        for b in m["content"]:
            if "text" in b:
                assert b["text"].strip()


def test_bedrock_binary_payloads_are_bytes() -> None:
    out = msgnorm.to_bedrock(_records("anthropic"))
    image = out["messages"][0]["content"][1]["image"]
    assert image == {"format": "png", "source": {"bytes": b"\x89PNG\r\n\x1a\n"}}
    doc = next(b for b in out["messages"][2]["content"] if "document" in b)["document"]
    assert doc["source"]["bytes"] == b"%PDF-1.4" and doc["name"] == "report"


def test_openai_chat_tool_result_media_moves_to_a_user_message() -> None:
    recs = msgnorm.from_provider(
        [
            {"role": "user", "content": "shot"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "s", "input": {}}],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": [
                            {"type": "text", "text": "here"},
                            {
                                "type": "image",
                                "source": {
                                    "type": "base64",
                                    "media_type": "image/png",
                                    "data": PNG,
                                },
                            },
                        ],
                    }
                ],
            },
        ],
        "anthropic",
    )
    out, report = msgnorm.to_provider_report(recs, "openai-chat")
    check("openai-chat", out)
    assert out[2] == {
        "role": "tool",
        "tool_call_id": "t1",
        "content": [{"type": "text", "text": "here"}],
    }
    assert out[3]["role"] == "user"
    assert out[3]["content"][0]["image_url"]["url"] == f"data:image/png;base64,{PNG}"
    assert report["media_moved"] == 1


def test_documents_in_each_target_shape() -> None:
    recs = _records("anthropic")
    chat = msgnorm.to_openai_chat(recs)
    file = {
        "type": "file",
        "file": {"file_data": f"data:application/pdf;base64,{PDF}", "filename": "report"},
    }
    assert any(isinstance(m["content"], list) and file in m["content"] for m in chat)
    items = msgnorm.to_openai_responses(recs)
    assert any(
        p.get("type") == "input_file"
        for it in items
        if isinstance(it.get("content"), list)
        for p in it["content"]
    )
    g = msgnorm.to_gemini(recs)
    assert {"inline_data": {"mime_type": "application/pdf", "data": PDF}} in g["contents"][2][
        "parts"
    ]


def test_unknown_provider_parts_survive_their_own_round_trip_only() -> None:
    chat = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "listen"},
                {"type": "input_audio", "input_audio": {"data": "UklGR", "format": "wav"}},
            ],
        }
    ]
    recs = msgnorm.from_provider(chat, "openai-chat")
    assert msgnorm.to_openai_chat(recs) == chat
    out, report = msgnorm.to_provider_report(recs, "anthropic")
    assert out["messages"] == [{"role": "user", "content": [{"type": "text", "text": "listen"}]}]
    assert report["parts_dropped"] == 1


def test_structs_and_normalize_false() -> None:
    recs = _records("openai-chat")
    norm = msgnorm.normalize_for_api(recs)
    a = msgnorm.to_openai_chat(recs)
    b = msgnorm.to_openai_chat(norm, normalize=False)
    # normalize_for_api keeps from_provider's system_prompt records (SPEC §4 step 3,
    # amended): the system message survives the natural path
    assert a == b and a[0] == {"role": "system", "content": "You are terse."}
    structs = msgnorm.from_builtins(norm)
    assert msgnorm.to_openai_chat(structs, normalize=False) == b


def test_gemini_sdk_objects_are_accepted() -> None:
    types = pytest.importorskip("google.genai.types")
    contents = [
        types.Content(role="user", parts=[types.Part(text="hi")]),
        types.Content(
            role="model",
            parts=[types.Part(function_call=types.FunctionCall(name="f", args={"a": 1}))],
        ),
        types.Content(
            role="user",
            parts=[
                types.Part(
                    function_response=types.FunctionResponse(name="f", response={"output": "x"})
                )
            ],
        ),
    ]
    out = msgnorm.convert(contents, source="gemini", target="gemini")
    check("gemini", out)
    assert out["contents"][1]["parts"][0]["function_call"] == {"name": "f", "args": {"a": 1}}


# --------------------------------------------------------------------------
# CLI: --source and --format
# --------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["records", *PROVIDERS])
def test_cli_converts_between_formats(target: str, tmp_path: Path) -> None:
    from msgnorm.cli import main

    src = tmp_path / "chat.json"
    src.write_text(json.dumps(HISTORIES["openai-chat"][0]))
    out = tmp_path / "out.json"
    assert (
        main(["normalize", str(src), "--source", "openai-chat", "--format", target, "-o", str(out)])
        == 0
    )
    got = json.loads(out.read_text())
    records = _records("openai-chat")
    if target == "records":
        assert got == msgnorm.normalize_for_api(records)
    elif target == "bedrock":
        # JSON output: bytes are written as base64
        assert len(got["messages"]) == len(msgnorm.to_bedrock(records)["messages"])
    else:
        assert got == msgnorm.to_provider(records, target)
    if target == "openai-chat":
        assert got == HISTORIES["openai-chat"][0]  # the round trip through the CLI


def test_cli_takes_a_request_object_with_its_system(tmp_path: Path) -> None:
    from msgnorm.cli import main

    messages, system = HISTORIES["gemini"]
    src = tmp_path / "req.json"
    src.write_text(json.dumps({"contents": messages, "system_instruction": system}))
    out = tmp_path / "out.json"
    assert (
        main(["normalize", str(src), "--source", "gemini", "--format", "gemini", "-o", str(out)])
        == 0
    )
    assert json.loads(out.read_text()) == {"system_instruction": system, "contents": messages}


# --------------------------------------------------------------------------
# LangChain v1 messages (source="langchain", target="langchain")
# --------------------------------------------------------------------------


def test_langchain_messages_round_trip() -> None:
    lc = pytest.importorskip("langchain_core.messages")
    messages = [
        lc.SystemMessage(content="You are terse."),
        lc.HumanMessage(content="Weather in Paris?"),
        lc.AIMessage(
            content="Checking.",
            tool_calls=[
                {
                    "name": "get_weather",
                    "args": {"city": "Paris"},
                    "id": "call_1",
                    "type": "tool_call",
                }
            ],
        ),
        lc.ToolMessage(content="18C", tool_call_id="call_1"),
        lc.AIMessage(content="It is 18C."),
        lc.HumanMessage(
            content=[
                {"type": "text", "text": "and this?"},
                {"type": "image", "base64": PNG, "mime_type": "image/png"},
            ]
        ),
        lc.AIMessage(content="A blank image."),
    ]
    records = msgnorm.from_provider(messages, "langchain")
    assert records[0]["type"] == "system"
    back = msgnorm.to_provider(records, "langchain")
    assert [type(m).__name__ for m in back] == [type(m).__name__ for m in messages]
    for a, b in zip(messages, back, strict=True):
        assert b.content == a.content
    assert back[2].tool_calls == messages[2].tool_calls
    assert back[3].tool_call_id == "call_1" and back[3].status == "success"
    # and into a provider's shape
    out = msgnorm.convert(messages, source="langchain", target="openai-chat")
    check("openai-chat", out)
    assert out[0] == {"role": "system", "content": "You are terse."}


def test_langchain_output_is_repaired() -> None:
    lc = pytest.importorskip("langchain_core.messages")
    messages = [
        lc.AIMessage(
            content="", tool_calls=[{"name": "f", "args": {}, "id": "t1", "type": "tool_call"}]
        ),
        lc.HumanMessage(content="go on"),
    ]
    out = msgnorm.convert(messages, source="langchain", target="langchain")
    # the missing tool result inserted, then the prompt (an assistant first
    # message is taken as it is: no user turn is invented before it)
    assert isinstance(out[0], lc.AIMessage) and out[0].tool_calls[0]["id"] == "t1"
    assert isinstance(out[1], lc.ToolMessage) and out[1].status == "error"
    assert isinstance(out[2], lc.HumanMessage) and out[2].content == "go on"
    assert len(out) == 3
    with pytest.raises(msgnorm.InvalidRecordError, match=r"messages\[0\]"):
        msgnorm.from_provider(["hi"], "langchain")


def test_hostile_values_are_refused_with_a_path() -> None:
    deep: Any = "x"
    for _ in range(1000):
        deep = {"a": deep}
    msgs = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [deep]}]
    with pytest.raises(msgnorm.InvalidRecordError) as e:
        msgnorm.from_provider(msgs, "anthropic")
    # the path down to the level past the limit, as the core names blocks nested too deeply
    assert e.value.path.startswith("messages[1].content[0].a.a.")
    assert "nested deeper than" in str(e.value)
    with pytest.raises(msgnorm.InvalidRecordError, match="not a str"):
        msgnorm.from_provider([{"role": "user", 1: "x"}], "openai-chat")
    with pytest.raises(msgnorm.InvalidRecordError, match="surrogate"):
        msgnorm.from_provider([{"role": "user", "content": "\ud800"}], "openai-chat")
    cyclic: dict[str, Any] = {"role": "user"}
    cyclic["content"] = [cyclic]
    with pytest.raises(msgnorm.InvalidRecordError):
        msgnorm.from_provider([cyclic], "anthropic")
    # big numbers survive
    big = {"type": "tool_use", "id": "t", "name": "f", "input": {"n": 2**80, "x": 0.1}}
    recs = msgnorm.from_provider(
        [{"role": "user", "content": "a"}, {"role": "assistant", "content": [big]}], "anthropic"
    )
    out = msgnorm.to_provider(recs, "anthropic")
    assert out["messages"][1]["content"][0]["input"] == {"n": 2**80, "x": 0.1}


_roles = st.sampled_from(["user", "assistant", "model", "system", "developer", "tool", "x"])
_json = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.text(max_size=3)),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["type", "text", "role", "content", "id", "parts", "call_id", "name"]),
            inner,
            max_size=3,
        )
    ),
    max_leaves=8,
)
_messages = st.lists(
    st.fixed_dictionaries(
        {"role": _roles},
        optional={
            "content": _json,
            "parts": _json,
            "type": st.sampled_from(["message", "function_call", "reasoning", "other"]),
            "call_id": st.text(max_size=3),
            "name": st.text(max_size=3),
        },
    ),
    max_size=5,
)


@pytest.mark.parametrize("source", PROVIDERS)
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages=_messages)
def test_arbitrary_messages_give_records_or_a_clear_error(
    source: str, messages: list[dict[str, Any]]
) -> None:
    try:
        records = msgnorm.from_provider(messages, source)
    except msgnorm.InvalidRecordError as e:
        assert e.path.startswith("messages[")
        return
    for target in PROVIDERS:
        try:
            msgnorm.to_provider(records, target)
        except msgnorm.InvalidRecordError as e:
            # only blocks passed through as given (Anthropic source) can be invalid records
            assert source == "anthropic", e


# --------------------------------------------------------------------------
# differential: normalize inside to_provider/convert (the JSON backend, whose
# unchanged records are the input's own values) equals normalize_for_api on
# the Python objects followed by to_provider(normalize=False)
# --------------------------------------------------------------------------

_PRUNED = (
    "parts_dropped",
    "thinking_dropped",
    "invalid_media_dropped",
    "blank_text_dropped",
    "compaction_dropped",
    "server_results_removed",
    "server_tools_as_text",
)


def _prompts(records: list[Any]) -> list[Any]:
    return [
        r
        for r in records
        if isinstance(r, dict) and r.get("type") == "system" and r.get("subtype") == "system_prompt"
    ]


def _normalized_then_out(records: list[Any], target: str) -> Any:
    # normalize_for_api keeps the system_prompt records (SPEC §4 step 3, amended)
    normalized = msgnorm.normalize_for_api(records)
    return msgnorm.to_provider(normalized, target, normalize=False)


def _chat_history(turns: int) -> list[dict[str, Any]]:
    """Calls answered by one tool message each (normalize merges those), plain turns between."""
    out: list[dict[str, Any]] = [{"role": "system", "content": "Be brief."}]
    for t in range(turns):
        calls = [
            {
                "id": f"call_{t}_{k}",
                "type": "function",
                "function": {"name": "grep", "arguments": json.dumps({"q": f"x{t}", "k": k})},
            }
            for k in range(1 + t % 2)
        ]
        out.append({"role": "user", "content": f"question {t}"})
        out.append({"role": "assistant", "content": None, "tool_calls": calls})
        out += [{"role": "tool", "tool_call_id": c["id"], "content": f"r {c['id']}"} for c in calls]
        out.append({"role": "assistant", "content": f"answer {t} "})  # trailing space: repaired
    return out


@pytest.mark.parametrize("target", PROVIDERS)
def test_convert_agrees_with_normalize_on_the_python_records(target: str) -> None:
    histories_in = [(s, *HISTORIES[s]) for s in PROVIDERS]
    histories_in.append(("openai-chat", _chat_history(40), None))
    compared = 0
    for source, messages, system in histories_in:
        out, report = msgnorm.convert_report(messages, source=source, target=target, system=system)
        if any(report.get(k) for k in _PRUNED):
            continue  # the second normalization after dropping blocks has no Python twin
        records = msgnorm.from_provider(messages, source, system=system)
        if source == target and not repairable_violations(messages, source, system=system):
            # a request the target takes as it is goes out as it came
            want = msgnorm.to_provider(records, target, normalize=False)
        else:
            want = _normalized_then_out(records, target)
        assert out == want, (source, target)
        compared += 1
    assert compared >= 2


@pytest.mark.parametrize("target", PROVIDERS)
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=40)
@given(data=st.data())
def test_to_provider_agrees_with_normalize_on_the_python_records(target: str, data: Any) -> None:
    records = data.draw(histories())
    out, report = msgnorm.to_provider_report(records, target)
    if any(report.get(k) for k in _PRUNED):
        return
    assert out == _normalized_then_out(records, target)


def test_values_json_cannot_carry_are_written_as_json_would_have_them() -> None:
    """bytes, a non-finite float: the normalized records are JSON, so an unchanged
    record holding them comes out as its JSON reading (base64 text, null)."""
    messages = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "listen"},
                {"type": "input_audio", "input_audio": {"data": b"\x00\x01\x02", "format": "wav"}},
            ],
            "score": float("nan"),
            "big": 2**80,
        },
        {"role": "assistant", "content": "ok"},
    ]
    # a request that needs no repair comes back as it came: bytes stay bytes
    same = msgnorm.convert(messages, source="openai-chat", target="openai-chat")
    assert same[0]["content"][1]["input_audio"]["data"] == b"\x00\x01\x02"
    assert same[0]["big"] == 2**80 and same[1] == messages[1]
    # one that does is normalized: its records are JSON
    call = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    unanswered = {"role": "assistant", "content": None, "tool_calls": [call]}
    out = msgnorm.convert([*messages, unanswered], source="openai-chat", target="openai-chat")
    part = out[0]["content"][1]
    assert part == {"type": "input_audio", "input_audio": {"data": "AAEC", "format": "wav"}}
    assert out[0]["score"] is None
    assert out[0]["big"] == 2**80
    assert out[1] == {"role": "assistant", "content": "ok"}


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="no fork on this platform"
)
@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
def test_a_long_history_converts_in_a_forked_child() -> None:
    """A forked child has none of its parent's threads: reading in slices and
    freeing trees in the background must still finish there."""
    chat = _chat_turns(0, _TURNS)
    want = msgnorm.convert(chat, source="openai-chat", target="anthropic")
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(1) as pool:
        got = pool.apply_async(_convert_twice, (chat,)).get(timeout=120)
    assert got == want


def _convert_twice(chat: list[dict[str, Any]]) -> Any:
    msgnorm.convert(chat, source="openai-chat", target="anthropic")
    return msgnorm.convert(chat, source="openai-chat", target="anthropic")
