"""normalize_for_api on bytes, dicts and Structs, side by side with its limits.

Group ``normalize_for_api n=N`` (same JSON array input):
  ours bytes / ours JSONL / ours dicts, against ``msgspec.json.decode(data,
  type=list[msgspec.Raw])`` (the bytes path's limit: a scan), ``msgspec.json.decode``
  untyped (the dict path's limit: building the dicts) and the pure-Python reference.
Group ``normalize_for_api structs n=N`` (the history less its entries):
  ours on ``list[msgnorm.Message]``, ``msgnorm.decode``, and ``msgspec.json.decode(data,
  type=list[msgnorm.Message])`` (the Struct path's limit).
"""

from __future__ import annotations

from collections.abc import Callable
from types import GenericAlias, ModuleType
from typing import Any

import msgspec
import pytest
from support.harness import bench_bytes, run_bench


def _group(size: int) -> str:
    return f"normalize_for_api n={size}"


def _check_api_output(out: list[Any]) -> None:
    assert out, "normalize_for_api returned nothing"
    first = out[0]
    kind = first["type"] if isinstance(first, dict) else getattr(first, "type", None)
    assert kind == "user", f"output starts with {kind!r}"


def test_ours_bytes(benchmark: Any, mn: ModuleType, data: bytes, size: int) -> None:
    out = run_bench(
        benchmark, lambda: mn.normalize_for_api(data), group=_group(size), n=size, nbytes=len(data)
    )
    assert isinstance(out, bytes)
    _check_api_output(msgspec.json.decode(out))


def test_ours_jsonl(benchmark: Any, mn: ModuleType, data_jsonl: bytes, size: int) -> None:
    out = bench_bytes(benchmark, mn.normalize_for_api, data_jsonl, group=_group(size), n=size)
    assert isinstance(out, bytes)


def test_ours_dicts(
    benchmark: Any, mn: ModuleType, records: list[dict[str, Any]], size: int
) -> None:
    out = run_bench(benchmark, lambda: mn.normalize_for_api(records), group=_group(size), n=size)
    _check_api_output(out)


def test_limit_msgspec_raw_scan(benchmark: Any, data: bytes, size: int) -> None:
    dec = msgspec.json.Decoder(list[msgspec.Raw])
    out = run_bench(
        benchmark, lambda: dec.decode(data), group=_group(size), n=size, nbytes=len(data)
    )
    assert len(out) == size


def test_limit_msgspec_untyped(benchmark: Any, data: bytes, size: int) -> None:
    dec = msgspec.json.Decoder()
    out = run_bench(
        benchmark, lambda: dec.decode(data), group=_group(size), n=size, nbytes=len(data)
    )
    assert len(out) == size


def test_peer_reference_dicts(
    benchmark: Any, reference: Callable[..., Any], records: list[dict[str, Any]], size: int
) -> None:
    out = run_bench(benchmark, lambda: reference(records), group=_group(size), n=size)
    _check_api_output(out)


# -- the Struct path -----------------------------------------------------------------


def _sgroup(size: int) -> str:
    return f"normalize_for_api structs n={size}"


def test_ours_structs(benchmark: Any, mn: ModuleType, messages_data: bytes, size: int) -> None:
    structs = mn.decode(messages_data)
    out = run_bench(benchmark, lambda: mn.normalize_for_api(structs), group=_sgroup(size), n=size)
    assert out and isinstance(out, list)
    assert not isinstance(out[0], dict)


def test_ours_decode(benchmark: Any, mn: ModuleType, messages_data: bytes, size: int) -> None:
    out = bench_bytes(benchmark, mn.decode, messages_data, group=_sgroup(size), n=size)
    assert len(out) > 0


def test_limit_msgspec_typed(
    benchmark: Any, mn: ModuleType, messages_data: bytes, size: int
) -> None:
    dec = msgspec.json.Decoder(GenericAlias(list, (mn.Message,)))
    out = bench_bytes(benchmark, dec.decode, messages_data, group=_sgroup(size), n=size)
    assert len(out) > 0


# -- the paths agree (not timed) -----------------------------------------------------


def test_bytes_and_dict_paths_agree(
    mn: ModuleType, data: bytes, records: list[dict[str, Any]]
) -> None:
    """Otherwise the groups above would not time the same work."""
    assert msgspec.json.decode(mn.normalize_for_api(data)) == mn.normalize_for_api(records)


def test_agrees_with_reference(
    mn: ModuleType, reference: Callable[..., Any], records: list[dict[str, Any]], size: int
) -> None:
    if size > 10_000:
        pytest.skip("checked on the smaller sizes")
    assert mn.normalize_for_api(records) == reference(records)
