"""Files of what an agent has learnt: `agent.save(path)` and `load_agent(path)`.

A saved agent is one .npz file: a JSON header (format, agent name, parameters, minelab
version, the family's facts such as training_info) and the family's arrays. It is
written atomically (temp file + rename), and loading makes the agent from its name and
parameters, then gives it back what it had learnt:

    agent = ml.make_agent("gardea-q", train_level="4x4x3", train_size=100_000)
    agent.save("q.npz")                      # the trained model: plain arrays
    same = ml.agents.load_agent("q.npz")     # plays the same games, without retraining

Four kinds of families save:
* agents trained before they play (`minelab.agents.gardea`): their model's arrays;
* the bandits (`minelab.agents.bandit`): their key table slot for slot (keys, mines seen,
  times taken, Q, its meta), checked to hold together before a kernel probes it;
* the RL learners (`minelab.agents.rl`): the training games played, the board shape, and
  their state table (keys, values, visit counts, cut to the states stored) or weights;
  loaded back, an agent trains and plays on exactly as the original would;
* agents that learn as they play (the blog's `marginal`, `conditional`, `graphical`,
  `semi-deterministic` with the conditional fallback): their memory of every board shape
  they played, field by field, as arrays named `memory__<rows>x<cols>__<field>`
  (`memory_arrays`), the shapes listed in the header (`memory_from` reads them back and
  checks each field's dtype and shape).
Every member is a plain numeric array and the file is read with `allow_pickle=False`:
loading a file runs no code named in it. Files of format 1 are read when they hold no
learnt memory (a trained model's arrays); a memory of format 1 (pickled), a pickled or
object member, agents that learn nothing and agents this minelab
does not register raise ValueError, as do missing or mis-shaped fields of a memory.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from .._version import __version__
from ..atomic import atomic_write
from ..levels import MAX_CELLS

FORMAT = 2
READS = (1, FORMAT)  # format 1 differs only by the pickled memory, which is refused: a trained model's file reads
_PREFIX = "a__"


def save_agent(agent, path, extra: dict | None = None) -> Path:
    """Write `agent` (its parameters and what it has learnt) to `path` (.npz), atomically;
    `extra`: JSON-able facts kept in the header beside it (`saved_extra` reads them)."""
    path = Path(path)
    if path.suffix != ".npz":
        raise ValueError(f"path must end in .npz, got {str(path)!r}")
    arrays, facts = agent._saved()
    for name, a in arrays.items():
        if not isinstance(a, np.ndarray) or a.dtype.hasobject:
            raise ValueError(f"{agent.name}: saved member {name!r} is not a numeric array")
    meta = {"format": FORMAT, "agent": agent.name, "params": agent.params(), "minelab": __version__,
            "facts": _jsonable(facts)}
    if extra is not None:
        meta["extra"] = extra
    out = {_PREFIX + k: v for k, v in arrays.items()}
    out["meta"] = np.frombuffer(json.dumps(meta, sort_keys=True).encode(), np.uint8)
    return atomic_write(path, lambda f: np.savez(f, **out), mode="wb")


def load_agent(path, seed=None):
    """The agent saved at `path`, with what it had learnt; `seed` seeds its own choices."""
    from .base import make_agent

    path = Path(path)
    where = repr(str(path))
    if not os.path.exists(path):
        raise ValueError(f"path: no such file {where}")
    with np.load(path, allow_pickle=False) as z:
        if "meta" not in z.files:
            raise ValueError(f"{where} is not a saved minelab agent (no header)")
        try:
            meta = json.loads(bytes(z["meta"]).decode())
        except (ValueError, UnicodeDecodeError):
            raise ValueError(f"{where}: the header is not JSON: not a saved minelab agent") from None
        if not isinstance(meta, dict):
            raise ValueError(f"{where}: the header is not a JSON object: not a saved minelab agent")
        if meta.get("format") == 1 and _PREFIX + "memory" in z.files:
            raise ValueError(f"{where}: file format 1 with a learnt memory (pickled) is no longer read; this "
                             f"minelab reads such memories as plain arrays only: save the agent again with this "
                             f"minelab")
        if meta.get("format") not in READS:
            raise ValueError(f"{where}: file format {meta.get('format')!r}, this minelab reads "
                             f"{' and '.join(map(str, READS))}")
        arrays = {}
        for k in z.files:
            if not k.startswith(_PREFIX):
                continue
            try:
                arrays[k[len(_PREFIX):]] = z[k]  # read from the file: an array of its own
            except ValueError:  # numpy refuses object (pickled) members with allow_pickle=False
                raise ValueError(f"{where}: member {k[len(_PREFIX):]!r} is not a plain array (pickled "
                                 f"objects are never loaded): not a file this minelab wrote") from None
    if "memory" in arrays:
        raise ValueError(f"{where}: member 'memory' is where format 1 kept a pickled memory, which this minelab "
                         f"does not read (it saves memories as arrays): save the agent again with this minelab")
    if not isinstance(meta.get("params", {}), dict) or not isinstance(meta.get("facts", {}), dict):
        raise ValueError(f"{where}: the header's params and facts must be JSON objects")
    try:
        agent = make_agent(meta.get("agent"), seed=seed, **meta.get("params", {}))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: {exc}") from None
    try:
        agent._restore(arrays, meta.get("facts", {}))
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    return agent


def saved_extra(path) -> dict:
    """The `extra` facts `save_agent` kept in the header of `path` ({} when none);
    ValueError when `path` is no saved agent's file."""
    where = repr(str(path))
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(bytes(z["meta"]).decode())
    except (OSError, KeyError, ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"{where} is not a saved minelab agent ({exc})") from None
    extra = meta.get("extra", {}) if isinstance(meta, dict) else None
    if not isinstance(extra, dict):
        raise ValueError(f"{where}: the header's extra facts are not a JSON object")
    return extra


