"""The strategy browser: decoding, queries and exact reach/values against independent sources."""

from __future__ import annotations

import numpy as np
import pytest

from complots_solver.browse import StrategyBrowser
from complots_solver.browse.decode import (
    F_COINS,
    F_FACE_DOWN,
    F_FACE_UP,
    F_HAND,
    F_STAGE,
    F_TURN,
    decode_tokens,
)
from complots_solver.browse.exact import walk_infosets
from complots_solver.rules.enums import NUM_CLANS
from complots_solver.rules.layout import S_COINS, S_HIDDEN, S_REVEALED, S_STAGE, S_TURN
from complots_solver.solvers.exact.best_response import game_value

LINEUPS = ("ambassador", "inquisitor")


@pytest.mark.parametrize("lineup", LINEUPS)
def test_decoded_fields_match_the_engine_state(browsers: dict, lineup: str) -> None:
    """Every infoset's decoded view equals the true state at its representative node."""
    b: StrategyBrowser = browsers[lineup]
    walk = walk_infosets(b.config, b.tree, keep_states=True)
    fields = decode_tokens(b.config.to_array(), b.tree.infoset_player, walk.tokens, walk.lengths)
    states = walk.states
    seats = b.tree.infoset_player.astype(int)
    assert (fields[:, F_STAGE] == states[:, S_STAGE]).all()
    assert (fields[:, F_TURN] == states[:, S_TURN]).all()
    for p in range(2):
        assert (fields[:, F_COINS + p] == states[:, S_COINS + p]).all()
        up = slice(F_FACE_UP + p * NUM_CLANS, F_FACE_UP + (p + 1) * NUM_CLANS)
        assert (fields[:, up] == states[:, S_REVEALED + p * 5 : S_REVEALED + p * 5 + 5]).all()
        down = states[:, S_HIDDEN + p * 5 : S_HIDDEN + p * 5 + 5].sum(axis=1)
        assert (fields[:, F_FACE_DOWN + p] == down).all()
    own = np.stack(
        [states[i, S_HIDDEN + s * 5 : S_HIDDEN + s * 5 + 5] for i, s in enumerate(seats)]
    )
    assert (fields[:, F_HAND : F_HAND + NUM_CLANS] == own).all()


@pytest.mark.parametrize("lineup", LINEUPS)
def test_situations_agree_with_openspiel_information_states(browsers: dict, lineup: str) -> None:
    """Hand and coins of a sample of situations appear in OpenSpiel's information state string."""
    b: StrategyBrowser = browsers[lineup]
    rng = np.random.default_rng(0)
    for i in rng.choice(b.tree.num_infosets, size=40, replace=False):
        sit = b.situation(int(i))
        key = b.tree.keys[int(i)]
        assert key.startswith(f"P{sit.seat}; hand [{sit.hand.replace('+', ', ')}]")
        assert f"coins {' '.join(str(c) for c in sit.coins)} " in key
        assert f"stage {sit.stage}" in key
        assert len(sit.history) == len(key.split("history: ")[1].split(", "))


