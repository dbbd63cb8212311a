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
    dep:minelab.papers.buffet2012.optimum_gaps=8e21c07d5a44   the same function, and the
                                              digest of what it reaches (`closure_digest`)

The agents and kinds are collected while the result is computed: the runner notes every
agent it plays and the sweep every task it serves (`note`), and `publish` takes what was
noted since the previous result (`take`). The function is found when the result object is
built (`maker_token`).

The `dep:` digest covers the function's syntax tree and, followed by name from the source
alone, every module-level function, class and constant it reaches in the analysis layer
(`FOLLOWED`: the papers, the studies, `minelab.stats` and `minelab.tasks`), docstrings
removed. A helper's new bound or a module constant's new value therefore changes the
`dep:` digest of every function that reads it. What it does not follow: the agents, whose
changes show in their golden playthroughs, the task kinds, which carry revisions (held to
a record of their own code by tests/test_task_kinds.py, `minelab.sweep.kind_code`), and
the engine and I/O below them; nor code reached other than by a name in the source (a
function looked up by a string, in a registry or with getattr, or a method of an object
passed in). It is read from source text, not imported, so it can be
computed on any commit's files (`closure_digest(path, read)`): that is how
`tools/restamp_closures.py` gives a result made before `dep:` existed its `dep:` token,
only where the function and everything it reaches read then as they read today. A stamp
with `fn:` and no `dep:` covers the function's own source only; `helpers_unchecked`
finds such stamps.

`stale_reason(code, ...)` says why a stamp no longer matches today's code ("" when it
does); `tests/test_stamps.py` applies it to every committed row. This module imports only
the standard library, so every layer may use it.
"""
from __future__ import annotations

import ast
import functools
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


def _dump(node) -> str:
    """A syntax tree as text, the same on every Python the package supports: `ast.dump`
    is not (3.12 adds an empty `type_params` to every def, 3.13 leaves empty fields out), so
    a field that is None or an empty list is left out here, whatever the version."""
    if isinstance(node, ast.AST):
        fields = []
        for name in node._fields:
            value = getattr(node, name, None)
            if value is None or (isinstance(value, list) and not value):
                continue
            fields.append(f"{name}={_dump(value)}")
        return f"{type(node).__name__}({', '.join(fields)})"
    if isinstance(node, list):
        return "[" + ", ".join(_dump(item) for item in node) + "]"
    return repr(node)


def source_digest(obj) -> str:
    """12 hex digits of sha256 over the syntax tree of `obj`'s source (a function or a code
    object), docstrings removed: comments, docstrings and layout do not change it."""
    tree = _strip_docstrings(ast.parse(textwrap.dedent(inspect.getsource(obj))))
    return hashlib.sha256(_dump(tree).encode()).hexdigest()[:12]


FOLLOWED = ("minelab.papers", "minelab.studies", "minelab.stats", "minelab.tasks")


def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def package_reader(root: str | None = None):
    """`read(module)` for `closure_digest`: (source text, whether it is a package's
    __init__) of a minelab module in the folder `root` (default: the folder holding this
    package), None when the module has no file there."""
    from pathlib import Path
    base = Path(root) if root is not None else Path(__file__).resolve().parent.parent

    def read(module: str) -> str | None:
        stem = base.joinpath(*module.split("."))
        for path, is_package in ((stem.with_suffix(".py"), False), (stem / "__init__.py", True)):
            if path.is_file():
                return path.read_text(), is_package
        return None
    return read


class _Index:
    """A module's top-level names: `defs` (name -> the def, class or assignment node,
    docstrings removed) and `imports` (name -> (module, attribute), attribute None for a
    module imported whole; `from package import x` gives (package, "x") whether x is a
    submodule or a name: `closure` tells them apart)."""

    def __init__(self, module: str, text: str, is_package: bool):
        self.defs: dict[str, ast.AST] = {}
        self.imports: dict[str, tuple[str, str | None]] = {}
        tree = _strip_docstrings(ast.parse(text))
        package = module if is_package else module.rpartition(".")[0]
        for node in _top_level(tree.body):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.defs[node.name] = node
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name):
                            self.defs[name.id] = node
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    parts = parts[:len(parts) - node.level + 1]
                    base = ".".join(parts + ([node.module] if node.module else []))
                for alias in node.names:
                    self.imports[alias.asname or alias.name] = (base, alias.name)  # a module or a name in one
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.imports[alias.asname] = (alias.name, None)


_PARSED: dict[tuple[str, str, bool], _Index] = {}


def _parsed(module: str, text: str, is_package: bool) -> _Index:
    """`_Index` of a module's text, parsed once per distinct text (a process stamping many
    results reads the same files again and again)."""
    key = (module, text, is_package)
    if key not in _PARSED:
        _PARSED[key] = _Index(module, text, is_package)
    return _PARSED[key]


def _top_level(body):
    """Module-level statements, those inside top-level if / try / with blocks too."""
    for node in body:
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            inner = [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])]
            for handler in getattr(node, "handlers", []):
                inner += handler.body
            yield from _top_level(inner)
        else:
            yield node


def _references(node: ast.AST):
    """(name, attribute or None) of every name `node` loads, `name.attr` for attributes."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name):
            yield sub.value.id, sub.attr
        elif isinstance(sub, ast.Name):
            yield sub.id, None


