"""Numba's on-disk cache, kept per version of minelab's source.

numba invalidates a cached kernel only when the kernel's *own* file changes, yet a
kernel compiles in everything it calls: csp's batch loop (`agents.batch.play_games` with
csp's hooks) carries the exact solver of probability.py inside it. Edit probability.py
alone and numba would go on loading the old csp kernel from its cache: the agent would
play the old code, and a
golden playthrough test would pass on code that no longer exists. So every cache lives
in a folder named after a digest of the whole package's source: any edit anywhere in
minelab starts a fresh folder (one full compilation: `minelab bench` reports each
agent's compile seconds), and code that is back to an earlier state finds its folder again.

Where: $NUMBA_CACHE_DIR/minelab-<digest> when you set NUMBA_CACHE_DIR, else
~/.cache/minelab/numba/<digest> ($XDG_CACHE_HOME respected). The few most recently used
folders are kept, older ones removed. When no folder can be written, numba's default
(__pycache__ beside the sources) is left as it is.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path

KEEP = 4  # cache folders (source versions) kept besides the current one
_DIGEST_ENV = "MINELAB_SOURCE_DIGEST"


def source_digest(package: Path | None = None) -> str:
    """sha256 (16 hex) over the paths and bytes of every .py file of the package."""
    package = Path(package) if package is not None else Path(__file__).resolve().parent
    h = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        h.update(str(path.relative_to(package)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


_running: str | None = None


def running_digest() -> str:
    """`source_digest` of the source this process imported, computed once: what a file
    edited since then says does not change what runs here."""
    global _running
    if _running is None:
        _running = source_digest()
    return _running


def configure() -> str | None:
    """Point numba's cache at this source version's folder (before any kernel is defined);
    the folder, or None when numba's default is kept."""
    import numba

    digest = running_digest()
    env = os.environ.get("NUMBA_CACHE_DIR", "")
    if env and os.environ.get(_DIGEST_ENV) == digest and Path(env).name.endswith(digest):
        folder, root = Path(env), None  # set by a parent process of the same source (a worker, a kernel)
    elif env:
        root = Path(env).expanduser()
        folder = root / f"minelab-{digest}"
    else:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        root = Path(base) / "minelab" / "numba"
        folder = root / digest
    try:
        folder.mkdir(parents=True, exist_ok=True)
        os.utime(folder)
    except OSError:
        return None
    numba.config.CACHE_DIR = str(folder)
    os.environ["NUMBA_CACHE_DIR"] = str(folder)  # spawned workers and notebook kernels use it too
    os.environ[_DIGEST_ENV] = digest
    if root is not None:
        prune(root, folder)
    return str(folder)


def prune(root: Path, current: Path) -> None:
    """Remove all but the KEEP most recently used other source versions' folders of root
    (those named minelab-<digest>, or any folder when root is named "numba"), none used
    in the last hour."""
    try:
        others = [p for p in root.iterdir() if p.is_dir() and p != current
                  and (p.name.startswith("minelab-") or root.name == "numba")]
        others.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return
    cutoff = time.time() - 3600  # never a folder another process may just have started to use
    for old in others[KEEP:]:
        try:
            if old.stat().st_mtime < cutoff:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            pass
