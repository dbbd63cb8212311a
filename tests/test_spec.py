"""The typed parameter specs (minelab.agents.spec): one declaration per family gives its
checks, params(), signature and docs row; every registered agent is built from one."""
import inspect
from dataclasses import dataclass

import numpy as np
import pytest

import minelab as ml
from minelab.agents.spec import ALWAYS, Spec, choice, flag, given, integer, number


def _odd(value):
    if not isinstance(value, int) or value % 2 == 0:
        raise ValueError(f"width must be an odd integer, got {value!r}")
    return value


@dataclass(frozen=True)
class Demo(Spec):
    rate: float = number(0.5, 0.0, 1.0, lo_open=True, doc="a rate")
    count: int = integer(3, 1, keep=ALWAYS, doc="a count")
    on: bool = flag(False, doc="a switch")
    rule: str = choice("a", ("a", "b"), doc="a rule")
    width: int = given(5, _odd, "an odd integer", doc="a width")
    extra: float | None = number(None, 0.0, optional=True, keep=lambda obj: obj.on, doc="only beside on")


@pytest.mark.parametrize("field, value, says", [
    ("rate", 0.0, "rate must be a number in (0, 1], got 0.0"),
    ("rate", True, "rate must be a number in (0, 1]"),
    ("rate", float("nan"), "rate must be a number"),
    ("count", 0, "count must be an integer >= 1, got 0"),
    ("count", 2.0, "count must be an integer >= 1"),
    ("on", 1, "on must be True or False, got 1"),
    ("rule", "c", "rule must be one of a, b; got 'c'"),
    ("width", 4, "width must be an odd integer, got 4"),
    ("extra", -1, r"extra must be a finite number >= 0 or None"),
])
def test_a_bad_value_is_refused_naming_its_field(field, value, says):
    with pytest.raises(ValueError, match=says.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        Demo(**{field: value})


def test_values_are_coerced_and_params_keep_what_defines_the_agent():
    d = Demo(rate=1, count=np.int64(4), on=np.bool_(True), extra=2)
    assert (d.rate, d.count, d.on, d.extra) == (1.0, 4, True, 2.0)
    assert type(d.rate) is float and type(d.count) is int and type(d.on) is bool
    assert Demo().params() == {"count": 3}  # keep="always" even at its default
    assert d.params() == {"rate": 1.0, "count": 4, "on": True, "extra": 2.0}  # extra: kept beside on
    assert Demo(extra=1.0).params() == {"count": 3}  # extra without on defines nothing
    from minelab.agents.rl.mcts import MctsParams  # a field kept under another attribute name (act)
    assert MctsParams(act="ucb1").params() == ml.make_agent("mcts", act="ucb1").params()


def test_an_unknown_name_lists_the_parameters():
    with pytest.raises(ValueError, match="demo: no parameter 'speed'; its parameters are rate, count, on"):
        Demo.make("demo", speed=2)
    with pytest.raises(ValueError, match="gardea-q: no parameter 'alpha'; its parameters are train_level"):
        ml.make_agent("gardea-q", alpha=0.1)


def test_describe_and_signature_come_from_the_declaration():
    rows = {r["name"]: r for r in Demo.describe()}
    assert rows["rate"] == {"name": "rate", "default": 0.5, "accepts": "a number in (0, 1]", "doc": "a rate"}
    sig = inspect.signature(type(ml.make_agent("hcsp")))
    assert list(sig.parameters)[:3] == ["seed", "max_work", "first_click"]
    assert sig.parameters["frontier"].default == "revealed"


@pytest.mark.parametrize("name", ml.list_agents())
def test_every_agent_is_rebuilt_from_its_params(name):
    """params() is all it takes to make the same agent again (the viewer and the sweep
    rely on it), and a family with parameters declares them in one spec."""
    agent = ml.make_agent(name)
    again = ml.make_agent(name, **agent.params())
    assert again.params() == agent.params() and repr(again) == repr(agent)
    cls = type(agent)
    own = [p for p in inspect.signature(cls).parameters if p != "seed"]
    assert (cls.Params is None) == (not own), name
