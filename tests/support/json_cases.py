"""The project's own JSON-reader conformance cases (RFC 8259; SPEC §1 "Invalid JSON").

Each case is a JSON text and whether the reader accepts it. tests/test_json_conformance.py
embeds it as a ``tool_use`` block's ``input`` in a small valid history: an accepted
text comes back byte for byte (with the whitespace around it), a refused one raises
``msgnorm.JSONDecodeError`` with its line and column.

Two kinds of cases, covering what JSONTestSuite covers (structure, numbers, strings,
escapes, surrogates, UTF-8 validity, byte order marks, depth, whitespace, trailing
garbage):

* ``TABLE``: hand-picked texts, each with a reason;
* ``FAMILIES``: every byte 0x00-0xFF at one position of the grammar (after a
  backslash, inside a string, where only whitespace may stand, where a value,
  a digit or a hex digit must start, ...), every UTF-8 lead byte with the
  continuation bytes at the edges of its range, every surrogate pairing and
  every strict prefix of a few documents. Whether a byte is accepted there is
  the grammar's rule, written next to the family.

What msgnorm decides where the RFC leaves it open (the RFC's "implementation
defined" cases): numbers of any size or exponent are accepted (a tool input is
carried through as its bytes, never converted); duplicate keys are accepted, the
last value winning (a record that repeats one is written with each key once); a lone or inverted surrogate escape, invalid or overlong UTF-8 and a byte
order mark inside the document are refused; nesting depth inside a carried value
is not limited (it costs heap, not stack).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    """A JSON text, whether it is accepted, and a test id."""

    id: str
    text: bytes
    accepted: bool


WS = frozenset(b" \t\n\r")  # JSON's whitespace: not the form feed, not VT, not NBSP
DIGITS = frozenset(b"0123456789")
HEX = frozenset(b"0123456789abcdefABCDEF")
ESCAPES = frozenset(b'"\\/bfnrt')


def _y(name: str, text: bytes) -> Case:
    return Case(f"y-{name}", text, True)


def _n(name: str, text: bytes) -> Case:
    return Case(f"n-{name}", text, False)


# --------------------------------------------------------------------------
# Hand-picked cases
# --------------------------------------------------------------------------

TABLE: tuple[Case, ...] = (
    # structure
    _y("empty-object", b"{}"),
    _y("empty-array", b"[]"),
    _y("object-spaces", b' { "a" : 1 , "b" : [ ] } '),
    _y("nested-mixed", b'{"a":[{"b":{"c":[1,{"d":null}]}}],"e":{}}'),
    _y("array-of-empties", b"[[],{},[[]],[{}]]"),
    _y("duplicate-keys", b'{"a":1,"a":2}'),
    _y("empty-key", b'{"":0}'),
    _y("key-with-escapes", b'{"\\u0000\\"\\\\":1}'),
    _y("scalar-string", b'"just a string"'),
    _y("scalar-true", b"true"),
    _y("scalar-false", b"false"),
    _y("scalar-null", b"null"),
    _y("scalar-number", b"42"),
    _n("empty-text", b""),
    _n("only-whitespace", b"  "),
    _n("unclosed-array", b"[1"),
    _n("unclosed-object", b'{"a":1'),
    _n("unopened-array", b"1]"),
    _n("trailing-comma-array", b"[1,]"),
    _n("trailing-comma-object", b'{"a":1,}'),
    _n("leading-comma", b"[,1]"),
    _n("double-comma", b"[1,,2]"),
    _n("missing-comma", b"[1 2]"),
    _n("missing-colon", b'{"a" 1}'),
    _n("double-colon", b'{"a"::1}'),
    _n("comma-for-colon", b'{"a",1}'),
    _n("key-not-string", b"{1:1}"),
    _n("key-unquoted", b"{a:1}"),
    _n("key-single-quoted", b"{'a':1}"),
    _n("value-missing", b'{"a":}'),
    _n("mismatched-close", b"[}"),
    _n("mismatched-close-object", b'{"a":1]'),
    _n("comment-line", b"[1 // one\n]"),
    _n("comment-block", b"[1 /* one */]"),
    _n("array-in-key", b'{["a"]:1}'),
    # trailing garbage after the value
    _n("trailing-garbage-letter", b"{}x"),
    _n("trailing-second-value", b"[] []"),
    _n("trailing-nul", b"1\x00"),
    _n("trailing-close", b"{}}"),
    _n("trailing-hash", b'{"a":"b"}#{}'),
    _n("trailing-comment", b"[] // end"),
    # literals
    _n("true-capital", b"True"),
    _n("null-capital", b"NULL"),
    _n("literal-truncated", b"tru"),
    _n("literal-extended", b"truex"),
    _n("nan", b"NaN"),
    _n("infinity", b"Infinity"),
    _n("minus-infinity", b"-Infinity"),
    _n("undefined", b"undefined"),
    # numbers
    _y("zero", b"0"),
    _y("minus-zero", b"-0"),
    _y("minus-zero-fraction", b"-0.0"),
    _y("fraction", b"3.14159"),
    _y("exponent", b"1e3"),
    _y("exponent-capital", b"1E3"),
    _y("exponent-plus", b"1e+3"),
    _y("exponent-minus", b"1e-3"),
    _y("exponent-leading-zeros", b"1e007"),
    _y("fraction-exponent", b"-12.5E-10"),
    _y("huge-integer", b"1" + b"0" * 400),
    _y("huge-negative-integer", b"-" + b"9" * 400),
    _y("huge-exponent", b"1e999999999999"),
    _y("tiny-exponent", b"1e-999999999999"),
    _y("double-overflow", b"1.7976931348623157e309"),
    _y("many-digits", b"0." + b"1234567890" * 50),
    _n("leading-zero", b"01"),
    _n("leading-zeros", b"-007"),
    _n("plus-sign", b"+1"),
    _n("leading-dot", b".5"),
    _n("trailing-dot", b"1."),
    _n("dot-exponent", b"1.e3"),
    _n("exponent-no-digits", b"1e"),
    _n("exponent-sign-only", b"1e+"),
    _n("exponent-double-sign", b"1e+-2"),
    _n("minus-only", b"-"),
    _n("minus-space", b"- 1"),
    _n("double-minus", b"--1"),
    _n("hex-number", b"0x1F"),
    _n("octal-like", b"0o7"),
    _n("two-dots", b"1.2.3"),
    _n("comma-decimal", b"1,5"),
    _n("fullwidth-digit", "１".encode()),
    _n("number-with-letter", b"1a"),
    _n("exponent-fraction", b"1e2.5"),
    # strings
    _y("empty-string", b'""'),
    _y("utf8-two-bytes", '"é"'.encode()),
    _y("utf8-three-bytes", '"€ 中文"'.encode()),
    _y("utf8-four-bytes", '"😀 𝄞"'.encode()),
    _y("utf8-line-separators", '"\u2028\u2029"'.encode()),
    _y("utf8-noncharacters", '"\ufdd0\ufffe\uffff\U0010ffff"'.encode()),
    _y("del-char", b'"\x7f"'),
    _y("escaped-controls", b'"\\b\\f\\n\\r\\t"'),
    _y("escaped-solidus", b'"\\/"'),
    _y("escaped-nul", b'"\\u0000"'),
    _y("escaped-bom", b'"\\uFEFF"'),
    _y("escape-lower-and-upper-hex", b'"\\u00e9\\u00E9"'),
    _y("escaped-noncharacter", b'"\\uFFFF"'),
    _y("long-string", b'"' + b"x" * 100_000 + b'"'),
    _n("unterminated", b'"abc'),
    _n("single-quoted", b"'abc'"),
    _n("raw-tab", b'"a\tb"'),
    _n("raw-newline", b'"a\nb"'),
    _n("raw-nul", b'"a\x00b"'),
    _n("escape-x", b'"\\x41"'),
    _n("escape-capital-u", b'"\\U0041"'),
    _n("escape-short-u", b'"\\u41"'),
    _n("escape-u-non-hex", b'"\\u00G1"'),
    _n("escape-at-end", b'"\\"'),
    _n("escape-apostrophe", b'"\\\'"'),
    _n("escape-newline", b'"\\\n"'),
    _n("escape-space", b'"\\ "'),
    _n("escape-u-plus", b'"\\u+123"'),
    # surrogate escapes
    _y("surrogate-pair", b'"\\uD83D\\uDE00"'),
    _y("surrogate-pair-lower", b'"\\ud834\\udd1e"'),
    _y("surrogate-pair-edges", b'"\\uD800\\uDC00\\uDBFF\\uDFFF"'),
    _n("lone-high", b'"\\uD800"'),
    _n("lone-low", b'"\\uDC00"'),
    _n("inverted-pair", b'"\\uDE00\\uD83D"'),
    _n("high-then-text", b'"\\uD83Dx"'),
    _n("high-then-bmp-escape", b'"\\uD83D\\u0041"'),
    _n("high-high", b'"\\uD83D\\uD83D"'),
    _n("high-at-end", b'"x\\uDBFF"'),
    # UTF-8 validity
    _n("utf8-lone-continuation", b'"\x80"'),
    _n("utf8-truncated-two", b'"\xc3"'),
    _n("utf8-truncated-three", b'"\xe2\x82"'),
    _n("utf8-truncated-four", b'"\xf0\x9f\x98"'),
    _n("utf8-overlong-slash", b'"\xc0\xaf"'),
    _n("utf8-overlong-nul", b'"\xc0\x80"'),
    _n("utf8-overlong-three", b'"\xe0\x80\xaf"'),
    _n("utf8-overlong-four", b'"\xf0\x80\x80\xaf"'),
    _n("utf8-encoded-surrogate", b'"\xed\xa0\x80"'),
    _n("utf8-above-max", b'"\xf4\x90\x80\x80"'),
    _n("utf8-fe-ff", b'"\xfe\xff"'),
    _n("latin1", b'"caf\xe9"'),
    _n("utf16-le-text", '"a"'.encode("utf-16-le")),
    _n("utf16-be-bom", b"\xfe\xff\x00[\x00]"),
    _n("utf8-outside-string", b"[\xc3\xa9]"),
    # byte order marks
    _n("bom-before-value", b"\xef\xbb\xbf{}"),
    _n("bom-between-values", b"[1,\xef\xbb\xbf2]"),
    _y("bom-in-string", b'"\xef\xbb\xbf"'),
    # whitespace
    _y("all-four-whitespace", b" \t\r\n[ \t\r\n1 \t\r\n] \t\r\n"),
    _n("form-feed-before", b"\x0c[]"),
    _n("form-feed-after", b"[]\x0c"),
    _n("form-feed-inside", b"[\x0c]"),
    _n("vertical-tab", b"[\x0b]"),
    _n("nbsp", b"[\xc2\xa0]"),
    _n("line-separator", b"[\xe2\x80\xa8]"),
    _n("ideographic-space", b"[\xe3\x80\x80]"),
    _n("nul-whitespace", b"[\x00]"),
    # depth (a carried value's nesting is not limited)
    _y("depth-1000-arrays", b"[" * 1000 + b"]" * 1000),
    _y("depth-100000-arrays", b"[" * 100_000 + b"]" * 100_000),
    _y("depth-10000-objects", b'{"a":' * 10_000 + b"1" + b"}" * 10_000),
    _y("depth-mixed", b'[{"a":' * 5000 + b"[]" + b"}]" * 5000),
    _n("depth-100000-unclosed", b"[" * 100_000 + b"]" * 99_999),
    _n("depth-mismatched-deep", b"[" * 50_000 + b"}" + b"]" * 49_999),
)


# --------------------------------------------------------------------------
# Families: one grammar position, every byte
# --------------------------------------------------------------------------


def _bytes_at(
    name: str, template: bytes, rule: Callable[[int], bool]
) -> Callable[[], Iterator[Case]]:
    """Every byte at the ``%`` of ``template``, accepted where ``rule`` says."""
    before, after = template.split(b"%")

    def cases() -> Iterator[Case]:
        for b in range(256):
            yield Case(f"{name}-x{b:02x}", before + bytes([b]) + after, rule(b))

    cases.__doc__ = f"{name}: {template!r}"
    return cases


BYTE_FAMILIES = (
    # after a backslash only the eight escapes (and u, which needs four hex digits)
    _bytes_at("escape", b'"\\%"', lambda b: b in ESCAPES),
    # inside a string: printable ASCII but the quote and the backslash, and DEL;
    # a byte from 0x80 alone is not UTF-8; controls below 0x20 must be escaped
    _bytes_at("string-byte", b'"a%z"', lambda b: 0x20 <= b < 0x80 and b not in b'"\\'),
    # between a key and its colon only whitespace
    _bytes_at("before-colon", b'{"a"%:1}', lambda b: b in WS),
    # after a literal inside an array only whitespace
    _bytes_at("after-literal", b"[true%]", lambda b: b in WS),
    # between colon and value: whitespace, or a minus or a digit but 0 (then "1" ends the number)
    _bytes_at("after-colon", b'{"a":%1}', lambda b: b in WS or b in b"-123456789"),
    # where a value may start in an array: a digit is a value, whitespace leaves it empty
    _bytes_at("value-start", b"[%]", lambda b: b in WS or b in DIGITS),
    # after a minus only a digit
    _bytes_at("after-minus", b"[-%]", lambda b: b in DIGITS),
    # after a leading zero: no more digits; '.', 'e' need more; whitespace ends it
    _bytes_at("after-zero", b"[0%]", lambda b: b in WS),
    # after a decimal point only a digit
    _bytes_at("after-point", b"[1.%]", lambda b: b in DIGITS),
    # after an exponent mark only a digit or a sign followed by one (none follows here)
    _bytes_at("after-exponent", b"[1e%]", lambda b: b in DIGITS),
    # the third hex digit of a \u escape (U+00?0 is never a surrogate)
    _bytes_at("unicode-hex", b'"\\u00%0"', lambda b: b in HEX),
    # the byte after a whole document: whitespace only
    _bytes_at("after-document", b'{"k":[1]}%', lambda b: b in WS),
)


def _utf8_cases() -> Iterator[Case]:
    """Every lead byte from 0x80 with continuation bytes at the edges of its range
    (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF)."""
    for lead in range(0x80, 0x100):
        if lead < 0xC0 or lead >= 0xF5 or lead in (0xC0, 0xC1):
            yield Case(f"utf8-lead-x{lead:02x}", b'"' + bytes([lead]) + b'"', False)
            yield Case(
                f"utf8-lead-x{lead:02x}-cont", b'"' + bytes([lead, 0x80, 0x80, 0x80]) + b'"', False
            )
            continue
        if lead < 0xE0:
            lo, hi, n = 0x80, 0xBF, 2
        elif lead < 0xF0:
            lo, hi = {0xE0: (0xA0, 0xBF), 0xED: (0x80, 0x9F)}.get(lead, (0x80, 0xBF))
            n = 3
        else:
            lo, hi = {0xF0: (0x90, 0xBF), 0xF4: (0x80, 0x8F)}.get(lead, (0x80, 0xBF))
            n = 4
        tail = bytes([0x80] * (n - 2))
        for second in sorted({lo, hi, lo - 1, hi + 1, 0x7F, 0xC0}):
            ok = lo <= second <= hi
            text = b'"' + bytes([lead, second]) + tail + b'"'
            yield Case(f"utf8-x{lead:02x}-x{second:02x}", text, ok)
        if n > 2:  # the sequence cut short by the closing quote
            yield Case(
                f"utf8-x{lead:02x}-short", b'"' + bytes([lead, lo]) + tail[:-1] + b'"', False
            )


def _surrogate_cases() -> Iterator[Case]:
    """\\u escapes: a high surrogate followed by each kind of escape or text."""
    highs = ("D800", "D83D", "DBFF", "d9ab")
    seconds = {
        "DC00": True,
        "DE00": True,
        "DFFF": True,
        "dcba": True,
        "D800": False,
        "DBFF": False,
        "0041": False,
        "FFFF": False,
    }
    for high in highs:
        for low, ok in seconds.items():
            yield Case(f"pair-{high}-{low}", f'"\\u{high}\\u{low}"'.encode(), ok)
        yield Case(f"pair-{high}-none", f'"\\u{high}"'.encode(), False)
        yield Case(f"pair-{high}-raw", f'"\\u{high}a"'.encode(), False)
        yield Case(f"pair-{high}-raw-utf8", f'"\\u{high}é"'.encode(), False)
    for low in ("DC00", "DE00", "DFFF", "dcba"):
        yield Case(f"lone-low-{low}", f'"\\u{low}"'.encode(), False)
        yield Case(f"lone-low-{low}-after-text", f'"x\\u{low}"'.encode(), False)
    for code in ("0000", "001F", "007F", "00FF", "07FF", "0800", "D7FF", "E000", "FFFD"):
        yield Case(f"bmp-{code}", f'"\\u{code}"'.encode(), True)


# Valid documents whose every strict prefix is refused (each starts a container or
# a string, so a prefix leaves something open).
PREFIXED = (
    b'{"a":[1,-2.5e+3,true,false,null],"b":{"c":"d\\u00e9\\n"}}',
    b'[{"id":"toolu_01","n":0},[],{},"\xe2\x82\xac\xf0\x9f\x98\x80",-0.1E-2]',
    b'"text with \\"quotes\\", \\\\ and \\/ and \\uD83D\\uDE00"',
    b'{"deep":[[[{"x":[[{"y":{}}]]}]]],"z":1234567890}',
)


def _prefix_cases() -> Iterator[Case]:
    for i, doc in enumerate(PREFIXED):
        yield Case(f"prefix{i}-whole", doc, True)
        for k in range(1, len(doc)):
            yield Case(f"prefix{i}-{k:03d}", doc[:k], False)


FAMILIES: tuple[Callable[[], Iterator[Case]], ...] = (
    *BYTE_FAMILIES,
    _utf8_cases,
    _surrogate_cases,
    _prefix_cases,
)


def all_cases() -> list[Case]:
    """The table, then every family, in a fixed order with unique ids."""
    cases = list(TABLE)
    for family in FAMILIES:
        cases.extend(family())
    return cases
