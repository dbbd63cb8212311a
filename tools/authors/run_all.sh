#!/bin/sh
# Re-make every row of data/authors/*.csv from the authors' programs (see tools/authors/README.md).
# Rows already present (same quantity, seeds and commit) are skipped: delete a row to remake it.
# One run at a time; hours on one core of the machine the committed rows were made on (each command's time is
# in tools/authors/README.md).
#
#   BANDITSWEEPER=/tmp/authors/BanditSweeper CS238PROJECT=/tmp/authors/cs238project \
#   PYTHON=python CS238_PYTHON=/path/to/python-with-gym-0.26.2 sh tools/authors/run_all.sh
set -eu
cd "$(dirname "$0")/../.."
BANDITSWEEPER=${BANDITSWEEPER:-/tmp/authors/BanditSweeper}
CS238PROJECT=${CS238PROJECT:-/tmp/authors/cs238project}
PYTHON=${PYTHON:-python}
CS238_PYTHON=${CS238_PYTHON:-$PYTHON}
LORDEIRO=data/authors/lordeiro2021.csv
BILIR=data/authors/bilir2023.csv

# lordeiro2021 Table II, greedy MAB as published: 10^5 games, seeds 1-3
for m in 3 4 5; do
    "$PYTHON" tools/authors/run_banditsweeper.py --checkout "$BANDITSWEEPER" --board 4,4,$m --games 100000 \
        --seeds 1,2,3 --out "$LORDEIRO"
done
# bilir2023 Fig 1, linear Q as published (cold start): 10^6 training games, 10^4 greedy evaluation games
"$CS238_PYTHON" tools/authors/run_cs238project.py --checkout "$CS238PROJECT" --agent linear-q --games 1000000 \
    --seeds 1,2,3 --out "$BILIR"
# lordeiro2021 Table II, labelled variant: symmetry step off, 10^5 games, seeds 1-3
for m in 3 4 5; do
    "$PYTHON" tools/authors/run_banditsweeper.py --checkout "$BANDITSWEEPER" --board 4,4,$m --games 100000 \
        --seeds 1,2,3 --variant no-symmetry --out "$LORDEIRO"
done
# lordeiro2021 Table II, greedy MAB as published: 10^6 games, seed 1
for m in 3 4 5; do
    "$PYTHON" tools/authors/run_banditsweeper.py --checkout "$BANDITSWEEPER" --board 4,4,$m --games 1000000 \
        --seeds 1 --out "$LORDEIRO"
done
# lordeiro2021 Table II, labelled variant: symmetry step off, 10^6 games, seed 1
for m in 3 4; do
    "$PYTHON" tools/authors/run_banditsweeper.py --checkout "$BANDITSWEEPER" --board 4,4,$m --games 1000000 \
        --seeds 1 --variant no-symmetry --out "$LORDEIRO"
done
# bilir2023 Fig 1, linear Q as published (cold start): 3x10^7 training games (the published row's), seeds 1-3
# (1.5-2.5 h per seed on one core)
"$CS238_PYTHON" tools/authors/run_cs238project.py --checkout "$CS238PROJECT" --agent linear-q --games 30000000 \
    --seeds 1,2,3 --out "$BILIR"
# bilir2023 Fig A1, MCTS as its class runs (c = 100, 1 simulation per state, its simulations on a copy of the
# real environment): 400,000 training games, 10^4 greedy evaluation games, seeds 1-3
"$CS238_PYTHON" tools/authors/run_cs238project.py --checkout "$CS238PROJECT" --agent mcts --simulations 1 \
    --games 400000 --seeds 1,2,3 --out "$BILIR"
