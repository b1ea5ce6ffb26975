"""SPEC §6.2 media: an image's tokens from the size in its PNG/JPEG/GIF/WebP
header, per tokenizer family, the same from Python objects and from JSON; the
flat rate where no size can be read; "chars" unchanged. The images are headers
we write here with ``struct`` (their pixel data is left out: only the header
is read)."""

from __future__ import annotations

import base64
import math
import struct
import zlib
from typing import Any

import msgnorm
import msgspec
import pytest
from support.helpers import image, text, tool_result, user

FAMILIES = ("claude", "o200k_base", "gemini")
FLAT = {"claude": 1600, "o200k_base": 765, "gemini": 258}


def png(w: int, h: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0)
    chunk = struct.pack(">I", 13) + b"IHDR" + ihdr
    return b"\x89PNG\r\n\x1a\n" + chunk + struct.pack(">I", zlib.crc32(chunk[4:]))


def gif(w: int, h: int) -> bytes:
    return b"GIF89a" + struct.pack("<HH", w, h) + b"\x00\x00\x00;"


def jpeg(w: int, h: int) -> bytes:
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    exif = b"\xff\xe1" + struct.pack(">H", 602) + bytes(600)
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, h, w, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + app0 + exif + sof + b"\xff\xd9"


def webp(w: int, h: int) -> bytes:
    body = b"\x10\x00\x00\x00" + (w - 1).to_bytes(3, "little") + (h - 1).to_bytes(3, "little")
    chunk = b"VP8X" + struct.pack("<I", len(body)) + body
    return b"RIFF" + struct.pack("<I", len(chunk) + 4) + b"WEBP" + chunk


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


# The published formulas, written out here from the providers' documents.
def claude(w: int, h: int) -> int:
    if max(w, h) > 1568:
        s = 1568 / max(w, h)
        w, h = max(1, math.floor(w * s)), max(1, math.floor(h * s))
    return min(math.ceil(w * h / 750), 1600)


def openai(w: int, h: int, low: bool = False) -> int:
    if low:
        return 85
    if max(w, h) > 2048:
        s = 2048 / max(w, h)
        w, h = max(1, math.floor(w * s)), max(1, math.floor(h * s))
    if min(w, h) > 768:
        s = 768 / min(w, h)
        w, h = max(1, math.floor(w * s)), max(1, math.floor(h * s))
    return 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)


def gemini(w: int, h: int) -> int:
    if w <= 384 and h <= 384:
        return 258
    return 258 * math.ceil(w / 768) * math.ceil(h / 768)


FORMULA = {"claude": claude, "o200k_base": openai, "gemini": gemini}
SIZES = [
    (64, 64),
    (200, 100),
    (700, 300),
    (2048, 4096),
    (1024, 1024),
    (3000, 400),
    (400, 3000),
    (4000, 3000),
    (8000, 8000),
]
MAKERS = {"png": png, "gif": gif, "jpeg": jpeg, "webp": webp}


def _counts(records: list[dict[str, Any]], tokenizer: str) -> list[int]:
    """Counts from Python objects, checked equal from JSON bytes and text."""
    got = msgnorm.count_tokens_per_record(records, tokenizer=tokenizer)
    raw = msgspec.json.encode(records)
    assert msgnorm.count_tokens_per_record(raw, tokenizer=tokenizer) == got
    assert msgnorm.count_tokens_per_record(raw.decode(), tokenizer=tokenizer) == got
    return got


@pytest.mark.parametrize("fmt", sorted(MAKERS))
@pytest.mark.parametrize("family", FAMILIES)
def test_an_image_costs_its_family_formula_at_its_size(fmt: str, family: str) -> None:
    sizes = SIZES
    # the flat-rate image (no header) gives what the rest of the record costs
    recs = [user("flat", [image()])]
    recs += [user(f"i{k}", [image(b64(MAKERS[fmt](w, h)))]) for k, (w, h) in enumerate(sizes)]
    got = _counts(recs, family)
    base = got[0] - FLAT[family]
    want = [FORMULA[family](w, h) for w, h in sizes]
    assert [g - base for g in got[1:]] == want
    # small, wide and huge differ from the flat rate somewhere
    assert len(set(want)) > 2


