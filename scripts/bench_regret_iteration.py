"""Iterations per core-hour of sampled regret matching+: a baseline commit against this tree.

Usage: python scripts/bench_regret_iteration.py [--preset draft-ambassador] [--baseline 3c59fb5]
       [--iterations 4] [--warmup 2] [--rounds 2] [--option memory=8 ...]

Issue 50's fifth goal asks for the ratio of iterations per core-hour against the method as
it was, measured side by side in one run. The baseline commit is checked out in a temporary
git worktree, and both trees run the same iterations of the same fresh run (the preset's
default settings and seed 0, or ``--option`` given to both; ``jobs=1``, one BLAS thread, one
process at a time, alternating ``--rounds`` times so that a busy machine slows both alike). A
setting added since the baseline takes the value it had before it existed (``BEFORE_SETTING``,
``power=1``) unless ``--option`` gives it, so both trees run one method.
Each process times only its last ``--iterations`` iterations, after ``--warmup`` (numba's
compiled code is cached on disk, but the first iterations' strategy is uniform and its games
differ). Prints each round's seconds per iteration, the iterations per core-hour of each tree
and their ratio, and checks that both ended with the same networks (a digest of the state),
which they must when the change is only speed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_BASELINE = "3c59fb5"  # the last commit before the play-outs stepped only unfinished rows

CHILD = r"""
import hashlib, json, sys, time
import numpy as np
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.regret import sampler as sampler_module
from complots_solver.solvers.regret.sampler import RegretSampler, RegretSettings
from complots_solver.solvers.common.options import argument_type
args = json.loads(sys.argv[1])
defaults = RegretSettings()
# A setting the baseline lacks takes the value the baseline ran with, so both trees run one method.
kw = dict(getattr(sampler_module, "BEFORE_SETTING", {}))
for item in args["options"]:
    name, value = item.split("=", 1)
    kw[name] = argument_type(getattr(defaults, name))(value)
kw["jobs"] = 1
sampler = RegretSampler(resolve_game(args["preset"])[0], RegretSettings(**kw), seed=0)
sampler.step(args["warmup"])
start = time.process_time()
sampler.step(args["iterations"])
spent = time.process_time() - start
state = sampler.get_state()
digest = hashlib.sha256()
for key in sorted(state):
    digest.update(np.ascontiguousarray(state[key]).tobytes())
print(json.dumps({"seconds": spent / args["iterations"], "digest": digest.hexdigest()[:16]}))
"""


def run_child(tree: Path, job: dict) -> dict:
    """One process of ``tree``'s code running the job; its seconds per iteration and digest."""
    env = {
        **os.environ,
        "PYTHONPATH": str(tree),
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }
    done = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(job)],
        cwd=tempfile.gettempdir(),  # not the repository, so PYTHONPATH decides the code
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{tree}: the timed run failed:\n{done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    """Check out the baseline, time both trees alternately and print the ratio."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--preset", default="draft-ambassador")
    ap.add_argument("--baseline", default=DEFAULT_BASELINE, help="a commit of this repository")
    ap.add_argument("--iterations", type=int, default=4, help="timed iterations per process")
    ap.add_argument("--warmup", type=int, default=2, help="untimed iterations before them")
    ap.add_argument("--rounds", type=int, default=2, help="alternations of the two trees")
    ap.add_argument("--option", action="append", default=[], help="NAME=VALUE, given to both")
    args = ap.parse_args()
    job = {
        "preset": args.preset,
        "iterations": args.iterations,
        "warmup": args.warmup,
        "options": args.option,
    }
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "baseline"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(base), args.baseline],
            check=True,
        )
        try:
            times: dict[str, list[float]] = {"baseline": [], "this tree": []}
            digests: dict[str, set[str]] = {"baseline": set(), "this tree": set()}
            for r in range(args.rounds):
                for name, tree in (("baseline", base), ("this tree", ROOT)):
                    got = run_child(tree, job)
                    times[name].append(got["seconds"])
                    digests[name].add(got["digest"])
                    print(f"round {r + 1}, {name:9s}: {got['seconds']:6.2f} s an iteration")
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False
            )
    rate = {name: 3600.0 * len(t) / sum(t) for name, t in times.items()}
    print(
        f"{args.preset}, {' '.join(args.option) or 'default settings'}, jobs=1, one core, "
        f"{args.iterations} iterations after {args.warmup}, {args.rounds} rounds"
    )
    for name in times:
        print(
            f"{name:9s} ({args.baseline if name == 'baseline' else 'HEAD + work tree'}): "
            f"{rate[name]:7.1f} iterations per core-hour"
        )
    print(f"ratio: {rate['this tree'] / rate['baseline']:.2f}x")
    same = digests["baseline"] == digests["this tree"] and len(digests["baseline"]) == 1
    print("same networks at the end: " + ("yes" if same else "NO (the change is not only speed)"))


if __name__ == "__main__":
    main()
