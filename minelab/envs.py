"""Gymnasium environments: Minesweeper for reinforcement learning, on the engine's kernels.

`MinesweeperEnv` (registered as ``minelab/Minesweeper-v0`` by ``import minelab``)
is one game per episode; `MinesweeperVectorEnv` steps `num_envs` boards in one numba
call. Both play by the engine's rules (`minelab.engine`), so a board dealt here is a
board the batch runner would deal from the same random stream.

Conventions
    observation  int8 (rows, cols), the board as the player sees it: COVERED -1, revealed
                 counts 0..8, MINE -3 on every mine after a loss (never before). FLAGGED -2
                 never occurs (actions are reveals only) but lies inside the space
                 Box(-3, 8), which follows minelab.cells.
    action       Discrete(rows * cols): reveal cell r * cols + c. An action that is not an
                 integer in [0, rows * cols) always raises ValueError.
    reward       per click, from `reward`: a preset name or a mapping
                 {"safe": ..., "win": ..., "mine": ...}. "safe" is a safe click that does
                 not win, "win" the click that reveals the last safe cell, "mine" a click on
                 a mine (the episode ends). Presets:
                   "bilir2023"  safe +1, win +10, mine -10: the scheme of the RL paper
                                (Bilir, Kong & Wittenbrink 2023; `bilir2023` in the README)
                   "win-loss"   safe 0, win +1, mine -1
    illegal      an action on an already revealed cell: "error" (default) raises ValueError
                 and leaves the game as it was; "penalty" gives reward `illegal_penalty`
                 (default -1.0), leaves the board unchanged and does not end the episode
                 (pass max_episode_steps to gymnasium.make if an agent may loop).
    episode      terminated once the game is won or lost; truncated is always False.
                 Stepping a finished episode raises gymnasium.error.ResetNeeded.
    info         "action_mask" int8[rows * cols] (1 = covered = legal), "revealed" (safe
                 cells revealed so far), "won" (True on the winning step). With the labelled
                 debugging option reveal_mines=True, and only then, "mines" holds the hidden
                 layout (bool (rows, cols); all False until dealt under safe/opening/no-guess): an
                 agent that reads it cheats.
    first click  the level's rule (Level.parse("5x5x5:none"|":safe"|":opening"|":no-guess")): under
                 `none` the mines are dealt at reset, under the others at the first reveal.
    randomness   the env draws its random numbers only through the engine's kernels on
                 `self.np_random` (begin_game at reset, deal_first_click before the first
                 click when not yet dealt), in the batch loops' order: set
                 `env.unwrapped.np_random` to a Generator and reset() without a seed to get
                 exactly the boards the engine deals from it. reset(seed=s) is reproducible.
    options      reset(options={"mines": layout}) plays a fixed layout (0/1 (rows, cols)
                 with the level's mine count; no random draw, no first-click rule): scripted
                 tests and demos.

The vector env: observations (num_envs, rows, cols), info["action_mask"] (num_envs,
rows * cols), rewards float64, terminations bool. Autoreset is gymnasium's NEXT_STEP
mode (metadata["autoreset_mode"]): the step after a board terminates resets that board,
ignores its action (any in-range action is accepted) and returns reward 0, terminated
False and the fresh board. All boards share ONE random stream (seeded by reset(seed=...)
as in the single env), consumed in board order within each call: reset deals board 0,
1, ...; a step deals first clicks and autoresets in board order. Same seed and actions,
same everything; with num_envs=1 the vector env plays exactly as the single env.
`random_legal_actions(mask, rng)` draws one uniform legal action per board (numba).

    >>> import gymnasium as gym
    >>> import minelab
    >>> env = gym.make("minelab/Minesweeper-v0", level="5x5x5:none")
    >>> obs, info = env.reset(seed=0)
    >>> obs.shape, int(info["action_mask"].sum()), "mines" in info
    ((5, 5), 25, False)
    >>> obs, reward, terminated, truncated, info = env.step(12)
    >>> reward in (1.0, 10.0, -10.0), truncated
    (True, False)

`bench_envs()` measures steps per second of both (`minelab bench rl`).
"""
from __future__ import annotations

