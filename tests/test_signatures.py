"""Keyword defaults are declared once, in the native signatures (SPEC §4, §6, §7).

The public ``normalize_for_api``, ``count_tokens`` & co. are the native functions
themselves; the functions of other modules that take the same options (batch,
Arrow, Conversation, providers) must agree with them, and every bad value must
raise the same ``ValueError`` whichever function it goes to.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import msgnorm
import msgnorm.arrow
import pytest
from msgnorm import _native

COUNTING = (
    "tokenizer",
    "chars_per_token",
    "tokens_per_message",
    "tokens_per_image",
    "tokens_per_document",
)
#: SPEC §6's defaults: the tokenizer family of the records' model; the "chars"
#: formula's options unset (given, they select it).
SPEC_COUNTING = {
    "tokenizer": "auto",
    "chars_per_token": None,
    "tokens_per_message": None,
    "tokens_per_image": None,
    "tokens_per_document": None,
}
#: The "chars" formula's defaults (SPEC §6).
SPEC_CHARS = {
    "chars_per_token": 4.0,
    "tokens_per_message": 3,
    "tokens_per_image": 1600,
    "tokens_per_document": 3000,
}
API = ("strict", "max_media", "short_ids", "ensure_user_first", "attachment_templates")

NATIVE_COUNTING = [
    msgnorm.count_tokens,
    msgnorm.count_tokens_per_record,
    msgnorm.find_cutoff,
    msgnorm.trim_to_budget,
    msgnorm.split_for_summary,
]
OTHER_COUNTING: list[Callable[..., Any]] = [
    msgnorm.count_tokens_batch,
    msgnorm.Conversation,
    msgnorm.arrow.count_tokens,
]
OTHER_API: list[Callable[..., Any]] = [
    msgnorm.normalize_batch,
    msgnorm.normalize_batch_report,
    msgnorm.Conversation,
    msgnorm.arrow.normalize_for_api,
]


def _defaults(f: Callable[..., Any], names: tuple[str, ...]) -> dict[str, Any]:
    params = inspect.signature(f).parameters
    return {n: params[n].default for n in names if n in params}


def test_public_functions_are_the_native_ones() -> None:
    for name in (
        "normalize_for_api",
        "normalize_for_api_report",
        "count_tokens",
        "count_tokens_per_record",
        "find_cutoff",
        "trim_to_budget",
        "split_for_summary",
    ):
        assert getattr(msgnorm, name) is getattr(_native, name), name


@pytest.mark.parametrize("f", NATIVE_COUNTING, ids=lambda f: f.__name__)
def test_counting_defaults_are_the_specs(f: Callable[..., Any]) -> None:
    params = inspect.signature(f).parameters
    assert _defaults(f, COUNTING) == SPEC_COUNTING
    for name in COUNTING:
        assert params[name].kind is inspect.Parameter.KEYWORD_ONLY
    if "pin" in params:
        assert params["pin"].default == 0
        assert params["pin"].kind is inspect.Parameter.KEYWORD_ONLY


@pytest.mark.parametrize("f", OTHER_COUNTING, ids=lambda f: f.__qualname__)
def test_other_functions_agree_on_the_counting_defaults(f: Callable[..., Any]) -> None:
    assert _defaults(f, COUNTING) == SPEC_COUNTING


@pytest.mark.parametrize("f", OTHER_API, ids=lambda f: f.__qualname__)
def test_other_functions_agree_on_the_api_defaults(f: Callable[..., Any]) -> None:
    native = _defaults(msgnorm.normalize_for_api, API)
    mine = _defaults(f, API)
    assert mine, "takes normalize_for_api's options"
    assert mine == {k: native[k] for k in mine}


def _history(images: int) -> list[dict[str, Any]]:
    img = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA=="}}
    return msgnorm.to_builtins(  # type: ignore[no-any-return]
        [
            msgnorm.create_user_message(content=[img] * images),
            msgnorm.create_assistant_message(content="ok"),
        ]
    )


def test_the_max_media_default_is_the_one_applied() -> None:
    """The signature shows max_media=100: calling without it must do that."""
    recs = _history(101)
    assert inspect.signature(msgnorm.normalize_for_api).parameters["max_media"].default == 100
    plain = msgnorm.normalize_for_api(recs)
    assert plain == msgnorm.normalize_for_api(recs, max_media=100)
    assert plain != msgnorm.normalize_for_api(recs, max_media=None)


def test_the_counting_defaults_are_the_ones_applied() -> None:
    recs = _history(1)
    assert msgnorm.count_tokens(recs) == msgnorm.count_tokens(recs, tokenizer="auto")
    assert msgnorm.count_tokens(recs) == msgnorm.count_tokens(recs, tokenizer="claude")
    chars = msgnorm.count_tokens(recs, tokenizer="chars")
    assert chars == msgnorm.count_tokens(recs, **SPEC_CHARS)
    for k, v in SPEC_CHARS.items():
        assert chars == msgnorm.count_tokens(recs, **{k: v})
    assert chars != msgnorm.count_tokens(recs, tokens_per_image=1)


CALLS: list[tuple[str, Callable[..., Any]]] = [
    ("count_tokens", lambda **kw: msgnorm.count_tokens(_history(1), **kw)),
    ("count_tokens_per_record", lambda **kw: msgnorm.count_tokens_per_record(_history(1), **kw)),
    ("find_cutoff", lambda **kw: msgnorm.find_cutoff(_history(1), 10**6, **kw)),
    ("trim_to_budget", lambda **kw: msgnorm.trim_to_budget(_history(1), 10**6, **kw)),
    ("split_for_summary", lambda **kw: msgnorm.split_for_summary(_history(1), 10, **kw)),
    ("count_tokens bytes", lambda **kw: msgnorm.count_tokens(msgnorm.encode(_history(1)), **kw)),
]


@pytest.mark.parametrize("call", CALLS, ids=lambda c: c[0])
@pytest.mark.parametrize("name", ["tokens_per_message", "tokens_per_image", "tokens_per_document"])
@pytest.mark.parametrize("bad", [-1, True, "3", 2.0])
def test_a_bad_count_option_names_itself(
    call: tuple[str, Callable[..., Any]], name: str, bad: object
) -> None:
    with pytest.raises(ValueError, match=rf"^{name} must be an int >= 0, not {bad!r}"):
        call[1](**{name: bad})


@pytest.mark.parametrize("call", CALLS, ids=lambda c: c[0])
@pytest.mark.parametrize("bad", [True, "4", [4]])
def test_a_bad_chars_per_token_names_itself(
    call: tuple[str, Callable[..., Any]], bad: object
) -> None:
    with pytest.raises(ValueError, match=r"^chars_per_token must be a number > 0"):
        call[1](chars_per_token=bad)


@pytest.mark.parametrize("bad", [0, -1.5, float("nan"), float("inf")])
def test_a_chars_per_token_out_of_range_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="chars_per_token"):
        msgnorm.count_tokens(_history(1), chars_per_token=bad)


@pytest.mark.parametrize(
    "f", [msgnorm.find_cutoff, msgnorm.trim_to_budget, msgnorm.split_for_summary]
)
@pytest.mark.parametrize("bad", [-1, True, 1.0, "0"])
def test_a_bad_budget_or_pin_names_itself(f: Callable[..., Any], bad: object) -> None:
    budget = "keep_tokens" if f is msgnorm.split_for_summary else "max_tokens"
    with pytest.raises(ValueError, match=rf"^{budget} must be an int >= 0"):
        f(_history(1), bad)
    with pytest.raises(ValueError, match=r"^pin must be an int >= 0"):
        f(_history(1), 10, pin=bad)


def test_ints_beyond_64_bits_mean_the_largest() -> None:
    recs = _history(1)
    assert msgnorm.find_cutoff(recs, 2**70) == msgnorm.find_cutoff(recs, 2**64 - 1)
    assert msgnorm.trim_to_budget(recs, 2**70, pin=1) == recs
    assert msgnorm.normalize_for_api(recs, max_media=2**70) == msgnorm.normalize_for_api(
        recs, max_media=None
    )


@pytest.mark.parametrize("bad", [-1, True, "100", 1.5])
def test_a_bad_max_media_names_itself(bad: object) -> None:
    for f in (msgnorm.normalize_for_api, msgnorm.normalize_for_api_report):
        with pytest.raises(
            ValueError, match=rf"^max_media must be an int >= 0 or None, not {bad!r}"
        ):
            f(_history(1), max_media=bad)


def test_options_are_keyword_only_and_unknown_ones_refused() -> None:
    with pytest.raises(TypeError):
        msgnorm.normalize_for_api(_history(1), True)  # type: ignore[misc]
    with pytest.raises(TypeError):
        msgnorm.count_tokens(_history(1), 4.0)  # type: ignore[misc]
    with pytest.raises(TypeError, match="max_medias"):
        msgnorm.normalize_for_api(_history(1), max_medias=3)  # type: ignore[call-arg]


def test_flags_take_any_truth_value() -> None:
    recs = _history(1)
    assert msgnorm.normalize_for_api(recs, short_ids=0) == msgnorm.normalize_for_api(recs)
    assert msgnorm.normalize_for_api(recs, attachment_templates={}) == msgnorm.normalize_for_api(
        recs
    )


@pytest.mark.parametrize("f", [*OTHER_API, *OTHER_COUNTING], ids=lambda f: f.__qualname__)
def test_an_unknown_option_is_a_type_error(f: Callable[..., Any]) -> None:
    """The options passed on as ``**options`` are checked as written-out ones are."""
    first: Any = [] if f is not msgnorm.Conversation else None
    if f in (msgnorm.arrow.normalize_for_api, msgnorm.arrow.count_tokens):
        pa = pytest.importorskip("pyarrow")
        first = pa.array([b"[]"], type=pa.binary())
    with pytest.raises(TypeError, match="unexpected keyword argument 'max_medias'"):
        f(first, max_medias=3)
    params = inspect.signature(f).parameters
    assert "options" not in params and "costs" not in params
