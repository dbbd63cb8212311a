"""The code stamp of a published result: which code made it, so a stale row can be found.

A committed table, figure or measured number is only worth showing if today's code makes
it. Every result published through `minelab.report.publish` therefore carries a *code
stamp*, a string of space-separated tokens, sorted:

    best=df459fc4be109e20                      an agent it played, and the digest of that
                                              agent's golden playthrough (behaviour.json)
    play@1                                    a sweep task kind it read, and the kind's revision
    fn:minelab.papers.buffet2012.optimum_gaps=3f0c9a1d2b7e    the function that built the
                                              result, and the digest of its source (its
                                              syntax tree without docstrings, so editing a
                                              comment or a docstring changes nothing)

The agents and kinds are collected while the result is computed: the runner notes every
agent it plays and the sweep every task it serves (`note`), and `publish` takes what was
noted since the previous result (`take`). The function is found when the result object is
built (`maker_token`). What a stamp does not cover: a helper the function calls (its
change is seen only through the agents or kinds it changes) and the engine, whose changes
show in every golden playthrough.

`stale_reason(code, ...)` says why a stamp no longer matches today's code ("" when it
does); `tests/test_stamps.py` applies it to every committed row. This module imports only
the standard library, so every layer may use it.
"""
from __future__ import annotations

import ast
import hashlib
import importlib
import inspect
import sys
import textwrap
from collections.abc import Iterable, Mapping

_noted: set[str] = set()


def note(tokens: Iterable[str]) -> None:
    """Record tokens ("agent=digest", "kind@revision") of code that produced numbers now."""
    _noted.update(tokens)


def take() -> list[str]:
    """The tokens noted since the last call, sorted; forgets them."""
    out = sorted(_noted)
    _noted.clear()
    return out


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


def source_digest(obj) -> str:
    """12 hex digits of sha256 over the syntax tree of `obj`'s source (a function or a code
    object), docstrings removed: comments, docstrings and layout do not change it."""
    tree = _strip_docstrings(ast.parse(textwrap.dedent(inspect.getsource(obj))))
    return hashlib.sha256(ast.dump(tree, include_attributes=False).encode()).hexdigest()[:12]


def maker_token(name: str, depth: int = 8) -> str:
    """"fn:<module>.<function>=<digest>" of the minelab function building a result named
    `name`: the nearest caller named `name`, else the nearest caller in a minelab module
    (a helper that builds results for several names). "" when none is found."""
    frame = sys._getframe(1)
    fallback = None
    for _ in range(depth):
        frame = frame.f_back
        if frame is None:
            break
        module = frame.f_globals.get("__name__", "")
        if not module.startswith("minelab.") or module in ("minelab.report", __name__):
            continue
        code = frame.f_code
        if "<" in code.co_name:  # a lambda or comprehension: its function is further up
            continue
        if code.co_name == name:
            return _token(module, code)
        fallback = fallback or (module, code)
    return _token(*fallback) if fallback else ""


def function_token(fn) -> str:
    """"fn:<module>.<name>=<digest>" of function `fn` (what `maker_token` finds on the stack)."""
    return _token(fn.__module__, inspect.unwrap(fn).__code__)


def _token(module: str, code) -> str:
    try:
        return f"fn:{module}.{code.co_name}={source_digest(code)}"
    except (OSError, TypeError, SyntaxError):  # no source (a frozen or interactive function)
        return ""


def function_digest(path: str) -> str | None:
    """Today's `source_digest` of the function at dotted `path` ("minelab.papers.x.fig01"),
    None when there is no such function."""
    module, _, name = path.rpartition(".")
    try:
        fn = getattr(importlib.import_module(module), name)
        fn = inspect.unwrap(fn)
        return source_digest(fn)
    except (ImportError, AttributeError, OSError, TypeError, SyntaxError):
        return None


def stale_reason(code: str, agents: Mapping[str, str], kinds: Mapping[str, int] | None = None,
                 functions: bool = True) -> str:
    """"" when every token of stamp `code` matches today's code, else what changed.

    agents: today's golden digests ({name: digest}); kinds: today's task revisions
    ({kind: revision}; None skips kind tokens); functions: check "fn:" tokens (imports
    their modules)."""
    if not isinstance(code, str) or not code.strip():
        return ""
    changed = []
    for token in code.split():
        if token.startswith("fn:"):
            path, _, digest = token[3:].partition("=")
            if functions and function_digest(path) != digest:
                changed.append(f"function {path.rpartition('.')[2]}")
        elif "@" in token:
            kind, _, rev = token.partition("@")
            if kinds is not None and str(kinds.get(kind)) != rev:
                changed.append(f"task kind {kind}")
        else:
            name, _, digest = token.partition("=")
            if agents.get(name) != digest:
                changed.append(name)
    return f"made by an earlier version of {', '.join(changed)}" if changed else ""