import math
import time
from numbers import Real
from typing import Any, NamedTuple

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from numba import njit

from .cells import COVERED, FLAGGED, MINE, WON
from .engine import (
    ST_DEALT,
    ST_REVEALED,
    ST_STATUS,
    GameState,
    begin_game,
    board_text,
    deal_first_click,
    kernel,
    neighbour_counts,
    new_game_state,
    open_cell,
    uniform_below,
)
from .agents.rl.common import REWARD_MINE, REWARD_SAFE, REWARD_WIN
from .levels import Level
from ._gym import ENV_ID, register as _register

__all__ = ["MinesweeperEnv", "MinesweeperVectorEnv", "REWARD_PRESETS", "ILLEGAL_MODES", "ENV_ID",
           "random_legal_actions", "random_legal_action", "bench_envs"]

REWARD_PRESETS = {
    # Bilir, Kong & Wittenbrink 2023: the rewards minelab's RL agents learn from
    "bilir2023": {"safe": REWARD_SAFE, "win": REWARD_WIN, "mine": REWARD_MINE},
    "win-loss": {"safe": 0.0, "win": 1.0, "mine": -1.0},
}
REWARD_KEYS = ("safe", "win", "mine")
ILLEGAL_MODES = ("error", "penalty")
RENDER_MODES = ("ansi", "rgb_array")
TILE = 40  # pixels per cell in rgb_array frames (a multiple of 20: draw_board's margin lands on whole pixels)
BENCH_LEVEL = "5x5x5:none"

# Outcome of one step, as the kernels report it (an index into the reward table).
OUT_SAFE, OUT_WIN, OUT_MINE, OUT_ILLEGAL, OUT_RESET, OUT_RANGE = range(6)
_FAST_INTS = (int, np.int64)  # action types that go to the kernel as they are


# ----------------------------------------------------------------------------- kernels
@kernel
def _click(gs, cell, mask):
    """Open covered `cell` of a dealt game, refresh the action mask; the outcome code."""
    got = open_cell(gs, cell)
    shown = gs.shown
    for i in range(shown.shape[0]):
        mask[i] = 1 if shown[i] == COVERED else 0
    if got < 0:
        return OUT_MINE
    return OUT_WIN if gs.counters[ST_STATUS] == WON else OUT_SAFE


# 11 parameters: GameState's fields one by one (cheaper to pass than the tuple), the
# action mask and the cell.
@kernel
def _env_step(spec, counters, mine, counts, shown, stack, nbr, nbr_count, deal_work, mask, cell):
    """One click of the single env on a dealt game (the arrays one by one: cheaper to pass
    than the GameState tuple)."""
    if shown[cell] != COVERED:
        return OUT_ILLEGAL
    return _click(GameState(spec, counters, mine, counts, shown, stack, nbr, nbr_count, deal_work), cell, mask)


# 12 parameters: GameState's fields one by one (cheaper to pass than the tuple, as for
# _env_step), the action mask, the cell and the deal's generator.
@kernel
def _env_first_step(spec, counters, mine, counts, shown, stack, nbr, nbr_count, deal_work, mask, cell, rng):
    """The first click under safe/opening/no-guess: deal (keeping `cell` clear), then click."""
    if shown[cell] != COVERED:
        return OUT_ILLEGAL
    gs = GameState(spec, counters, mine, counts, shown, stack, nbr, nbr_count, deal_work)
    if counters[ST_DEALT] == 0:
        deal_first_click(gs, cell, rng)
    return _click(gs, cell, mask)


# 11 parameters: GameState's fields one by one (as for _env_step), the action mask and
# the deal's generator.
@kernel
def _env_reset(spec, counters, mine, counts, shown, stack, nbr, nbr_count, deal_work, mask, rng):
    begin_game(GameState(spec, counters, mine, counts, shown, stack, nbr, nbr_count, deal_work), rng)
    mask[:] = 1


