"""The selfplay family's registration: league self-play of a table network (3+ players)."""

from __future__ import annotations

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
from complots_solver.solvers.selfplay.run import SelfPlayRun
from complots_solver.solvers.selfplay.train import SelfPlaySettings

DEFAULT_SECONDS = 3600.0
LOG_EVERY = 25  # iterations between progress lines
WARM = OptionSpec(
    "warm_start",
    str,
    None,
    "a new run from the network in a folder's selfplay-state.npz ('solved': the game's shipped "
    "strategy), at its iteration and with its settings; the past selves start empty",
    True,
)
HELP = {
    "games": "games an iteration (one PPO update on the learner seats' decisions)",
    "parallel": "games in play at once (their decisions are evaluated in one batch)",
    "width": "units in each of the table network's two hidden layers",
    "lr": "Adam learning rate",
    "entropy": "weight of the PPO loss's pull towards the magnet: uniform play (the entropy "
    "bonus) or, with magnet_every, an earlier copy of the network",
    "epochs": "PPO passes over an iteration's decisions",
    "minibatch": "decisions per PPO step",
    "lam": "GAE lambda (rewards come only at the end, no discount)",
    "self_share": "share of games in which every seat is the learning network",
    "bot_share": "share of games of one learning seat among the bots of `bots`",
    "snapshot_every": "iterations between frozen copies of the network (past selves)",
    "snapshots": "past selves kept; the games neither self-play nor with bots seat them",
    "bots": "comma-separated bots the learner meets in its bot games; a warm start may change it",
    "bot_one_kind": "share of the bot games in which every bot chair is one bot drawn from "
    "`bots` (0: each chair draws its own); a warm start may change it",
    "exploiter_share": "share of games against the exploiter (a best responder trained alongside; 0: none)",
    "exploiter_games": "the exploiter's own training games an iteration",
    "exploiter_reset": "iterations between restarts of the exploiter from a copy of its target",
    "exploiter_target": "whom the exploiter best-responds to: current (the learning network) "
    "or average (the average network, the strategy written; needs average)",
    "jobs": "independent game streams an iteration is split into, played on the --workers "
    "(the result depends on jobs, never on --workers; runs made before it existed used 1)",
    "average": "rows of the reservoir of the average-strategy network (NFSP); when set, the "
    "average network is the strategy written (0: none, the last network is)",
    "average_steps": "Adam steps an iteration fitting the average network to its reservoir",
    "magnet_every": "0: the entropy bonus; K: the pull is the reverse KL to the network as it was "
    "at the last multiple of K iterations (magnetic mirror descent's moving magnet)",
    "counterfactual": "0: decisions count as play reaches them; W: each learner decision's "
    "policy term is weighted by 1 / its seat's own reach so far, at most W, mean 1",
    "mixture": "networks in the strategy written: the last one and the mixture - 1 kept before "
    "it, at least mixture_every / 2 iterations older (mixture-TAG-NN.npz, named by policy-net.npz), each seat playing one "
    "for the whole game (1: the last network alone); a resume may change it",
    "mixture_every": "iterations between the networks kept for the mixture",
    "keep_every": "0: none; K: keep a copy of the network about every K iterations in the run "
    "folder (kept/it-NNNNNN/, each playable with net:), to pick a run's best point by "
    "measurement; a resume or warm start may change it",
    "memory": "the seat's last N observations, in order, read after the features (0: none; "
    "at most 16); the network's input width follows",
    "odds": "read the card-count odds after the features: for each other seat and character, "
    "the chance it holds one if every card whose place the seat does not know were equally "
    "likely anywhere, and that chance for each claim on the table",
}  # fmt: skip


class SelfPlayFamily(SolverFamily):
    """PPO of a table network against itself, its past selves and the bots."""

    name = "selfplay"
    title = "selfplay"
    algorithms = ("selfplay",)
    order = 3
    run_class = SelfPlayRun
    default_budget = Budget(seconds=DEFAULT_SECONDS)
    progress_every = LOG_EVERY
    helps = HELP
    extra_options = (RAY, WARM)

    def settings_class(self) -> type:
        """The selfplay family's settings."""
        return SelfPlaySettings

    def make_run(self, request: RunRequest) -> PooledRun:
        """Set up the run folder and the worker pool: fresh, resumed with its settings kept, or
        warm-started from a state file (``warm_start``, ``solved``: the shipped folder's)."""
        values = dict(request.values)
        ray = values.get("ray_address")
        warm_start = warm_folder(values.pop("warm_start", None), request.config)
        settings = SelfPlaySettings.from_options(
            {k: str(v) for k, v in values.items() if k != "ray_address"}
        )
        factory = None
        if request.bots is not None:
            for name in settings.bot_list():
                request.bots.check(name)  # ValueError naming the bad bot
            factory = request.bots.factory(request.config)
        pool, ray = open_pool(request, values)
        try:
            run = SelfPlayRun(
                request.out_dir, request.config, settings, seed=request.seed,
                bot_factory=factory, resume=request.resume, force=request.force,
                given=request.given - {"ray_address", "warm_start"} | (request.flags & {"seed"}),
                pool=pool, warm_start=warm_start,
            )  # fmt: skip
        except BaseException:
            pool.__exit__(None, None, None)
            raise
        return PooledRun(run, pool, request.workers, ray)

    def banner(self, run: PooledRun, request: RunRequest) -> str:
        """What trains, to what budget, in how many streams on how many workers."""
        s = run.inner.settings
        return (
            f"selfplay: PPO league training of the table network until "
            f"{budget_text(request.budget, 'iteration')} ({s.games} games an iteration in "
            f"{s.jobs} stream(s) on {workers_text(run.workers, run.ray_address)}); "
            "resumable with --resume"
        )

    def resume_note(self, run: PooledRun, request: RunRequest) -> str | None:
        """The iteration a resumed run continues after, or the state a warm start begins from."""
        return warm_resume_note(
            run, request, "its network and settings; the past selves start empty"
        )

    def progress_line(self, progress: RunProgress, request: RunRequest) -> str | None:
        """Every ``LOG_EVERY`` iterations and the last: games, win share, turns, time."""
        row = progress.figures
        if not progress.due(LOG_EVERY):
            return None
        return (
            f"iteration {row['iteration']:.0f}: {row['games']:.0f} games, win share "
            f"{row['bot_win_share']:.2f} in its bot games (fair {1 / request.config.players:.2f}), "
            f"{row['self_turns']:.1f} turns a self-play game, {progress.seconds:.0f} s in all"
        )

    def interrupted(self, run: PooledRun, request: RunRequest) -> str:
        """What is kept."""
        return (
            "interrupted; the last checkpoint and its network (policy-net.npz, playable "
            f"with net:{request.out_dir}) are kept, continue with --resume"
        )

    def finish(self, run: PooledRun, result: Any, request: RunRequest) -> list[str]:
        """Where the network is, and how to measure it."""
        out = request.out_dir
        return [
            f"strategy written to {out}/policy-net.npz (play it with net:{out}); quality not "
            f"measured yet (complots bound GAME --strategy net:{out} --method responder)"
        ]


FAMILY = SelfPlayFamily()
