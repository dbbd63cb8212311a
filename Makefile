# minelab: the two commands of the README, plus a few helpers.
#   make reproduce   regenerate every figure and table (quick profile) and figures/REPORT.md
#   make test        the linter (ruff) and the test suite
#   make test-fast   the linter and every test not marked slow (a few minutes)
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# pytest-xdist processes of make test (the notebooks' own sweeps start two workers each).
# XDIST hands each worker one test at a time (--maxschedchunk 1): the notebook runs, last in
# collection order, then go to whichever worker is free instead of queueing on one of them.
TEST_WORKERS ?= 2
XDIST = -n $(TEST_WORKERS) --maxschedchunk 1

.PHONY: reproduce smoke test test-fast lint playthroughs docs lab browser-test bench clean distclean venv

# (Re)install when the venv is missing or pyproject.toml is newer than the stamp.
$(STAMP): pyproject.toml setup.py
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -e ".[test]"
	@touch $(STAMP)

venv: $(STAMP)

reproduce: $(STAMP)
	$(BIN)/minelab reproduce --profile quick

smoke: $(STAMP)
	$(BIN)/minelab reproduce --profile smoke

test: lint
	$(BIN)/python -m pytest -q $(XDIST) --durations=30

test-fast: lint
	$(BIN)/python -m pytest -q $(XDIST) -m "not slow"

lint: $(STAMP)
	$(BIN)/ruff check .

# Rewrite the golden playthroughs (tests/playthroughs/*.txt) after a change of play you mean.
playthroughs: $(STAMP)
	$(BIN)/python -m minelab.playthrough --regenerate

# Rewrite the generated tables (README: agents, papers; docs: parameters, saved bench figures,
# the no-guess deal's speed)
# from the code and data (tests/test_docs.py checks them).
docs: $(STAMP)
	$(BIN)/python -m minelab.catalog --write

bench: $(STAMP)
	$(BIN)/minelab bench engine --save
	$(BIN)/minelab bench agents --save
	$(BIN)/minelab bench bandit --save
	$(BIN)/minelab bench csp --save
	$(BIN)/minelab bench rl --save
	$(BIN)/minelab bench uct --save
	$(BIN)/minelab bench samples --save
	$(BIN)/minelab bench learned --save
	$(BIN)/minelab bench viewer --save
	$(BIN)/minelab bench deal --save
	$(BIN)/python -m minelab.catalog --write

# JupyterLab on notebooks/, with this venv's interpreter as the notebooks' "python3" kernel
# ("Python 3 (ipykernel)"), installed into the venv itself (not the user's kernels);
# --allow-root only when run as root (JupyterLab refuses root otherwise).
lab: $(STAMP)
	$(BIN)/python -m ipykernel install --sys-prefix
	$(BIN)/jupyter lab --ServerApp.root_dir=notebooks $(if $(filter 0,$(shell id -u)),--allow-root)

# The browser test alone (tests/test_browser.py, also part of `make test`): JupyterLab and
# the tour notebook in headless Chromium; it skips, saying why, when no chromium is installed.
browser-test: $(STAMP)
	$(BIN)/python -m pytest -q tests/test_browser.py

# Build products and caches only: figures/ and data/published/ are committed, .venv stays.
clean:
	rm -rf build/ .pytest_cache/ .hypothesis/ dask-worker-space/
	find . -path ./$(VENV) -prune -o -type d -name __pycache__ -exec rm -rf {} +
	find . -path ./$(VENV) -prune -o -type d -name .ipynb_checkpoints -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV) data/results/
