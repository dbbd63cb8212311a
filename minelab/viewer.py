"""An interactive board for JupyterLab: `BoardViewer(game_or_level, agent=None, seed=None)`.

    import minelab as ml
    ml.BoardViewer("beginner", agent=ml.make_agent("hcsp", seed=0), seed=1)

What it shows and does:
* the board (an anywidget, `BoardGrid`: one message per update, only changed cells
  repainted, so 16x30 stays quick). Left click reveals, right click (or shift-click, or
  "Flag mode") flags / unflags. After a loss the mines show, the mine that ended the
  game in red, and every flag says whether it was right (green) or wrong (✗).
* "Agent step" (one `agent.act(game)`: the agent's next decision), "Play to end",
  "New game" (seed + 1).
* "Probabilities": the exact mine probability of every covered cell
  (`minelab.probability.solve`: colour, the percent on the cell, the value on hover),
  certain safe cells ✓ and certain mines !, recomputed after every move.
* "What it knows": a learner's own values per cell (`agent.knowledge(game)`: a bandit's
  most certain window value per target, a tabular learner's action values).
* The why line: after each agent decision, `agent.explain()` (the agent's own reason).
* Replay: ◀ ▶ and the move slider step through the game played so far (every
  position is rebuilt by re-applying the recorded moves to the starting state, with
  the reason recorded for it); "Live" returns to the game.
* Open a game of a run: `open_game(4711, level="9x9x10", seed=0, agent="hcsp")` (or the
  form under the board, or `run=df` with a DataFrame of `ml.play`) shows game 4,711 of
  `ml.play(agent, level, n, seed)`, played again move for move (`runner.game_of_run`).
* Analysis mode ("Analysis", `analysis_mode(True)`): set up any position and see it
  analysed (`minelab.analysis.analyse`) after every edit. It starts from the position
  shown (all covered once the game is lost). A left click steps a cell through covered ->
  0 -> 1 -> ... -> its number of neighbours -> covered, a right click (shift-click, Flag
  mode) puts a flag on it or takes it off (`edit(r, c, value)`: "covered", "flag" or 0-8);
  the mines field sets the mine count (`set_mines`); "Load text" reads the box below the
  board in the position text format (`set_position`, a Position or its text), "Export"
  writes the position there (`position_text()`, `edited_position()`). The board shows the
  exact mine probabilities, certain cells ✓ / !, best's move framed in blue; the analysis
  line the number of consistent layouts, best's move and reason, the safest candidates
  (safety, progress) and, on boards the exact search takes (C(cells, mines) at most
  `ANALYSIS_EXACT_LIMIT`), every move's exact win probability. A position no layout is
  consistent with stays on the board, the status line names the cell or field, and the
  overlay is off until it is consistent again. Leaving ("Analysis" again) shows the game as it was; "Play from
  here" (`play_from_here(seed)`) starts a game in the position instead, its hidden layout
  drawn among the consistent ones (`Position.game`).
* `save_frames(directory)` and `save_animation("game.gif")` write the game played so far
  as an image sequence (PNG / SVG) or an animated GIF.
* Exported with the notebook (nbconvert to HTML, no widget state saved) the viewer is a
  static picture of the board as it was when displayed (`_repr_mimebundle_`).
* The first use after an install compiles numba kernels: the viewer warms them up in a
  background thread when it is created (`warm=True`) and the status line says
  "preparing…" until done; a click meanwhile waits and says so.

The model logic lives in plain methods (`click`, `step`, `play_to_end`, `new_game`,
`toggle_probabilities`, `replay_to`, `open_game`, `analysis_mode`, `edit`, ...) so it is
driven and tested without a browser. Bad input never raises into the page: it goes to
the status line.
"""
from __future__ import annotations

import copy
import threading
from contextlib import contextmanager
from html import escape
from pathlib import Path

import anywidget
import ipywidgets as W
import numpy as np
import traitlets

from .agents import Agent, make_agent
from .analysis import analyse
from .atomic import atomic_write
from .cells import COVERED, FLAGGED, MINE, ONGOING, WON
from .engine import ST_DEALT, Game, IllegalMove
from .levels import Level
from .position import Position, format_text, parse_text
from .probability import solve
from .render import board_html
from .runner import game_of_run

__all__ = ["BoardViewer", "BoardGrid", "side_by_side"]

_STATUS_NAMES = {ONGOING: "ongoing", WON: "won", -1: "lost"}
# BoardGrid.marks codes (viewer.js reads them)
MARK_BOOM, MARK_FLAG_RIGHT, MARK_FLAG_WRONG, MARK_LAST, MARK_BEST = 1, 2, 3, 4, 5
OVERLAYS = ("none", "probability", "knowledge")
# analysis mode: the exact win probabilities (minelab.exact) only where C(cells, mines) is at
# most this, where the exact search answers well under a second; candidates listed
ANALYSIS_EXACT_LIMIT = 5_000
ANALYSIS_TOP = 3


