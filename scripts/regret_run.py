"""Sampled regret matching+ on a 2-player game into a run folder (checkpoints; --resume continues).

python scripts/regret_run.py draft-ambassador --out runs/regret/draft-ambassador --seconds 3600
then: complots bound draft-ambassador --strategy runs/regret/draft-ambassador --method lbr

With ``--exploiter-share S`` a trained exploiter of the average network plays the other seat in
that share of each traverser's games (``lab.regret.exploiter``, a candidate measured worse on
the ladder; ``--exploiter-every``, ``--exploiter-games``); its settings are kept in the folder's
``exploiter.json`` and a resumed run goes on with them.

With ``--regret-memory N`` the regret network is fitted to a reservoir of N rows of every
iteration's sampled regrets weighted by iteration (``lab.regret.regret_memory``, Deep CFR's
way); kept in ``regret-memory.json`` likewise, and the reservoir in each checkpoint.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import fields
from functools import partial
from pathlib import Path

from complots_solver.lab.regret.exploiter import ExploiterLoop, ExploiterSettings
from complots_solver.lab.regret.regret_memory import RegretMemorySampler, RegretMemorySettings
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.common.options import argument_type
from complots_solver.solvers.common.pool import WorkerPool
from complots_solver.solvers.regret.run import RegretRun
from complots_solver.solvers.regret.sampler import RegretSampler, RegretSettings

EXPLOITER_FILE = "exploiter.json"
MEMORY_FILE = "regret-memory.json"


def main() -> None:
    """Parse the arguments, train to the budget, print a line per iteration."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--out", required=True)
    parser.add_argument("--seconds", type=float)
    parser.add_argument("--iterations", type=int)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--force", action="store_true")
    parser.add_argument("--exploiter-share", type=float, default=0.0)
    parser.add_argument("--exploiter-every", type=int, default=ExploiterSettings.every)
    parser.add_argument("--exploiter-games", type=int, default=ExploiterSettings.games)
    parser.add_argument("--regret-memory", type=int, default=0, help="rows; 0: the held target")
    for f in fields(RegretSettings):
        parser.add_argument(
            f"--{f.name.replace('_', '-')}", type=argument_type(f.default), default=f.default
        )
    args = parser.parse_args()
    out = Path(args.out)
    with WorkerPool(args.workers) as pool:
        try:
            config, _ = resolve_game(args.game)
            settings = RegretSettings(
                **{f.name: getattr(args, f.name) for f in fields(RegretSettings)}
            )
            loop = None
            saved = out / EXPLOITER_FILE
            if args.resume and saved.is_file():
                exploiter = ExploiterSettings(**json.loads(saved.read_text()))
            elif args.exploiter_share > 0.0:
                exploiter = ExploiterSettings(
                    args.exploiter_share, args.exploiter_every, args.exploiter_games
                )
            else:
                exploiter = None
            if exploiter is not None:
                loop = ExploiterLoop(config, exploiter, args.seed)
            kept = out / MEMORY_FILE
            memory = None
            if args.resume and kept.is_file():
                memory = RegretMemorySettings(**json.loads(kept.read_text()))
            elif args.regret_memory > 0:
                memory = RegretMemorySettings(args.regret_memory)
            make: Callable[..., RegretSampler] = RegretSampler
            if memory is not None:
                make = partial(RegretMemorySampler, memory=memory)

            run = RegretRun(
                out, config, settings, args.seed, args.resume, args.force, pool=pool,
                before_iteration=loop, make_sampler=make,
            )  # fmt: skip
            if exploiter is not None:
                saved.write_text(json.dumps(exploiter.record()) + "\n")
            if memory is not None:
                kept.write_text(json.dumps(memory.record()) + "\n")
        except ValueError as exc:
            sys.exit(f"error: {exc}")

        def show(p) -> None:  # noqa: ANN001  (the driver's RunProgress)
            row = {k: round(v, 4) for k, v in p.figures.items()}
            print(f"{p.seconds:.0f} s {row}", flush=True)

        run.train(seconds=args.seconds, iterations=args.iterations, progress=show)
        run.save()
    print(f"average network written to {args.out}/policy-net.npz", flush=True)


if __name__ == "__main__":
    main()
