"""agent.save / load_agent (minelab.agents.saved): what an agent has learnt survives a file,
for every registered agent that learns or is trained; the others say why they cannot."""
import copy
import json
import pickle
import re
from pathlib import Path

import numpy as np
import pytest

import minelab as ml
from minelab import playthrough
from minelab.agents import blog, load_agent
from minelab.agents.gardea import TrainedAgent
from minelab.agents.rl.table import covered_counts, find_row

SAVABLE = {"marginal", "conditional", "graphical", "gardea-logreg", "gardea-svm", "gardea-krr", "gardea-q",
           "q-learning", "sarsa", "linear-q", "mcts", "greedy-mab", "egreedy-mab", "ucb-mab", "sa-greedy"}


def _make(name, **kw):
    return ml.make_agent(name, **playthrough.agent_params(name), **kw)


def _level(name):
    return "4x4x3" if name in playthrough.SMALL_BOARD_AGENTS else "6x6x6"


@pytest.mark.parametrize("name", sorted(SAVABLE))
def test_a_saved_agent_plays_on_as_the_original(name, tmp_path):
    agent = _make(name, seed=1)
    level = _level(name)
    if not isinstance(agent, TrainedAgent):
        ml.play(agent, level, 60, seed=2)  # learn something first
    path = agent.save(tmp_path / f"{name}.npz")
    again = load_agent(path)
    assert again.name == name and again.params() == agent.params()
    a = ml.play(copy.deepcopy(agent), level, 80, seed=3)
    b = ml.play(again, level, 80, seed=3)
    cols = ["won", "moves", "revealed"]
    assert a[cols].equals(b[cols])


def test_a_trained_model_of_the_first_format_still_reads(tmp_path):
    # format 1 differed only by a learnt memory, pickled: a trained model's arrays read as they were
    agent = _make("gardea-q", seed=1)
    path = agent.save(tmp_path / "q.npz")
    with np.load(path) as z:
        members = dict(z)
    old = _write(tmp_path / "old.npz", members, {**_header(members), "format": 1})
    a = ml.play(copy.deepcopy(agent), "4x4x3", 40, seed=3)
    b = ml.play(load_agent(old), "4x4x3", 40, seed=3)
    assert a[["won", "moves"]].equals(b[["won", "moves"]])
    with pytest.raises(ValueError, match="old.npz': file format 7, this minelab reads 1 and 2"):
        load_agent(_write(tmp_path / "old.npz", members, {**_header(members), "format": 7}))


def test_the_semi_deterministic_model_saves_its_conditional_fallback(tmp_path):
    agent = ml.make_agent("semi-deterministic", fallback="conditional", seed=1)
    ml.play(agent, "9x9x10", 50, seed=2)
    again = load_agent(agent.save(tmp_path / "semi.npz"))
    assert ml.play(copy.deepcopy(agent), "9x9x10", 60, seed=4)["won"].tolist() == \
        ml.play(again, "9x9x10", 60, seed=4)["won"].tolist()


@pytest.mark.parametrize("name", [a for a in ml.list_agents() if a not in SAVABLE])
def test_other_agents_say_why_they_cannot_be_saved(name, tmp_path):
    agent = _make(name)
    with pytest.raises(ValueError, match=name):
        agent.save(tmp_path / "x.npz")
    assert not (tmp_path / "x.npz").exists()


def test_bad_files_are_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        load_agent(tmp_path / "missing.npz")
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(ValueError, match="not a saved minelab agent"):
        load_agent(tmp_path / "other.npz")
    with pytest.raises(ValueError, match=".npz"):
        ml.make_agent("marginal").save(tmp_path / "m.pickle")


# --------------------------------------------------------------------- memories as arrays
# The families that learn as they play: their memory of each board shape is saved as plain
# arrays (minelab.agents.saved.memory_arrays) and read back exactly.
LEARNERS = {
    "marginal": ("marginal", {}),
    "conditional": ("conditional", {}),
    "conditional-pooled": ("conditional", {"features": "pooled", "radius": 2, "alpha": 0.5, "pick": "argmax"}),
    "graphical": ("graphical", {}),
    "graphical-path": ("graphical", {"depth": 3, "backup": "path", "unseen": 5.0}),
    "semi-conditional": ("semi-deterministic", {"fallback": "conditional", "avoid_mines": True}),
}


def _trained(key, seed=1):
    """A learner of LEARNERS after games on two board shapes."""
    name, params = LEARNERS[key]
    agent = ml.make_agent(name, seed=seed, **params)
    ml.play(agent, "6x6x5", 40, seed=2)
    ml.play(agent, "5x7x4", 30, seed=3)
    return agent


