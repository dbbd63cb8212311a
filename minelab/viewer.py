"""An interactive board for JupyterLab: `BoardViewer(game_or_level, agent=None, seed=None)`.

    import minelab as ml
    from minelab.viewer import BoardViewer
    BoardViewer("beginner", agent=ml.make_agent("random", seed=0), seed=1)

A grid of buttons (created once, then only the cells that changed are updated): a
click reveals, or with "Flag mode" on, flags / unflags. "Agent step" applies one
`agent.act(game)` (its next decision), "Play to end" lets the agent finish, "New game" deals the next
board (seed + 1). Illegal moves are reported in the status line, never raised.

The model logic lives in plain methods — `click(r, c)`, `step()`, `play_to_end()`,
`new_game()`, `refresh()` — so it can be driven (and tested) without a browser.
"""
from __future__ import annotations

from html import escape

import ipywidgets as W
import numpy as np

from .cells import COVERED, FLAGGED, LOST, MINE, ONGOING, WON
from .engine import Game, IllegalMove
from .levels import Level
from .render import COVERED_FILL, NUMBER_COLOURS, REVEALED_FILL

__all__ = ["BoardViewer"]

_STATUS_NAMES = {ONGOING: "ongoing", WON: "won", LOST: "lost"}
_BOOM_FILL = "#ff6b6b"  # the mine that ended a lost game
_CELL_PX = 28


