"""Exact exploitability of league self-play on a ladder rung: last network, snapshot average, average network.

python scripts/selfplay_average_check.py ladder-3-ambassador --iterations 256 --every 32 \
    --option self_share=1 --option entropy=0.05 --option average=65536
"""

from __future__ import annotations

import argparse
import json

from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.selfplay.exact import average_curve
from complots_solver.solvers.selfplay.train import SelfPlaySettings


def main() -> None:
    """Parse the arguments, run the curve, print one JSON line per point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--iterations", type=int, default=256)
    parser.add_argument("--every", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args()
    options = dict(o.split("=", 1) for o in args.option)
    options.setdefault("bot_share", "0")  # no bots on the ladder: their share is self-play
    config, _ = resolve_game(args.game)
    settings = SelfPlaySettings.from_options(options)
    average_curve(
        config, settings, args.iterations, args.every, args.seed,
        log=lambda row: print(json.dumps(row), flush=True),
    )  # fmt: skip


if __name__ == "__main__":
    main()
