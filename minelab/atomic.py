"""Atomic file writes: a temp file in the target's directory, fsync, then os.replace.

os.replace within one directory is atomic, so a path only ever names a complete file:
a crash or Ctrl-C mid-write leaves no half-written result (and no temp file behind).
Used by the sweep's result files and by every notebook output.
"""
from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Callable


def _read_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# Read once at import: toggling the umask while worker threads create files would race.
_UMASK = _read_umask()


def atomic_write(path: "str | os.PathLike", write: Callable, mode: str = "w") -> Path:
    """Call write(fileobj) on a temp file next to `path`, then move it into place.

    The file gets the usual permissions (0666 less the umask), not mkstemp's 0600, so
    results stay readable by the rest of a team.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        kwargs = {"encoding": "utf-8", "newline": ""} if "b" not in mode else {}
        with os.fdopen(fd, mode, **kwargs) as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path
