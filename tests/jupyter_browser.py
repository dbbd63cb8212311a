"""Machinery of the browser test (tests/test_browser.py): find a system Chromium, start a
private JupyterLab from this environment and stop it again, drive a notebook in the page.

    with JupyterLab(root_dir, work_dir) as lab:          # 127.0.0.1, a free port, a token
        page.goto(notebook_url(lab, "tour.ipynb"))
        open_notebook(page, "tour.ipynb"); run_all_cells(page, "tour.ipynb")
        wait_until_all_cells_ran(page, "tour.ipynb", timeout_s=300)

JupyterLab runs as `<this python> -m jupyterlab` (the project's venv when pytest runs from
it) with every per-user folder (config, data, runtime, settings, workspaces, IPython) in
`work_dir`, so neither the user's setup nor an earlier run can change what the page shows;
it is stopped by its own process id (SIGTERM, then SIGKILL of its process group after a
timeout). Chromium is the Debian package `chromium`, driven by Playwright's Python API
through `executable_path` (Playwright's own browser downloads are not used).
"""
from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

CHROMIUM_ENV = "MINELAB_CHROMIUM"  # an explicit browser binary, when it is not in a usual place
# the real binary first (/usr/bin/chromium is Debian's shell wrapper around it)
CHROMIUM_CANDIDATES = ("/usr/lib/chromium/chromium", "chromium", "chromium-browser", "google-chrome",
                       "google-chrome-stable")
INSTALL_HINT = "apt-get install chromium to run the browser test"


def find_chromium() -> tuple[str | None, str]:
    """(path of a Chromium binary, None when there is none; where it was looked for)."""
    env = os.environ.get(CHROMIUM_ENV)
    if env:
        found = shutil.which(env)
        return found, f"${CHROMIUM_ENV}={env}"
    for name in CHROMIUM_CANDIDATES:
        found = shutil.which(name)
        if found:
            return found, name
    return None, ", ".join(CHROMIUM_CANDIDATES) + f" (or set ${CHROMIUM_ENV})"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


# JupyterLab settings for the test's private settings folder: no news / update toasts over
# the page, and every cell kept in the DOM (no windowing), so a widget far down is there.
LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings":
        {"fetchNews": "false", "checkForUpdates": False, "doNotDisturbMode": True},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}


class JupyterLab:
    """A JupyterLab server of its own: `lab.url(path)`, `lab.log_tail()`, `lab.stop()`.

    `env` is added to the server's environment (the kernels inherit it)."""

    def __init__(self, root_dir: Path, work_dir: Path, env: dict[str, str] | None = None,
                 start_timeout_s: float = 90.0):
        self.root_dir = Path(root_dir)
        self.work_dir = Path(work_dir)
        self.extra_env = dict(env or {})
        self.start_timeout_s = start_timeout_s
        self.port = free_port()
        self.token = secrets.token_hex(24)
        self.proc: subprocess.Popen | None = None
        self.log_path = self.work_dir / "jupyterlab.log"

    # -- lifecycle
    def __enter__(self) -> "JupyterLab":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def _env(self) -> dict[str, str]:
        home = self.work_dir / "jupyter"
        dirs = {"JUPYTER_CONFIG_DIR": home / "config", "JUPYTER_DATA_DIR": home / "data",
                "JUPYTER_RUNTIME_DIR": home / "runtime", "JUPYTERLAB_SETTINGS_DIR": home / "lab-settings",
                "JUPYTERLAB_WORKSPACES_DIR": home / "lab-workspaces", "IPYTHONDIR": home / "ipython"}
        for folder in dirs.values():
            folder.mkdir(parents=True, exist_ok=True)
        for name, settings in LAB_SETTINGS.items():
            path = dirs["JUPYTERLAB_SETTINGS_DIR"] / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(settings))
        env = {k: v for k, v in os.environ.items() if not k.startswith("JUPYTER")}
        env.update({k: str(v) for k, v in dirs.items()})
        env["JUPYTER_PREFER_ENV_PATH"] = "1"  # this environment's kernels and extensions first
        env["PYTHONUNBUFFERED"] = "1"
        env.update(self.extra_env)
        return env

    def command(self) -> list[str]:
        cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={self.port}",
               "--port-retries=0", f"--IdentityProvider.token={self.token}",
               f"--ServerApp.root_dir={self.root_dir}", "--LabApp.expose_app_in_browser=True",
               "--ServerApp.terminals_enabled=False",
               "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
        if _is_root():
            cmd.append("--allow-root")
        return cmd

    def start(self) -> None:
        self.work_dir.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "wb")
        try:
            # a session of its own: at the end, anything the server left (kernels) can be
            # reached through its process group, whose id is the server's own process id
            self.proc = subprocess.Popen(self.command(), cwd=self.root_dir, env=self._env(),
                                         stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                         start_new_session=True)
        finally:
            log.close()
        deadline = time.monotonic() + self.start_timeout_s
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"JupyterLab exited with code {self.proc.returncode} before answering:\n"
                                   + self.log_tail())
            try:
                with urllib.request.urlopen(self.url("api/status"), timeout=2) as r:
                    if r.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"JupyterLab did not answer on {self.base} within {self.start_timeout_s:.0f} s:\n"
                                   + self.log_tail())
            time.sleep(0.25)

    def stop(self, timeout_s: float = 15.0) -> None:
        """SIGTERM to the server (it shuts its kernels down), SIGKILL to its process group
        when it has not ended within `timeout_s` or left processes behind."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        pid = proc.pid
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(pid, signal.SIGKILL)  # the group whose id is the server's pid: kernels left over
        except (ProcessLookupError, PermissionError):
            pass
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)

    # -- addresses and logs
    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def url(self, path: str = "lab") -> str:
        sep = "&" if "?" in path else "?"
        return f"{self.base}{path.lstrip('/')}{sep}token={self.token}"

    def log_tail(self, lines: int = 40) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(no JupyterLab log)"
        return "\n".join(text.replace(self.token, "<token>").splitlines()[-lines:])


def stripped_notebook(src: Path, dst: Path, parameters: dict | None = None) -> Path:
    """Copy a notebook without its outputs, execution counts and saved widget state, so all
    the page shows comes from this run; `parameters` go into a cell after the one tagged
    "parameters", as papermill puts them."""
    nb = json.loads(Path(src).read_text())
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
    nb.get("metadata", {}).pop("widgets", None)
    if parameters:
        tagged = [i for i, c in enumerate(nb["cells"]) if "parameters" in c.get("metadata", {}).get("tags", [])]
        if not tagged:
            raise ValueError(f"{src} has no cell tagged 'parameters'")
        source = "".join(f"{k} = {v!r}\n" for k, v in parameters.items())
        nb["cells"].insert(tagged[0] + 1, {"cell_type": "code", "execution_count": None, "id": "injected-parameters",
                                           "metadata": {"tags": ["injected-parameters"]}, "outputs": [],
                                           "source": source})
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_text(json.dumps(nb, indent=1))
    return dst


def write_notebook(path: Path, sources: list[str]) -> Path:
    """A notebook of code cells with the kernelspec the project's notebooks use."""
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {}, "outputs": [],
                     "source": s} for i, s in enumerate(sources)],
          "metadata": {"kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python",
                                      "name": "python3"}},
          "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(nb, indent=1))
    return path


