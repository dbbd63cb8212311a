"""Recompute committed kept results with today's code and compare them, value for value.

A kept result (data/kept, `minelab keep`) is served by a sweep when its code stamp is
today's: the golden-playthrough digests of the agents it plays and its task kind's
revision. This tool checks what that stamp stands for on the files themselves: it
recomputes kept results in a scratch folder (`minelab.sweep.run_sweep` with
`recompute=True`, serially) and compares each with the committed file, every column and
value exactly.

    python tools/recompute_kept.py --max-seconds 200    # those that took at most 200 s to make
    python tools/recompute_kept.py data/kept/play/play-bbd4545432915c91.parquet

It prints a line per file (kind, agent, rows, seconds, identical or what differs) and exits
1 when one differs. It runs minelab only; nothing in minelab imports it.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from minelab import paths, sweep  # noqa: E402
from minelab import tasks as _registers_the_shared_kinds  # noqa: E402,F401


def file_task(path: Path) -> tuple[dict, float]:
    """(task, seconds it took to compute) from a result file's metadata."""
    meta = pq.read_schema(path).metadata or {}
    if b"minelab.task" not in meta:
        raise ValueError(f"{path} is not a sweep result file (no minelab.task in its metadata)")
    return json.loads(meta[b"minelab.task"]), float(json.loads(meta.get(b"minelab.info", b"{}")).get("seconds", 0.0))


def compare(path: Path) -> tuple[dict, float, str]:
    """(task, seconds, "identical" or the first difference) for one kept file."""
    task, _ = file_task(path)
    with tempfile.TemporaryDirectory() as scratch:
        start = time.perf_counter()
        sweep.run_sweep([task], results_dir=scratch, executor="serial", progress=False, recompute=True)
        seconds = time.perf_counter() - start
        fresh = pd.read_parquet(sweep.result_path(task, scratch))
    try:
        pd.testing.assert_frame_equal(pd.read_parquet(path), fresh, check_exact=True)
        return task, seconds, "identical"
    except AssertionError as exc:
        return task, seconds, "DIFFERENT: " + " ".join(str(exc).split())[:400]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path, help="kept files (default: every one under data/kept)")
    parser.add_argument("--max-seconds", type=float, default=None,
                        help="only the files whose recorded compute time is at most this")
    args = parser.parse_args(argv)
    files = args.files or sorted(paths.kept_root().glob("*/*.parquet"))
    if args.max_seconds is not None:
        files = [f for f in files if file_task(f)[1] <= args.max_seconds]
    if not files:
        print("no kept result to recompute")
        return 0
    differ = 0
    for path in files:
        task, seconds, verdict = compare(path)
        differ += verdict != "identical"
        print(f"{path.name}  {task['kind']}  {task.get('agent', '')}  {seconds:.0f} s  {verdict}", flush=True)
    print(f"{len(files) - differ} of {len(files)} identical")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
