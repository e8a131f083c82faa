"""The selfplay branch of ``complots solve``: league self-play of a table network (3+ players)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from complots_solver.cli.checks import exit_interrupted
from complots_solver.rules.config import GameConfig

DEFAULT_SECONDS = 3600.0
LOG_EVERY = 25  # iterations between progress lines


class BotMaker:
    """The baseline bots the league seats, by name (the play layer's; picklable for workers)."""

    def __init__(self, config: GameConfig) -> None:
        self.config = config

    def __call__(self, name: str, rng: np.random.Generator) -> Any:
        """A fresh bot ``name`` drawing from ``rng``."""
        from complots_solver.play.bots import make_bot

        return make_bot(name, self.config, rng)


def bot_factory(config: GameConfig) -> Any:
    """The baseline bots the league seats, by name (the play layer's bots)."""
    return BotMaker(config)


def solve_selfplay(
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
    """Train the table network to the budget, write it, say where it is."""
    from complots_solver.play.bots import parse_bot_spec
    from complots_solver.solvers.common.pool import WorkerPool
    from complots_solver.solvers.selfplay.train import SelfPlaySettings

    values = dict(values)
    ray_address = values.pop("ray_address", None)
    settings = SelfPlaySettings.from_options({k: str(v) for k, v in values.items()})
    for name in settings.bot_list():
        parse_bot_spec(name)  # ValueError naming the bad bot
    if seconds is None and iterations is None:
        seconds = DEFAULT_SECONDS
    from complots_solver.solvers.selfplay.run import SelfPlayRun

    with WorkerPool(workers, ray_address) as pool:
        run = SelfPlayRun(
            out_dir, config, settings, seed=seed, bot_factory=bot_factory(config), resume=resume,
            force=force, given=frozenset(values), pool=pool,
        )  # fmt: skip
        tr = run.trainer
        budget = f"{seconds:.0f} s" if seconds is not None else f"iteration {iterations}"
        if seconds is not None and iterations is not None:
            budget = f"iteration {iterations} or {seconds:.0f} s"
        console.print(
            f"selfplay: PPO league training of the table network until {budget} "
            f"({run.settings.games} games an iteration in {run.settings.jobs} stream(s) on "
            f"{workers} {'Ray actor' if ray_address else 'worker'}(s)); resumable with --resume",
            soft_wrap=True,
            markup=False,
        )
        if resume and tr.iteration > 0:
            console.print(
                f"resuming after iteration {tr.iteration} ({tr.games} games)", markup=False
            )

        def log(p) -> None:  # noqa: ANN001  (the driver's RunProgress)
            row = p.figures
            if int(row["iteration"]) % LOG_EVERY and not (
                p.target_iterations is not None and p.iteration >= p.target_iterations
            ):
                return
            console.print(
                f"iteration {row['iteration']:.0f}: {row['games']:.0f} games, win share "
                f"{row['bot_win_share']:.2f} in its bot games (fair {1 / config.players:.2f}), "
                f"{row['self_turns']:.1f} turns a self-play game, {p.seconds:.0f} s in all",
                soft_wrap=True,
                markup=False,
            )

        try:
            run.train(seconds=seconds, iterations=iterations, progress=log)
        except KeyboardInterrupt:
            exit_interrupted(
                console,
                "interrupted; the last checkpoint and its network (policy-net.npz, playable "
                f"with net:{out_dir}) are kept, continue with --resume",
            )
        run.save()
        console.print(
            f"strategy written to {out_dir}/policy-net.npz (play it with net:{out_dir}); "
            f"quality not measured yet (complots bound GAME --strategy net:{out_dir} "
            "--method responder)",
            soft_wrap=True,
            markup=False,
        )