class Boards(NamedTuple):
    """The vector env's state: one row per board of each per-game array of GameState."""

    spec: np.ndarray  # int64[5], shared
    counters: np.ndarray  # int64[num_envs, 8]
    mine: np.ndarray  # uint8[num_envs, n]
    counts: np.ndarray  # int8[num_envs, n]
    shown: np.ndarray  # int8[num_envs, n]
    stack: np.ndarray  # int32[num_envs, n]
    nbr: np.ndarray  # int32[n, 8], shared
    nbr_count: np.ndarray  # int8[n], shared
    deal_work: tuple  # GameState.deal_work, shared (the boards deal one after the other)
    mask: np.ndarray  # int8[num_envs, n]: 1 = covered
    pending: np.ndarray  # uint8[num_envs]: 1 = terminated, reset at the next step


@kernel
def _board(bs, b):
    """Board b as a GameState of row views (no copy)."""
    return GameState(bs.spec, bs.counters[b], bs.mine[b], bs.counts[b], bs.shown[b], bs.stack[b], bs.nbr,
                     bs.nbr_count, bs.deal_work)


@kernel
def _vec_reset(bs, rng):
    for b in range(bs.pending.shape[0]):
        begin_game(_board(bs, b), rng)
        bs.mask[b, :] = 1
        bs.pending[b] = 0


@kernel
def _vec_first_bad(bs, actions, check_legal, codes):
    """The first board whose action is out of range (or, with check_legal, on a revealed
    cell of a live board), its code in codes[b]; -1 when all are fine. Changes nothing else."""
    n = bs.shown.shape[1]
    for b in range(actions.shape[0]):
        a = actions[b]
        if a < 0 or a >= n:
            codes[b] = OUT_RANGE
            return b
        if check_legal and bs.pending[b] == 0 and bs.shown[b, a] != COVERED:
            codes[b] = OUT_ILLEGAL
            return b
    return -1


@kernel
def _vec_advance(bs, b, cell, rng):
    """Step board b: autoreset if it terminated last step, else click `cell`; the outcome code."""
    gs = _board(bs, b)
    if bs.pending[b]:
        begin_game(gs, rng)
        bs.mask[b, :] = 1
        bs.pending[b] = 0
        return OUT_RESET
    if gs.shown[cell] != COVERED:
        return OUT_ILLEGAL
    if gs.counters[ST_DEALT] == 0:
        deal_first_click(gs, cell, rng)
    code = _click(gs, cell, bs.mask[b])
    if code != OUT_SAFE:
        bs.pending[b] = 1
    return code


@kernel
def _vec_step(bs, actions, check_legal, table, rng, codes, rewards, terminated):
    """Validate every action, then step every board in order. Returns -1, or the first bad
    board (nothing stepped; codes[b] says why)."""
    bad = _vec_first_bad(bs, actions, check_legal, codes)
    if bad >= 0:
        return bad
    for b in range(actions.shape[0]):
        code = _vec_advance(bs, b, actions[b], rng)
        codes[b] = code
        rewards[b] = table[code]
        terminated[b] = code == OUT_WIN or code == OUT_MINE
    return -1


@kernel
def random_legal_action(mask, u):
    """A uniformly random legal cell of one board from u in [0, 1) (0 when none is legal).

    One board's mask (int8[n]) and a uniform you drew: cheap enough to call per step.
    """
    k = 0
    for i in range(mask.shape[0]):
        k += mask[i]
    if k == 0:
        return 0
    pick = min(np.int64(u * k), k - 1)
    for i in range(mask.shape[0]):
        if mask[i]:
            if pick == 0:
                return i
            pick -= 1
    return 0


@njit(cache=True)
def random_legal_actions(mask, rng):
    """One uniformly random legal cell per board (int64[num_envs]) from masks (num_envs, n):
    one rng.random() draw per board; 0 for a board with no legal cell."""
    out = np.zeros(mask.shape[0], np.int64)
    for b in range(mask.shape[0]):
        k = 0
        for i in range(mask.shape[1]):
            k += mask[b, i]
        if k == 0:
            continue
        pick = uniform_below(rng, k)
        for i in range(mask.shape[1]):
            if mask[b, i]:
                if pick == 0:
                    out[b] = i
                    break
                pick -= 1
    return out


