"""Tree-size estimates and the refusal of exact solves that cannot fit."""

from __future__ import annotations

import subprocess
import sys

import pytest

from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.exact.estimate import check_exact_fits, estimate_tree

# node counts of the compiled exact trees (reports/exact-ladder.md)
KNOWN_NODES = {"ladder-1-ambassador": 16_482, "ladder-2-inquisitor": 409_590}


@pytest.mark.parametrize("name", sorted(KNOWN_NODES))
def test_estimate_is_close_to_the_real_tree(name: str) -> None:
    """Knuth's estimate lands within a factor 1.5 of the compiled tree's node count."""
    config, _ = resolve_game(name)
    est = estimate_tree(config)
    assert KNOWN_NODES[name] / 1.5 < est.nodes < KNOWN_NODES[name] * 1.5
    assert est.fits


def test_estimate_is_deterministic() -> None:
    """Same seed, same estimate."""
    config, _ = resolve_game("ladder-2-ambassador")
    assert estimate_tree(config, seed=3).nodes == estimate_tree(config, seed=3).nodes


def test_full_game_is_refused_with_a_size() -> None:
    """The full draft game cannot be solved exactly: a ValueError with the estimate and what to use."""
    config, _ = resolve_game("draft-inquisitor")
    with pytest.raises(
        ValueError,
        match=r"draft-inquisitor: the exact game tree has .* nodes.*regret matching.*public-belief.*os-mccfr",
    ):
        check_exact_fits(config, "draft-inquisitor")


def test_cli_refuses_oversized_exact_solve(tmp_path) -> None:
    """`complots solve draft-inquisitor --algorithm cfr+` exits 2 with one line, writes nothing."""
    out = tmp_path / "run"
    code = "from complots_solver.cli.main import main; main()"
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            "solve",
            "draft-inquisitor",
            "--algorithm",
            "cfr+",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 2
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "exact game tree" in lines[0]
    assert "Traceback" not in proc.stderr
    assert not out.exists()
