"""Run-size profiles for notebooks: smoke (seconds, for tests), quick (default), paper.

A notebook's parameters cell sets `profile`, `seed`, `scheduler` and optional
overrides; `resolve_params` validates them all with errors that name the field, and
`executor_for` picks where the notebook's sweeps run.
"""
from __future__ import annotations

import numbers

PROFILES = ("smoke", "quick", "paper")


def resolve_params(defaults: dict[str, dict], profile: str, seed, overrides: dict | None = None) -> dict:
    """Run sizes for `profile` from `defaults[profile]`, with `overrides` applied.

    defaults: {"smoke": {...}, "quick": {...}, "paper": {...}}, each the same keys with
    positive integers. Overrides set to None are ignored (papermill's way of "unset").
    Returns a dict with the sizes plus profile and seed.
    """
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {', '.join(PROFILES)}; got {profile!r}")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    sizes = dict(defaults[profile])
    for key, value in (overrides or {}).items():
        if value is None:
            continue
        if key not in sizes:
            raise ValueError(f"unknown parameter {key!r}; allowed: {', '.join(sorted(sizes))}")
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
            raise ValueError(f"{key} must be a positive integer, got {value!r}")
        sizes[key] = int(value)
    return {"profile": profile, "seed": int(seed), **sizes}


def executor_for(profile: str, scheduler: str | None = None) -> str:
    """Where a notebook's sweeps run (`sweep.run_sweep`'s executor): the dask scheduler when
    one is given; else, at the smoke profile, "serial" (in the notebook's own process: its
    tasks take milliseconds, and starting spawned workers, each importing minelab and
    loading its kernels, would take seconds a sweep); else "processes"."""
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {', '.join(PROFILES)}; got {profile!r}")
    if scheduler is not None:
        if not isinstance(scheduler, str) or not scheduler.strip():
            raise ValueError(f"scheduler must be an address such as tcp://host:8786 or None, got {scheduler!r}")
        return scheduler
    return "serial" if profile == "smoke" else "processes"