class BoardGrid(anywidget.AnyWidget):
    """The board itself: a CSS grid drawn by viewer.js. Python sets the traits (inside
    `hold_sync`, so an update is one message); clicks come back through `on_click`."""

    _esm = Path(__file__).with_name("viewer.js")
    rows = traitlets.Int(1).tag(sync=True)
    cols = traitlets.Int(1).tag(sync=True)
    cells = traitlets.List(traitlets.Int()).tag(sync=True)
    marks = traitlets.List(traitlets.Int()).tag(sync=True)
    overlay = traitlets.Unicode("none").tag(sync=True)
    values = traitlets.List().tag(sync=True)  # float or None per cell ([]: no overlay)
    certain = traitlets.List(traitlets.Int()).tag(sync=True)
    counts = traitlets.List(traitlets.Int()).tag(sync=True)
    lo = traitlets.Float(0.0).tag(sync=True)
    hi = traitlets.Float(1.0).tag(sync=True)
    high_means = traitlets.Unicode("mine").tag(sync=True)
    label = traitlets.Unicode("").tag(sync=True)
    cell_px = traitlets.Int(26).tag(sync=True)
    frozen = traitlets.Bool(False).tag(sync=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._click_handlers = []
        self.on_msg(self._on_msg)

    def on_click(self, handler) -> None:
        """handler(r, c, flag) runs for every click on a cell in the page."""
        self._click_handlers.append(handler)

    def _on_msg(self, _widget, content, _buffers) -> None:
        if not isinstance(content, dict) or content.get("event") != "click":
            return
        try:
            r, c, flag = int(content["r"]), int(content["c"]), bool(content.get("flag", False))
        except (KeyError, TypeError, ValueError):
            return
        for handler in self._click_handlers:
            handler(r, c, flag)


_EDIT_CODES = {"covered": COVERED, "flag": FLAGGED}
_ANALYSING = "analysis mode: leave it (the Analysis toggle, or Play from here) to play or replay"


def _neighbours(shape, r: int, c: int) -> int:
    """How many neighbours cell (r, c) has on a board of `shape` (3 in a corner, 8 inside)."""
    rows, cols = shape
    return (min(r + 1, rows - 1) - max(r - 1, 0) + 1) * (min(c + 1, cols - 1) - max(c - 1, 0) + 1) - 1


def _listed(values: np.ndarray) -> list:
    """Floats with NaN as None (JSON has no NaN)."""
    flat = np.asarray(values, np.float64).ravel()
    return [None if np.isnan(x) else round(float(x), 6) for x in flat]


class BoardViewer(W.VBox):
    """Play a game by clicking, or watch an agent play it; see the module docstring.

        import minelab as ml
        ml.BoardViewer("beginner", agent=ml.make_agent("hcsp", seed=0), seed=1)   # in JupyterLab

    `game_or_level`: a Game or a level ("beginner", "9x9x10", ...); `seed` deals the board
    (New game adds 1); `warm`: compile the kernels in the background now; `cell_px`: the
    cell size (default 26, 22 on boards over 20 columns).
    """

    _analysed_before = False  # the first analysis in a process compiles best's kernels: the status line says so

    def __init__(self, game_or_level="beginner", agent=None, seed=None, *, flood: bool = True, warm: bool = True,
                 cell_px: int | None = None, **kwargs):
        super().__init__(**kwargs)
        game = game_or_level if isinstance(game_or_level, Game) else Game(Level.parse(game_or_level), seed=seed,
                                                                          flood=flood)
        if agent is not None and not isinstance(agent, Agent):
            raise ValueError(f"agent must be an Agent (ml.make_agent(...)) or None, got {agent!r}")
        self.seed, self.agent, self.game = seed, agent, game
        self.message = ""  # the last error / note, shown in the status line
        self.status_text = ""
        self.position: int | None = None  # None: live; else the replayed move count
        self.ready = not warm
        self._lock = threading.RLock()
        self._edit: np.ndarray | None = None  # analysis mode: the view being set up (None: playing)
        self._edit_mines = 0
        self._edit_note = ""  # the last edit, on the status line
        self.analysis = None  # analysis mode: ml.analyse of the position, when it has one
        self.analysis_error = ""  # analysis mode: why the position has no analysis (it is inconsistent)
        self._cell_px = cell_px
        self._build_controls()
        self._start(game)
        self.add_class("minelab-viewer")
        self.refresh()
        if warm:
            self._warm_thread = threading.Thread(target=self._warm_up, name="minelab-viewer-warm-up", daemon=True)
            self._warm_thread.start()

    # --- widgets ----------------------------------------------------------------------
    def _build_controls(self) -> None:
        def button(desc, cls, tip, handler):
            b = W.Button(description=desc, tooltip=tip, layout=W.Layout(width="auto"))
            b.add_class(cls)
            b.on_click(lambda _b: handler())
            return b

        self.flag_toggle = W.ToggleButton(value=False, description="Flag mode", icon="flag",
                                          tooltip="clicks flag / unflag instead of revealing (or right-click)")
        self.step_button = button("Agent step", "minelab-step", "apply agent.act(game): its next decision", self.step)
        self.play_button = button("Play to end", "minelab-play", "let the agent finish the game", self.play_to_end)
        self.new_button = button("New game", "minelab-new", "deal a new board (seed + 1)", self.new_game)
        self.prob_toggle = W.ToggleButton(value=False, description="Probabilities",
                                          tooltip="the exact mine probability of every covered cell")
        self.prob_toggle.add_class("minelab-overlay")
        self.know_toggle = W.ToggleButton(value=False, description="What it knows",
                                          tooltip="the agent's learnt value of each cell (learners)")
        self.know_toggle.add_class("minelab-knowledge")
        self.prob_toggle.observe(lambda ch: self._overlay_toggled("probability", ch["new"]), "value")
        self.know_toggle.observe(lambda ch: self._overlay_toggled("knowledge", ch["new"]), "value")

        self.back_button = button("◀", "minelab-back", "one move back", lambda: self.replay_step(-1))
        self.forward_button = button("▶", "minelab-forward", "one move forward", lambda: self.replay_step(1))
        self.live_button = button("Live", "minelab-live", "back to the game in play", self.live)
        self.move_slider = W.IntSlider(value=0, min=0, max=0, description="move", continuous_update=True,
                                       layout=W.Layout(width="320px"))
        self.move_slider.observe(self._slider_moved, "value")

        self.run_agent = W.Text(value="" if self.agent is None else self.agent.name, description="agent",
                                layout=W.Layout(width="170px"))
        self.run_level = W.Text(value=str(self.game.level), description="level", layout=W.Layout(width="170px"))
        self.run_seed = W.IntText(value=self.seed or 0, description="seed", layout=W.Layout(width="140px"))
        self.run_game = W.IntText(value=0, description="game", layout=W.Layout(width="140px"))
        self.open_button = button("Open game", "minelab-open", "play game N of ml.play(agent, level, n, seed) again",
                                  self._open_from_form)

        self.board = BoardGrid()
        self.board.on_click(lambda r, c, flag: self.click(r, c, flag=True if flag else None))
        self.why_label = W.HTML()
        self.why_label.add_class("minelab-why")
        self.status_label = W.HTML()
        self.status_label.add_class("minelab-status")
        self._build_analysis_controls(button)
        self.children = [
            W.HBox([self.flag_toggle, self.step_button, self.play_button, self.new_button, self.prob_toggle,
                    self.know_toggle, self.analysis_toggle]),
            self.board, self.why_label, self.status_label, self.analysis_box,
            W.HBox([self.back_button, self.move_slider, self.forward_button, self.live_button]),
            W.HBox([self.run_agent, self.run_level, self.run_seed, self.run_game, self.open_button]),
        ]

    def _build_analysis_controls(self, button) -> None:
        """The Analysis toggle, and what shows in analysis mode only: the analysis line, the
        position's text with Load text / Export, the mine count and Play from here."""
        self.analysis_toggle = W.ToggleButton(value=False, description="Analysis", icon="search",
                                              tooltip="set up any position by clicking or as text: its exact "
                                                      "probabilities and best's move")
        self.analysis_toggle.add_class("minelab-analysis-toggle")
        self.analysis_toggle.observe(lambda ch: self._analysis_toggled(ch["new"]), "value")
        self.analysis_label = W.HTML()
        self.analysis_label.add_class("minelab-analysis")
        self.text_area = W.Textarea(value="", placeholder="9x9x10\nHHHHHHHHH\n... (H covered, F flag, 0-8)",
                                    layout=W.Layout(width="340px", height="170px"))
        self.text_area.add_class("minelab-position-text")
        self.load_button = button("Load text", "minelab-load", "analyse the position written in the box",
                                  lambda: self.set_position(self.text_area.value))
        self.export_button = button("Export", "minelab-export", "write the position into the box as text",
                                    self.export)
        self.mines_field = W.IntText(value=self.game.level.mines, description="mines",
                                     layout=W.Layout(width="150px"))
        self.mines_field.add_class("minelab-mines")
        self.mines_field.observe(self._mines_field_changed, "value")
        self.play_here_button = button("Play from here", "minelab-play-here",
                                       "leave analysis mode with a game in this position (its hidden layout drawn "
                                       "among the consistent ones)", self.play_from_here)
        self.analysis_box = W.VBox([self.analysis_label, W.HBox([
            self.text_area, W.VBox([self.mines_field, self.load_button, self.export_button, self.play_here_button])])],
            layout=W.Layout(display="none"))

    # --- the game and its history ------------------------------------------------------
    def _start(self, game: Game) -> None:
        """Take `game` as the one shown: its history starts from its present position."""
        self.game = game
        self._origin = copy.deepcopy(game)  # the starting state: replay re-applies the moves to a copy
        self._twin = copy.deepcopy(game)
        self.frames = [np.array(game.view)]  # the view after each move (frames[0]: at the start)
        self.whys = [""]  # the reason recorded with each move
        self._flagged_before_end = np.zeros(game.level.cells, bool)
        self._agent_moved = False
        self._notified = False
        self.position = None
        self.message = ""

    def _record(self, why: str) -> None:
        """Re-apply the moves made since the last record to the twin, one by one, keeping each view."""
        done = len(self.frames) - 1
        live, twin = self.game._gs, self._twin._gs
        if live.counters[ST_DEALT] and not twin.counters[ST_DEALT]:
            # the layout as dealt in play (an agent may deal before its first recorded reveal, e.g. the
            # bandits' program opening): the twin takes it, so the replay is the game, move for move
            twin.mine[:], twin.counts[:] = live.mine, live.counts
            twin.counters[ST_DEALT] = 1
        for move in self.game.moves[len(self._origin.moves) + done:]:
            before = np.asarray(self._twin._gs.shown) == FLAGGED
            self._twin.apply(move)
            if self._twin.over:
                self._flagged_before_end = before
            self.frames.append(np.array(self._twin.view))
            self.whys.append(why)

    @property
    def moves_played(self) -> int:
        """Moves recorded in this viewer's history (frames - 1)."""
        return len(self.frames) - 1

    # --- model: moves -------------------------------------------------------------------
    @property
    def flag_mode(self) -> bool:
        """True when a click on the board flags / unflags instead of revealing."""
        return bool(self.flag_toggle.value)

    @flag_mode.setter
    def flag_mode(self, on: bool) -> None:
        self.flag_toggle.value = bool(on)

    def click(self, r: int, c: int, flag: bool | None = None) -> bool:
        """What a click on (r, c) does: reveal, or (flag mode / flag=True) flag or unflag; in
        analysis mode, edit the cell (`analysis_click`). Returns True when a move (or edit) was
        made; an illegal move sets `.message` instead."""
        flag = self.flag_mode if flag is None else flag
        with self._busy():
            self.message = ""
            if self._edit is not None:
                return self.analysis_click(r, c, flag=flag)
            if self.position is not None:
                return self._note("replaying an earlier move: press Live to play on")
            try:
                if flag:
                    on_board = self._on_board(r, c)
                    if on_board and self.game.view[r, c] == FLAGGED:
                        self.game.unflag(r, c)
                        why = f"you took the flag off ({r}, {c})"
                    else:
                        self.game.flag(r, c)
                        why = f"you flagged ({r}, {c})"
                else:
                    got = self.game.reveal(r, c)
                    why = f"you revealed ({r}, {c}): " + ("a mine" if got < 0 else f"{got} cell(s) opened")
            except (IllegalMove, ValueError) as e:
                return self._note(str(e))
            self._after_move(why)
            return True

    def step(self) -> bool:
        """Apply one agent decision. Returns True when a move was made."""
        with self._busy():
            self.message = ""
            if self.agent is None:
                return self._note("no agent: pass agent=ml.make_agent(...) to the viewer")
            if self._edit is not None:
                return self._note(_ANALYSING)
            if self.position is not None:
                return self._note("replaying an earlier move: press Live to play on")
            if self.game.over:
                return self._note("the game is over: press New game")
            try:
                self.agent.act(self.game)
            except (IllegalMove, ValueError) as e:
                return self._note(f"agent {self.agent!r}: {e}")
            self._agent_moved = True
            self._after_move(self.agent.explain())
            return True

    def play_to_end(self, max_moves: int | None = None) -> int:
        """Let the agent play until the game ends; returns the number of moves it made.

        Stops early (with a message) on an illegal agent move or after `max_moves`
        (default 4 x cells + 10, a guard against an agent that never finishes).
        """
        limit = 4 * self.game.level.cells + 10 if max_moves is None else int(max_moves)
        with self._busy():
            if self.agent is None or self.game.over or self.position is not None or self._edit is not None:
                return int(self.step())  # sets the explaining message
            made = 0
            self.message = ""
            while not self.game.over and made < limit:
                try:
                    made += len(self.agent.act(self.game))
                except (IllegalMove, ValueError) as e:
                    self.message = f"agent {self.agent!r}: {e}"
                    break
                self._agent_moved = True
                self._record(self.agent.explain())
            else:
                if not self.game.over:
                    self.message = f"stopped after {made} agent moves; the game is still in progress"
            self._after_move(None)
            return made

    def new_game(self) -> Game:
        """Deal a new game on the same level (seed + 1 when a seed was given)."""
        if self.seed is not None:
            self.seed = self.seed + 1
        self.set_game(Game(self.game.level, seed=self.seed, flood=self.game.flood))
        return self.game

    def set_game(self, game: Game) -> None:
        """Show another game (its history starts at its present position; analysis mode ends)."""
        with self._busy():
            self._drop_analysis()
            self._start(game)
            self.run_level.value = str(game.level)
            self.refresh()

    def _after_move(self, why: str | None) -> None:
        if why is not None:
            self._record(why)
        if self.game.over and self.agent is not None and self._agent_moved and not self._notified:
            self._notified = True
            self.agent.game_over(self.game)
        self.refresh()

    def _note(self, message: str) -> bool:
        self.message = message
        self.refresh()
        return False

    def _on_board(self, r, c, shape=None) -> bool:
        """(r, c) is a cell of the game's board (or of a board of `shape`)."""
        rows, cols = (self.game.level.rows, self.game.level.cols) if shape is None else shape
        return (isinstance(r, (int, np.integer)) and isinstance(c, (int, np.integer))
                and not isinstance(r, bool) and not isinstance(c, bool) and 0 <= r < rows and 0 <= c < cols)

    # --- replay -------------------------------------------------------------------------
    def replay_to(self, k: int) -> bool:
        """Show the position after move k of the history (0: the start); k = moves played: live."""
        n = self.moves_played
        if self._edit is not None:
            return self._note(_ANALYSING)
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 <= k <= n:
            return self._note(f"move must be an integer in [0, {n}] (the moves played so far), got {k!r}")
        self.position = None if k == n else int(k)
        self.message = ""
        self.refresh()
        return True

    def replay_step(self, delta: int) -> bool:
        """One move back (-1) or forward (+1) through the history."""
        here = self.moves_played if self.position is None else self.position
        return self.replay_to(min(max(here + delta, 0), self.moves_played))

    def live(self) -> None:
        """Back to the game in play."""
        self.replay_to(self.moves_played)

    def _slider_moved(self, change) -> None:
        if not getattr(self, "_syncing", False) and change["new"] != self._shown_index():
            self.replay_to(int(change["new"]))

    def _shown_index(self) -> int:
        return self.moves_played if self.position is None else self.position

    def shown_view(self) -> np.ndarray:
        """The view on the board now: the game's, or the replayed position's."""
        return self.frames[self._shown_index()]

    # --- open a game of a run -------------------------------------------------------------
    def open_game(self, game: int, *, level=None, seed=None, agent=None, run=None, play: bool = True) -> bool:
        """Show game number `game` of the run `ml.play(agent, level, n, seed)` with a fresh
        agent (or of `run`, a DataFrame returned by `ml.play`: its agent, level and seed,
        and the game's record is checked against the replay). The agent plays it to the
        end (`play=True`) and the replay stands at move 0. Returns False (and says why in
        the status line) on bad input."""
        with self._busy():
            try:
                name, params, level, seed, record = self._run_spec(game, level, seed, agent, run)
                fresh = make_agent(name, **params) if isinstance(name, str) else name
                self.message = f"playing games 0..{game - 1} of the run first…" if game else ""
                self.refresh()
                g, fresh = game_of_run(fresh, level, seed, game)
            except (ValueError, IllegalMove) as e:
                return self._note(str(e))
            self.agent = fresh
            self.run_agent.value, self.run_seed.value, self.run_game.value = fresh.name, int(seed), int(game)
            self._drop_analysis()
            self._start(g)
            self.run_level.value = str(g.level)
            if play:
                self.play_to_end()
                self.position = 0 if self.moves_played else None
            self.message = self._run_note(game, fresh, g, seed, record)
            self.refresh()
            return True

    def _run_spec(self, game, level, seed, agent, run):
        """(agent name or fresh Agent, params, level, seed, the run's record of the game or None)."""
        if isinstance(game, bool) or not isinstance(game, (int, np.integer)) or game < 0:
            raise ValueError(f"game must be a non-negative integer (the game's index in the run), got {game!r}")
        if run is not None:
            attrs = getattr(run, "attrs", {})
            if not {"agent", "level", "seed"} <= set(attrs):
                raise ValueError("run must be a DataFrame returned by ml.play (its attrs name agent, level and seed)")
            if game >= len(run):
                raise ValueError(f"game {game} is beyond the run: it has {len(run)} games (0..{len(run) - 1})")
            row = run.iloc[int(game)]
            record = {k: int(row[k]) for k in ("won", "moves", "revealed")}
            return attrs["agent"], dict(attrs.get("agent_params", {})), attrs["level"], attrs["seed"], record
        agent = self.agent if agent is None else agent
        if agent is None:
            raise ValueError("no agent: name one (agent='hcsp') to open a game of its run")
        level = self.game.level if level is None else level
        seed = (self.seed or 0) if seed is None else seed
        if isinstance(agent, str):
            return agent, {}, level, seed, None
        fresh = copy.deepcopy(agent) if not agent.learns else make_agent(agent.name, **agent.params())
        return fresh, {}, level, seed, None

    def _run_note(self, game, agent, g, seed, record) -> str:
        result = "won" if g.won else ("lost" if g.lost else "in progress")
        note = f"game {game} of {agent.name} on {g.level}, seed {seed}: {result} after {len(g.moves)} moves"
        if record is not None:
            mine = {"won": int(g.won), "moves": len(g.moves), "revealed": g.revealed}
            note += (" (the same as the run's record)" if mine == record
                     else f" (DIFFERS from the run's record {record}: please report it)")
        return note

    def _open_from_form(self) -> None:
        self.open_game(int(self.run_game.value), level=self.run_level.value.strip(), seed=int(self.run_seed.value),
                       agent=self.run_agent.value.strip() or None)

    # --- analysis mode ----------------------------------------------------------------------
    @property
    def analysing(self) -> bool:
        """True in analysis mode: the board is a position being set up, not a game."""
        return self._edit is not None

    @property
    def edited_view(self) -> np.ndarray | None:
        """A copy of the view being set up in analysis mode (None when playing)."""
        return None if self._edit is None else self._edit.copy()

    def analysis_mode(self, on: bool | None = None) -> None:
        """Enter (True) or leave (False) analysis mode; None flips. It starts from the
        position shown (an all-covered board of the level once the game is lost); leaving
        shows the game again as it was (Play from here instead starts a game in the position)."""
        self.analysis_toggle.value = (not self.analysis_toggle.value) if on is None else bool(on)

    def _analysis_toggled(self, on: bool) -> None:
        with self._busy():
            self.message = ""
            if on and self._edit is None:
                view, level = self.shown_view(), self.game.level
                lost = bool((view == MINE).any())
                if lost:
                    view = np.full((level.rows, level.cols), COVERED, np.int8)
                self._edit, self._edit_mines = np.array(view, np.int8), level.mines
                self._edit_note = ("the game is lost: set up a position from an all-covered board" if lost
                                   else "the position shown: click cells to change it")
                self.text_area.value = self.position_text()
                self._after_edit()
            elif not on and self._edit is not None:
                self._drop_analysis()
                self.refresh()

    def _drop_analysis(self) -> None:
        """Leave analysis mode without touching the game."""
        self._edit, self.analysis, self.analysis_error = None, None, ""
        self.analysis_toggle.value = False  # its observer finds the mode already left

    def analysis_click(self, r: int, c: int, flag: bool = False) -> bool:
        """What a click does in analysis mode: a left click steps (r, c) through covered ->
        0 -> 1 -> ... -> its number of neighbours -> covered (a flag: covered again); a right
        click, shift-click or flag=True puts a flag on it or takes it off."""
        if self._edit is None or not self._on_board(r, c, self._edit.shape):
            return self.edit(r, c, "covered")  # says what is wrong
        v = int(self._edit[r, c])
        if flag:
            value = "covered" if v == FLAGGED else "flag"
        elif v == FLAGGED or v >= _neighbours(self._edit.shape, r, c):
            value = "covered"
        else:
            value = 0 if v == COVERED else v + 1
        return self.edit(r, c, value)

    def edit(self, r: int, c: int, value) -> bool:
        """Set cell (r, c) of the position (analysis mode) to "covered", "flag" or a number
        0-8, and analyse it again. Returns True when the cell was set; bad input sets
        `.message` instead. An inconsistent position is kept (the status line says why)."""
        with self._busy():
            self.message = ""
            if self._edit is None:
                return self._note("not in analysis mode: press Analysis (or analysis_mode(True)) first")
            rows, cols = self._edit.shape
            if not self._on_board(r, c, self._edit.shape):
                return self._note(f"({r!r}, {c!r}) is not a cell of the {rows}x{cols} board")
            if isinstance(value, str) and value in _EDIT_CODES:
                code = _EDIT_CODES[value]
            elif isinstance(value, (int, np.integer)) and not isinstance(value, bool) and 0 <= value <= 8:
                code = int(value)
            else:
                return self._note(f"value must be 'covered', 'flag' or a number 0-8, got {value!r}")
            self._edit[r, c] = code
            self._edit_note = f"({r}, {c}) set to {value}"
            self._after_edit()
            return True

    def set_mines(self, n: int) -> bool:
        """Set the position's total mine count (analysis mode) and analyse it again."""
        with self._busy():
            self.message = ""
            if self._edit is None:
                return self._note("not in analysis mode: press Analysis (or analysis_mode(True)) first")
            if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
                return self._note(f"mines must be a non-negative integer, got {n!r}")
            self._edit_mines = int(n)
            self._edit_note = f"mines set to {n}"
            self._after_edit()
            return True

    def _mines_field_changed(self, change) -> None:
        if not getattr(self, "_syncing", False) and self._edit is not None and change["new"] != self._edit_mines:
            self.set_mines(change["new"])

    def set_position(self, position) -> bool:
        """Analyse `position` (entering analysis mode): a Position or its text (the format
        of minelab.position). A malformed text leaves the board as it was, and its error,
        naming the line and field, goes to the status line; returns False then."""
        with self._busy():
            self.message = ""
            try:
                if isinstance(position, Position):
                    view, mines = np.array(position.view), position.mines
                elif isinstance(position, str):
                    view, mines = parse_text(position)
                else:
                    raise ValueError(f"position must be a Position or its text, got {type(position).__name__}")
            except ValueError as e:
                if self._edit is not None:
                    self._edit_note = "the text was not loaded: the board is as it was"
                return self._note(f"position text: {e}")
            self._edit, self._edit_mines = np.array(view, np.int8), int(mines)
            self.analysis_toggle.value = True  # its observer finds the mode already entered
            self._edit_note = f"loaded a {view.shape[0]}x{view.shape[1]} position with {mines} mines"
            self._after_edit()
            return True

    def edited_position(self) -> Position:
        """The position of analysis mode as a Position (ValueError, naming the cell, when no
        layout is consistent with it)."""
        if self._edit is None:
            raise ValueError("not in analysis mode: press Analysis (or analysis_mode(True)) first")
        return Position(self._edit, self._edit_mines)

    def position_text(self) -> str:
        """The position of analysis mode in the text format (docs/analysis.md), also while
        it is inconsistent."""
        if self._edit is None:
            raise ValueError("not in analysis mode: press Analysis (or analysis_mode(True)) first")
        return format_text(self._edit, self._edit_mines)

    def export(self) -> str:
        """Write the position's text into the text box (what Export does); returns it."""
        with self._busy():
            if self._edit is None:
                self._note("not in analysis mode: press Analysis (or analysis_mode(True)) first")
                return ""
            self.text_area.value = text = self.position_text()
            self.message = ""
            self._edit_note = "the position's text is in the box below"
            self.refresh()
            return text

    def play_from_here(self, seed=None) -> bool:
        """Leave analysis mode with a game in the position: `Position.game(seed)` (default:
        the viewer's seed) draws its hidden layout among the consistent ones, and the game
        (and the agent, if any) goes on from there. Returns False, saying why, when the
        position is inconsistent or no game shows it."""
        with self._busy():
            self.message = ""
            if self._edit is None:
                return self._note("not in analysis mode: press Analysis (or analysis_mode(True)) first")
            try:
                game = self.edited_position().game(self.seed if seed is None else seed)
            except ValueError as e:
                return self._note(f"play from here: {e}")
            self._drop_analysis()
            self._start(game)
            self.run_level.value = str(game.level)
            self.message = "a game in the analysed position (its hidden layout drawn among the consistent ones)"
            self.refresh()
            return True

    def _after_edit(self) -> None:
        """Analyse the position and show it."""
        self._analyse()
        self.refresh()

    def _analyse(self) -> None:
        """`analyse` the position into `.analysis`, or say in `.analysis_error` why it has none
        (an inconsistent position)."""
        self.analysis, self.analysis_error = None, ""
        if not BoardViewer._analysed_before:
            self.status_label.value = ('<span style="font-family:monospace">analysing… (the first analysis compiles '
                                       "best's kernels: a minute or two after an install)</span>")
            self._warm_analysis()
        try:
            pos = Position(self._edit, self._edit_mines)
        except ValueError as e:
            self.analysis_error = str(e)
            return
        self.analysis = analyse(pos, top=ANALYSIS_TOP, exact_limit=ANALYSIS_EXACT_LIMIT)
        BoardViewer._analysed_before = True

    def _warm_analysis(self) -> None:
        """Analyse a scratch position with numbers on it once, so that the first analysis
        compiles every kernel an edited position needs: an all-covered start alone leaves
        the frontier's kernels to compile on a later edit, which then takes a minute."""
        level = self.game.level
        scratch = Game(level, seed=0, flood=True)
        scratch.reveal(level.rows // 2, level.cols // 2)
        if not scratch.over:
            analyse(scratch, top=ANALYSIS_TOP, exact_limit=0)

    def analysis_overlay(self):
        """(mine probabilities (rows, cols) with NaN, certain int8 (0/1 safe/2 mine), label)
        of the position in analysis mode, or None (inconsistent, or not in analysis mode)."""
        if self.analysis is None:
            return None
        a = self.analysis
        p, exact, safe, mines = a.probabilities, a.exact, a.safe, a.mines
        certain = np.zeros(p.shape, np.int8)
        for cells, code in ((safe, 1), (mines, 2)):
            for r, c in cells:
                certain[r, c] = code
        return p, certain, "P(mine), exact" + ("" if exact else " (estimated: a component passed the work bound)")

    def analysis_lines(self) -> list[str]:
        """The analysis as text, a line each: layouts, best's move and reason, the candidates
        (safety, progress; the exact win probability on small boards), the exact values."""
        if self._edit is None:
            return []
        if self.analysis_error:
            return [f"no analysis: {self.analysis_error}"]
        a = self.analysis
        lines = [f"{a.layouts:.6g} layouts agree with the view" + ("" if a.exact else " (estimated)")
                 + f" | certainly safe {len(a.safe)} | certain mines {len(a.mines)}",
                 "best: no move (every safe cell is revealed)" if a.move is None
                 else f"best reveals {a.move}: {a.reason}"]
        win = {} if a.values is None else dict(zip(a.values.cell, a.values.win_probability))
        if len(a.candidates):
            lines.append("candidates: " + " | ".join(
                f"{cell} safety {s:.3f}, progress {p:.3f}" + (f", win {win[cell]:.4f}" if cell in win else "")
                for cell, s, p in zip(a.candidates.cell, a.candidates.safety, a.candidates.progress)))
        if a.values is not None:
            lines.append("exact win probability, then optimal play: " + " | ".join(
                f"{cell} {w:.4f} ({x})" for cell, w, x in a.values.head(ANALYSIS_TOP).itertuples(index=False)))
        return lines

    def _refresh_analysis(self) -> None:
        """The board, status and analysis lines of analysis mode."""
        view = self._edit
        rows, cols = view.shape
        overlay = self.analysis_overlay()
        marks = np.zeros(view.size, np.int8)
        if self.analysis is not None and self.analysis.move is not None:
            marks[self.analysis.move[0] * cols + self.analysis.move[1]] = MARK_BEST
        with self.board.hold_sync():
            self.board.rows, self.board.cols = rows, cols
            self.board.cell_px = self._cell_px or (22 if cols > 20 else 26)
            self.board.cells = [int(x) for x in view.ravel()]
            self.board.marks = marks.tolist()
            self.board.frozen = False
            if overlay is None:
                self.board.overlay, self.board.values, self.board.certain, self.board.counts = "none", [], [], []
            else:
                p, certain, label = overlay
                self.board.values, self.board.certain, self.board.counts = _listed(p), certain.ravel().tolist(), []
                self.board.label, self.board.lo, self.board.hi, self.board.high_means = label, 0.0, 1.0, "mine"
                self.board.overlay = "probability"
        self._sync_controls()
        covered, flags = int((view == COVERED).sum()), int((view == FLAGGED).sum())
        head = f"analysis | {rows}x{cols}, {self._edit_mines} mines | covered {covered} | flags {flags}"
        notes = [x for x in (self._edit_note, self.message, self.analysis_error) if x]
        self.status_text = " | ".join([head, *notes])
        extra = "".join(f'<br><span style="color:{c}">{escape(t)}</span>'
                        for t, c in ((self.message, "#c00000"), (self.analysis_error, "#c00000")) if t)
        note = f" | {escape(self._edit_note)}" if self._edit_note else ""
        # the status line last: the page gets the updates in this order, so once its status
        # names the edit, its board and analysis lines show the edited position too
        self.why_label.value = ""
        self.analysis_label.value = "".join(f'<div style="font-family:monospace">{escape(line)}</div>'
                                            for line in self.analysis_lines())
        self.status_label.value = f'<span style="font-family:monospace">{escape(head)}{note}</span>{extra}'

    # --- overlays -------------------------------------------------------------------------
    @property
    def overlay(self) -> str:
        """"none", "probability" or "knowledge"."""
        return "probability" if self.prob_toggle.value else "knowledge" if self.know_toggle.value else "none"

    def toggle_probabilities(self, on: bool | None = None) -> None:
        """Show / hide the exact mine probabilities (on=None flips)."""
        self.prob_toggle.value = (not self.prob_toggle.value) if on is None else bool(on)

    def toggle_knowledge(self, on: bool | None = None) -> None:
        """Show / hide what the agent has learnt (on=None flips)."""
        self.know_toggle.value = (not self.know_toggle.value) if on is None else bool(on)

    def _overlay_toggled(self, which: str, on: bool) -> None:
        if on:  # the two overlays exclude each other
            other = self.know_toggle if which == "probability" else self.prob_toggle
            other.value = False
        self.message = ""
        self.refresh()

    def overlay_values(self):
        """(values (rows, cols) float with NaN, certain int8 (0/1 safe/2 mine), counts or
        None, label, lo, hi, high_means) of the overlay on the shown position, or None."""
        view = self.shown_view()
        mines = self.game.level.mines
        if self.overlay == "probability":
            if (view == MINE).any() or not (view < 0).any():
                return None  # the game is over: nothing is uncertain
            sol = solve(view, mines)
            certain = np.where(sol.safe, 1, np.where(sol.mine, 2, 0)).astype(np.int8)
            label = "P(mine), exact" + ("" if sol.exact else " (estimated: a component passed the work bound)")
            return sol.probabilities, certain, None, label, 0.0, 1.0, "mine"
        if self.overlay == "knowledge":
            if self.agent is None or self.position is not None or self.game.over:
                return None
            k = self.agent.knowledge(self.game)
            if k is None:
                return None
            return k.values, None, k.counts, k.label, float(k.lo), float(k.hi), k.high_means
        return None

    # --- view -------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Bring the board, the why line and the status line up to date (in analysis mode:
        the board, the status line and the analysis of the position being set up)."""
        if self._edit is not None:
            self._refresh_analysis()
            return
        view = self.shown_view()
        level = self.game.level
        shown_moves = self._shown_index()
        overlay, overlay_note = self._overlay_or_note()
        with self.board.hold_sync():
            self.board.rows, self.board.cols = level.rows, level.cols
            self.board.cell_px = self._cell_px or (22 if level.cols > 20 else 26)
            self.board.cells = [int(x) for x in view.ravel()]
            self.board.marks = self._marks(view, shown_moves)
            self.board.frozen = self.position is not None
            if overlay is None:
                self.board.overlay, self.board.values, self.board.certain, self.board.counts = "none", [], [], []
            else:
                values, certain, counts, label, lo, hi, high = overlay
                self.board.values = _listed(values)
                self.board.certain = [] if certain is None else [int(x) for x in np.ravel(certain)]
                self.board.counts = [] if counts is None else [int(x) for x in np.ravel(counts)]
                self.board.label, self.board.lo, self.board.hi, self.board.high_means = label, lo, hi, high
                self.board.overlay = self.overlay
        self._sync_controls()
        self._write_status(view, shown_moves, overlay_note)

    def _overlay_or_note(self):
        try:
            overlay = self.overlay_values()
        except ValueError as e:
            return None, f"overlay: {e}"
        if overlay is None and self.overlay == "knowledge":
            who = "no agent" if self.agent is None else f"{self.agent.name} shows no learnt values"
            when = " (in play only)" if self.position is not None or self.game.over else ""
            return None, f"what it knows: {who}{when}"
        return overlay, ""

    def _marks(self, view: np.ndarray, k: int) -> list[int]:
        marks = np.zeros(view.size, np.int8)
        moves = self.game.moves[len(self._origin.moves):][:k]
        if moves:
            last = moves[-1]
            i = last.row * self.game.level.cols + last.col
            lost_here = view.ravel()[i] == MINE
            marks[i] = MARK_BOOM if lost_here else MARK_LAST
            if lost_here:  # the flags placed before the losing click: right or wrong
                flat = view.ravel()
                was = self._flagged_before_end
                marks[was & (flat == MINE)] = MARK_FLAG_RIGHT
                marks[was & (flat == FLAGGED)] = MARK_FLAG_WRONG
        return marks.tolist()

    def _sync_controls(self) -> None:
        live_play = self.position is None and not self.game.over and self.agent is not None
        self.step_button.disabled = not live_play
        self.play_button.disabled = not live_play
        self.back_button.disabled = self._shown_index() == 0
        self.forward_button.disabled = self.position is None
        self.live_button.disabled = self.position is None
        analysing = self._edit is not None
        if analysing:
            for w in (self.step_button, self.play_button, self.new_button, self.back_button, self.forward_button,
                      self.live_button):
                w.disabled = True
        for w in (self.move_slider, self.prob_toggle, self.know_toggle, self.open_button):
            w.disabled = analysing
        self.analysis_box.layout.display = "flex" if analysing else "none"
        self._syncing = True
        try:
            self.move_slider.max = self.moves_played
            self.move_slider.value = self._shown_index()
            if analysing:
                self.mines_field.value = self._edit_mines
        finally:
            self._syncing = False

    def _write_status(self, view, k: int, overlay_note: str) -> None:
        g = self.game
        state = _STATUS_NAMES[g.status]
        agent = "" if self.agent is None else f" | agent {self.agent!r}"
        replay = "" if self.position is None else f" | replay: move {k} of {self.moves_played}"
        preparing = "" if self.ready else " | preparing: compiling the kernels (first use after an install)…"
        notes = " | ".join(x for x in (self.message, overlay_note) if x)
        self.status_text = (f"level {g.level} | moves {len(g.moves)} | flags {g.flags}/{g.level.mines} "
                            f"| {state}{agent}{replay}{preparing}" + (f" | {notes}" if notes else ""))
        colour = {WON: "#008000", -1: "#c00000"}.get(g.status, "#222")
        extra = "".join(f'<br><span style="color:{c}">{escape(t)}</span>'
                        for t, c in ((self.message, "#c00000"), (overlay_note, "#555")) if t)
        self.status_label.value = (
            f'<span style="font-family:monospace">level {escape(str(g.level))} | moves {len(g.moves)} | '
            f'flags {g.flags}/{g.level.mines} | <b style="color:{colour}">{state}</b>{escape(agent)}'
            f'{escape(replay)}{escape(preparing)}</span>{extra}')
        why = self.whys[k] if k < len(self.whys) else ""
        self.why_label.value = f'<span style="font-family:monospace">why: {escape(why)}</span>' if why else ""

    # --- busy / warm-up ----------------------------------------------------------------------
    @contextmanager
    def _busy(self):
        """Hold the viewer's lock; if the warm-up holds it, say so before waiting."""
        if not self._lock.acquire(blocking=False):
            self.status_label.value = ('<span style="font-family:monospace">compiling the kernels (first use after '
                                       'an install): the move follows in a few seconds…</span>')
            self._lock.acquire()
        try:
            yield
        finally:
            self._lock.release()

    def _warm_up(self) -> None:
        with self._lock:
            self.refresh()
            try:
                level = self.game.level
                scratch = Game(level, seed=0, flood=self.game.flood)
                scratch.reveal(level.rows // 2, level.cols // 2)
                if not scratch.over:
                    solve(scratch.view, level.mines)
                if self.agent is not None:
                    self.agent.warm_up(level)
            except Exception as e:  # noqa: BLE001 - a warm-up failure is shown, play goes on
                self.message = f"warm-up: {e}"
            self.ready = True
            self.refresh()

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait for the background warm-up; True when done."""
        thread = getattr(self, "_warm_thread", None)
        if thread is not None:
            thread.join(timeout)
        return self.ready

    # --- pictures ---------------------------------------------------------------------------
    def picture(self, k: int | None = None) -> str:
        """The board after move k (default: as shown) as static HTML (an inline SVG)."""
        k = self._shown_index() if k is None else int(k)
        return board_html(self.frames[k], title=self._title(k))

    def _title(self, k: int) -> str:
        """The caption of the picture of position k (static picture, frames, animation)."""
        return f"{self.game.level} — move {k} of {self.moves_played}"

    def _repr_mimebundle_(self, **kwargs):
        """The widget, plus a static picture of the board for pages without a widget
        manager (nbconvert to HTML, GitHub)."""
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is not None:
            bundle = dict(bundle)
            bundle["text/html"] = self.picture()
        return bundle

    def save_frames(self, directory, fmt: str = "png") -> list[Path]:
        """Write every position of the history (move_000.png, ...) into `directory`
        (created); fmt "png" (matplotlib) or "svg". Each file is written atomically."""
        if fmt not in ("png", "svg"):
            raise ValueError(f"fmt must be 'png' or 'svg', got {fmt!r}")
        from .render import board_svg, draw_board

        out = []
        directory = Path(directory)
        width = len(str(self.moves_played))
        for k, view in enumerate(self.frames):
            path = directory / f"move_{k:0{max(3, width)}d}.{fmt}"
            title = self._title(k)
            if fmt == "svg":
                atomic_write(path, lambda fh, v=view, t=title: fh.write(board_svg(v, title=t)))
            else:
                import matplotlib.pyplot as plt

                ax = draw_board(view, title=title)
                atomic_write(path, lambda fh, f=ax.figure: f.savefig(fh, format="png", dpi=100), mode="wb")
                plt.close(ax.figure)
            out.append(path)
        return out

    def save_animation(self, path, fps: float = 2.0) -> Path:
        """The history as an animated GIF (matplotlib + Pillow), written atomically."""
        path = Path(path)
        if path.suffix.lower() != ".gif":
            raise ValueError(f"path must end in .gif, got {path.name!r}")
        if not fps > 0:
            raise ValueError(f"fps must be positive, got {fps!r}")
        import tempfile

        import matplotlib.pyplot as plt
        from matplotlib.animation import FuncAnimation, PillowWriter

        from .render import draw_board

        ax = draw_board(self.frames[0], title=self._title(0))

        def frame(k):
            ax.clear()
            draw_board(self.frames[k], ax=ax, title=self._title(k))
            return []

        anim = FuncAnimation(ax.figure, frame, frames=len(self.frames), blit=False)
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=path.parent) as tmp:
            part = Path(tmp) / path.name
            anim.save(part, writer=PillowWriter(fps=fps))  # matplotlib writes to a file name only
            atomic_write(path, lambda fh: fh.write(part.read_bytes()), mode="wb")
        plt.close(ax.figure)
        return path

    def __repr__(self) -> str:
        g = self.game
        return f"BoardViewer({g.level}, {_STATUS_NAMES[g.status]}, {len(g.moves)} moves, agent={self.agent!r})"


def side_by_side(agents, level="9x9x10:none", seed: int = 0, *, cell_px: int = 20, warm: bool = False) -> W.HBox:
    """One viewer per agent, each having played the same board (a Game dealt from `seed`)
    to the end, the replay at move 0: step through them side by side. Use a level with
    the `none` rule (mines placed before the first click) for the very same board: under
    `safe` / `opening` the layout depends on where the first click falls.

        side_by_side({"random": ml.make_agent("random"), "hcsp": ml.make_agent("hcsp")})
    """
    if not isinstance(agents, dict):
        agents = {a.name if isinstance(a, Agent) else str(a): a for a in agents}
    level = Level.parse(level)
    views = []
    for title, agent in agents.items():
        agent = make_agent(agent) if isinstance(agent, str) else agent
        v = BoardViewer(Game(level, seed=seed), agent=agent, seed=seed, cell_px=cell_px, warm=warm)
        v.play_to_end()
        v.replay_to(0)
        v.children = (W.HTML(f"<b>{escape(str(title))}</b>"), *v.children)
        views.append(v)
    return _ViewerRow(views, layout=W.Layout(flex_flow="row wrap", gap="16px"))


class _ViewerRow(W.HBox):
    """Viewers side by side; exported without a widget manager, their static pictures in a row."""

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is not None:
            pictures = "".join(f'<div style="display:inline-block;margin-right:16px">{v.picture()}</div>'
                               for v in self.children if isinstance(v, BoardViewer))
            bundle = {**bundle, "text/html": f"<div>{pictures}</div>"}
        return bundle

