"""Every task kind's code against its record (tests/data/task_kinds.json).

The sweep serves a cached or kept result when its kind's revision and its agents'
golden-playthrough digests are today's (`minelab.sweep`). A change in what a kind's
function reaches that changes what it returns, without a revision bump, would serve
results of the old code. This test names every definition a kind reaches
(`minelab.sweep.kind_code`) that changed since the record. Bump the kind's revision
(`@task_kind(..., revision=N + 1)`) if the change alters what it returns, then record
again:

    python tests/test_task_kinds.py --record
"""
from __future__ import annotations

import importlib
import json
import pkgutil
import sys
from pathlib import Path

import pytest

RECORD = Path(__file__).parent / "data" / "task_kinds.json"
RECORD_COMMAND = "python tests/test_task_kinds.py --record"


def registered_kinds() -> dict[str, dict]:
    """`kind_code` of every task kind minelab registers (its papers and studies imported)."""
    import minelab.papers
    import minelab.studies
    from minelab import sweep

    for package in (minelab.papers, minelab.studies):
        for module in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
            importlib.import_module(module.name)
    kinds = {name: sweep.kind_code(name) for name in sweep.list_task_kinds()
             if sweep._KINDS[name].fn.__module__.startswith("minelab.")}  # not the tests' own kinds
    return kinds


def record_problems(record: dict, today: dict) -> list[str]:
    """What differs between a record and today's kinds, a line per kind."""
    problems = []
    for name in sorted(record.keys() | today.keys()):
        old, new = record.get(name), today.get(name)
        if old is None:
            problems.append(f"{name}: registered but not recorded")
            continue
        if new is None:
            problems.append(f"{name}: recorded but no longer registered")
            continue
        changed = sorted(part for part in old["parts"].keys() | new["parts"].keys()
                         if old["parts"].get(part) != new["parts"].get(part))
        if changed or old["function"] != new["function"] or old["revision"] != new["revision"]:
            bumped = "bumped" if new["revision"] != old["revision"] else "not bumped"
            problems.append(f"{name} ({new['function']}; revision {old['revision']} -> {new['revision']}, "
                            f"{bumped}): changed {', '.join(changed) or 'nothing it reaches'}")
    return problems


def test_every_task_kind_matches_its_record():
    problems = record_problems(json.loads(RECORD.read_text()), registered_kinds())
    assert not problems, (
        "task kinds whose code changed since tests/data/task_kinds.json:\n  " + "\n  ".join(problems)
        + "\nBump a kind's revision if the change alters what it returns (a cached or kept result of"
        f" the old code would be served otherwise), then record: {RECORD_COMMAND}")


def test_a_change_a_kind_reaches_is_named(monkeypatch):
    from minelab import provenance

    today = registered_kinds()
    real = provenance.package_reader()

    def edited(module: str):
        found = real(module)
        if module == "minelab.runner" and found is not None:
            text, is_package = found
            return text + "\n\ndef play(*args, **kwargs):\n    return None\n", is_package  # a new play
        return found

    monkeypatch.setattr(provenance, "package_reader", lambda root=None: edited)
    problems = record_problems(today, registered_kinds())
    play = [p for p in problems if p.startswith("play ")]
    assert play and "minelab.runner.play" in play[0] and "not bumped" in play[0]
    assert not any(p.startswith("mine_counts ") for p in problems)  # it never calls the runner's play


def test_the_agents_are_not_followed_but_their_saving_is():
    kinds = registered_kinds()
    play, train = kinds["play"]["parts"], kinds["train_test"]["parts"]
    assert "minelab.tasks.play_task" in play and "minelab.runner.play" in play
    assert not any(part.startswith("minelab.agents.") for part in play)
    agents = {part.rsplit(".", 1)[0] for part in train if part.startswith("minelab.agents.")}
    assert agents == {"minelab.agents.saved"}  # the learners' save and load, not their play


def test_an_unknown_kind_is_named():
    from minelab import sweep

    with pytest.raises(ValueError, match="'no_such_kind' is not registered"):
        sweep.kind_code("no_such_kind")


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit(f"usage: {RECORD_COMMAND}")
    from minelab.atomic import atomic_write

    text = json.dumps(registered_kinds(), indent=1, sort_keys=True) + "\n"
    atomic_write(RECORD, lambda f: f.write(text))
    print(f"recorded {RECORD}")
