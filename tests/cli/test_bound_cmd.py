"""``complots bound``: a ladder strategy whose exploitability is known exactly, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from complots_solver.cli import bound_cmd
from complots_solver.cli.main import cli
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.bounds import lbr, measure, trained
from complots_solver.solvers.common.strategy_file import StrategyFile, save_strategy
from complots_solver.solvers.exact.best_response import exploitability
from complots_solver.solvers.exact.complots_tree import compile_complots_tree
from tests.cli.test_cli_messages import one_line_error, run_cli

GAME = "ladder-1-ambassador"


@pytest.fixture(scope="module")
def uniform_dir(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, float]:
    """A saved uniform strategy of ladder-1 and its exact exploitability."""
    config, _ = resolve_game(GAME)
    tree = compile_complots_tree(config)
    uniform = tree.uniform_strategy()
    folder = tmp_path_factory.mktemp("uniform")
    save_strategy(
        folder,
        StrategyFile(
            uniform,
            uniform,
            tree.action_offsets,
            tree.legal_actions,
            tree.infoset_player,
            {"game": config.game_string()},
        ),
    )
    return folder, exploitability(tree, uniform)


def test_the_command_line_repeats_the_solver_choices() -> None:
    """The choices the command offers without loading the solver are the solver's."""
    assert bound_cmd.SOLVER_METHODS == measure.METHODS
    assert bound_cmd.KEYS == trained.KEYS
    assert bound_cmd.DEFAULT_ROLLOUTS == lbr.DEFAULT_ROLLOUTS


def test_a_bound_near_zero_never_reads_minus_zero(tmp_path: Path) -> None:
    """Figures that round to zero print as +0.000, in the lines and in meta.json's sentence."""
    tiny = -0.0001
    seat = measure.SeatGain(0, 10, tiny, 0.01, tiny, 0.0, tiny, (tiny, 0.02), 1.0)
    bound = measure.Bound("lbr", "how", [seat, seat], tiny, (tiny, 0.02), "exact")
    lines = bound_cmd.describe(bound)
    assert "gain +0.000 [95% CI +0.000, +0.020]" in lines[0]
    assert lines[2].endswith(": +0.000 [95% CI +0.000, +0.020]")
    bound_cmd.write_bound(tmp_path, bound, "complots bound")
    quality = json.loads((tmp_path / "meta.json").read_text())["quality"]
    assert "-0.000" not in quality and "(lbr): +0.000" in quality
    assert "-0.000" not in "\n".join(lines)


@pytest.mark.parametrize(
    ("method", "options"), [("lbr", ["--rollouts", "8"]), ("trained", ["--budget", "2000"])]
)
def test_bound_of_a_uniform_strategy(uniform_dir, method: str, options: list[str]) -> None:
    """Per-seat gains with intervals; the bound is below the exact exploitability, and large."""
    folder, exact = uniform_dir
    args = ["bound", GAME, "--strategy", str(folder), "--method", method, "-n", "150"]
    res = CliRunner().invoke(cli, [*args, "--seed", "1", *options, "--write"])
    assert res.exit_code == 0, res.output
    for needle in ("seat 0:", "seat 1:", "exploitability lower bound", "95% CI", "exact"):
        assert needle in res.output
    meta = json.loads((folder / "meta.json").read_text())
    written = meta["exploitability_bound"][method]
    assert written["ci95"][0] <= exact
    assert written["exploitability_lower_bound"] > 0.5 * exact
    assert f"Exploitability lower bound ({method})" in meta["quality"]
    assert len(written["seats"]) == 2
    again = CliRunner().invoke(cli, [*args, "--seed", "1", *options])
    assert again.exit_code == 0, again.output  # the folder still loads after --write


def test_bots_as_fixed_responders(uniform_dir) -> None:
    """Each bot's bound is below the exact exploitability; the uniform 'random' bot gains nothing."""
    folder, exact = uniform_dir
    args = ["bound", GAME, "--strategy", str(folder), "--method", "bots", "-n", "300"]
    res = CliRunner().invoke(cli, [*args, "--bots", "honest,random", "--seed", "2", "--write"])
    assert res.exit_code == 0, res.output
    assert (
        "-- honest" in res.output and "-- random" in res.output and "strongest: bot:" in res.output
    )
    written = json.loads((folder / "meta.json").read_text())["exploitability_bound"]
    honest, uniform = written["bot:honest"], written["bot:random"]
    assert honest["ci95"][0] <= exact and uniform["ci95"][0] <= exact
    assert uniform["ci95"][0] <= 0.0 <= uniform["ci95"][1], "random plays the uniform strategy"
    assert honest["exploitability_lower_bound"] > uniform["exploitability_lower_bound"]
    assert [s["games"] for s in honest["seats"]] == [300, 300]
    one_line_error(run_cli(*args, "--bots", "honest,wizard"), "--bots", "wizard", "trusting")


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["--games", "1"], ["--games", "at least 2"]),
        (["--budget", "lots"], ["--budget", "600s"]),
        (["--rollouts", "0"], ["--rollouts"]),
        (["--strategy", "/no/such/folder"], ["--strategy", "/no/such/folder"]),
    ],
)
def test_bad_input_is_one_line(args: list[str], needles: list[str]) -> None:
    """Bad options exit 2 with one line naming the option."""
    one_line_error(run_cli("bound", GAME, *args), *needles)


def test_no_shipped_strategy_is_one_line() -> None:
    """solved for a game without a shipped strategy names the presets that have one."""
    one_line_error(run_cli("bound", GAME), "draft-ambassador")


def test_strategy_of_another_game_is_refused(uniform_dir) -> None:
    """A strategy saved for another game is not silently used."""
    folder, _ = uniform_dir
    one_line_error(run_cli("bound", "ladder-1-inquisitor", "--strategy", str(folder)), "--strategy")
