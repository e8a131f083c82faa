"""The policy bot: infoset lookup by tree walk agrees with information-state strings."""

from __future__ import annotations

import numpy as np
import pytest

from complots_solver.play.bots import make_bot
from complots_solver.play.policy_bot import PolicyBot
from complots_solver.play.tournament import run_tournament
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.policies.exact_policy import ExactPolicy
from tests.helpers import load, random_spiel_game
from tests.play.conftest import STRATEGY_GAME


@pytest.fixture(scope="module")
def table(strategy_dir) -> ExactPolicy:
    """The strategy matched to its compiled tree."""
    return ExactPolicy.load(strategy_dir)


def test_tree_walk_matches_infostate_string_dict(table):
    """For every decision of random games, the walked infoset's key is the state's
    information_state_string and the dict built from keys gives the same slots."""
    by_key = table.slot_ranges_by_key()
    assert len(by_key) == table.tree.num_infosets  # keys are distinct
    game = load(**table.config.params())
    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(40):
        for state in random_spiel_game(game, rng):
            if state.is_terminal() or state.is_chance_node():
                continue
            info = table.infoset_of(list(state.history()))
            key = state.information_state_string(state.current_player())
            assert by_key[key] == table.slot_range(info)
            lo, hi = table.slot_range(info)
            assert list(table.tree.legal_actions[lo:hi]) == state.legal_actions()
            checked += 1
    assert checked > 100


def test_policy_probabilities_are_the_average_strategy(table, strategy_dir):
    """Sampling mode returns the normalised average strategy; greedy its argmax."""
    config, _ = resolve_game(STRATEGY_GAME)
    bot = make_bot(f"policy:{strategy_dir}", config, np.random.default_rng(0))
    greedy = make_bot(f"policy:{strategy_dir}:greedy", config, np.random.default_rng(0))
    assert isinstance(bot, PolicyBot) and greedy.greedy
    game = load(**config.params())
    state = random_spiel_game(game, np.random.default_rng(0))[0]
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    info = table.infoset_of(list(state.history()))
    lo, hi = table.slot_range(info)
    avg = table.strategy.average[lo:hi]
    probs = bot.action_probabilities(state)
    assert list(probs.values()) == pytest.approx(list(avg / avg.sum()))
    best = int(table.tree.legal_actions[lo + int(np.argmax(avg))])
    assert greedy.action_probabilities(state) == {best: 1.0}


def test_policy_bot_beats_random(strategy_dir):
    """The (approximate) equilibrium wins more than it loses against uniform play."""
    config, _ = resolve_game(STRATEGY_GAME)
    result = run_tournament(config, [f"policy:{strategy_dir}", "random"], 300, seed=1)
    h2h = result.head_to_head().set_index("bot")
    me = h2h.loc[f"policy:{strategy_dir}"]
    assert me.wins > 1.5 * me.opponent_wins
    assert me.draws > 0  # two turns: many games hit the cap


def test_policy_bot_refuses_another_game(strategy_dir):
    """A strategy only plays the game it was solved for."""
    config, _ = resolve_game("ladder-2-ambassador")
    with pytest.raises(ValueError, match="solved for"):
        make_bot(f"policy:{strategy_dir}", config, np.random.default_rng(0))


def test_missing_strategy_directory(tmp_path):
    """A directory without a strategy is a ValueError."""
    config, _ = resolve_game(STRATEGY_GAME)
    with pytest.raises(ValueError, match="no strategy"):
        make_bot(f"policy:{tmp_path}", config, np.random.default_rng(0))
