"""Run-size profiles for notebooks: smoke (seconds, for tests), quick (default), paper.

A notebook's parameters cell sets `profile`, `seed`, `scheduler` and optional
overrides; `resolve_params` validates them all with errors that name the field.
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
