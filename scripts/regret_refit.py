"""Refit a regret run's average network to its final reservoir, and write it as a strategy folder.

python scripts/regret_refit.py runs/regret/amb-1h --out runs/regret/amb-1h-refit \
    --steps 20000 --lr 1e-3 --final-lr 1e-5 [--from-scratch] [--late 0.5] [--minibatch 4096]

The run's ``checkpoint.npz`` holds the average network's reservoir (a uniform sample of every
iteration's decisions, each weighted by its iteration). During training the average network
takes ``average_steps`` Adam steps an iteration at a fixed step size, so it chases a target
that keeps moving; this fits it once, longer, with the step size decaying (cosine) from
``--lr`` to ``--final-lr``, and reports the weighted cross-entropy on a held-out 2% of the
reservoir before and after. ``--late F`` keeps only the rows of iterations after F times the
last one (the average of the later iterates, as delayed averaging in CFR+ does);
``--from-scratch`` starts from fresh weights instead of the trained average network. The
folder written holds ``policy-net.npz`` (``complots bound GAME --strategy OUT``) and a
``refit.json`` describing what was done.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np

from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.common.rundir import read_checkpoint
from complots_solver.solvers.nets.average import average_loss, row_losses
from complots_solver.solvers.nets.tablenet import TableNet, policy_meta
from complots_solver.solvers.nets.valuenet import Adam
from complots_solver.solvers.regret.run import ALGORITHM, recorded_settings
from complots_solver.solvers.regret.sampler import RegretSampler

HELD_OUT = 0.02  # share of the reservoir kept out of the fit, to measure it


def weighted_loss(sampler: RegretSampler, x, legal, probs, weight, batch: int = 65536) -> float:
    """Cross-entropy of the average network against the reservoir's probabilities, weighted."""
    total = 0.0
    for s in range(0, len(x), batch):
        out = sampler.average.net.outputs(x[s : s + batch])
        rows = row_losses(out, legal[s : s + batch], probs[s : s + batch])
        total += float((rows * weight[s : s + batch]).sum())
    return total / float(weight.sum())


def main() -> None:
    """Read the checkpoint, refit, measure held-out loss, write the folder."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--steps", type=int, default=20000)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--final-lr", type=float, default=1e-5)
    ap.add_argument("--minibatch", type=int, default=4096)
    ap.add_argument("--late", type=float, default=0.0)
    ap.add_argument("--from-scratch", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    record = json.loads((args.run / "config.json").read_text())
    config, _ = resolve_game(record["game"])
    solver = dict(record["solver"])
    run_seed = int(solver.pop("seed"))
    settings = recorded_settings(solver)
    sampler = RegretSampler(config, settings, seed=run_seed)
    t0 = time.time()
    sampler.set_state(read_checkpoint(args.run / "checkpoint.npz").state)
    avg = sampler.average
    n = avg.size
    last = sampler.iteration
    print(f"checkpoint: iteration {last}, {n:,} reservoir rows, read in {time.time() - t0:.0f} s")

    rng = np.random.default_rng(args.seed)
    order = rng.permutation(n)
    cut = int(n * HELD_OUT)
    held, fit = order[:cut], order[cut:]
    keep = avg.weight[fit] > args.late * last
    fit = fit[keep]
    held_late = held[avg.weight[held] > args.late * last]
    hx, hl, hp, hw = (avg.x[held_late], avg.legal[held_late], avg.probs[held_late],
                      avg.weight[held_late])  # fmt: skip
    before = weighted_loss(sampler, hx, hl, hp, hw)
    print(
        f"fit rows {len(fit):,} (iterations > {args.late * last:.0f}); held-out loss {before:.4f}"
    )

    if args.from_scratch:
        fresh = TableNet.create(
            avg.net.num_features, avg.net.num_actions, (settings.width, settings.width),
            seed=args.seed + 7,
        )  # fmt: skip
        avg.net.assign(fresh)
    opt = Adam(avg.net.net, lr=args.lr)
    cdf = np.cumsum(avg.weight[fit])
    losses: list[float] = []
    t1 = time.time()
    for step in range(args.steps):
        frac = step / max(1, args.steps - 1)
        opt.lr = args.final_lr + 0.5 * (args.lr - args.final_lr) * (1 + math.cos(math.pi * frac))
        u = rng.random(args.minibatch) * cdf[-1]
        idx = fit[np.minimum(np.searchsorted(cdf, u, side="right"), len(fit) - 1)]
        acts, pre, out = opt.outputs(avg.x[idx])
        loss, grad = average_loss(out, avg.legal[idx], avg.probs[idx])
        opt.update(acts, pre, grad.astype(np.float32))
        losses.append(loss)
        if (step + 1) % 2000 == 0:
            print(f"step {step + 1}: train loss {np.mean(losses[-2000:]):.4f}, lr {opt.lr:.2e}, "
                  f"{time.time() - t1:.0f} s", flush=True)  # fmt: skip
    after = weighted_loss(sampler, hx, hl, hp, hw)
    print(f"held-out loss {before:.4f} -> {after:.4f}")

    args.out.mkdir(parents=True, exist_ok=True)
    avg.net.save(args.out / "policy-net.npz", meta=policy_meta(config, ALGORITHM))
    (args.out / "refit.json").write_text(
        json.dumps(
            {
                "run": str(args.run),
                "iteration": last,
                "reservoir_rows": n,
                "fit_rows": int(len(fit)),
                "late": args.late,
                "from_scratch": args.from_scratch,
                "steps": args.steps,
                "lr": args.lr,
                "final_lr": args.final_lr,
                "minibatch": args.minibatch,
                "seed": args.seed,
                "held_out_loss_before": round(before, 5),
                "held_out_loss_after": round(after, 5),
                "seconds": round(time.time() - t0, 1),
            },
            indent=1,
        )
    )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
