"""Files of what an agent has learnt: `agent.save(path)` and `load_agent(path)`.

A saved agent is one .npz file: a JSON header (format, agent name, parameters, minelab
version, the family's facts such as training_info) and the family's arrays. It is
written atomically (temp file + rename), and loading makes the agent from its name and
parameters, then gives it back what it had learnt:

    agent = ml.make_agent("gardea-q", train_level="4x4x3", train_size=100_000)
    agent.save("q.npz")                      # the trained model: plain arrays
    same = ml.agents.load_agent("q.npz")     # plays the same games, without retraining

Two kinds of families save:
* agents trained before they play (`minelab.agents.gardea`): their model's arrays;
* agents that learn as they play (the blog's `marginal`, `conditional`, `graphical`,
  `semi-deterministic` with the conditional fallback): their memory of every board shape
  they played, pickled into one byte array. Unpickling runs code named in the file:
  load only files you trust (your own runs).
Agents that learn nothing raise ValueError; so do files of another format or of an
agent this minelab does not register.
"""
from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import numpy as np

from .._version import __version__
from ..atomic import atomic_write

FORMAT = 1
_PREFIX = "a__"


def save_agent(agent, path) -> Path:
    """Write `agent` (its parameters and what it has learnt) to `path` (.npz), atomically."""
    path = Path(path)
    if path.suffix != ".npz":
        raise ValueError(f"path must end in .npz, got {str(path)!r}")
    arrays, facts = agent._saved()
    meta = {"format": FORMAT, "agent": agent.name, "params": agent.params(), "minelab": __version__,
            "facts": _jsonable(facts)}
    out = {_PREFIX + k: v for k, v in arrays.items()}
    out["meta"] = np.frombuffer(json.dumps(meta, sort_keys=True).encode(), np.uint8)
    return atomic_write(path, lambda f: np.savez(f, **out), mode="wb")


def load_agent(path, seed=None):
    """The agent saved at `path`, with what it had learnt; `seed` seeds its own choices."""
    from .base import make_agent

    path = Path(path)
    if not os.path.exists(path):
        raise ValueError(f"path: no such file {str(path)!r}")
    with np.load(path, allow_pickle=False) as z:
        if "meta" not in z.files:
            raise ValueError(f"{str(path)!r} is not a saved minelab agent (no header)")
        meta = json.loads(bytes(z["meta"]).decode())
        arrays = {k[len(_PREFIX):]: z[k].copy() for k in z.files if k.startswith(_PREFIX)}
    if meta.get("format") != FORMAT:
        raise ValueError(f"{str(path)!r}: file format {meta.get('format')!r}, this minelab reads {FORMAT}")
    try:
        agent = make_agent(meta.get("agent"), seed=seed, **meta.get("params", {}))
    except ValueError as exc:
        raise ValueError(f"{str(path)!r}: {exc}") from None
    agent._restore(arrays, meta.get("facts", {}))
    return agent


def pickled(obj) -> np.ndarray:
    """`obj` as a byte array (a learner's memory)."""
    return np.frombuffer(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL), np.uint8)


def unpickled(data: np.ndarray):
    return pickle.loads(np.ascontiguousarray(data, np.uint8).tobytes())


def _jsonable(d: dict) -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, np.generic):
            v = v.item()
        elif isinstance(v, np.ndarray):
            v = v.tolist()
        out[k] = v
    return out
