"""Both browsers implement the Browser protocol, and neither inherits from the other."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from complots_solver.browse import Browser, SampledBrowser, Situation, StrategyBrowser
from complots_solver.reports.tables import all_tables
from tests.reports.test_sampled import _keyed_run

GAMES = 300  # a tiny sample: these tests check the interface, not the estimates
SEED = 2


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory, browsers: dict) -> dict[str, Browser]:
    """An exact browser (ladder-1, CFR+) and a sampled one (ladder-1, ES MCCFR)."""
    keyed = _keyed_run(tmp_path_factory.mktemp("keyed"), "ladder-1-ambassador", 3)
    return {
        "exact": browsers["ambassador"],
        "sampled": SampledBrowser(keyed, games=GAMES, seed=SEED),
    }


def test_the_classes_are_separate() -> None:
    assert not issubclass(SampledBrowser, StrategyBrowser)
    assert not issubclass(StrategyBrowser, SampledBrowser)


def test_a_browser_lacking_a_method_is_not_one() -> None:
    class Partial:
        def game_value(self) -> tuple[float, ...]:
            return (0.0, 0.0)

    assert not isinstance(Partial(), Browser)


@pytest.mark.parametrize("kind", ["exact", "sampled"])
def test_every_protocol_member_answers(both: dict[str, Browser], kind: str) -> None:
    b = both[kind]
    assert isinstance(b, Browser)
    assert b.exact is (kind == "exact")
    assert isinstance(b.method, str) and b.method
    assert b.config.players == 2 and b.run_dir.is_dir() and isinstance(b.meta, dict)
    assert isinstance(b.preset, str)
    assert len(b.situations) > 0 and len(b.actions) > 0
    opening = b.find(stage="ACTION", turn=0)
    assert len(opening) > 0
    assert b.mask(stage="ACTION", turn=0).sum() == len(opening)
    i = int(opening["infoset"].iloc[0])
    sit = b.situation(i)
    assert isinstance(sit, Situation) and sit.stage == "ACTION" and sit.infoset == i
    dist = b.distribution(sit)
    assert math.isclose(sum(dist.values()), 1.0, abs_tol=1e-6)
    assert set(b.action_values(i)) == set(dist)
    assert 0.0 < b.reach(i) and -1.0 <= b.value(i) <= 1.0
    assert [s.infoset for s in b.situations_where(stage="ACTION", turn=0)] == list(
        opening["infoset"]
    )
    rows = b.query(stage="ACTION", turn=0)
    assert set(rows["infoset"]) == set(opening["infoset"])
    agg = b.aggregate(["seat"], stage="ACTION", turn=0)
    assert {"seat", "reach", "value"} <= set(agg.columns)
    slots = b.actions.merge(opening[["infoset", "seat"]], on="infoset")
    ratio = b.slot_ratio(slots, ["seat"], "mass", None, "visits", None)
    if b.exact:
        assert ratio is None
    else:
        assert list(ratio.columns) == ["seat", "estimate", "±95%"]
        assert np.all(ratio["±95%"] >= 0)
    values = b.game_value()
    assert len(values) == 2 and all(-1.0 <= v <= 1.0 for v in values)
    ci = b.game_value_ci()
    assert (ci is None) == b.exact
    bounds = b.value_bounds()
    assert bounds is None or bounds[0][0] <= bounds[0][1]
    assert (b.exploitability() is None) != b.exact
    assert b.exploitability_bound() is None or "lower_bound" in b.exploitability_bound()
    assert 0.0 <= b.turn_cap_share() <= 1.0
    assert (b.turn_cap_ci() is None) == b.exact
    hands = b.starting_hands()
    assert math.isclose(hands["probability"].sum(), 1.0, abs_tol=1e-6)
    log = b.convergence()
    assert log is None or isinstance(log, pd.DataFrame)
    run = b.describe_run()
    assert run["game"] == b.meta["game"] and run["method"].endswith(b.method)


@pytest.mark.parametrize("kind", ["exact", "sampled"])
def test_every_table_is_built_from_protocol_members(both: dict[str, Browser], kind: str) -> None:
    tables = all_tables(both[kind])
    assert tables and all(t.exact == (kind == "exact") for t in tables.values())
    ci = [c for t in tables.values() for c in t.frame.columns if c.endswith("±95%")]
    assert bool(ci) == (kind == "sampled")
