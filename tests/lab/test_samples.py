"""The sample-report index and run checks behind scripts/make_sample_reports.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from complots_solver.lab.reports import samples

pytestmark = pytest.mark.slow  # lab code: experiments and benchmarks, not the library


def test_index_replaces_its_own_section_and_keeps_the_others(tmp_path: Path) -> None:
    """Writing section B twice keeps A, and B holds only the last lines."""
    index = tmp_path / samples.INDEX
    samples.write_index(index, "A", ["", "first A", ""])
    samples.write_index(index, "B", ["", "old B"])
    samples.write_index(index, "B", ["", "new B", "", ""])
    text = index.read_text()
    assert text.startswith("# Sample reports\n")
    assert "first A" in text and "new B" in text and "old B" not in text
    assert text.index("## A") < text.index("## B")
    assert not text.endswith("\n\n\n")


def test_basis_cell_says_how_the_tables_were_computed() -> None:
    """Sampled games with their seed for keyed runs, exact otherwise."""
    keyed = {"format": samples.KEYED_FORMAT}
    assert samples._basis(keyed, 5000, 3) == "sampled: 5,000 self-play games, seed 3, 95% CI"
    assert samples._basis({}, 5000, 3) == "exact (compiled tree)"


def test_a_run_without_strategy_is_refused_unless_solving(tmp_path: Path) -> None:
    """A mistyped run directory is an error naming it, not a solve of the default preset."""
    with pytest.raises(ValueError, match="holds no strategy"):
        samples.ensure_run(tmp_path / "missing", "ladder-1-ambassador", 10, solve=False)
    assert not (tmp_path / "missing").exists()
