"""The test-only pause points: silent unless named, and they stop at the named occurrence."""

from __future__ import annotations

import pytest

from complots_solver.solvers.common import faults


class Paused(Exception):
    """Raised instead of sleeping, so that the test sees the pause."""


@pytest.fixture
def paused(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """Pause points raise Paused instead of sleeping, with fresh counts."""

    def sleep(seconds: float) -> None:
        raise Paused

    monkeypatch.setattr(faults.time, "sleep", sleep)
    monkeypatch.setattr(faults, "_reached", faults.Counter())
    return monkeypatch


def test_unset_or_other_points_pass(
    paused: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without the variable, or at another point, a pause point returns at once: it says
    nothing and counts nothing, so the named point later still pauses on its first pass."""
    paused.delenv(faults.PAUSE_ENV, raising=False)
    faults.pause_point("iterations")
    faults.pause_point("tree-build")  # unset: not even the point it would name
    paused.setenv(faults.PAUSE_ENV, "tree-build")
    faults.pause_point("iterations")
    faults.pause_point("replace:meta.json")
    assert sum(faults._reached.values()) == 0
    assert capsys.readouterr().err == ""
    with pytest.raises(Paused):
        faults.pause_point("tree-build")


def test_the_named_occurrence_pauses_and_says_so(
    paused: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """POINT@3 passes twice, then announces the pause on stderr and sleeps."""
    paused.setenv(faults.PAUSE_ENV, "replace:checkpoint.npz@3")
    faults.pause_point("replace:checkpoint.npz")
    faults.pause_point("replace:checkpoint.npz")
    assert capsys.readouterr().err == ""
    with pytest.raises(Paused):
        faults.pause_point("replace:checkpoint.npz")
    assert capsys.readouterr().err == f"{faults.PAUSED} replace:checkpoint.npz\n"


def test_a_bare_point_pauses_the_first_time(paused: pytest.MonkeyPatch) -> None:
    """Without @N the first occurrence pauses."""
    paused.setenv(faults.PAUSE_ENV, "tree-build")
    with pytest.raises(Paused):
        faults.pause_point("tree-build")
