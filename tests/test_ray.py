"""msgnorm.ray on a real local Ray cluster (2 CPUs, no dashboard, its files under
pytest's temporary directory, loopback only): every row the single call's."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgnorm
import pytest
from support.engines import (
    BROKEN,
    CORPUS_FILES,
    histories,
    row_of,
    single,
    threads_named_msgnorm,
    write_tree,
)

pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install 'msgnorm[ray]')")
ray = pytest.importorskip(
    "ray", reason="ray is not installed for this Python (pip install 'msgnorm[ray]')"
)
pytest.importorskip(
    "ray.data", reason="ray is installed without ray.data (pip install 'msgnorm[ray]')"
)

import msgnorm.ray  # noqa: E402


def start_local_ray(temp_dir: Path, num_cpus: int = 2) -> None:
    """A local Ray cluster that writes under ``temp_dir`` and talks over loopback only."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage report over the network
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")  # no token file in the home directory
    ray.init(
        num_cpus=num_cpus,
        include_dashboard=False,
        _temp_dir=str(temp_dir),
        _node_ip_address="127.0.0.1",
        object_store_memory=256 << 20,
        configure_logging=False,
        log_to_driver=False,
    )
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    ctx.execution_options.preserve_order = True


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    if ray.is_initialized():
        ray.shutdown()
    # a short path: Ray's sockets live under it (AF_UNIX paths are short)
    start_local_ray(tmp_path_factory.mktemp("ray"))
    yield
    ray.shutdown()


def rows(ds: Any) -> list[dict[str, Any]]:
    table = pa.concat_tables(ray.get(ds.to_arrow_refs()))
    out: list[dict[str, Any]] = table.to_pylist()
    return out


def test_normalize_dataset_rows_are_the_single_calls(cluster: None) -> None:
    items: list[bytes | None] = [*histories(150), None, BROKEN, b"[{oops", *histories(30)]
    ds = ray.data.from_arrow(pa.table({"h": pa.array(items), "i": range(len(items))}))
    got = rows(msgnorm.ray.normalize_dataset(ds, "h", batch_size=16))
    assert [r["i"] for r in got] == list(range(len(items)))
    for r, data in zip(got, items, strict=True):
        assert row_of(r) == single(data), r["i"]
    assert got[151]["error"].startswith("records[0].message.content")


def test_map_batches_with_the_table_function_and_options(cluster: None) -> None:
    items = [h.decode() for h in histories(40)]
    ds = ray.data.from_arrow(pa.table({"h": pa.array(items, type=pa.large_string())}))
    ds = ds.map_batches(
        msgnorm.ray.normalize_table,
        batch_format="pyarrow",
        fn_kwargs={"column": "h", "max_media": 1, "short_ids": True},
    )
    for r, data in zip(rows(ds), items, strict=True):
        assert row_of(r) == single(data.encode(), max_media=1, short_ids=True)


def test_a_directory_of_session_files(cluster: None, tmp_path: Path) -> None:
    files = write_tree(tmp_path, [*histories(60), BROKEN])
    ds = ray.data.read_binary_files(str(tmp_path), include_paths=True, file_extensions=["jsonl"])
    got = rows(msgnorm.ray.normalize_dataset(ds, session=True))
    assert len(got) == len(files)
    for r in got:
        rel = Path(r["path"]).relative_to(tmp_path).as_posix()
        assert row_of(r) == single(files[rel], session=True), rel
    assert CORPUS_FILES and any("corpus/" in r["path"] for r in got)


def test_workers_run_the_kernel_on_one_thread(cluster: None) -> None:
    # num_threads=1 runs rows inline: no pool is built inside the engine's workers
    def pool_threads(batch: Any) -> Any:  # local: Ray pickles it by value
        import pyarrow

        task = Path("/proc/self/task")
        names = [(task / t / "comm").read_text() for t in os.listdir(task)]
        n = sum(name.startswith("msgnorm-") for name in names)
        return batch.append_column("pool_threads", pyarrow.array([n] * batch.num_rows))

    if threads_named_msgnorm() < 0:
        pytest.skip("needs Linux /proc")
    ds = ray.data.from_arrow(pa.table({"h": pa.array(histories(20))}))
    # the two map_batches are fused into one task: the count sees the kernel's process
    ds = msgnorm.ray.normalize_dataset(ds, "h", batch_size=5)
    got = rows(ds.map_batches(pool_threads, batch_format="pyarrow", batch_size=5))
    assert len(got) == 20 and {r["pool_threads"] for r in got} == {0}


def test_bad_column_is_a_clear_error() -> None:
    table = pa.table({"h": pa.array([b"[]"])})
    with pytest.raises(msgnorm.MsgnormError, match="no column 'x'"):
        msgnorm.ray.normalize_table(table, column="x")
    with pytest.raises(msgnorm.MsgnormError, match="already has"):
        msgnorm.ray.normalize_table(table.append_column("error", pa.array([1])), column="h")
    with pytest.raises(msgnorm.MsgnormError, match=r"pyarrow\.Table"):
        msgnorm.ray.normalize_table({"h": [b"[]"]}, column="h")
