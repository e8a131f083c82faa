"""What ``complots solve`` is given beyond the game: its method choice, settings and old flags.

The settings come from a ``--config`` JSON file, ``--option KEY=VALUE`` and
the old algorithm flags (hidden aliases of ``--option``), in that order, each
with where it was given; a resumed run names the method it was made with. The
command line loads no solver until a command needs one, so the registry is
read here only when asked.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from complots_solver.solvers.common.options import OptionSpec


class Methods(click.Choice):
    """``--algorithm``: auto or a registered method, the registry read when first needed."""

    def __init__(self) -> None:
        super().__init__(())

    @property
    def choices(self) -> tuple[str, ...]:  # type: ignore[override]
        """auto, then every registered method."""
        from complots_solver.cli.solve_options import algorithms

        return ("auto", *algorithms())

    @choices.setter
    def choices(self, value: object) -> None:
        """Ignored: the registry holds the methods."""


# old flags of ``solve``, kept as hidden aliases of ``--option KEY=VALUE``: flag -> (key, value)
OLD_FLAGS: dict[str, tuple[str, object]] = {
    "--target-exploitability": ("target_exploitability", None),
    "--eval-every": ("eval_every", None),
    "--checkpoint-seconds": ("checkpoint_seconds", None),
    "--simultaneous": ("alternating", False),
    "--alpha": ("alpha", None),
    "--beta": ("beta", None),
    "--gamma": ("gamma", None),
    "--key": ("key", None),
    "--sync-iterations": ("sync_iterations", None),
    "--ray": ("ray_address", None),
    "--capacity": ("capacity", None),
    "--split": ("split", None),
    "--round-epochs": ("round_epochs", None),
    "--averaging": ("averaging", None),
    "--epsilon": ("epsilon", None),
    "--discount-interval": ("discount_interval", None),
    "--baseline": ("baseline", None),
    "--regret-floor": ("regret_floor", True),
    "--exact": ("exact", True),
}
FLAG_VALUES = {"--simultaneous", "--regret-floor", "--exact"}  # on/off flags, no value


def old_flags(command):  # noqa: ANN001, ANN202  (a click decorator)
    """Add the old algorithm flags as hidden options (``-e`` stays shown: the README uses it)."""
    for flag in reversed(OLD_FLAGS):
        name = flag[2:].replace("-", "_")
        if flag == "--target-exploitability":
            command = click.option(
                "--target-exploitability",
                "-e",
                name,
                type=float,
                default=None,
                help="exact: stop once the exploitability is at most this "
                "(--option target_exploitability=X)",
            )(command)
        elif flag == "--ray":
            command = click.option(
                "--ray",
                name,
                default=None,
                metavar="ADDRESS",
                help="MCCFR, belief, selfplay, regret: run the workers as Ray actors at ADDRESS "
                "('local' starts one on this machine; --option ray_address=ADDRESS)",
            )(command)
        elif flag in FLAG_VALUES:
            command = click.option(flag, name, is_flag=True, default=None, hidden=True)(command)
        else:
            command = click.option(flag, name, default=None, hidden=True)(command)
    return command


def given_settings(
    config_file: str | None, options: tuple[str, ...], old: dict[str, object]
) -> list[tuple[str, str, object]]:
    """The settings given to ``solve``: (where it was given, key, value), file first, then flags."""
    from complots_solver.solvers.common.options import parse_pairs, read_config_file

    given: list[tuple[str, str, object]] = []
    if config_file is not None:
        path = Path(config_file)
        if not path.is_file():
            raise click.BadParameter(f"no such file: {config_file}", param_hint="--config")
        given += [(f"--config {config_file}: {k}", k, v) for k, v in read_config_file(path).items()]
    given += [(f"--option {k}", k, v) for k, v in parse_pairs(options).items()]
    for flag, (key, value) in OLD_FLAGS.items():
        raw = old[flag[2:].replace("-", "_")]
        if raw is not None and raw is not False:
            given.append((flag, key, raw if value is None else value))
    return given


def kept_settings(kept: dict[str, object], specs: dict[str, OptionSpec]) -> str:
    """The settings a resumed run kept that differ from their defaults, as ``k=v, ...``."""
    changed = [f"{k}={v}" for k, v in sorted(kept.items()) if k in specs and v != specs[k].default]
    return ", ".join(changed)


def stored_algorithm(out_dir: Path) -> str | None:
    """The method a run folder was made with (its config.json), if a family knows it."""
    from complots_solver.cli.solve_options import registered
    from complots_solver.solvers.common.driver import read_record

    record = read_record(out_dir)
    if record is None:
        return None
    for fam in registered():
        name = fam.recorded_algorithm(record)
        if name is not None:
            return name
    return None