def _moves(agent, level, seeds):
    """Every move `agent` makes in interactive games (ml.Game, agent.act) and each result."""
    out = []
    for seed in seeds:
        game = ml.Game(level, seed=seed)
        while not game.over:
            out += [(m.kind, m.row, m.col) for m in agent.act(game)]
        agent.game_over(game)
        out.append("won" if game.won else "lost")
    return out


def _memory(agent) -> dict:
    """What the agent has learnt, field by field, with what follows from it: the
    Conditional model's log tables and neighbourhoods, the Graphical model's map of states
    (every key found at its row) and its settle queue (empty)."""
    arrays, facts = agent._saved()
    out = {k: v.copy() for k, v in arrays.items()}
    out["shapes"] = np.array(facts["shapes"])
    nb = getattr(agent, "nb", None)
    for (rows, cols), (near, tab) in (nb._memory.items() if nb else ()):
        out[f"{rows}x{cols} near"] = near.copy()
        out[f"{rows}x{cols} logp"], out[f"{rows}x{cols} logprior"] = tab.logp.copy(), tab.logprior.copy()
    for (rows, cols), mem in (agent._memory.items() if isinstance(agent, blog.GraphicalAgent) else ()):
        keys = mem.table.row_keys[: len(mem)]
        out[f"{rows}x{cols} rows"] = np.array([find_row(mem.table.arrays(), k) for k in keys])
        assert not mem.dirty.any() and (mem.queue_head == -1).all()
    return out


def _same_memory(a, b):
    ma, mb = _memory(a), _memory(b)
    assert ma.keys() == mb.keys()
    for k in ma:
        assert ma[k].dtype == mb[k].dtype and np.array_equal(ma[k], mb[k], equal_nan=ma[k].dtype.kind == "f"), k


@pytest.mark.parametrize("key", sorted(LEARNERS))
def test_a_learnt_memory_is_plain_arrays_and_comes_back_exactly(key, tmp_path):
    agent = _trained(key)
    path = agent.save(tmp_path / f"{key}.npz")
    with np.load(path, allow_pickle=False) as z:
        members = {k: z[k] for k in z.files}  # every member loads without pickle
    assert all(a.dtype.kind in "biuf" for a in members.values())
    assert not any(k.endswith("__memory") or k == "a__memory" for k in members)
    again = load_agent(path, seed=9)
    _same_memory(agent, again)
    assert len(_memory(again)["shapes"]) == 2

    # both play the same moves, learn the same, and batch-play the same records
    twin = copy.deepcopy(agent)
    twin.rng = np.random.default_rng(9)
    assert _moves(twin, "6x6x5", range(10, 16)) == _moves(again, "6x6x5", range(10, 16))
    _same_memory(twin, again)
    a, b = ml.play(twin, "6x6x5", 60, seed=4), ml.play(again, "6x6x5", 60, seed=4)
    cols = [c for c in a.columns if c not in ("fraction_revealed", "clicks_before_loss")]
    assert a[cols].equals(b[cols])
    _same_memory(twin, again)
    assert _moves(twin, "5x7x4", [20, 21]) == _moves(again, "5x7x4", [20, 21])
    _same_memory(twin, again)


def test_an_agent_that_has_played_nothing_saves_an_empty_memory(tmp_path):
    for name in ("marginal", "conditional", "graphical"):
        again = load_agent(ml.make_agent(name).save(tmp_path / f"{name}.npz"))
        assert _memory(again)["shapes"].size == 0


def _members(path) -> dict:
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def _header(members) -> dict:
    return json.loads(bytes(members["meta"]).decode())


def _write(path, members, header=None):
    members = dict(members)
    if header is not None:
        members["meta"] = np.frombuffer(json.dumps(header).encode(), np.uint8)
    np.savez(path, **members)
    return path


@pytest.mark.parametrize("key", ["marginal", "conditional", "graphical", "semi-conditional"])
def test_a_missing_or_mis_shaped_field_is_a_clear_error(key, tmp_path):
    members = _members(_trained(key).save(tmp_path / "good.npz"))
    field = max((k for k in members if k.startswith("a__memory__6x6__")), key=lambda k: members[k].ndim)
    short = field[len("a__"):]
    missing = _write(tmp_path / "missing.npz", {k: v for k, v in members.items() if k != field})
    with pytest.raises(ValueError, match=f"missing.npz.*no field {short}"):
        load_agent(missing)
    bent = _write(tmp_path / "bent.npz", {**members, field: members[field][..., :-1]})
    with pytest.raises(ValueError, match=f"bent.npz.*{short}.*expected"):
        load_agent(bent)
    recast = _write(tmp_path / "recast.npz", {**members, field: members[field].astype(np.float32)})
    with pytest.raises(ValueError, match=f"recast.npz.*{short}.*float32"):
        load_agent(recast)
    header = _header(members)
    for shapes in ([[6, 6], [6, 6]], [[6, 0]], [["6", 6]], "6x6", None):
        header["facts"]["shapes"] = shapes
        with pytest.raises(ValueError, match="shapes.npz.*shapes"):
            load_agent(_write(tmp_path / "shapes.npz", members, header))


