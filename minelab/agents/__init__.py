"""Agents: one module per family; `make_agent(name, **params)` and `list_agents()`."""
from .base import Agent, CellValues, behaviour_digests, list_agents, make_agent, pinned_names, register
from . import simple, marginal, blog, bandit, csp, best, rl, optimal  # noqa: F401  (registers the agents)
from . import uct, gardea  # noqa: F401
from .saved import load_agent

__all__ = ["Agent", "CellValues", "behaviour_digests", "list_agents", "load_agent", "make_agent", "pinned_names",
           "register"]
