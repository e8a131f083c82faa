"""The belief family's registration: public-belief search with value and policy networks."""

from __future__ import annotations

from typing import Any

from complots_solver.solvers.belief.run import BeliefRun, BeliefRunSettings
from complots_solver.solvers.common.driver import Budget, RunProgress
from complots_solver.solvers.common.network_family import RAY, budget_text, workers_text
from complots_solver.solvers.common.registry import RunRequest, SolverFamily

DEFAULT_SECONDS = 3600.0
HELP = {
    "games": "self-play games per training round",
    "iterations": "CFR iterations per subgame (each turn's search)",
    "epsilon": "exploration in self-play",
    "explore_beliefs": "1: exploration also enters beliefs and value targets (as shipped); 0: the trajectory only",
    "leaf_average": "1: subgame leaf beliefs from the average strategy so far (CFR-AVG), the one played; 0: the current iterate's",
    "sample_iteration": "1: in self-play a random CFR iteration's strategy plays the move and gives the next beliefs (ReBeL); 0: the average's",
    "counterfactual": "1: self-play roots carry each player's counterfactual reach, and value targets cover every hand it allows (those a search asks about though the player's own play gives them no weight); 0: only hands the belief holds, as shipped",
    "zero_sum": "1: the value network's two players' values are shifted to sum to 0 under the belief where it is used (leaves, promises), fitted before the shift; 2: fitted through the shift too (DeepStack's zero-sum layer); 0: none, as shipped",
    "outcome_weight": "blend of the game's result into the held hands' value targets, in [0, 1]",
    "steps": "Adam steps on the replay buffer per round",
    "batch": "examples per Adam step",
    "lr": "learning rate of the value network",
    "distill_games": "self-play games the policy network is distilled from",
    "distill_epochs": "passes over the distillation examples",
    "distill_dagger": "games the distilled network then plays with its own beliefs, labelled by search",
    "distill_width": "units in each of the policy network's two hidden layers",
    "distill_own_reach": "1: weight decisions by the actor's own reach instead of the joint reach",
    "pretrain_games": "games between the bots the value network is first fitted to (0: none)",
    "pretrain_steps": "Adam steps of that fit",
}  # fmt: skip


class BeliefFamily(SolverFamily):
    """Self-play training of a value network by subgame search, then a distilled policy network."""

    name = "belief"
    title = "belief"
    algorithms = ("belief",)
    order = 2
    run_class = BeliefRun
    default_budget = Budget(seconds=DEFAULT_SECONDS)
    progress_every = 1
    helps = HELP
    extra_options = (RAY,)

    def settings_class(self) -> type:
        """The belief family's settings."""
        return BeliefRunSettings

    def make_run(self, request: RunRequest) -> BeliefRun:
        """Set up the run folder; a fresh run first fits its value network to bot games."""
        values = dict(request.values)
        ray_address = values.pop("ray_address", None)
        settings = BeliefRunSettings.from_options({k: str(v) for k, v in values.items()})
        b = request.budget
        if b.seconds is not None and b.seconds <= 0:
            raise ValueError(f"--seconds must be positive, got {b.seconds}")
        if b.iterations is not None and b.iterations < 1:
            raise ValueError(
                f"--iterations (training rounds) must be at least 1, got {b.iterations}"
            )
        run = BeliefRun(
            request.out_dir, request.config, settings, seed=request.seed,
            workers=request.workers, resume=request.resume, force=request.force,
            ray_address=ray_address, given=request.given | (request.flags & {"seed"}),
            say=request.say,
        )  # fmt: skip
        settings = run.settings
        if run.needs_initial_net and settings.pretrain_games > 0 and request.bots is not None:
            request.say(
                f"pretraining the value network on {settings.pretrain_games} games between the bots"
            )
            train_settings = settings.train_settings(run.seed, request.workers)
            initial = train_settings.new_net()
            request.bots.pretrain(
                initial, request.config, settings.pretrain_games, settings.pretrain_steps,
                run.seed, train_settings.fit_through_zero_sum,
            )  # fmt: skip
            run.start_from(initial)
        return run

    def banner(self, run: BeliefRun, request: RunRequest) -> str:
        """What trains, to what budget, on how many workers."""
        s = run.settings
        return (
            f"belief: self-play training of the value network until "
            f"{budget_text(request.budget, 'round')} ({s.games} games a round, {s.iterations} "
            f"CFR iterations a turn, {workers_text(request.workers, run.ray_address)}); "
            "resumable with --resume"
        )

    def resume_note(self, run: BeliefRun, request: RunRequest) -> str | None:
        """The round the run continues after."""
        st = run.trainer.state
        if not (request.resume and st.round > 0):
            return None
        return f"resuming after round {st.round} ({st.games} games)"

    def progress_line(self, progress: RunProgress, request: RunRequest) -> str | None:
        """Every round's figures."""
        row = progress.figures  # the round's row of training.csv
        return (
            f"round {row['round']:.0f}: {row['games']:.0f} games, {row['examples']:.0f} "
            f"examples, loss {row['loss']:.4f}, {row['turns_mean']:.1f} turns a game, "
            f"{row['seconds']:.0f} s in all"
        )

    def interrupted(self, run: BeliefRun, request: RunRequest) -> str:
        """The round whose checkpoint is kept."""
        return (
            f"interrupted; the checkpoint of round {run.trainer.state.round} is kept, "
            "continue with --resume"
        )

    def finish(self, run: BeliefRun, result: Any, request: RunRequest) -> list[str]:
        """Where the two networks are."""
        out = request.out_dir
        return [
            f"strategy written to {out}/policy-net.npz (play it with net:{out}) and "
            f"value-net.npz (search:{out}); quality not measured yet"
        ]


FAMILY = BeliefFamily()
