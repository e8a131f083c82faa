"""Run folders written before the family registry still resume, through the registry.

``tests/fixtures/runs-before-registry/`` holds tiny runs made by the code as it
was before the registry and the one run contract (ladder-1 for exact, MCCFR and
regret, complots-ambassador-3 for selfplay): each resumes to a larger budget,
keeping the settings it was made with.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from complots_solver.cli.solve_options import family_of
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.common.driver import Budget
from complots_solver.solvers.common.registry import RunRequest

OLD = Path(__file__).resolve().parents[1] / "fixtures" / "runs-before-registry"
CASES = [
    ("exact", "ladder-1-ambassador", "cfr+", Budget(iterations=20), "iterations"),
    ("mccfr", "ladder-1-ambassador", "os-mccfr", Budget(iterations=80), "iterations"),
    ("regret", "ladder-1-ambassador", "regret", Budget(iterations=2), "training_iterations"),
    ("selfplay", "complots-ambassador-3", "selfplay", Budget(iterations=2), "training_iterations"),
]


class _Bots:
    """The play layer's bots, as the command lends them."""

    def factory(self, config):  # noqa: ANN001, ANN201
        from complots_solver.cli.solve_bots import BotMaker

        return BotMaker(config)

    def check(self, name: str) -> None:
        """Every bot name is fine here."""

    def pretrain(self, *args) -> None:  # noqa: ANN002
        """Not used by these families."""


@pytest.mark.parametrize(("folder", "game", "algorithm", "budget", "count"), CASES)
def test_a_run_folder_from_before_the_registry_resumes(
    tmp_path: Path, folder: str, game: str, algorithm: str, budget: Budget, count: str
) -> None:
    """The registry's family resumes the old folder to the new budget with its saved settings."""
    out = tmp_path / folder
    shutil.copytree(OLD / folder, out)
    saved = json.loads((out / "config.json").read_text())["solver"]
    config, preset = resolve_game(game)
    fam = family_of(algorithm)
    request = RunRequest(
        config=config, preset=preset, out_dir=out, algorithm=algorithm, values={},
        given=frozenset(), flags=frozenset({"iterations"}), budget=budget, seed=0,
        resume=True, bots=_Bots(),
    )  # fmt: skip
    run = fam.make_run(request)
    assert run.kept, "a resumed run keeps its saved settings"
    run.run(fam.budget(run, request))
    meta = json.loads((out / "meta.json").read_text())
    assert meta[count] == budget.iterations
    solver = json.loads((out / "config.json").read_text())["solver"]
    for key in ("games", "width", "key", "eval_every", "seed"):
        if key in saved:
            assert solver[key] == saved[key], key
