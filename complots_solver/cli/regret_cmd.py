"""The regret branch of ``complots solve``: sampled regret matching+ of a table network (2 players)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.console import Console

from complots_solver.cli.checks import exit_interrupted
from complots_solver.rules.config import GameConfig

DEFAULT_SECONDS = 3600.0
LOG_EVERY = 10  # iterations between progress lines


def solve_regret(
    config: GameConfig,
    out_dir: Path,
    resume: bool,
    force: bool,
    values: dict[str, Any],
    console: Console,
    iterations: int | None,
    seconds: float | None,
    seed: int,
    workers: int = 1,
) -> None:
    """Run sampled regret matching+ to the budget, write the average network, say where it is.

    A fresh run splits each iteration into ``workers`` streams unless ``jobs`` is given, so the
    result is fixed by the seed and the worker count; a resumed run keeps its streams (the
    worker count then changes only the wall time)."""
    from dataclasses import replace

    from complots_solver.solvers.common.pool import WorkerPool
    from complots_solver.solvers.regret.run import RegretRun
    from complots_solver.solvers.regret.sampler import RegretSettings

    values = dict(values)
    ray_address = values.pop("ray_address", None)
    warm_start = values.pop("warm_start", None)
    if warm_start == "solved":
        from complots_solver.play.search_bot import shipped_dir

        try:
            warm_start = str(shipped_dir(config))
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--option warm_start") from None
    if seconds is None and iterations is None:
        seconds = DEFAULT_SECONDS
    try:
        settings = replace(RegretSettings(), **{"jobs": workers, **values})
        settings.validate()
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--option") from None
    with WorkerPool(workers, ray_address) as pool:
        try:
            run = RegretRun(
                out_dir, config, settings, seed=seed, resume=resume, force=force, pool=pool,
                warm_start=None if warm_start is None else Path(warm_start),
            )  # fmt: skip
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--option") from None
        if resume or warm_start is not None:
            saved = run.settings.record()
            kept = "a resumed run" if resume else "a warm start"
            for key, value in sorted(values.items()):
                if saved[key] != value and (resume or key != "jobs"):
                    raise click.BadParameter(
                        f"{key}: the run in {run.warm['from'] if run.warm else out_dir} was made "
                        f"with {key}={saved[key]}; {kept} keeps its settings",
                        param_hint="--option",
                    )
        tr = run.trainer
        budget = f"{seconds:.0f} s" if seconds is not None else f"iteration {iterations}"
        if seconds is not None and iterations is not None:
            budget = f"iteration {iterations} or {seconds:.0f} s"
        console.print(
            f"regret: sampled regret matching+ of a table network until {budget} "
            f"({run.settings.games} games an iteration with each seat exploring, every legal action "
            f"valued by a rollout; {run.settings.jobs} stream(s) on {workers} "
            f"{'Ray actor' if ray_address else 'worker'}(s)); resumable with --resume",
            soft_wrap=True,
            markup=False,
        )
        if resume and tr.iteration > 0:
            console.print(
                f"resuming after iteration {tr.iteration} ({tr.games} games)", markup=False
            )
        elif run.warm is not None:
            console.print(
                f"warm start from {run.warm['from']} after iteration {run.warm['iteration']} "
                "(its networks and settings; the average's reservoir starts empty)",
                soft_wrap=True,
                markup=False,
            )

        def log(p) -> None:  # noqa: ANN001  (the driver's RunProgress)
            row = p.figures
            last = p.target_iterations is not None and p.iteration >= p.target_iterations
            if int(row["iteration"]) % LOG_EVERY and not last:
                return
            console.print(
                f"iteration {row['iteration']:.0f}: {row['games']:.0f} games, "
                f"{row['samples']:.0f} regret samples, {p.seconds:.0f} s in all",
                soft_wrap=True,
                markup=False,
            )

        try:
            run.train(seconds=seconds, iterations=iterations, progress=log)
        except KeyboardInterrupt:
            exit_interrupted(
                console,
                "interrupted; the last checkpoint and its average network (policy-net.npz, playable "
                f"with net:{out_dir}) are kept, continue with --resume",
            )
        run.save()
        console.print(
            f"strategy (the average network) written to {out_dir}/policy-net.npz (play it with "
            f"net:{out_dir}); quality not measured yet (complots bound GAME --strategy {out_dir} "
            "--method lbr, and --method responder)",
            soft_wrap=True,
            markup=False,
        )
