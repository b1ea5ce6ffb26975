"""SPEC §2 Ids: derive_uuid and derive_short_message_id."""

from __future__ import annotations

import pytest

UUID = "550e8400-e29b-41d4-a716-446655440000"


def test_derive_uuid_spec_vector(impl):
    # §2: derive_uuid("550e8400-e29b-41d4-a716-446655440000", 3) ==
    #     "550e8400-e29b-41d4-a716-000000000003"
    assert impl.derive_uuid(UUID, 3) == "550e8400-e29b-41d4-a716-000000000003"


@pytest.mark.parametrize(
    ("parent", "index", "expected"),
    [
        # §2: "the first 24 characters of parent ... followed by index as 12
        # lowercase hex digits, zero-padded"
        (UUID, 0, "550e8400-e29b-41d4-a716-000000000000"),
        (UUID, 255, "550e8400-e29b-41d4-a716-0000000000ff"),
        (UUID, 16**12 - 1, "550e8400-e29b-41d4-a716-ffffffffffff"),
        # §2: "(all of it when shorter: ... ids such as user_001)"
        ("user_001", 5, "user_001000000000005"),
        ("", 1, "000000000001"),
        # exactly 24 characters: all of it
        ("abcdefghijklmnopqrstuvwx", 10, "abcdefghijklmnopqrstuvwx00000000000a"),
        # 24 characters are code points, not bytes (A22)
        ("é" * 30, 1, "é" * 24 + "000000000001"),
    ],
)
def test_derive_uuid(impl, parent, index, expected):
    assert impl.derive_uuid(parent, index) == expected


@pytest.mark.parametrize("index", [-1, 16**12, 16**12 + 5, -(2**70)])
def test_derive_uuid_index_out_of_range(impl, index):
    # §2: "ValueError if index is outside 0 <= index < 16**12"
    with pytest.raises(ValueError):
        impl.derive_uuid(UUID, index)


def test_derive_short_message_id_spec_vector(impl):
    # §2: "550e8400-e29b-41d4-a716-446655440000" -> "4ntnke"
    assert impl.derive_short_message_id(UUID) == "4ntnke"


@pytest.mark.parametrize(
    ("uuid", "expected"),
    [
        # §2: remove the dashes, first 10 characters, hex -> base 36, first 6
        ("550E8400-E29B-41D4-A716-446655440000", "4ntnke"),  # upper-case hex digits
        ("ff", "73"),  # 255 = 7*36 + 3; fewer than 6 digits: all of them
        ("10", "g"),  # 16
        ("0000000000ffff", "0"),  # only the first 10 characters count: 0
        ("00000000-ab", "4r"),  # dashes removed first: "00000000ab" = 171 = 4*36 + 27
        ("f-f-f-f-f-f-f-f-f-f-f-f", "e13wu1"),  # 16**10 - 1 = "e13wu1of" in base 36
    ],
)
def test_derive_short_message_id(impl, uuid, expected):
    assert impl.derive_short_message_id(uuid) == expected


@pytest.mark.parametrize(
    "uuid",
    [
        "user_001",  # 'u' is not hexadecimal
        "",  # no characters
        "----",  # none left after removing dashes
        "0x12345678",  # int(_, 16) would accept the prefix; the SPEC does not
        "1_2",
        " 12",
        "١٢",  # Arabic-Indic digits are not hexadecimal digits
        "12345678g9",
    ],
)
def test_derive_short_message_id_errors(impl, uuid):
    # §2: "ValueError if those characters are not all hexadecimal or there are none"
    with pytest.raises(ValueError):
        impl.derive_short_message_id(uuid)


def test_non_hex_after_the_first_ten_is_ignored(impl):
    # §2: only "the first 10 characters" are read
    assert impl.derive_short_message_id("0000000010zzzz") == "g"
