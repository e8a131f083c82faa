"""The network adapter plays exactly what the ``solved`` bot plays, and LBR's belief keeps the truth."""

from __future__ import annotations

import numpy as np
import pytest

from complots_solver.rules.presets import games_dir, resolve_game
from complots_solver.solvers.belief.netplay import NetPlayer
from complots_solver.solvers.belief.policy_net import PolicyNet
from complots_solver.solvers.bounds.lbr import LocalBestResponse
from complots_solver.solvers.bounds.strategy import NetStrategy
from complots_solver.solvers.common.folders import POLICY_FILE
from complots_solver.solvers.rows.batch import TERMINAL, Rows, sample_moves

GAME = "draft-ambassador"


@pytest.mark.slow  # one full game of network calls with rollouts: minutes on a loaded machine
def test_live_probabilities_are_the_network_players() -> None:
    """Along one game, the adapter's probabilities equal NetPlayer.action_probabilities."""
    config, _ = resolve_game(GAME)
    cfg = config.to_array()
    actions = config.num_distinct_actions()
    policy = PolicyNet.load(games_dir() / "strategies" / "belief" / GAME / POLICY_FILE)
    strategy = NetStrategy(cfg, policy, actions)
    strategy.start(1)
    players = [NetPlayer(cfg, seat, policy, actions) for seat in (0, 1)]
    lbr = LocalBestResponse(cfg, strategy, rollouts=2)
    lbr.start([(0,)], 0)
    rows = Rows.initial(cfg, 1, 0)
    rng = np.random.default_rng(4)
    history: list[int] = []
    compared = 0
    while int(rows.current[0]) != TERMINAL:
        cur = int(rows.current[0])
        probs = np.zeros((1, actions))
        if cur >= 0:
            probs = strategy.matrix(rows, live=True)
            want = players[cur].action_probabilities(history)
            got = {a: float(probs[0, a]) for a in np.flatnonzero(probs[0])}
            assert got.keys() == want.keys()
            assert all(abs(got[a] - want[a]) < 1e-6 for a in want)
            compared += 1
            if cur == 0:
                lbr.values(0)  # rollouts run from the real belief without error
        move = np.empty(1, dtype=np.int32)
        sample_moves(rows.states, cfg, probs, rng.random(1), move)
        lbr.observe(rows, move)
        strategy.advance(np.zeros(1, dtype=np.int64), rows.states, move)
        rows.step(move, cfg, strategy.memory, 0)
        history.append(int(move[0]))
        assert lbr.beliefs[0].weight_of(rows.states[0]) > 0.0
    assert compared > 5