# ---------------------------------------------------------------------- learnt memories
def memory_name(shape: tuple[int, int], field: str) -> str:
    """The member holding `field` of the memory of board shape (rows, cols)."""
    return f"memory__{shape[0]}x{shape[1]}__{field}"


def memory_arrays(memory: dict) -> tuple[dict, dict]:
    """(arrays, facts) of a learner's memory {(rows, cols): {field: array}}: each field as
    the array `memory_name(shape, field)`, the shapes in facts["shapes"] (in `memory`'s order)."""
    arrays = {}
    for shape, fields in memory.items():
        for field, a in fields.items():
            arrays[memory_name(shape, field)] = np.ascontiguousarray(a)
    return arrays, {"shapes": [[int(r), int(c)] for r, c in memory]}


def memory_from(arrays: dict, facts: dict, layout) -> dict:
    """The memory `memory_arrays` wrote: {(rows, cols): {field: array}}, every field of
    `layout(rows, cols)` = {field: (dtype, dims)} checked to be that dtype and shape. A dim
    is an int, or a name bound by the first field that has it (e.g. "states": every field
    with that dim has as many). ValueError naming the field when one is missing or mis-shaped."""
    shapes = facts.get("shapes")
    if not isinstance(shapes, list):
        raise ValueError("the header lists no board shapes of the memory (facts.shapes)")
    out = {}
    for shape in shapes:
        if (not isinstance(shape, list) or len(shape) != 2 or not all(type(v) is int and v >= 1 for v in shape)
                or shape[0] * shape[1] > MAX_CELLS or tuple(shape) in out):
            raise ValueError(f"facts.shapes: {shape!r} is not a board shape [rows, cols] (each once, "
                             f"at most {MAX_CELLS} cells)")
        shape = (shape[0], shape[1])
        bound: dict[str, tuple[int, str]] = {}  # a named dim: (its length, the member that set it)
        fields = {}
        for field, (dtype, dims) in layout(*shape).items():
            name = memory_name(shape, field)
            if name not in arrays:
                raise ValueError(f"the memory has no field {name}")
            a = arrays[name]
            want = tuple(bound[d][0] if d in bound else d for d in dims)
            if a.dtype != np.dtype(dtype) or a.ndim != len(dims) or any(
                    isinstance(w, int) and n != w for n, w in zip(a.shape, want)):
                said = ", ".join(map(str, want))
                since = "".join(f" ({bound[d][0]} {d}, as in {bound[d][1]})" for d in dims if d in bound)
                raise ValueError(f"memory field {name}: {a.dtype}[{', '.join(map(str, a.shape))}], expected "
                                 f"{np.dtype(dtype)}[{said}]{since}")
            bound.update({d: (n, name) for d, n in zip(dims, a.shape) if isinstance(d, str) and d not in bound})
            fields[field] = np.ascontiguousarray(a)
        out[shape] = fields
    return out


def _jsonable(d: dict) -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, np.generic):
            v = v.item()
        elif isinstance(v, np.ndarray):
            v = v.tolist()
        out[k] = v
    return out