@pytest.mark.parametrize("lineup", LINEUPS)
def test_distribution_is_the_strategy_file(browsers: dict, lineup: str) -> None:
    """distribution() returns the strategy file's average strategy, slot by slot."""
    b: StrategyBrowser = browsers[lineup]
    avg = b.strategy.average
    for i in (0, 1, b.tree.num_infosets // 2, b.tree.num_infosets - 1):
        lo, hi = b.tree.action_offsets[i], b.tree.action_offsets[i + 1]
        dist = b.distribution(i)
        assert list(dist.values()) == pytest.approx(list(avg[lo:hi]), abs=0)
        assert sum(dist.values()) == pytest.approx(1.0)


@pytest.mark.parametrize("lineup", LINEUPS)
def test_reach_and_values_are_consistent_and_exact(browsers: dict, lineup: str) -> None:
    """Game value equals the solver's; seat 0's openings cover the game; values decompose."""
    b: StrategyBrowser = browsers[lineup]
    v0 = game_value(b.tree, b.strategy.average)
    assert b.game_value()[0] == pytest.approx(v0, abs=1e-12)
    assert b.game_value()[0] == pytest.approx(b.meta["game_value"], abs=1e-12)
    first = b.find(seat=0, turn=0, stage="ACTION")
    assert first["reach"].sum() == pytest.approx(1.0)
    assert (first["reach"] * first["value"]).sum() == pytest.approx(v0, abs=1e-12)
    lo, hi = b.value_bounds()[0]
    assert lo - 1e-12 <= v0 <= hi + 1e-12
    reached = b.situations[b.situations["cf_reach"] > 0]
    for i in reached["infoset"].to_numpy()[:: max(1, len(reached) // 200)]:
        dist, q = b.distribution(int(i)), b.action_values(int(i))
        assert sum(dist[a] * q[a] for a in dist) == pytest.approx(b.value(int(i)), abs=1e-9)
    hands = b.starting_hands()
    assert hands["probability"].sum() == pytest.approx(1.0)
    assert (hands["probability"] * hands["value0"]).sum() == pytest.approx(v0, abs=1e-12)


def test_queries_return_the_strategy_numbers(browsers: dict) -> None:
    """find / situations_where / query / aggregate agree with distribution and reach."""
    b: StrategyBrowser = browsers["inquisitor"]
    rows = b.find(stage="CHALLENGE", claim="Duchess", hand=["Duchess"], seat=1)
    assert len(rows) > 0
    sits = list(b.situations_where(stage="CHALLENGE", claim="duke", hand="Duchess", seat=1))
    assert [s.infoset for s in sits] == rows["infoset"].tolist()
    for s in sits:
        assert s.stage == "CHALLENGE" and s.claim == "Duchess" and s.hand == "Duchess"
        assert s.pending_action == "Tax" and s.actor == 0 and s.seat == 1
        assert s.recent_history(1) == ("P0 Tax",)
        assert set(s.legal_actions) == {"Pass", "Challenge"}
    q = b.query(stage="CHALLENGE", claim="Duchess", hand="Duchess", seat=1)
    for s in sits:
        got = q[q["infoset"] == s.infoset].set_index("action_name")["probability"].to_dict()
        assert got == b.distribution(s)
    agg = b.aggregate(["hand"], stage="CHALLENGE", claim="Duchess", seat=1)
    row = agg[agg["hand"] == "Duchess"].iloc[0]
    reach = np.array([b.reach(s) for s in sits])
    chal = np.array([b.distribution(s)["Challenge"] for s in sits])
    assert row["reach"] == pytest.approx(reach.sum())
    assert row["Challenge"] == pytest.approx((reach * chal).sum() / reach.sum())
    assert (
        b.find(coins=(1, 2), turn=0, seat=0, stage="ACTION")["infoset"].tolist()
        == b.find(turn=0, seat=0, stage="ACTION")["infoset"].tolist()
    )
    with pytest.raises(ValueError, match="unknown situation field"):
        b.find(colour="red")
    with pytest.raises(ValueError, match="not in this game"):
        b.find(claim="Ambassador")


def test_turn_cap_share_is_exact(browsers: dict) -> None:
    """The turn-cap share equals the probability mass of draw terminals."""
    b: StrategyBrowser = browsers["ambassador"]
    tree = b.tree
    terminal = (tree.kind == 0) & (tree.utility == 0.0)
    assert b.turn_cap_share() == pytest.approx(b.quantities.reach[terminal].sum())
    assert 0.0 <= b.turn_cap_share() <= 1.0


def test_refuses_non_exact_strategy_files(runs: dict, tmp_path) -> None:
    """A strategy file not keyed by the compiled tree is refused with a clear message."""
    import json
    import shutil

    run = tmp_path / "foreign"
    shutil.copytree(runs["ambassador"], run)
    meta = json.loads((run / "meta.json").read_text())
    meta["infoset_order"] = "mccfr hashed keys"
    (run / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="only exact"):
        StrategyBrowser(run)
