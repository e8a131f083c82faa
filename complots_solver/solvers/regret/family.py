"""The regret family's registration: sampled regret matching+ of a table network (2 to 6 players)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from complots_solver.solvers.common.driver import Budget, RunProgress
from complots_solver.solvers.common.kit import warm_folder
from complots_solver.solvers.common.network_family import (
    RAY,
    PooledRun,
    budget_text,
    open_pool,
    warm_resume_note,
    workers_text,
)
from complots_solver.solvers.common.options import OptionSpec
from complots_solver.solvers.common.registry import RunRequest, SolverFamily
from complots_solver.solvers.regret.run import RegretRun
from complots_solver.solvers.regret.sampler import RegretSettings

DEFAULT_SECONDS = 3600.0
LOG_EVERY = 10  # iterations between progress lines
WARM = OptionSpec(
    "warm_start",
    str,
    None,
    "a new run from the networks in a folder's regret-state.npz ('solved': the game's shipped "
    "strategy), at their iteration and with their settings; the average's reservoir starts empty",
    True,
)
HELP = {
    "games": "games an iteration with each seat as the traverser",
    "rollouts": "games played on from the true state per legal action at each traverser decision",
    "explore": "share of uniform play mixed into the traverser's moves",
    "steps": "Adam steps an iteration fitting the regret network",
    "minibatch": "decisions per Adam step (both networks)",
    "lr": "Adam learning rate of the regret network",
    "width": "units in each of the two networks' two hidden layers",
    "average": "rows of the average network's reservoir (decisions weighted by their iteration)",
    "average_steps": "Adam steps an iteration fitting the average network, the strategy written",
    "jobs": "game streams an iteration is split into, each with its own seed, played on the "
    "--workers (default: --workers; the result depends on jobs, never on --workers; runs made "
    "before it existed used 1)",
    "power": "the regret network holds the clipped regret sum over t**power (0: the sum, "
    "with which the shipped draft-ambassador and draft-inquisitor networks were made; 1: the "
    "mean regret, the default until 2026-12-07)",
    "challenge_rollouts": "rollouts per legal action at the traverser's decisions to challenge a "
    "claim (0: rollouts); a yes/no decision, cheap to value more precisely",
    "common_random": "the play-outs of one decision's actions draw the same random numbers move "
    "by move, so the noise their values share cancels in the regrets",
    "lr_decay": "the regret network's Adam step at iteration t is lr * t**-lr_decay (0: "
    "constant), so its jitter shrinks as the held regrets settle",
    "memory": "the seat's last N observations, in order, read after the features (0: none; "
    "at most 16); both networks' input width follows",
    "odds": "read the card-count odds after the features: for each other seat and character, "
    "the chance it holds one if every card whose place the seat does not know were equally "
    "likely anywhere, and that chance for each claim on the table",
}


class RegretFamily(SolverFamily):
    """Sampled regret matching+ of a table network: the full 2-player game's method, also at tables."""

    name = "regret"
    title = "regret"
    algorithms = ("regret",)
    order = 4
    run_class = RegretRun
    default_budget = Budget(seconds=DEFAULT_SECONDS)
    progress_every = LOG_EVERY
    helps = HELP
    extra_options = (RAY, WARM)

    def settings_class(self) -> type:
        """The regret family's settings."""
        return RegretSettings

    def make_run(self, request: RunRequest) -> PooledRun:
        """Set up the run folder and the worker pool: fresh, resumed or warm-started.

        A fresh run splits each iteration into ``--workers`` streams unless ``jobs`` is
        given, so the result is fixed by the seed and the worker count; a resumed run keeps
        its streams (the worker count then changes only the wall time).
        """
        values = dict(request.values)
        warm_start = warm_folder(values.pop("warm_start", None), request.config)
        settings = replace(
            RegretSettings(),
            **{"jobs": request.workers, **{k: v for k, v in values.items() if k != "ray_address"}},
        )
        settings.validate()
        pool, ray = open_pool(request, values)
        try:
            run = RegretRun(
                request.out_dir, request.config, settings, seed=request.seed,
                resume=request.resume, force=request.force, pool=pool,
                warm_start=warm_start,
                given=request.given - {"ray_address", "warm_start"} | (request.flags & {"seed"}),
            )  # fmt: skip
        except BaseException:
            pool.__exit__(None, None, None)
            raise
        return PooledRun(run, pool, request.workers, ray)

    def banner(self, run: PooledRun, request: RunRequest) -> str:
        """What trains, to what budget, in how many streams on how many workers."""
        s = run.inner.settings
        return (
            f"regret: sampled regret matching+ of a table network until "
            f"{budget_text(request.budget, 'iteration')} ({s.games} games an iteration with "
            "each seat exploring, every legal action valued by a rollout; "
            f"{s.jobs} stream(s) on {workers_text(run.workers, run.ray_address)}); "
            "resumable with --resume"
        )

    def resume_note(self, run: PooledRun, request: RunRequest) -> str | None:
        """The iteration a resumed run continues after, or the state a warm start begins from."""
        return warm_resume_note(
            run, request, "its networks and settings; the average's reservoir starts empty"
        )

    def progress_line(self, progress: RunProgress, request: RunRequest) -> str | None:
        """Every ``LOG_EVERY`` iterations and the last: games, samples, time."""
        row = progress.figures
        if not progress.due(LOG_EVERY):
            return None
        return (
            f"iteration {row['iteration']:.0f}: {row['games']:.0f} games, "
            f"{row['samples']:.0f} regret samples, {progress.seconds:.0f} s in all"
        )

    def interrupted(self, run: PooledRun, request: RunRequest) -> str:
        """What is kept."""
        return (
            "interrupted; the last checkpoint and its average network (policy-net.npz, "
            f"playable with net:{request.out_dir}) are kept, continue with --resume"
        )

    def finish(self, run: PooledRun, result: Any, request: RunRequest) -> list[str]:
        """Where the average network is, and how to bound it."""
        out = request.out_dir
        return [
            f"strategy (the average network) written to {out}/policy-net.npz (play it with "
            f"net:{out}); quality not measured yet (complots bound GAME --strategy {out} "
            "--method lbr, and --method responder)"
        ]


FAMILY = RegretFamily()