# -------------------------------------------------------------------------- settings
class Settings(NamedTuple):
    """The validated keywords both envs share."""

    level: Level
    rewards: tuple  # (safe, win, mine, illegal penalty, autoreset 0.0): indexed by OUT_* codes
    illegal: str
    flood: bool
    render_mode: str | None
    reveal_mines: bool


def _reward_values(reward) -> tuple[float, float, float]:
    allowed = (f"a preset name ({', '.join(repr(k) for k in REWARD_PRESETS)}) or a mapping with exactly "
               f"the keys {', '.join(repr(k) for k in REWARD_KEYS)} of finite numbers")
    if isinstance(reward, str):
        if reward not in REWARD_PRESETS:
            raise ValueError(f"reward must be {allowed}; got unknown preset {reward!r}")
        reward = REWARD_PRESETS[reward]
    if not hasattr(reward, "keys") or set(reward.keys()) != set(REWARD_KEYS):
        raise ValueError(f"reward must be {allowed}; got {reward!r}")
    for key in REWARD_KEYS:
        v = reward[key]
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, Real) or not math.isfinite(v):
            raise ValueError(f"reward must be {allowed}; reward[{key!r}] is {v!r}")
    return tuple(float(reward[k]) for k in REWARD_KEYS)


def _check_flag(name: str, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def settings(level, reward, illegal, illegal_penalty, flood, render_mode, reveal_mines) -> Settings:
    """Validate the env keywords (ValueError naming the field); the Settings."""
    level = Level.parse(level)
    if level.mines == level.cells:
        raise ValueError(f"level must leave at least one safe cell, got {level} (the game is over before a click)")
    safe, win, mine = _reward_values(reward)
    if illegal not in ILLEGAL_MODES:
        raise ValueError(f"illegal must be one of {', '.join(repr(m) for m in ILLEGAL_MODES)}; got {illegal!r}")
    if isinstance(illegal_penalty, (bool, np.bool_)) or not isinstance(illegal_penalty, Real) \
            or not math.isfinite(illegal_penalty):
        raise ValueError(f"illegal_penalty must be a finite number, got {illegal_penalty!r}")
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None or one of {', '.join(repr(m) for m in RENDER_MODES)}; "
                         f"got {render_mode!r}")
    return Settings(level, (safe, win, mine, float(illegal_penalty), 0.0), illegal, _check_flag("flood", flood),
                    render_mode, _check_flag("reveal_mines", reveal_mines))


def _as_cell(action, n: int) -> int:
    """The slow path of an action check: numpy scalars and 0-d arrays of any integer type."""
    if isinstance(action, np.ndarray) and action.ndim == 0:
        action = action[()]
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise ValueError(f"action must be an integer cell index r * cols + c in [0, {n - 1}], got {action!r}")
    return int(action)


def _out_of_range(action, n: int) -> ValueError:
    return ValueError(f"action must be an integer cell index r * cols + c in [0, {n - 1}], got {action!r}")


def _illegal_error(action: int, cols: int, shows: int, where: str = "") -> ValueError:
    r, c = divmod(int(action), cols)
    return ValueError(f"action {int(action)} (row {r}, col {c}){where} is illegal: the cell is already revealed "
                      f"(shows {shows}); legal actions are the covered cells (info['action_mask'] == 1). "
                      f"With illegal='penalty' such an action costs illegal_penalty instead.")


def _fixed_layout(gs: GameState, level: Level, layout) -> None:
    """Start gs on a given layout (reset option "mines"): no random draw, no first-click rule."""
    arr = np.asarray(layout)
    if arr.shape != (level.rows, level.cols) or not np.isin(arr, (0, 1)).all() or int(arr.sum()) != level.mines:
        raise ValueError(f"options['mines'] must be a 0/1 array of shape {(level.rows, level.cols)} with "
                         f"{level.mines} mines (the level's count), got {arr.shape} with {int(np.sum(arr != 0))}")
    gs.counters[:] = 0
    gs.counters[ST_DEALT] = 1
    gs.shown[:] = COVERED
    gs.mine[:] = arr.ravel().astype(np.uint8)
    neighbour_counts(gs.mine, gs.nbr, gs.nbr_count, gs.counts)


