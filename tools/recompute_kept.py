"""Recompute committed kept results with today's code and compare them, value for value.

A kept result (data/kept, `minelab keep`) is served by a sweep when its code stamp is
today's: the golden-playthrough digests of the agents it plays and its task kind's
revision. This tool checks what that stamp stands for on the files themselves: it
recomputes kept results in a scratch folder (`minelab.sweep.run_sweep` with
`recompute=True`, serially) and compares each with the committed file, every column and
value exactly.

    python tools/recompute_kept.py --max-seconds 200    # those that took at most 200 s to make
    python tools/recompute_kept.py data/kept/play/play-bbd4545432915c91.parquet

It prints a line per file (kind, agent, seconds, identical or what differs) and exits 1
when one differs. It reads the files with the sweep's own readers (`_result_files`,
`_file_task`); nothing in minelab imports it.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from minelab import paths, sweep  # noqa: E402
from minelab import tasks as _registers_the_shared_kinds  # noqa: E402,F401


def file_task(path: Path) -> tuple[dict, float]:
    """(task, seconds it took to compute) from a result file's metadata."""
    task, info = sweep._file_task(path)
    if task is None:
        raise ValueError(f"{path} is not a sweep result file")
    return task, float(info.get("seconds", 0.0))


def compare(path: Path, task: dict) -> tuple[float, str]:
    """(seconds, "identical" or the first difference) for the kept file of `task`."""
    with tempfile.TemporaryDirectory() as scratch:
        start = time.perf_counter()
        sweep.run_sweep([task], results_dir=scratch, executor="serial", progress=False, recompute=True)
        seconds = time.perf_counter() - start
        fresh = pd.read_parquet(sweep.result_path(task, scratch))
    try:
        pd.testing.assert_frame_equal(pd.read_parquet(path), fresh, check_exact=True)
        return seconds, "identical"
    except AssertionError as exc:
        return seconds, "DIFFERENT: " + " ".join(str(exc).split())[:400]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path, help="kept files (default: every one under data/kept)")
    parser.add_argument("--max-seconds", type=float, default=None,
                        help="only the files whose recorded compute time is at most this")
    args = parser.parse_args(argv)
    files = args.files or sweep._result_files(paths.kept_root())
    try:  # every file read before any is recomputed: a wrong path fails at once
        made = {f: file_task(f) for f in files}
    except (OSError, ValueError) as exc:
        parser.error(str(exc))
    if args.max_seconds is not None:
        files = [f for f in files if made[f][1] <= args.max_seconds]
    if not files:
        print("no kept result to recompute")
        return 0
    differ = 0
    for path in files:
        task = made[path][0]
        seconds, verdict = compare(path, task)
        differ += verdict != "identical"
        print(f"{path.name}  {task['kind']}  {task.get('agent', '')}  {seconds:.0f} s  {verdict}", flush=True)
    print(f"{len(files) - differ} of {len(files)} identical")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
