"""One typed parameter spec per agent family.

A family declares its parameters once, as a frozen dataclass deriving from `Spec`, each
field made by `number`, `integer`, `flag`, `choice` or `given` (a field checked by a
function of the family's own). From that one declaration come:

- **validation**: `Spec(**kw)` checks every field and raises ValueError naming the field
  and what it accepts; `Spec.make(family, **kw)` also turns an unknown name into a
  ValueError listing the family's parameters;
- **the values**, coerced: an integer given for a number becomes a float, a numpy bool a
  bool, a first-click pair a tuple;
- **params()**: what defines the agent in records, task keys and its repr: every field
  whose `keep` is "always", the others only when they differ from their default (so a
  parameter added with its old behaviour as default leaves every task key as it was), or
  when `keep`, a function of the agent, says so (a field that matters only beside another);
- **describe()**: one row a parameter (name, default, what it accepts, what it does),
  for `minelab agents` and the docs' agent table.

The agent keeps its values as attributes of the same names (`Spec.apply`; a field may
name another attribute, `attr`), the names its kernels' settings are built from.

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Demo(Spec):
    ...     rate: float = number(0.1, 0.0, 1.0, doc="a probability")
    ...     rule: str = choice("a", ("a", "b"), doc="which rule")
    >>> Demo(rate=1).rate, Demo().params(), Demo(rule="b").params()
    (1.0, {}, {'rule': 'b'})
    >>> Demo(rate=2)
    Traceback (most recent call last):
    ...
    ValueError: rate must be a number in [0, 1], got 2
"""
from __future__ import annotations

import dataclasses
import inspect
import math
from typing import Any, Callable

import numpy as np

ALWAYS, NON_DEFAULT = "always", "non-default"


def _field(default, check: Callable[[str, Any], Any], accepts: str, doc: str, keep, attr: str | None = None):
    if keep not in (ALWAYS, NON_DEFAULT) and not callable(keep):
        raise ValueError(f"keep must be {ALWAYS!r}, {NON_DEFAULT!r} or a function of the agent, got {keep!r}")
    return dataclasses.field(default=default, metadata={"check": check, "accepts": accepts, "doc": doc,
                                                        "keep": keep, "attr": attr})


def _bound(x: float) -> str:
    return "inf" if x == math.inf else "-inf" if x == -math.inf else f"{x:g}"


def number(default: float | None, lo: float = -math.inf, hi: float = math.inf, *, lo_open: bool = False,
           optional: bool = False, doc: str = "", keep=NON_DEFAULT):
    """A finite real number in [lo, hi] ((lo, hi] with lo_open), kept as a float; None
    too when `optional`."""
    if hi < math.inf:
        accepts = f"a number in {'(' if lo_open else '['}{_bound(lo)}, {_bound(hi)}]"
    elif lo > -math.inf:
        accepts = f"a finite number {'>' if lo_open else '>='} {_bound(lo)}"
    else:
        accepts = "a finite number"

    if optional:
        accepts += " or None"

    def check(name, value):
        if optional and value is None:
            return None
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)) \
                or not math.isfinite(value) or value < lo or value > hi or (lo_open and value == lo):
            raise ValueError(f"{name} must be {accepts}, got {value!r}")
        return float(value)

    return _field(default, check, accepts, doc, keep)


def integer(default: int, lo: int = 0, hi: int | None = None, *, doc: str = "", keep=NON_DEFAULT):
    """An integer in [lo, hi] (no upper end when hi is None), kept as an int."""
    accepts = f"an integer >= {lo}" if hi is None else f"an integer in [{lo}, {hi}]"

    def check(name, value):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < lo \
                or (hi is not None and value > hi):
            raise ValueError(f"{name} must be {accepts}, got {value!r}")
        return int(value)

    return _field(default, check, accepts, doc, keep)


def flag(default: bool, *, doc: str = "", keep=NON_DEFAULT):
    """True or False (a numpy bool too), kept as a bool."""
    def check(name, value):
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"{name} must be True or False, got {value!r}")
        return bool(value)

    return _field(default, check, "True or False", doc, keep)


def choice(default: str, allowed, *, doc: str = "", keep=NON_DEFAULT, attr: str | None = None):
    """One of the strings `allowed` (kept as the agent's attribute `attr` when the name
    itself is taken, as `act` is by Agent.act)."""
    allowed = tuple(allowed)
    accepts = "one of " + ", ".join(allowed)

    def check(name, value):
        if not isinstance(value, str) or value not in allowed:
            raise ValueError(f"{name} must be {accepts}; got {value!r}")
        return value

    return _field(default, check, accepts, doc, keep, attr)


def given(default, check: Callable[[Any], Any], accepts: str, *, doc: str = "", keep=NON_DEFAULT):
    """A field checked by `check(value)` (returns the value to keep; raises ValueError that
    names the field itself), for what the kinds above do not say (a first click, say)."""
    return _field(default, lambda name, value: check(value), accepts, doc, keep)


class Spec:
    """Base of the families' frozen dataclasses (see the module docstring)."""

    def __post_init__(self):
        for f in dataclasses.fields(self):
            object.__setattr__(self, f.name, f.metadata["check"](f.name, getattr(self, f.name)))

    @classmethod
    def make(cls, family: str, **values) -> "Spec":
        """`cls(**values)`, an unknown name a ValueError naming it and the parameters."""
        names = [f.name for f in dataclasses.fields(cls)]
        unknown = [k for k in values if k not in names]
        if unknown:
            raise ValueError(f"{family}: no parameter {', '.join(map(repr, unknown))}; "
                             f"its parameters are {', '.join(names)}")
        return cls(**values)

    def apply(self, obj) -> None:
        """Set every value as an attribute of `obj` (the agent)."""
        for f in dataclasses.fields(self):
            setattr(obj, f.metadata["attr"] or f.name, getattr(self, f.name))

    @classmethod
    def params_of(cls, obj, *, as_attributes: bool = True) -> dict:
        """params() of the values `obj` (an agent) holds now, under each field's attribute
        name (a frozen twin may have changed one); as_attributes=False: `obj` is a spec."""
        out = {}
        for f in dataclasses.fields(cls):
            value = getattr(obj, (f.metadata["attr"] if as_attributes else None) or f.name)
            keep = f.metadata["keep"]
            if keep == ALWAYS or (keep(obj) if callable(keep) else value != f.default):
                out[f.name] = value
        return out

    def params(self) -> dict:
        return self.params_of(self, as_attributes=False)

    @classmethod
    def signature(cls) -> inspect.Signature:
        """(seed=None, *, name=default, ...): an agent class's signature from its spec."""
        kw = inspect.Parameter.KEYWORD_ONLY
        return inspect.Signature([inspect.Parameter("seed", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None)]
                                 + [inspect.Parameter(f.name, kw, default=f.default) for f in dataclasses.fields(cls)])

    @classmethod
    def describe(cls) -> list[dict]:
        """One row a parameter: name, default, what it accepts, what it does."""
        return [{"name": f.name, "default": f.default, "accepts": f.metadata["accepts"], "doc": f.metadata["doc"]}
                for f in dataclasses.fields(cls)]