# ----------------------------------------------------------------------------- render
_TILES: dict[int, np.ndarray] = {}
_TILE_STATES = (MINE, FLAGGED, COVERED, 0, 1, 2, 3, 4, 5, 6, 7, 8)  # tile index = cell value + 3


def _tiles(size: int = TILE) -> np.ndarray:
    """uint8 (12, size, size, 3): one picture per cell state (index value + 3), drawn once by
    render.draw_board on an Agg canvas so frames look like every other board of the lab."""
    if size not in _TILES:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        from .render import draw_board

        k = len(_TILE_STATES)
        dpi = 100
        fig = Figure(figsize=((k + 0.3) * size / dpi, 1.3 * size / dpi), dpi=dpi)  # draw_board's 0.15-cell margins
        canvas = FigureCanvasAgg(fig)
        ax = fig.add_axes((0, 0, 1, 1))
        draw_board(np.array([_TILE_STATES]), ax=ax)
        canvas.draw()
        img = np.asarray(canvas.buffer_rgba())[..., :3]
        x0, y_top = ax.transData.transform((0, 0))  # display coordinates: origin bottom-left
        left, top = int(round(x0)), int(round(img.shape[0] - y_top))
        strip = img[top:top + size, left:left + k * size]
        _TILES[size] = np.ascontiguousarray(strip.reshape(size, k, size, 3).transpose(1, 0, 2, 3))
    return _TILES[size]


def rgb_frame(view: np.ndarray) -> np.ndarray:
    """uint8 (rows * TILE, cols * TILE, 3) picture of a view, from the cached tiles."""
    tiles = _tiles()
    rows, cols = view.shape
    s = tiles.shape[1]
    return tiles[view.astype(np.intp) + 3].transpose(0, 2, 1, 3, 4).reshape(rows * s, cols * s, 3)


def _render(view: np.ndarray, mode: str | None):
    if mode is None:
        gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'rgb_array' "
                              "to the env's constructor")
        return None
    return board_text(view) if mode == "ansi" else rgb_frame(view)


