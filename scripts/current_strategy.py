"""Write an MCCFR run's *current* strategy (regret matching on its checkpoint) as a keyed strategy.

Usage: python scripts/current_strategy.py RUN_DIR OUT_DIR

CFR's guarantee is for the average strategy; the current one is what some
practical systems play. OUT_DIR gets RUN_DIR's config.json and meta.json and
a strategy.npz whose "average" rows hold the current strategy, so that
``policy:OUT_DIR`` bots and reports can use it (meta.json says what it is).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
from pathlib import Path

import numpy as np

from complots_solver.solvers.mccfr import CT_POOL, CT_ROWS, RI_LEN, RI_START


def current_strategy(checkpoint: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(row keys, row starts, row lengths, per-slot probabilities) from a checkpoint."""
    with np.load(checkpoint) as ck:
        counters = ck["solver_counters"]
        rows, used = int(counters[CT_ROWS]), int(counters[CT_POOL])
        info = ck["solver_row_info"][:rows]
        keys = ck["solver_row_key"][:rows]
        regret = np.maximum(ck["solver_regret"][:used], 0.0)
    starts, lens = info[:, RI_START], info[:, RI_LEN]
    totals = np.repeat(np.add.reduceat(regret, starts), lens)
    uniform = 1.0 / np.repeat(lens, lens)
    probs = np.where(totals > 0, regret / np.where(totals > 0, totals, 1.0), uniform)
    return keys, starts, lens, probs


def main() -> None:
    """Convert one run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run")
    parser.add_argument("out")
    args = parser.parse_args()
    run, out = Path(args.run), Path(args.out)
    keys, starts, lens, probs = current_strategy(run / "checkpoint.npz")
    strategy = dict(np.load(run / "strategy.npz"))
    order = np.argsort(keys)
    rows = order[np.searchsorted(keys[order], strategy["key"])]
    if not np.array_equal(keys[rows], strategy["key"]):
        raise SystemExit("the checkpoint does not hold the strategy's rows")
    # slot j of strategy row i is slot starts[rows[i]] + j of the checkpoint
    offsets = strategy["action_offsets"]
    within = np.arange(offsets[-1]) - np.repeat(offsets[:-1], np.diff(offsets))
    strategy["average"] = probs[np.repeat(starts[rows], lens[rows]) + within]
    out.mkdir(parents=True, exist_ok=True)
    shutil.copy(run / "config.json", out / "config.json")
    np.savez(out / "strategy.npz", **strategy)
    meta = json.loads((run / "meta.json").read_text())
    meta["strategy_kind"] = "current (regret matching on the last checkpoint), not the average"
    meta["sha256"] = hashlib.sha256((out / "strategy.npz").read_bytes()).hexdigest()
    (out / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    print(f"{len(rows):,} rows written to {out}")


if __name__ == "__main__":
    main()
