# minelab: the two commands of the README, plus a few helpers.
#   make reproduce   regenerate every figure and table (quick profile) and figures/REPORT.md
#   make test        the test suite
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: reproduce smoke test lab bench clean distclean venv

# (Re)install when the venv is missing or pyproject.toml is newer than the stamp.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -e ".[test]"
	@touch $(STAMP)

venv: $(STAMP)

reproduce: $(STAMP)
	$(BIN)/minelab reproduce --profile quick

smoke: $(STAMP)
	$(BIN)/minelab reproduce --profile smoke

test: $(STAMP)
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/minelab bench engine
	$(BIN)/minelab bench agents
	$(BIN)/minelab bench bandit
	$(BIN)/minelab bench csp

lab: $(STAMP)
	$(BIN)/python -m ipykernel install --user --name minelab --display-name "Python (minelab)"
	$(BIN)/jupyter lab notebooks/

# Build products and caches only: figures/ and data/published/ are committed, .venv stays.
clean:
	rm -rf build/ .pytest_cache/ .hypothesis/ dask-worker-space/
	find . -path ./$(VENV) -prune -o -type d -name __pycache__ -exec rm -rf {} +
	find . -path ./$(VENV) -prune -o -type d -name .ipynb_checkpoints -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV) data/results/
