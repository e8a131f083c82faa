"""Write an MCCFR run's *current* strategy (regret matching on its checkpoint) as a keyed strategy.

Usage: python scripts/current_strategy.py RUN_DIR OUT_DIR

CFR's guarantee is for the average strategy; the current one is what some
practical systems play. OUT_DIR gets RUN_DIR's config.json and a keyed
strategy (strategy.npz, meta.json) holding ``MCCFRSolver.current_table()``,
so that ``policy:OUT_DIR`` bots and reports can use it; meta.json says what it is.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import numpy as np

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.common.rundir import CHECKPOINT_FILE, CONFIG_FILE, solver_state
from complots_solver.solvers.common.strategy_file import keyed_strategy, save_keyed_strategy
from complots_solver.solvers.mccfr.solver import MCCFRSolver
from complots_solver.solvers.mccfr.table import TABLE_ARRAYS


def main() -> None:
    """Convert one run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run")
    parser.add_argument("out")
    args = parser.parse_args()
    run, out = Path(args.run), Path(args.out)
    record = json.loads((run / CONFIG_FILE).read_text())
    solver = MCCFRSolver(
        GameConfig.from_params(record["params"]),
        algorithm=record["solver"]["algorithm"],
        key=record["solver"]["key"],
    )
    with np.load(run / CHECKPOINT_FILE) as npz:
        state = solver_state(npz)
    solver.load_table({n: state[n] for n in TABLE_ARRAYS if n in state}, copy=False)
    del state
    meta = json.loads((run / "meta.json").read_text())
    meta["strategy_kind"] = "current (regret matching on the last checkpoint), not the average"
    out.mkdir(parents=True, exist_ok=True)
    shutil.copy(run / CONFIG_FILE, out / CONFIG_FILE)
    save_keyed_strategy(out, keyed_strategy(solver.current_table(), meta))
    print(f"{solver.num_infostates:,} rows written to {out}")


if __name__ == "__main__":
    main()
