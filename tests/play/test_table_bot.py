"""`solved` and `net:DIR` at tables of 3 to 6: the shipped table networks load, play and beat bots."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from click.testing import CliRunner

from complots_solver.cli.main import cli
from complots_solver.play.bots import SpielBot, make_bot
from complots_solver.play.search_bot import shipped_presets
from complots_solver.play.table_bot import TableBot
from complots_solver.play.tournament import play_game_bots
from complots_solver.rules.presets import resolve_game

TABLES = [
    "complots-ambassador-3",
    "complots-inquisitor-3",
    "complots-ambassador",
    "complots-inquisitor",
    "complots2-catechumene-3",
    "complots2-catechumene",
    "complots-ambassador-5",
    "complots-inquisitor-5",
    "complots-ambassador-6",
    "complots-inquisitor-6",
]


@pytest.mark.parametrize("preset", TABLES)
def test_shipped_table_strategy_loads_as_solved_and_plays(preset: str) -> None:
    """`solved` is a table network at 3 to 6 players and plays whole games legally."""
    assert preset in shipped_presets()
    config, _ = resolve_game(preset)
    bot = make_bot("solved", config, np.random.default_rng(0))
    assert isinstance(bot, TableBot)
    game = pyspiel.load_game(config.game_string())
    n = config.players
    specs = ["solved"] + ["honest", "counter", "bluffer", "trusting", "random"][: n - 1]
    rngs = [np.random.default_rng([7, i]) for i in range(n + 1)]
    winner, turns, _ = play_game_bots(game, specs, rngs)
    assert -1 <= winner < n and turns >= 1


@pytest.mark.parametrize(
    "preset",
    [
        "complots-inquisitor-3",
        "complots-ambassador",
        "complots2-catechumene",
        "complots-ambassador-5",
    ],
)
def test_solved_policy_covers_the_legal_actions_in_every_chair(preset: str) -> None:
    """At each decision of a game, the policy is over exactly the legal actions and sums to 1."""
    config, _ = resolve_game(preset)
    game = pyspiel.load_game(config.game_string())
    n = config.players
    bots = [SpielBot(make_bot("solved", config, np.random.default_rng(i)), i) for i in range(n)]
    state = game.new_initial_state()
    rng = np.random.default_rng(3)
    decisions = 0
    while not state.is_terminal() and decisions < 300:
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
            continue
        policy, action = bots[state.current_player()].step_with_policy(state)
        assert {a for a, _ in policy} == set(state.legal_actions())
        assert sum(p for _, p in policy) == pytest.approx(1.0)
        state.apply_action(action)
        decisions += 1
    assert decisions > 5


def test_solved_beats_a_table_of_honest_bots() -> None:
    """The 3-player Inquisitor strategy wins more than the fair share 1/3 against two honest bots."""
    config, _ = resolve_game("complots-inquisitor-3")
    game = pyspiel.load_game(config.game_string())
    wins = 0
    games = 90
    for g in range(games):
        specs = ["honest"] * 3
        specs[g % 3] = "solved"
        rngs = [np.random.default_rng([11, g, i]) for i in range(4)]
        winner, _, _ = play_game_bots(game, specs, rngs)
        wins += winner == g % 3
    # the shipped strategy wins about 0.65 at honest tables; 1/3 is far below the bar
    assert wins / games > 0.45


def test_play_seats_solved_at_every_other_chair() -> None:
    """`complots play` at a 4-player table: the three other seats are `solved`."""
    res = CliRunner().invoke(
        cli,
        ["play", "complots-ambassador", "--against", "solved", "--seed", "2"],
        input="1\n" * 3000,
    )
    assert res.exit_code == 0, res.output
    assert "solved" in res.output and "Game over:" in res.output


def test_a_table_without_a_strategy_names_those_with_one() -> None:
    """`solved` at the 7-player table (none shipped) exits 2 naming the presets that have one."""
    res = CliRunner().invoke(cli, ["evaluate", "complots-7", "--bots", "solved,honest"])
    assert res.exit_code == 2
    assert "complots-inquisitor-3" in res.output and "Traceback" not in res.output
    assert "complots-ambassador-5" in res.output