def test_a_graphical_memory_that_does_not_hold_together_is_refused(tmp_path):
    """Values a kernel would follow outside the arrays, or round a list forever."""
    members = _members(_trained("graphical").save(tmp_path / "good.npz"))
    p = "a__memory__6x6__"
    m = members[p + "edge_next"].shape[0]
    assert m > 2
    loop = members[p + "edge_next"].copy()
    loop[1] = m - 1  # an edge linking to a later one: a list that would not end
    far = members[p + "edge_to"].copy()
    far[0] = members[p + "row_keys"].shape[0]
    twice = members[p + "row_keys"].copy()
    twice[1] = twice[0]
    covered = members[p + "n_covered"].copy()
    covered[0] += 1
    head = members[p + "head"].copy()
    head[0, 0] = m
    for field, bad in (("edge_next", loop), ("edge_to", far), ("row_keys", twice), ("n_covered", covered),
                       ("head", head)):
        path = _write(tmp_path / f"bad_{field}.npz", {**members, p + field: bad})
        with pytest.raises(ValueError, match=f"bad_{field}.npz.*memory__6x6__{field}"):
            load_agent(path)
    short = _write(tmp_path / "short.npz", {**members, p + "row_keys": members[p + "row_keys"][:-1]})
    with pytest.raises(ValueError, match=r"short.npz.*memory__6x6__visits.*as in memory__6x6__row_keys"):
        load_agent(short)


