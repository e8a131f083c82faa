"""MCCFR quality measurements for reports/mccfr-runs.md (issue 4, "Quality, measured").

Usage:
  python scripts/mccfr_quality.py openspiel [--game ladder-2-ambassador] [--budgets 1,2,5,10,20,40]
  python scripts/mccfr_quality.py markov [--seconds 30]
  python scripts/mccfr_quality.py bound DIR|uniform:GAME [--train-seconds 60 | --train-iterations N] [--games 20000]
  python scripts/mccfr_quality.py bots DIR [--bots honest,bluffer,counter] [--games 500]
  python scripts/mccfr_quality.py speedup GAME [--seconds 20] [--sync 1000] [--split seats] [--capacity N] [--round-epochs R]
  python scripts/mccfr_quality.py parallel-quality GAME [--syncs 100,1000] [--splits seats,iterations]
  python scripts/mccfr_quality.py parallel-sampled GAME [--seconds 120 | --iterations N] [--sync 10000] [--round-epochs R]
      [--against-sync N] [--against-round-epochs R] [--no-bounds]
  python scripts/mccfr_quality.py growth GAME [--seconds 100] [--algorithm os] [--chunk 10000]

The measurements are described in :mod:`complots_solver.lab.mccfr.quality`.
``bound`` writes a keyed strategy's sampled best-response lower bound and its
self-play turn-cap share into its meta.json (``exploitability_bound``,
``self_play``; :mod:`complots_solver.lab.policies.measure`); ``bots`` the
heuristic bots as fixed responders (``bot_responders``;
:mod:`complots_solver.play.bot_responders`).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from complots_solver.lab.mccfr import quality
from complots_solver.lab.policies.measure import SELF_PLAY_GAMES, measure_keyed
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.common.strategy_file import update_keyed_meta
from complots_solver.solvers.mccfr.evaluate import RESPONDER_EPSILON
from complots_solver.solvers.mccfr.infokeys import KEYS
from complots_solver.solvers.mccfr.parallel.solver import DEFAULT_SYNC_ITERATIONS, SPLITS
from complots_solver.solvers.mccfr.policy_table import PolicyTable
from complots_solver.solvers.policies.mccfr_policy import KeyedPolicy

UNIFORM_PREFIX = "uniform:"


def cmd_bound(directory: str, games: int, **options: Any) -> None:
    """Sampled best-response lower bound and self-play turn-cap share of a keyed strategy."""
    uniform = directory.startswith(UNIFORM_PREFIX)
    if uniform:  # the uniformly random strategy: an empty table (every lookup misses)
        config, _ = resolve_game(directory[len(UNIFORM_PREFIX) :])
        table = PolicyTable.empty()
    else:
        policy = KeyedPolicy.load(directory)
        config, table = policy.config, policy.table
    start = time.perf_counter()
    result = measure_keyed(config, table, games, seed=quality.SEED, **options)
    if not uniform:
        update_keyed_meta(Path(directory), **result)
    result["seconds"] = time.perf_counter() - start
    print(json.dumps(result, indent=2))


def cmd_bots(directory: str, bots: str, games: int) -> None:
    """Heuristic bots as fixed responders against a keyed strategy; written into meta.json."""
    from complots_solver.play.bot_responders import bot_values

    result = bot_values(directory, bots.split(","), games)
    update_keyed_meta(Path(directory), bot_responders=result)
    print(json.dumps(result, indent=2))


def main() -> None:
    """Parse the command line and run one measurement."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("openspiel")
    p.add_argument("--game", default="ladder-2-ambassador")
    p.add_argument("--budgets", default=quality.DEFAULT_BUDGETS)
    p.set_defaults(func=quality.openspiel_race)
    p = sub.add_parser("markov")
    p.add_argument("--seconds", type=float, default=30.0)
    p.set_defaults(func=quality.markov_against_perfect)
    p = sub.add_parser("bound")
    p.add_argument("directory")
    p.add_argument("--train-seconds", type=float, default=60.0)
    p.add_argument("--games", type=int, default=20000)
    p.add_argument("--train-iterations", type=int, default=None)
    p.add_argument("--self-play-games", type=int, default=SELF_PLAY_GAMES)
    p.add_argument("--responder-key", default="markov", choices=list(KEYS))
    p.add_argument("--responder-epsilon", type=float, default=RESPONDER_EPSILON)
    p.set_defaults(func=cmd_bound)
    p = sub.add_parser("bots")
    p.add_argument("directory")
    p.add_argument("--bots", default="honest,bluffer,counter")
    p.add_argument("--games", type=int, default=500)
    p.set_defaults(func=cmd_bots)
    p = sub.add_parser("speedup")
    p.add_argument("game")
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--sync", type=int, default=DEFAULT_SYNC_ITERATIONS)
    p.add_argument("--algorithm", default="os", choices=["es", "os"])
    p.add_argument("--key", default="markov", choices=list(KEYS))
    p.add_argument("--split", default="seats", choices=list(SPLITS))
    p.add_argument("--capacity", type=int, default=0, help="pre-sized table slots (0: grown)")
    p.add_argument("--epochs-per-round", type=int, default=2)
    p.add_argument("--round-epochs", type=int, default=1, help="pipelined rounds (split shared)")
    p.add_argument("--warm", type=int, default=3, help="rounds before measuring")
    p.set_defaults(func=quality.speedup)
    p = sub.add_parser("parallel-quality")
    p.add_argument("game")
    p.add_argument("--iterations", default="52000,156000,520000")
    p.add_argument("--syncs", default="100,1000")
    p.add_argument("--splits", default="seats,iterations")
    p.add_argument("--algorithm", default="es", choices=["es", "os"])
    p.add_argument("--key", default="perfect", choices=list(KEYS))
    p.add_argument("--seeds", type=int, default=2)
    p.set_defaults(func=quality.parallel_quality)
    p = sub.add_parser("parallel-sampled")
    p.add_argument("game")
    p.add_argument("--seconds", type=float, default=120.0)
    p.add_argument("--sync", type=int, default=10000)
    p.add_argument("--key", default="markov", choices=list(KEYS))
    p.add_argument("--capacity", type=int, default=0)
    p.add_argument("--games", type=int, default=200000)
    p.add_argument("--br-iterations", type=int, default=300000)
    p.add_argument("--br-games", type=int, default=20000)
    p.add_argument("--split", default="seats", choices=list(SPLITS))
    p.add_argument(
        "--against-sync", type=int, default=0, help="two workers at this sync instead of one core"
    )
    p.add_argument("--round-epochs", type=int, default=1, help="pipelined rounds (split shared)")
    p.add_argument("--against-round-epochs", type=int, default=1, help="... for --against-sync")
    p.add_argument("--iterations", type=int, default=0, help="train this many, not --seconds")
    p.add_argument("--no-bounds", action="store_true", help="head to head only")
    p.set_defaults(func=quality.parallel_sampled)
    p = sub.add_parser("growth")
    p.add_argument("game")
    p.add_argument("--seconds", type=float, default=100.0)
    p.add_argument("--chunk", type=int, default=10000)
    p.add_argument("--algorithm", default="os", choices=["es", "os"])
    p.add_argument("--key", default="markov", choices=list(KEYS))
    p.set_defaults(func=quality.growth)
    args = parser.parse_args()
    args.func(**{k: v for k, v in vars(args).items() if k not in ("command", "func")})


if __name__ == "__main__":
    main()
