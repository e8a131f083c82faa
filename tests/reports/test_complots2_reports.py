"""Reports and comparisons of Complots 2 character sets name the game's own characters."""

from __future__ import annotations

from pathlib import Path

from complots_solver.browse import StrategyBrowser
from complots_solver.reports.api import write_comparison, write_report
from complots_solver.rules.config import GameConfig
from complots_solver.solvers.exact.run import SolveRun, SolveSettings
from tests.helpers import COMPLOTS2_SETS

TINY = {"influence": 1, "max_turns": 1}


def _solve(root: Path, name: str) -> Path:
    """Solve a one-turn, one-influence 2-player draft of a booklet set exactly."""
    out = root / name
    config = GameConfig.from_params({**TINY, "characters": COMPLOTS2_SETS[name]})
    settings = SolveSettings(iterations=100, eval_every=50, checkpoint_seconds=1e9)
    SolveRun(out, config, settings).run()
    return out


def test_complots2_report_and_comparison_use_the_characters(tmp_path: Path) -> None:
    expert = _solve(tmp_path, "expert")
    tractations = _solve(tmp_path, "tractations")
    browser = StrategyBrowser(expert)
    assert browser.describe_run()["lineup"] == (
        "Illusionniste+Maître-Chanteur+Croque-Mort+Pape+Espion"
    )
    paths = write_report(expert, tmp_path / "report", ["html"], None)
    text = Path(paths["html"]).read_text()
    for name in ("Maître-Chanteur", "Illusionniste", "Pape", "Espion"):
        assert name in text
    for name in ("Duchess", "Captain", "Countess", "Ambassador"):
        assert name not in text
    paths = write_comparison(expert, tractations, tmp_path / "cmp", ["html"], tmp_path / "csv")
    text = Path(paths["html"]).read_text()
    assert "Pape / Justicier" in text and "Espion / Inquisitor" in text
    values = (tmp_path / "csv" / "character_values.csv").read_text()
    assert "Maître-Chanteur," in values  # same character in both sets: its own row