class BoardViewer(W.VBox):
    """Play a game by clicking, or watch an agent play it. `.game`, `.agent`, `.refresh()`.

        import minelab as ml
        ml.BoardViewer("beginner", agent=ml.make_agent("best", seed=0), seed=1)   # in JupyterLab
    """

    def __init__(self, game_or_level="beginner", agent=None, seed=None, *, flood: bool = True, **kwargs):
        super().__init__(**kwargs)
        if isinstance(game_or_level, Game):
            game = game_or_level
        else:
            game = Game(Level.parse(game_or_level), seed=seed, flood=flood)
        self.seed = seed
        self.agent = agent
        self.message = ""  # last error / note, shown in the status line
        self._agent_moved = False  # the agent played in this game (then it learns at the end)
        self._notified = False  # agent.game_over already called for this game

        self.flag_toggle = W.ToggleButton(value=False, description="Flag mode", icon="flag",
                                          tooltip="clicks flag / unflag instead of revealing")
        self.step_button = W.Button(description="Agent step", tooltip="apply agent.act(game): its next decision")
        self.play_button = W.Button(description="Play to end", tooltip="let the agent finish the game")
        self.new_button = W.Button(description="New game", tooltip="deal a new board (seed + 1)")
        self.step_button.on_click(lambda _b: self.step())
        self.play_button.on_click(lambda _b: self.play_to_end())
        self.new_button.on_click(lambda _b: self.new_game())
        self.status_label = W.HTML()
        self.status_text = ""

        self.game = game
        self._build_grid()
        controls = W.HBox([self.flag_toggle, self.step_button, self.play_button, self.new_button])
        self.children = [controls, self.grid, self.status_label]
        self.refresh()

    # --- model ---------------------------------------------------------------------
    @property
    def flag_mode(self) -> bool:
        """True when a click on the board flags / unflags instead of revealing."""
        return bool(self.flag_toggle.value)

    @flag_mode.setter
    def flag_mode(self, on: bool) -> None:
        self.flag_toggle.value = bool(on)

    def click(self, r: int, c: int, flag: bool | None = None) -> bool:
        """What a click on (r, c) does: reveal, or (flag mode / flag=True) flag or unflag.

        Returns True when a move was made; an illegal move sets `.message` instead.
        """
        flag = self.flag_mode if flag is None else flag
        self.message = ""
        try:
            if flag:
                if self._on_board(r, c) and self.game.view[r, c] == FLAGGED:
                    self.game.unflag(r, c)
                else:
                    self.game.flag(r, c)
            else:
                self.game.reveal(r, c)
        except (IllegalMove, ValueError) as e:
            self.message = str(e)
            self.refresh()
            return False
        self._after_move()
        return True

    def step(self) -> bool:
        """Apply one agent move. Returns True when a move was made."""
        self.message = ""
        if self.agent is None:
            self.message = "no agent: pass agent=ml.make_agent(...) to the viewer"
        elif self.game.over:
            self.message = "the game is over: press New game"
        else:
            try:
                self.agent.act(self.game)
            except (IllegalMove, ValueError) as e:
                self.message = f"agent {self.agent!r}: {e}"
            else:
                self._agent_moved = True
                self._after_move()
                return True
        self.refresh()
        return False

    def play_to_end(self, max_moves: int | None = None) -> int:
        """Let the agent play until the game ends; returns the number of moves it made.

        Stops early (with a message) on an illegal agent move or after `max_moves`
        (default 4 x cells + 10, a guard against an agent that never finishes).
        """
        limit = 4 * self.game.level.cells + 10 if max_moves is None else int(max_moves)
        made = 0
        self.message = ""
        if self.agent is None or self.game.over:
            return int(self.step())  # sets the explaining message
        while not self.game.over and made < limit:
            try:
                made += len(self.agent.act(self.game))
            except (IllegalMove, ValueError) as e:
                self.message = f"agent {self.agent!r}: {e}"
                break
            self._agent_moved = True
        else:
            if not self.game.over:
                self.message = f"stopped after {made} agent moves; the game is still in progress"
        self._after_move()
        return made

    def new_game(self) -> Game:
        """Deal a new game on the same level (seed + 1 when a seed was given)."""
        if self.seed is not None:
            self.seed = self.seed + 1
        self.set_game(Game(self.game.level, seed=self.seed, flood=self.game.flood))
        return self.game

    def set_game(self, game: Game) -> None:
        """Show another game (the grid is rebuilt when its size differs)."""
        rebuild = game.level.rows != self.game.level.rows or game.level.cols != self.game.level.cols
        self.game = game
        self.message = ""
        self._agent_moved = False
        self._notified = False
        if rebuild:
            self._build_grid()
            self.children = [self.children[0], self.grid, self.status_label]
        self.refresh()

    def _on_board(self, r, c) -> bool:
        rows, cols = self.game.level.rows, self.game.level.cols
        return (isinstance(r, (int, np.integer)) and isinstance(c, (int, np.integer))
                and not isinstance(r, bool) and not isinstance(c, bool) and 0 <= r < rows and 0 <= c < cols)

    def _after_move(self) -> None:
        if self.game.over and self.agent is not None and self._agent_moved and not self._notified:
            self._notified = True
            self.agent.game_over(self.game)
        self.refresh()

    # --- view ----------------------------------------------------------------------
    def _build_grid(self) -> None:
        rows, cols = self.game.level.rows, self.game.level.cols
        self.buttons = []
        for r in range(rows):
            for c in range(cols):
                b = W.Button(description="", layout=W.Layout(width=f"{_CELL_PX}px", height=f"{_CELL_PX}px",
                                                             padding="0", margin="0"))
                b.style.font_weight = "bold"
                b.on_click(lambda _b, r=r, c=c: self.click(r, c))
                self.buttons.append(b)
        self.grid = W.GridBox(self.buttons, layout=W.Layout(
            grid_template_columns=f"repeat({cols}, {_CELL_PX}px)", grid_gap="1px", width="max-content"))
        self._shown = np.full(rows * cols, -100, np.int16)  # what each button shows now
        self._boom = -1

    def refresh(self) -> None:
        """Bring the buttons and the status line up to date with `.game`."""
        g = self.game
        view = np.asarray(g.view).ravel()
        boom = -1
        if g.lost and g.moves:
            last = g.moves[-1]
            boom = last.row * g.level.cols + last.col
        changed = np.flatnonzero(view != self._shown)
        for i in set(changed.tolist()) | ({boom, self._boom} - {-1}):
            self._paint(self.buttons[i], int(view[i]), i == boom)
        self._shown[:] = view
        self._boom = boom
        ongoing = not g.over
        self.step_button.disabled = self.agent is None or not ongoing
        self.play_button.disabled = self.agent is None or not ongoing

        state = _STATUS_NAMES[g.status]
        agent = "" if self.agent is None else f" | agent {self.agent!r}"
        self.status_text = (f"level {g.level} | moves {len(g.moves)} | flags {g.flags}/{g.level.mines} "
                            f"| {state}{agent}")
        if self.message:
            self.status_text += f" | {self.message}"
        colour = {WON: "#008000", LOST: "#c00000"}.get(g.status, "#222")
        msg = f'<br><span style="color:#c00000">{escape(self.message)}</span>' if self.message else ""
        self.status_label.value = (
            f'<span style="font-family:monospace">level {escape(str(g.level))} | moves {len(g.moves)} | '
            f'flags {g.flags}/{g.level.mines} | <b style="color:{colour}">{state}</b>{escape(agent)}</span>{msg}'
        )

    @staticmethod
    def _paint(b: W.Button, v: int, boom: bool) -> None:
        if v == COVERED:
            desc, bg, fg = "", COVERED_FILL, "#000"
        elif v == FLAGGED:
            desc, bg, fg = "⚑", COVERED_FILL, "#e00000"
        elif v == MINE:
            desc, bg, fg = "✹", _BOOM_FILL if boom else REVEALED_FILL, "#000"
        else:
            desc, bg, fg = ("" if v == 0 else str(v)), REVEALED_FILL, NUMBER_COLOURS.get(v, "#000")
        b.description = desc
        b.style.button_color = bg
        b.style.text_color = fg

    def __repr__(self) -> str:
        g = self.game
        return f"BoardViewer({g.level}, {_STATUS_NAMES[g.status]}, {len(g.moves)} moves, agent={self.agent!r})"
