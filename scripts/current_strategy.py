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

from complots_solver.lab.policies.runs import checkpoint_solver
from complots_solver.solvers.common.rundir import CONFIG_FILE
from complots_solver.solvers.common.strategy_file import keyed_strategy, save_keyed_strategy


def main() -> None:
    """Convert one run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run")
    parser.add_argument("out")
    args = parser.parse_args()
    run, out = Path(args.run), Path(args.out)
    _, _, solver, _ = checkpoint_solver(run)
    meta = json.loads((run / "meta.json").read_text())
    meta["strategy_kind"] = "current (regret matching on the last checkpoint), not the average"
    out.mkdir(parents=True, exist_ok=True)
    shutil.copy(run / CONFIG_FILE, out / CONFIG_FILE)
    save_keyed_strategy(out, keyed_strategy(solver.current_table(), meta))
    print(f"{solver.num_infostates:,} rows written to {out}")


if __name__ == "__main__":
    main()