def test_the_examples_of_the_documents() -> None:
    one = lambda w, h, t: _counts([user("u", [image(b64(png(w, h)))])], t)[0]  # noqa: E731
    flat = {t: _counts([user("u", [image()])], t)[0] - FLAT[t] for t in FAMILIES}
    # Anthropic's table: 1092x1092 is about 1,590 tokens; 200x200, about 54
    assert one(1092, 1092, "claude") - flat["claude"] == 1590
    assert one(200, 200, "claude") - flat["claude"] == 54
    # OpenAI: 1024x1024 at high detail is 765; 2048x4096 is 1105
    assert one(1024, 1024, "o200k_base") - flat["o200k_base"] == 765
    assert one(2048, 4096, "o200k_base") - flat["o200k_base"] == 1105
    # Gemini: 258 for an image within 384x384
    assert one(384, 384, "gemini") - flat["gemini"] == 258


def test_detail_low_costs_85_in_o200k_only() -> None:
    data = b64(png(4000, 3000))
    high = [user("u", [image(data)])]
    low = [
        user("u", [{**image(data), "provider_data": {"provider": "openai-chat", "detail": "low"}}])
    ]
    assert _counts(high, "o200k_base")[0] - _counts(low, "o200k_base")[0] == openai(4000, 3000) - 85
    for t in ("claude", "gemini"):
        assert _counts(high, t) == _counts(low, t)
    # an OpenAI Chat image part read with from_provider keeps its detail
    part = {
        "type": "image_url",
        "image_url": {"url": f"data:image/png;base64,{data}", "detail": "low"},
    }
    recs = msgnorm.from_provider([{"role": "user", "content": [part]}], "openai-chat")
    assert _counts(recs, "o200k_base") == _counts(low, "o200k_base")


def test_an_image_nested_in_a_tool_result_is_sized_too() -> None:
    data = b64(gif(100, 50))
    recs = [user("u", [tool_result("t", [text("x"), image(data)])])]
    flat = [user("u", [tool_result("t", [text("x"), image()])])]
    assert _counts(flat, "claude")[0] - _counts(recs, "claude")[0] == 1600 - 7


@pytest.mark.parametrize(
    "block",
    [
        {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}},
        {"type": "image", "source": {"type": "file", "file_id": "file_011"}},
        image(b64(png(100, 100))[:20]),  # cut inside the header
        image("!!!!" + b64(png(100, 100))),  # not base64 where the header is
        image(b64(b"\xff\xd8\xff\xe0\x00\x00")),  # a JPEG segment of length 0
        {"type": "image", "source": {"type": "base64", "data": 12}},
        {"type": "image"},
    ],
)
def test_an_image_without_a_readable_size_keeps_the_flat_rate(block: dict[str, Any]) -> None:
    for t in FAMILIES:
        assert _counts([user("u", [block])], t) == _counts([user("u", [image()])], t)


def test_chars_counts_every_image_at_tokens_per_image() -> None:
    recs = [user(f"u{k}", [image(b64(png(w, h)))]) for k, (w, h) in enumerate(SIZES)]
    assert _counts(recs, "chars") == [1603] * len(SIZES)
    assert msgnorm.count_tokens(recs, tokens_per_image=10) == 13 * len(SIZES)


def test_truncated_headers_of_every_format_at_every_length() -> None:
    for make in MAKERS.values():
        whole = make(640, 480)
        for n in range(len(whole)):
            data = b64(whole[:n])
            got = _counts([user("u", [image(data)])], "claude")[0]
            flat = _counts([user("u", [image()])], "claude")[0]
            assert got in (flat, flat - 1600 + claude(640, 480)), (make.__name__, n)
