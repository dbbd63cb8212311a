"""One way for data: levels -> engine -> agents -> runner -> sweep -> tasks -> papers/studies
-> notebooks. No module imports one above it (checked on the source, so lazy imports count
too), and a paper never imports another paper (what two papers share lives in
minelab.tasks); a study (across papers) imports no paper either."""
import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "minelab"
RANK = {
    "cells": 0, "atomic": 0, "_jitcache": 0, "_version": 0, "_gym": 0, "profiles": 0, "stats": 0, "paths": 0,
    "ledger": 0, "provenance": 0, "benchdata": 0.5,
    "levels": 1, "render": 1,
    "engine": 2, "probability": 2.5, "exact": 2.5, "noguess": 2.55, "position": 2.6,
    "agents": 3,
    "runner": 4, "envs": 4, "playthrough": 4.5, "analysis": 4.5, "viewer": 4.6,
    "sweep": 5, "report": 5,
    "tasks": 5.5,
    "papers": 6, "studies": 6, "reproduce": 6, "catalog": 6,
    "__init__": 7, "__main__": 8, "cli": 8,
}
SIBLINGS = {"papers", "studies"}  # subpackages whose modules must not import each other


def top_module(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0].removesuffix(".py")


def _resolve(path: Path, node: ast.ImportFrom) -> list[tuple[str, ...]]:
    """The minelab-relative module paths an import names, e.g. ("papers", "buffet2012")."""
    if node.level:
        here = list(path.relative_to(PACKAGE).parts[:-1])
        base = here[: len(here) - (node.level - 1)] if node.level > 1 else here
        if node.level - 1 > len(here):
            return []
        parts = base + (node.module.split(".") if node.module else [])
    elif (node.module or "").startswith("minelab."):
        parts = node.module.split(".")[1:]
    else:
        return []
    out = []
    for alias in node.names:
        full = parts + [alias.name]
        is_module = (PACKAGE.joinpath(*full).is_dir() or PACKAGE.joinpath(*full[:-1], f"{full[-1]}.py").exists())
        out.append(tuple(full if is_module else parts) or ("__init__",))
    return out


def imported(path: Path) -> set[tuple[str, ...]]:
    tree = ast.parse(path.read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            out.update(_resolve(path, node))
        elif isinstance(node, ast.Import):
            out.update(tuple(a.name.split(".")[1:]) or ("__init__",) for a in node.names
                       if a.name.split(".")[0] == "minelab")
    return out


SOURCES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_imports_a_higher_layer(path):
    me = top_module(path)
    if me == "__init__" and path.parent != PACKAGE:
        return
    assert me in RANK, f"add {me} to RANK"
    for parts in imported(path):
        other = parts[0]
        assert other in RANK, f"{path.name} imports unknown module {other}"
        assert RANK[other] < RANK[me] or other == me, f"{me} (layer {RANK[me]}) imports {other} (layer {RANK[other]})"


def _paper_of(parts: tuple[str, ...]) -> str:
    """The paper a module belongs to: lordeiro2021_boards belongs to lordeiro2021."""
    return parts[1].split("_")[0]


@pytest.mark.parametrize("path", [p for p in SOURCES if top_module(p) in SIBLINGS and p.name != "__init__.py"],
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_papers_and_studies_never_import_each_other(path):
    me = path.relative_to(PACKAGE).with_suffix("").parts
    for parts in imported(path):
        if parts[0] in SIBLINGS and len(parts) > 1:
            assert _paper_of(parts) == _paper_of(me), \
                f"{'/'.join(me)} imports {'/'.join(parts)}: share it through minelab.tasks instead"


def test_the_rule_catches_a_paper_importing_another(tmp_path):
    """The checker itself: a paper module that imports another paper is reported."""
    fake = PACKAGE / "papers" / "buffet2012.py"
    tree_src = "from .lordeiro2021 import train_spec\nfrom . import antimatroid2012\nfrom ..report import publish\n"
    found = set()
    for node in ast.walk(ast.parse(tree_src)):
        if isinstance(node, ast.ImportFrom):
            found.update(_resolve(fake, node))
    assert ("papers", "lordeiro2021") in found and ("papers", "antimatroid2012") in found
    assert ("report",) in found