# -- the page (Playwright sync API; `page` is a playwright.sync_api.Page). Every function
# names its notebook by path: another notebook's panel may be restored or current.

def notebook_url(lab: JupyterLab, path: str) -> str:
    """The notebook in a workspace of its own, reset: no panel of an earlier page comes back."""
    return lab.url(f"lab/workspaces/{Path(path).stem}-{secrets.token_hex(4)}/tree/{path}?reset")


_PANEL = """const p = window.jupyterapp && Array.from(window.jupyterapp.shell.widgets('main'))
        .find(w => w.context && w.context.path === path && w.content && w.sessionContext);"""

KERNEL_IDLE_JS = f"""path => {{
    {_PANEL}
    const k = p && p.sessionContext.session && p.sessionContext.session.kernel;
    return !!k && k.status === 'idle' && k.connectionStatus === 'connected';
}}"""

# started, not awaited (its promise ends with the last cell): wait_until_all_cells_ran follows it
RUN_ALL_JS = f"""path => {{
    {_PANEL}
    window.jupyterapp.shell.activateById(p.id);
    window.jupyterapp.commands.execute('notebook:run-all-cells');
}}"""

# [cells run, cells to run, kernel status]: done when every non-empty code cell has an
# execution count and the kernel is idle again
PROGRESS_JS = f"""path => {{
    {_PANEL}
    const k = p.sessionContext.session && p.sessionContext.session.kernel;
    const code = p.content.widgets.filter(c => c.model.type === 'code' && c.model.sharedModel.getSource().trim());
    const ran = code.filter(c => c.model.executionCount !== null);
    return [ran.length, code.length, k ? k.status : 'none'];
}}"""

# the error outputs of the notebook's cells (JupyterLab draws them as stderr): "cell i: name: value", traceback
ERRORS_JS = f"""path => {{
    {_PANEL}
    const out = [];
    p.content.widgets.forEach((c, i) => {{
        if (c.model.type !== 'code') return;
        for (const o of c.model.outputs.toJSON()) if (o.output_type === 'error')
            out.push(`cell ${{i + 1}}: ${{o.ename}}: ${{o.evalue}}\\n` + (o.traceback || []).join('\\n'));
    }});
    return out;
}}"""
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def open_notebook(page, path: str, timeout_s: float = 90.0) -> None:
    """Wait until the notebook's panel is there and its kernel is connected and idle."""
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook", state="visible", timeout=timeout_s * 1000)
    page.wait_for_function(KERNEL_IDLE_JS, arg=path, timeout=timeout_s * 1000, polling=250)


def run_all_cells(page, path: str) -> None:
    page.evaluate(RUN_ALL_JS, path)


def error_outputs(page, path: str) -> list[str]:
    """The notebook's error outputs (exceptions raised by its cells), plain text."""
    return [ANSI.sub("", e) for e in page.evaluate(ERRORS_JS, path)]


def wait_until_all_cells_ran(page, path: str, timeout_s: float, poll_s: float = 0.5) -> float:
    """Seconds until every code cell ran and the kernel is idle; RuntimeError naming the
    error on a failing cell (run-all stops there) or the progress on a timeout."""
    t0 = time.monotonic()
    idle_since = None
    while True:
        errors = error_outputs(page, path)
        if errors:
            raise RuntimeError("a notebook cell failed:\n" + errors[0][-3000:])
        ran, total, status = page.evaluate(PROGRESS_JS, path)
        now = time.monotonic()
        if ran == total and status == "idle":
            idle_since = idle_since or now
            if now - idle_since >= 1.0:  # idle for a moment: the widgets' own messages are through
                return now - t0
        else:
            idle_since = None
        if now - t0 > timeout_s:
            raise RuntimeError(f"the notebook did not finish within {timeout_s:.0f} s: {ran} of {total} code cells "
                               f"ran, kernel {status}")
        time.sleep(poll_s)
