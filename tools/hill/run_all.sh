#!/bin/sh
# Re-make data/hill/ from D. N. Hill's solver (see tools/hill/README.md). Each command resumes
# where its file stops; move a file away to remake it. One run at a time on one core: the
# probability check takes a few minutes, a chunk of 200 paired expert games about 1.5-3 min,
# a shadow game a few seconds.
#
#   HILL=/tmp/hill/JSMinesweeper PYTHON=python sh tools/hill/run_all.sh
set -eu
cd "$(dirname "$0")/../.."
HILL=${HILL:-/tmp/hill/JSMinesweeper}
PYTHON=${PYTHON:-python}

"$PYTHON" tools/hill/hill.py --checkout "$HILL" probabilities --games 250
"$PYTHON" tools/hill/hill.py --checkout "$HILL" paired --chunks 100
"$PYTHON" tools/hill/hill.py --checkout "$HILL" shadow --games 2000
"$PYTHON" tools/hill/hill.py resolve --params '{"tie_order": "hill"}'
"$PYTHON" tools/hill/hill.py --checkout "$HILL" paired --rule opening --chunks 100
"$PYTHON" tools/hill/hill.py --checkout "$HILL" reasons --agent "best 02254c989811dc9f" --params '{"tie_order": "corners"}'