def closure_digest(path: str, read=None, followed: tuple[str, ...] = FOLLOWED,
                   skipped: tuple[str, ...] = ()) -> str | None:
    """12 hex digits of sha256 over `closure(path, read, followed, skipped)`; None when
    there is no such function."""
    parts = closure(path, read, followed, skipped)
    if parts is None:
        return None
    text = "\n".join(f"{name}:{dump}" for name, dump in sorted(parts.items()))
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def closure(path: str, read=None, followed: tuple[str, ...] = FOLLOWED,
            skipped: tuple[str, ...] = ()) -> dict[str, str] | None:
    """{dotted name: syntax tree dump} of the function at dotted `path` and of every
    module-level definition it reaches by name in the modules under `followed` (default
    `FOLLOWED`) and not under `skipped` (where a module is under prefixes of both, the
    longest decides: ("minelab", "minelab.agents.saved") followed and ("minelab.agents",)
    skipped follow every module but the agents' other ones), docstrings removed; None when
    there is no such function. `read(module)` gives a module's source text and whether it
    is a package (default: `package_reader()`, this package's files)."""

    def _followed(module: str) -> bool:
        def longest(prefixes):  # the length of the longest prefix holding the module, -1 if none
            return max((len(p) for p in prefixes if _under(module, p)), default=-1)
        return longest(followed) > longest(skipped)

    read = functools.lru_cache(maxsize=None)(read or package_reader())  # resolve asks for a module again and again
    indexes: dict[str, _Index | None] = {}

    def index(module: str) -> _Index | None:
        if module not in indexes:
            found = read(module) if module.startswith("minelab") else None
            indexes[module] = None if found is None else _parsed(module, *found)
        return indexes[module]

    def resolve(imported):
        """(module, None) for a module, (module, name) for a name in one."""
        if imported is None or imported[1] is None:
            return imported
        sub = f"{imported[0]}.{imported[1]}"
        return (sub, None) if sub.startswith("minelab") and read(sub) is not None else imported

    module, _, name = path.rpartition(".")
    root = index(module)
    if root is None or not isinstance(root.defs.get(name), (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    parts: dict[tuple[str, str], str] = {}
    todo = [(module, name)]
    while todo:
        where, what = todo.pop()
        if (where, what) in parts:
            continue
        mod = index(where)
        if mod is None:
            continue
        node = mod.defs.get(what)
        if node is None:
            target = resolve(mod.imports.get(what))  # a name the module re-exports
            if target and target[1] is not None and _followed(target[0]):
                todo.append(target)
            continue
        parts[(where, what)] = _dump(node)
        for ref, attr in _references(node):
            if ref in mod.defs:
                todo.append((where, ref))
            elif ref in mod.imports:
                target, member = resolve(mod.imports[ref])
                if member is None and attr is not None and _followed(target):
                    todo.append((target, attr))
                elif member is not None and _followed(target):
                    todo.append((target, member))
    return {f"{where}.{what}": dump for (where, what), dump in parts.items()}


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
    """"fn:<module>.<name>=<digest> dep:<module>.<name>=<digest>" of function `fn` (what
    `maker_token` finds on the stack)."""
    return _token(fn.__module__, inspect.unwrap(fn).__code__)


def _token(module: str, code) -> str:
    try:
        own = f"fn:{module}.{code.co_name}={source_digest(code)}"
    except (OSError, TypeError, SyntaxError):  # no source (a frozen or interactive function)
        return ""
    reached = closure_digest(f"{module}.{code.co_name}")
    return own if reached is None else f"{own} dep:{module}.{code.co_name}={reached}"  # None: a nested function


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
        elif token.startswith("dep:"):
            path, _, digest = token[4:].partition("=")
            if functions and closure_digest(path) != digest:
                changed.append(f"what function {path.rpartition('.')[2]} reaches")
        elif "@" in token:
            kind, _, rev = token.partition("@")
            if kinds is not None and str(kinds.get(kind)) != rev:
                changed.append(f"task kind {kind}")
        else:
            name, _, digest = token.partition("=")
            if agents.get(name) != digest:
                changed.append(name)
    return f"made by an earlier version of {', '.join(changed)}" if changed else ""


def helpers_unchecked(code: str) -> list[str]:
    """The functions stamp `code` names by `fn:` without a `dep:` token: for them only the
    function's own source is checked, not the helpers and constants it reaches."""
    tokens = code.split() if isinstance(code, str) else []
    reached = {t[4:].partition("=")[0] for t in tokens if t.startswith("dep:")}
    return sorted({p for t in tokens if t.startswith("fn:") and (p := t[3:].partition("=")[0]) not in reached})