# -------------------------------------------------------------------------- single env
class MinesweeperEnv(gymnasium.Env):
    """One Minesweeper game per episode; conventions in the module docstring.

    MinesweeperEnv(level="5x5x5:none", reward="bilir2023", illegal="error",
    illegal_penalty=-1.0, flood=True, render_mode=None, reveal_mines=False)
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 4}

    def __init__(self, level: "Level | str" = BENCH_LEVEL, *, reward="bilir2023", illegal: str = "error",
                 illegal_penalty: float = -1.0, flood: bool = True, render_mode: str | None = None,
                 reveal_mines: bool = False):
        self.settings = settings(level, reward, illegal, illegal_penalty, flood, render_mode, reveal_mines)
        self.level = lv = self.settings.level
        self.render_mode = render_mode
        self.reveal_mines = self.settings.reveal_mines
        self.observation_space = spaces.Box(low=MINE, high=8, shape=(lv.rows, lv.cols), dtype=np.int8)
        self.action_space = spaces.Discrete(lv.cells)
        self._gs = new_game_state(lv, self.settings.flood)
        self._arrays = tuple(self._gs)
        self._mask = np.ones(lv.cells, np.int8)
        self._view2d = self._gs.shown.reshape(lv.rows, lv.cols)  # a view: obs are copies of it
        self._n = lv.cells
        self._rewards = self.settings.rewards
        self._raise_illegal = self.settings.illegal == "error"
        self._undealt = False
        self._over = True  # no episode before the first reset
        self._started = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        extra = set(options or {}) - {"mines"}
        if extra:
            raise ValueError(f"options may only hold 'mines' (a fixed layout), got {sorted(extra)}")
        if options and "mines" in options:
            _fixed_layout(self._gs, self.level, options["mines"])
            self._mask[:] = 1
            self._undealt = False
        else:
            _env_reset(*self._arrays, self._mask, self.np_random)
            self._undealt = bool(self._gs.counters[ST_DEALT] == 0)
        self._over = False
        self._started = True
        return self._view2d.copy(), self._info(False)

    def step(self, action):
        cell = action if type(action) in _FAST_INTS else _as_cell(action, self._n)
        if not 0 <= cell < self._n:
            raise _out_of_range(action, self._n)
        if self._over:
            raise self._reset_needed()
        if self._undealt:
            code = _env_first_step(*self._arrays, self._mask, cell, self.np_random)
            self._undealt = code == OUT_ILLEGAL
        else:
            code = _env_step(*self._arrays, self._mask, cell)
        if code == OUT_ILLEGAL and self._raise_illegal:  # the kernel changed nothing
            raise _illegal_error(cell, self.level.cols, int(self._gs.shown[cell]))
        terminated = code == OUT_WIN or code == OUT_MINE
        self._over = terminated
        return self._view2d.copy(), self._rewards[code], terminated, False, self._info(code == OUT_WIN)

    def _info(self, won: bool) -> dict:
        info = {"action_mask": self._mask.copy(), "revealed": int(self._gs.counters[ST_REVEALED]), "won": won}
        if self.reveal_mines:  # debugging only: the hidden layout (all False until dealt)
            dealt = self._gs.counters[ST_DEALT] != 0
            info["mines"] = self._gs.mine.reshape(self.level.rows, self.level.cols).astype(bool) & dealt
        return info

    def _reset_needed(self) -> gymnasium.error.ResetNeeded:
        if not self._started:
            return gymnasium.error.ResetNeeded("step() before reset(): call reset() to start an episode")
        state = "won" if self._gs.counters[ST_STATUS] == WON else "lost"
        return gymnasium.error.ResetNeeded(f"the episode is over (the game is {state}): call reset() before step()")

    def render(self):
        return _render(self._view2d.copy(), self.render_mode)

    def _repr_html_(self) -> str:
        from .render import board_html

        return board_html(self._view2d, title=f"{self.level}: {self.level.rows}x{self.level.cols} Minesweeper env")


# -------------------------------------------------------------------------- vector env
class MinesweeperVectorEnv(VectorEnv):
    """`num_envs` boards stepped by one numba call per step; conventions, autoreset and
    seeding in the module docstring.

    MinesweeperVectorEnv(num_envs=16, level="5x5x5:none", reward="bilir2023",
    illegal="error", illegal_penalty=-1.0, flood=True, render_mode=None, reveal_mines=False)
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 4, "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int = 16, level: "Level | str" = BENCH_LEVEL, *, reward="bilir2023",
                 illegal: str = "error", illegal_penalty: float = -1.0, flood: bool = True,
                 render_mode: str | None = None, reveal_mines: bool = False):
        if isinstance(num_envs, (bool, np.bool_)) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.settings = settings(level, reward, illegal, illegal_penalty, flood, render_mode, reveal_mines)
        self.level = lv = self.settings.level
        self.num_envs = N = int(num_envs)
        self.render_mode = render_mode
        self.reveal_mines = self.settings.reveal_mines
        self.single_observation_space = spaces.Box(low=MINE, high=8, shape=(lv.rows, lv.cols), dtype=np.int8)
        self.single_action_space = spaces.Discrete(lv.cells)
        self.observation_space = batch_space(self.single_observation_space, N)
        self.action_space = batch_space(self.single_action_space, N)
        one = new_game_state(lv, self.settings.flood)
        n = lv.cells
        self._bs = Boards(one.spec, np.zeros((N, one.counters.shape[0]), np.int64), np.zeros((N, n), np.uint8),
                          np.zeros((N, n), np.int8), np.full((N, n), COVERED, np.int8), np.zeros((N, n), np.int32),
                          one.nbr, one.nbr_count, one.deal_work, np.ones((N, n), np.int8), np.zeros(N, np.uint8))
        self._table = np.array(self.settings.rewards, np.float64)
        self._codes = np.zeros(N, np.int64)
        self._check_legal = self.settings.illegal == "error"
        self._started = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        if options:
            raise ValueError(f"options are not supported by the vector env, got {sorted(options)}")
        _vec_reset(self._bs, self.np_random)
        self._started = True
        return self._obs(), self._info(np.zeros(self.num_envs, bool))

    def step(self, actions):
        if not self._started:
            raise gymnasium.error.ResetNeeded("step() before reset(): call reset() to start the episodes")
        acts = np.asarray(actions)
        n = self.level.cells
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer) or acts.dtype == bool:
            raise ValueError(f"actions must be integers (cell indices in [0, {n - 1}]) of shape ({self.num_envs},), "
                             f"got dtype {acts.dtype} shape {acts.shape}")
        rewards = np.zeros(self.num_envs, np.float64)
        terminated = np.zeros(self.num_envs, bool)
        bad = _vec_step(self._bs, acts.astype(np.int64, copy=False), self._check_legal, self._table,
                        self.np_random, self._codes, rewards, terminated)
        if bad >= 0:
            a = int(acts[bad])
            if self._codes[bad] == OUT_RANGE:
                raise ValueError(f"actions[{bad}] must be a cell index in [0, {n - 1}], got {a} (board {bad})")
            shows = int(self._bs.shown[bad, a])
            raise _illegal_error(a, self.level.cols, shows, where=f" of board {bad} (actions[{bad}])")
        return self._obs(), rewards, terminated, np.zeros(self.num_envs, bool), self._info(self._codes == OUT_WIN)

    def _obs(self) -> np.ndarray:
        return self._bs.shown.reshape(self.num_envs, self.level.rows, self.level.cols).copy()

    def _info(self, won: np.ndarray) -> dict:
        info = {"action_mask": self._bs.mask.copy(), "revealed": self._bs.counters[:, ST_REVEALED].copy(),
                "won": won}
        if self.reveal_mines:  # debugging only: the hidden layouts (all False until dealt)
            dealt = self._bs.counters[:, ST_DEALT, None, None] != 0
            info["mines"] = self._bs.mine.reshape(self.num_envs, self.level.rows, self.level.cols).astype(bool) & dealt
        return info

    def render(self):
        """A tuple with one frame per board (str for ansi, uint8 image for rgb_array)."""
        if self.render_mode is None:
            return _render(None, None)
        return tuple(_render(v, self.render_mode) for v in self._obs())


