"""Run the notebooks with papermill and rebuild figures/REPORT.md (`minelab reproduce`).

    from minelab import reproduce
    reproduce.run("quick")                                  # every notebook, then REPORT.md
    reproduce.run("smoke", only="antimatroid2012_agents")   # one notebook
    reproduce.run("paper", scheduler="tcp://host:8786")     # big runs on a dask cluster

Each notebook `notebooks/<stem>.ipynb` (names starting with "_" are skipped) runs with
the parameters profile, seed and scheduler injected after its cell tagged "parameters";
the executed copy goes to `build/<stem>.ipynb` (git-ignored), the notebook's own outputs
(figures, tables, measured numbers) to `figures/` through minelab.report. All of them
under the project directory (minelab.paths): the checkout you run from, or the current
directory with the notebooks shipped in the package. The kernel is always the
interpreter running this code, whatever kernelspecs the user has. The output is one
line per notebook with its time and its peak memory, then where REPORT.md is.

Peak memory is sampled every half second (`PeakMemory`) over the processes this run
starts (the kernel, its sweep workers, a dask cluster's workers): the largest resident
set of one process, and the largest sum over all of them at one moment of their
proportional set sizes (a page several processes share, such as a library's, counted
once in all).
"""
from __future__ import annotations

import contextlib
import json
import numbers
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

from . import paths
from .profiles import PROFILES
from .report import build_report

_PRIVATE_KERNEL = "minelab-reproduce"
GIB = 1024 ** 3  # the "GB" the run prints
# The kernel's own log is not the run's output: its start-up notices ("running over TCP
# without encryption": the kernel is local, on the loopback interface) and the interrupt
# jupyter_client sends a kernel slow to shut down ("KeyboardInterrupt caught in kernel").
# A notebook's errors still show: papermill reports the failing cell.
_KERNEL_ARGS = ["--IPKernelApp.log_level=CRITICAL"]


NOT_REPRODUCED = ("tour.ipynb",)  # notebooks/ that make no figure: `minelab reproduce` leaves them out


def list_notebooks(notebooks_dir: str | os.PathLike | None = None) -> list[Path]:
    """The notebooks `run` executes, sorted by name (those starting with "_" are skipped, and
    the tour, which regenerates nothing: tests/test_tour.py runs it).

        >>> [p.stem for p in list_notebooks()][:1]
        ['antimatroid2012_agents']
    """
    folder = Path(notebooks_dir) if notebooks_dir is not None else paths.notebooks_dir()
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("*.ipynb")
                  if not p.name.startswith(("_", ".")) and p.name not in NOT_REPRODUCED)


def _select(notebooks: list[Path], only) -> list[Path]:
    if only is None:
        return notebooks
    wanted = [only] if isinstance(only, (str, os.PathLike)) else list(only)
    by_stem = {p.stem: p for p in notebooks}
    stems = []
    for w in wanted:
        stem = Path(w).stem if str(w).endswith(".ipynb") else str(w)
        if stem not in by_stem:
            available = ", ".join(by_stem) or "(none)"
            raise ValueError(f"unknown notebook {str(w)!r}; available: {available}")
        if stem not in stems:
            stems.append(stem)
    return [by_stem[s] for s in sorted(stems)]


def _has_parameters_cell(path: Path) -> bool:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return any("parameters" in (cell.get("metadata", {}).get("tags") or []) for cell in nb.get("cells", []))


def _python3_spec_is_ours() -> bool:
    """True if the kernelspec "python3" that jupyter_client would pick runs sys.executable."""
    try:
        from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
    except ImportError:  # pragma: no cover - papermill depends on jupyter_client
        return False
    try:
        spec = KernelSpecManager().get_kernel_spec("python3")
    except NoSuchKernel:
        return False
    if not spec.argv:
        return False
    exe = spec.argv[0]
    # jupyter_client substitutes sys.executable for a bare "python"/"python3"/"python3.X".
    bare = {"python", f"python{sys.version_info[0]}", "python%i.%i" % sys.version_info[:2]}
    return exe in bare or os.path.abspath(exe) == os.path.abspath(sys.executable)


@contextlib.contextmanager
def _kernel(kernel_name: str | None):
    """Yield the kernel name to run with: `kernel_name`, or one that runs this interpreter.

    "python3" is used when it resolves to sys.executable (the usual case inside a venv
    with ipykernel). Otherwise a private kernelspec pointing at sys.executable is written
    to a temporary directory put first on JUPYTER_PATH for the duration of the run.
    """
    if kernel_name is not None:
        yield kernel_name
        return
    if _python3_spec_is_ours():
        yield "python3"
        return
    with tempfile.TemporaryDirectory(prefix="minelab-kernel-") as tmp:
        spec_dir = Path(tmp, "kernels", _PRIVATE_KERNEL)
        spec_dir.mkdir(parents=True)
        spec = {"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": f"Python {sys.version_info[0]}.{sys.version_info[1]} (minelab reproduce)",
                "language": "python"}
        (spec_dir / "kernel.json").write_text(json.dumps(spec, indent=1), encoding="utf-8")
        old = os.environ.get("JUPYTER_PATH")
        os.environ["JUPYTER_PATH"] = os.pathsep.join([tmp] + ([old] if old else []))
        try:
            yield _PRIVATE_KERNEL
        finally:
            if old is None:
                os.environ.pop("JUPYTER_PATH", None)
            else:
                os.environ["JUPYTER_PATH"] = old