class _Plant:
    """Unpickled, it creates the file `marker` (what a crafted file could do)."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


@pytest.mark.parametrize("key", ["marginal", "conditional", "graphical", "semi-conditional"])
def test_a_crafted_file_runs_no_code(key, tmp_path):
    marker = tmp_path / "marker"
    payload = pickle.dumps(_Plant(marker))
    members = _members(_trained(key).save(tmp_path / "good.npz"))
    header = _header(members)
    field = next(k for k in members if k.startswith("a__memory__6x6__"))
    memory_only = {k: v for k, v in members.items() if not k.startswith("a__")}

    # a pickled memory in the member the pickled format used, with this format's header
    crafted = _write(tmp_path / "crafted.npz", {**memory_only, "a__memory": np.frombuffer(payload, np.uint8)}, header)
    with pytest.raises(ValueError, match="crafted.npz.*member 'memory'.*pickled memory"):
        load_agent(crafted)
    # a field of the memory as an object array (numpy pickles it into the file)
    planted = np.empty(1, object)
    planted[0] = _Plant(marker)
    objects = tmp_path / "objects.npz"
    np.savez(objects, **{**members, field: planted})
    with pytest.raises(ValueError, match="objects.npz.*not a plain array"):
        load_agent(objects)
    # a file of format 1, whose memory was pickled
    old = _write(tmp_path / "old.npz", {**memory_only, "a__memory": np.frombuffer(payload, np.uint8)},
                 {**header, "format": 1, "facts": {}})
    with pytest.raises(ValueError, match="old.npz.*format 1.*no longer read.*save the agent again"):
        load_agent(old)
    assert not marker.exists()
    pickle.loads(payload)  # the payload is live: unpickling it would have made the marker
    assert marker.exists()


# names the pickle family (and numpy's and pandas' readers of it) in code
PICKLING = re.compile(r"^\s*(?:import|from)\s+(?:c?pickle|dill|cloudpickle|shelve|marshal)\b|\bpickle\.loads?\("
                      r"|allow_pickle\s*=\s*True|read_pickle\(|joblib\.load\(", re.MULTILINE)


def test_no_minelab_source_unpickles():
    """Reading a file never runs code named in it: minelab imports no pickle module."""
    root = Path(ml.__file__).resolve().parent
    found = [f"{p.relative_to(root)}: {m.group(0).strip()}" for p in sorted(root.rglob("*.py"))
             for m in PICKLING.finditer(p.read_text(encoding="utf-8"))]
    assert found == []
    for line in ("import pickle", "    from pickle import loads", "x = pickle.loads(b)",
                 "np.load(f, allow_pickle=True)", "import cloudpickle as cp"):
        assert PICKLING.search(line), line
    assert not PICKLING.search("np.load(f, allow_pickle=False)  # the pickled format is refused")


def _rl(name, tmp_path):
    agent = _make(name, seed=1)
    ml.play(agent, "6x6x6", 60, seed=2)
    return _members(agent.save(tmp_path / f"{name}.npz"))


@pytest.mark.parametrize("name", ["q-learning", "mcts"])
def test_an_rl_table_that_does_not_hold_together_is_refused(name, tmp_path):
    """Keys no view packs to, a state stored twice, rows of the wrong length: a kernel would
    find the wrong row or read outside the values."""
    members = _rl(name, tmp_path)
    keys = members["a__row_keys"]
    assert keys.shape[0] > 2
    odd = keys.copy()
    odd[1, 0] |= np.uint64(0xF)  # code 15: no cell shows it
    past = keys.copy()
    past[0, -1] |= np.uint64(1) << np.uint64(60)  # a cell past the board's 36
    counts = list(covered_counts(keys, 36))
    j = next(j for j in range(1, len(counts)) if counts[j] in counts[:j])  # rows of one length (mcts)
    twice = keys.copy()
    twice[j] = twice[counts.index(counts[j])]
    for what, bad, needle in (("odd", odd, "row_keys: row 1 is not a board"), ("past", past, "row_keys: row 0"),
                              ("twice", twice, "row_keys: a state is stored twice")):
        with pytest.raises(ValueError, match=f"{what}.npz.*{needle}"):
            load_agent(_write(tmp_path / f"{what}.npz", {**members, "a__row_keys": bad}))
    with pytest.raises(ValueError, match="short.npz.*member q"):
        load_agent(_write(tmp_path / "short.npz", {**members, "a__q": members["a__q"][:-1]}))
    with pytest.raises(ValueError, match="games.npz.*member games"):
        load_agent(_write(tmp_path / "games.npz", {**members, "a__games": np.array([-1], np.int64)}))
    header = _header(members)
    header["facts"]["shape"] = [6, "6"]
    with pytest.raises(ValueError, match="shape.npz.*facts.shape"):
        load_agent(_write(tmp_path / "shape.npz", members, header))
    if name == "mcts":
        start = members["a__row_start"].copy()
        start[1] += 1
        with pytest.raises(ValueError, match="start.npz.*row_start"):
            load_agent(_write(tmp_path / "start.npz", {**members, "a__row_start": start}))


def test_linear_q_weights_of_another_shape_are_refused(tmp_path):
    members = _rl("linear-q", tmp_path)
    with pytest.raises(ValueError, match="w.npz.*member W"):
        load_agent(_write(tmp_path / "w.npz", {**members, "a__W": members["a__W"][:, :-1]}))
    with pytest.raises(ValueError, match="b.npz.*member B: missing"):
        load_agent(_write(tmp_path / "b.npz", {k: v for k, v in members.items() if k != "a__B"}))


def test_an_rl_agent_that_has_played_nothing_saves_and_loads(tmp_path):
    agent = _make("q-learning", seed=1)
    again = load_agent(agent.save(tmp_path / "new.npz"))
    assert again.states == 0 and int(again.games[0]) == 0
    a = ml.play(agent, "6x6x6", 40, seed=3)
    b = ml.play(again, "6x6x6", 40, seed=3)
    assert a[["won", "moves", "states"]].equals(b[["won", "moves", "states"]])


def test_a_bandit_table_that_does_not_hold_together_is_refused(tmp_path):
    """A table a lookup would probe forever, divide by zero in, or miss a key of."""
    agent = _make("greedy-mab", seed=1)
    ml.play(agent, "6x6x6", 60, seed=2)
    members = _members(agent.save(tmp_path / "mab.npz"))
    keys, counts, meta = members["a__keys"], members["a__counts"], members["a__meta"]
    used = np.flatnonzero(keys != -1)
    free = np.flatnonzero(keys == -1)
    zero = counts.copy()
    zero[used[0]] = 0
    moved = {}  # a key (with its counts) out of its probe sequence
    for name in ("a__keys", "a__mines", "a__counts", "a__q"):
        a = members[name].copy()
        a[free[0]], a[used[0]] = a[used[0]], (-1 if name == "a__keys" else 0)
        moved[name] = a
    full = meta.copy()
    full[0] = len(keys)  # TM_SIZE: "full", no free slot to end a probe
    odd = keys[:-1].copy()
    for what, change, needle in (("zero", {"a__counts": zero}, "member counts"),
                                 ("full", {"a__meta": full}, "member meta"),
                                 ("odd", {"a__keys": odd}, "member keys: expected int64"),
                                 ("moved", moved, "member keys: slot")):
        with pytest.raises(ValueError, match=f"{what}.npz.*{needle}"):
            load_agent(_write(tmp_path / f"{what}.npz", {**members, **change}))
    header = _header(members)
    header["facts"]["cells"] = [6]
    with pytest.raises(ValueError, match="cells.npz.*facts.cells"):
        load_agent(_write(tmp_path / "cells.npz", members, header))