# ------------------------------------------------------------------------------ bench
def _single_steps(env: MinesweeperEnv, info: dict, us: np.ndarray, steps: int) -> dict:
    for i in range(steps):
        _, _, terminated, _, info = env.step(random_legal_action(info["action_mask"], us[i & 0xFFFF]))
        if terminated:
            _, info = env.reset()
    return info


def _measure(run, seconds: float, chunk: int) -> tuple[int, float]:
    """Calls run(chunk) until `seconds` have passed; (calls, elapsed)."""
    calls, t0 = 0, time.perf_counter()
    while True:
        run(chunk)
        calls += chunk
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            return calls, elapsed


def bench_envs(seconds: float = 2.0, level: str = BENCH_LEVEL, num_envs: int = 1024) -> list[dict]:
    """Steps per second of MinesweeperEnv.step (random legal actions, reset at each episode's
    end: both inside the timed loop) and board-steps per second of MinesweeperVectorEnv
    (num_envs boards, actions by random_legal_actions inside the timed loop), each for about
    `seconds` after a warm-up (compilation excluded). Rows for `minelab bench rl`."""
    rng = np.random.default_rng(0)
    env = MinesweeperEnv(level)
    state = {"info": env.reset(seed=0)[1]}
    us = rng.random(1 << 16)

    def single(k):
        state["info"] = _single_steps(env, state["info"], us, k)

    venv = MinesweeperVectorEnv(num_envs, level)
    vstate = {"info": venv.reset(seed=0)[1]}

    def vector(k):
        info = vstate["info"]
        for _ in range(k):
            info = venv.step(random_legal_actions(info["action_mask"], rng))[4]
        vstate["info"] = info

    rows = []
    for what, run, chunk, boards in (("env.step", single, 5000, 1), ("vector_env.step", vector, 20, num_envs)):
        run(chunk)  # warm-up: compiles (or loads) every kernel on the path
        calls, elapsed = _measure(run, seconds, chunk)
        rows.append({"bench": "rl", "what": what, "level": str(Level.parse(level)), "num_envs": boards,
                     "steps": calls * boards, "seconds": elapsed, "steps_per_second": calls * boards / elapsed})
    return rows


_register()  # a no-op after `import minelab`, which registers the ids by name
