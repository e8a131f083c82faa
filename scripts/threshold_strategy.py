"""Write a copy of a table-network strategy that drops its small probabilities at play.

python scripts/threshold_strategy.py games/strategies/draft-inquisitor --threshold 0.05 \
    --out runs/threshold/inq-05

At every decision, actions the network gives less than ``--threshold`` are dropped and the
rest rescaled (the most likely action is always kept; ``TableNet.policy_value``). The copy's
``policy-net.npz`` carries the threshold in its meta, so everything that plays it (the
``solved`` bot, ``complots bound``, ``complots evaluate --bots net:OUT``) plays the
thresholded strategy. Mixture members beside it get the same threshold.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from complots_solver.solvers.common.folders import POLICY_FILE
from complots_solver.solvers.nets.tablenet import (
    THRESHOLD_KEY,
    TableNet,
    load_mixture,
    save_strategy_nets,
)


def main() -> None:
    """Copy the network(s) with the threshold set."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("source", type=Path)
    ap.add_argument("--threshold", type=float, required=True)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    if not 0.0 <= args.threshold < 1.0:
        raise SystemExit(f"--threshold: from 0 to below 1, got {args.threshold}")
    args.out.mkdir(parents=True, exist_ok=True)
    try:
        policy = TableNet.load(args.source / POLICY_FILE)
        members = load_mixture(args.source, policy)
    except (OSError, ValueError) as exc:
        raise SystemExit(f"refused: {exc}") from None
    save_strategy_nets(args.out, policy, members, {THRESHOLD_KEY: str(args.threshold)})
    print(f"wrote {args.out} (threshold {args.threshold})")


if __name__ == "__main__":
    main()
