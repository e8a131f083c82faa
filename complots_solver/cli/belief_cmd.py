"""The belief branch of ``complots solve``: train, checkpoint, distil, report progress."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from complots_solver.cli.checks import exit_interrupted
from complots_solver.rules.config import GameConfig

DEFAULT_SECONDS = 3600.0


def solve_belief(
    config: GameConfig,
    out_dir: Path,
    resume: bool,
    force: bool,
    seconds: float | None,
    rounds: int | None,
    workers: int,
    seed: int,
    options: dict[str, str],
    console: Console,
    ray_address: str | None = None,
) -> None:
    """Train the value network, distil the policy network, say where they are."""
    from complots_solver.solvers.belief.run import BeliefRun, BeliefRunSettings

    settings = BeliefRunSettings.from_options(options)
    if seconds is None and rounds is None:
        seconds = DEFAULT_SECONDS
    if seconds is not None and seconds <= 0:
        raise ValueError(f"--seconds must be positive, got {seconds}")
    if rounds is not None and rounds < 1:
        raise ValueError(f"--iterations (training rounds) must be at least 1, got {rounds}")
    run = BeliefRun(
        out_dir,
        config,
        settings,
        seed=seed,
        workers=workers,
        resume=resume,
        force=force,
        ray_address=ray_address,
        given=frozenset(options),
    )
    settings = run.settings
    if run.needs_initial_net and settings.pretrain_games > 0:
        from complots_solver.play.pretrain import bot_game_examples, pretrain

        console.print(
            f"pretraining the value network on {settings.pretrain_games} games between the bots",
            markup=False,
        )
        examples = bot_game_examples(config, settings.pretrain_games, seed=run.seed)
        train_settings = settings.train_settings(run.seed, workers)
        initial = train_settings.new_net()
        pretrain(
            initial,
            examples,
            settings.pretrain_steps,
            seed=run.seed,
            through_zero_sum=train_settings.fit_through_zero_sum,
        )
        run.start_from(initial)
    st = run.trainer.state
    budget = f"{seconds:.0f} s" if seconds is not None else f"round {rounds}"
    if seconds is not None and rounds is not None:
        budget = f"round {rounds} or {seconds:.0f} s"
    console.print(
        f"belief: self-play training of the value network until {budget} "
        f"({settings.games} games a round, {settings.iterations} CFR iterations a turn, "
        f"{workers} {'Ray actor' if ray_address else 'worker'}(s)); resumable with --resume",
        soft_wrap=True,
        markup=False,
    )
    if resume and st.round > 0:
        console.print(f"resuming after round {st.round} ({st.games} games)", markup=False)

    def log(p) -> None:  # noqa: ANN001  (the driver's RunProgress)
        row = p.figures  # the round's row of training.csv
        console.print(
            f"round {row['round']:.0f}: {row['games']:.0f} games, {row['examples']:.0f} examples, "
            f"loss {row['loss']:.4f}, {row['turns_mean']:.1f} turns a game, "
            f"{row['seconds']:.0f} s in all",
            soft_wrap=True,
            markup=False,
        )

    try:
        run.train(seconds=seconds, rounds=rounds, progress=log)
    except KeyboardInterrupt:
        exit_interrupted(
            console,
            f"interrupted; the checkpoint of round {run.trainer.state.round} is kept, "
            "continue with --resume",
        )
    console.print(
        f"distilling the policy network from {settings.distill_games} self-play games",
        markup=False,
    )
    run.distill(log=None)
    console.print(
        f"strategy written to {out_dir}/policy-net.npz (play it with net:{out_dir}) and "
        f"value-net.npz (search:{out_dir}); quality not measured yet",
        soft_wrap=True,
        markup=False,
    )