class PeakMemory:
    """Sample, in a thread, the memory of this process's descendants (not this process:
    the notebooks run in kernels) until the block ends: `process` (bytes) is the largest
    resident set one process reached (`which`: "kernel" or "worker"), `total` the largest
    sum of their proportional set sizes at one sampling moment.

        with PeakMemory() as peak:
            subprocess.run(...)
        print(peak.process, peak.total)
    """

    def __init__(self, interval: float = 0.5):
        self.interval, self.process, self.total, self.which = interval, 0, 0, ""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="minelab-peak-memory", daemon=True)

    def _sample(self) -> None:
        me = psutil.Process()
        kernels = {p.pid for p in me.children()}
        total = 0
        for child in me.children(recursive=True):
            try:
                info = child.memory_full_info()
            except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
                continue
            total += getattr(info, "pss", info.rss)  # pss: Linux; elsewhere the resident set
            if info.rss > self.process:
                self.process, self.which = info.rss, "kernel" if child.pid in kernels else "worker"
        self.total = max(self.total, total)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()

    def __enter__(self) -> "PeakMemory":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def text(self) -> str:
        return (f"peak memory {self.process / GIB:.1f} GB in one process ({self.which or 'none'}), "
                f"{self.total / GIB:.1f} GB in all")


@contextlib.contextmanager
def _project_env():
    """Pin the project directory for the kernels ($MINELAB_PROJECT), so a notebook writes
    under the project this run belongs to, wherever the notebook file itself lives."""
    project = paths.project_dir()
    old = os.environ.get(paths.PROJECT_ENV)
    os.environ[paths.PROJECT_ENV] = str(project)
    try:
        yield project
    finally:
        if old is None:
            os.environ.pop(paths.PROJECT_ENV, None)
        else:
            os.environ[paths.PROJECT_ENV] = old


def run(profile: str = "quick", only=None, scheduler: str | None = None, seed: int = 0,
        notebooks_dir: str | os.PathLike | None = None, build_dir: str | os.PathLike | None = None,
        kernel_name: str | None = None, record: list | None = None) -> list[Path]:
    """Execute the notebooks with papermill, then rebuild figures/REPORT.md.

    profile: smoke | quick | paper. only: a notebook stem (or list of stems) to run
    instead of all. scheduler: a dask scheduler address passed to the notebooks (None:
    local processes, or at the smoke profile each notebook's own: `profiles.executor_for`).
    record: a list that gets one dict per finished notebook (notebook, profile, seconds,
    largest_process_gib, largest_process, all_processes_gib: what the printed line says;
    `minelab bench reproduce` saves them). Returns the executed copies (build/<stem>.ipynb),
    in run order.
    A failing notebook stops the run with RuntimeError("notebook <stem> failed in cell
    <n>: <ename>: <evalue>"); its partly executed copy stays in build/.
    """
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {', '.join(PROFILES)}; got {profile!r}")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    seed = int(seed)
    if scheduler is not None and (not isinstance(scheduler, str) or not scheduler.strip()):
        raise ValueError(f"scheduler must be an address such as tcp://host:8786 or None, got {scheduler!r}")
    nb_dir = (Path(notebooks_dir) if notebooks_dir is not None else paths.notebooks_dir()).resolve()
    out_dir = (Path(build_dir) if build_dir is not None else paths.build_dir()).resolve()
    selected = _select(list_notebooks(nb_dir), only)
    missing = [p.name for p in selected if not _has_parameters_cell(p)]
    if missing:
        raise ValueError(f"notebook(s) without a cell tagged 'parameters': {', '.join(missing)}")

    import papermill as pm  # heavy import: only when there is work to do

    parameters = {"profile": profile, "seed": seed, "scheduler": scheduler}
    executed: list[Path] = []
    if not selected:
        print(f"no notebooks to run in {nb_dir}", flush=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    with _kernel(kernel_name) as kname, _project_env() as project:
        for nb in selected:
            target = out_dir / nb.name
            print(f"running {nb.stem} ({profile})... ", end="", flush=True)
            start = time.perf_counter()
            try:
                with PeakMemory() as peak:
                    pm.execute_notebook(str(nb), str(target), parameters=parameters, cwd=str(project),
                                        kernel_name=kname, language="python", progress_bar=False,
                                        log_output=False, extra_arguments=_KERNEL_ARGS,
                                        store_widget_state=False)  # a viewer's HTML export is its static picture
            except pm.PapermillExecutionError as exc:
                print(f"failed after {time.perf_counter() - start:.1f} s (executed copy: {target})", flush=True)
                cell = exc.exec_count if exc.exec_count is not None else exc.cell_index
                raise RuntimeError(f"notebook {nb.stem} failed in cell {cell}: {exc.ename}: {exc.evalue}") from exc
            except BaseException:
                print(f"aborted after {time.perf_counter() - start:.1f} s", flush=True)
                raise
            seconds = time.perf_counter() - start
            print(f"done in {seconds:.1f} s, {peak.text()}", flush=True)
            if record is not None:
                record.append({"notebook": nb.stem, "profile": profile, "seconds": round(seconds, 1),
                               "largest_process_gib": round(peak.process / GIB, 2),
                               "largest_process": peak.which or "none",
                               "all_processes_gib": round(peak.total / GIB, 2)})
            executed.append(target)
    report = build_report()
    print(f"report: {report}", flush=True)
    return executed


__all__ = ["run", "list_notebooks"]
