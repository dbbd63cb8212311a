"""One way for data: levels -> engine -> agents -> runner -> experiments -> papers/notebooks.
No module imports one above it (checked on the source, so lazy imports count too)."""
import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "minelab"
RANK = {
    "cells": 0, "atomic": 0, "_version": 0, "profiles": 0, "stats": 0,
    "levels": 1, "render": 1,
    "engine": 2, "probability": 2.5,
    "agents": 3,
    "runner": 4, "viewer": 4,
    "experiments": 5, "report": 5,
    "papers": 6, "reproduce": 6,
    "__init__": 7, "cli": 8,
}


def top_module(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0].removesuffix(".py")


def imported(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    inside = len(path.relative_to(PACKAGE).parts) - 1  # depth of the file's package below minelab
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            parts = (node.module or "").split(".") if node.module else []
            if node.level - 1 < inside:  # a sibling inside the same subpackage
                continue
            if parts:
                out.add(parts[0])
            else:  # `from . import x`: a module, or a name from the package's __init__
                out |= {a.name if (PACKAGE / a.name).is_dir() or (PACKAGE / f"{a.name}.py").exists() else "__init__"
                        for a in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("minelab."):
            out.add(node.module.split(".")[1])
    return out


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_imports_a_higher_layer(path):
    me = top_module(path)
    if me == "__init__" and path.parent != PACKAGE:
        return
    assert me in RANK, f"add {me} to RANK"
    for other in imported(path):
        assert other in RANK, f"{path.name} imports unknown module {other}"
        assert RANK[other] < RANK[me] or other == me, f"{me} (layer {RANK[me]}) imports {other} (layer {RANK[other]})"
