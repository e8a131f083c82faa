"""Bots of the belief solver: net:DIR, search:DIR and solved."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import complots_solver.openspiel  # noqa: F401  (registers the game)
from complots_solver.play.bots import make_bot
from complots_solver.play.search_bot import POLICY_FILE, shipped_presets
from complots_solver.play.tournament import play_game_bots
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.belief.policy_net import PolicyNet
from complots_solver.solvers.knowledge.belief_features import NUM_FEATURES, NUM_OUTPUTS
from complots_solver.solvers.nets.valuenet import ValueNet


@pytest.fixture(scope="module")
def net_dir(tmp_path_factory):
    """A folder with small untrained value and policy networks for draft-ambassador."""
    config, _ = resolve_game("draft-ambassador")
    folder = tmp_path_factory.mktemp("belief")
    policy = PolicyNet.create(config.num_distinct_actions(), hidden=(16,), seed=0)
    policy.net.meta["game"] = config.game_string()
    policy.save(folder / POLICY_FILE)
    value = ValueNet.create([NUM_FEATURES, 16, NUM_OUTPUTS], seed=0)
    value.meta["game"] = config.game_string()
    value.save(folder / "value-net.npz")
    return folder


@pytest.mark.parametrize("kind", ["net", "search"])
def test_belief_bots_play_whole_games(net_dir, kind: str) -> None:
    """Both kinds play complete legal games from either seat, and their probabilities sum to 1."""
    game = pyspiel.load_game("complots(lineup=ambassador)")
    spec = f"{kind}:{net_dir}"
    checked = []

    def check(state, bot, action):
        if bot.name == spec:
            probs = bot.action_probabilities(state)
            assert set(probs) == set(state.legal_actions())
            assert sum(probs.values()) == pytest.approx(1.0)
            checked.append(action)

    for seat in (0, 1):
        specs = [spec, "random"] if seat == 0 else ["random", spec]
        rngs = [np.random.default_rng([seat, i]) for i in range(3)]
        winner, turns, _ = play_game_bots(game, specs, rngs, on_decision=check)
        assert winner in (0, 1, -1) and turns >= 1
    assert len(checked) > 4


def test_net_bot_refuses_another_game(net_dir) -> None:
    """A network trained for one game is refused for another, with a ValueError naming both."""
    config, _ = resolve_game("draft-inquisitor")
    with pytest.raises(ValueError, match="not complots"):
        make_bot(f"net:{net_dir}", config, np.random.default_rng(0))


def test_missing_network_is_a_clear_error(tmp_path) -> None:
    """A folder without a network is a ValueError saying what is missing."""
    config, _ = resolve_game("draft-ambassador")
    with pytest.raises(ValueError, match=POLICY_FILE):
        make_bot(f"net:{tmp_path}", config, np.random.default_rng(0))


def test_solved_names_the_presets_that_have_a_strategy() -> None:
    """`solved` for a game with no shipped strategy says which presets have one."""
    config, _ = resolve_game("ladder-1-ambassador")
    with pytest.raises(ValueError, match="presets with one") as err:
        make_bot("solved", config, np.random.default_rng(0))
    for name in shipped_presets():
        assert name in str(err.value)


def test_pickled_policy_file_is_refused(tmp_path) -> None:
    """A crafted policy file holding a pickle payload is refused, never unpickled."""
    evil = np.empty(1, dtype=object)
    evil[0] = ("os.system", "echo owned")
    np.savez(
        tmp_path / POLICY_FILE,
        format=np.array("complots-value-net"),
        version=np.array(1),
        layers=np.array(1),
        w0=evil,
        b0=evil,
    )
    config, _ = resolve_game("draft-ambassador")
    with pytest.raises(ValueError, match="pickle"):
        make_bot(f"net:{tmp_path}", config, np.random.default_rng(0))


@pytest.mark.parametrize(
    ("preset", "kind"),
    [
        ("draft-ambassador", "table"),
        ("draft-inquisitor", "table"),
        ("draft-c2-catechumene", "table"),
        ("draft-c2-expert", "table"),
    ],
)
def test_shipped_strategy_loads_as_solved_and_plays(preset: str, kind: str) -> None:
    """The strategies under games/strategies load as `solved` (a table network or a belief-solver
    network, by what the file is) and play a whole game legally."""
    from complots_solver.play.search_bot import NetBot
    from complots_solver.play.table_bot import TableBot

    assert preset in shipped_presets()
    config, _ = resolve_game(preset)
    bot = make_bot("solved", config, np.random.default_rng(0))
    assert isinstance(bot, TableBot if kind == "table" else NetBot)
    game = pyspiel.load_game(config.game_string())
    rngs = [np.random.default_rng([7, i]) for i in range(3)]
    winner, turns, _ = play_game_bots(game, ["solved", "honest"], rngs)
    assert winner in (0, 1, -1) and turns >= 1


def test_solved_plays_as_an_openspiel_bot() -> None:
    """`solved` wrapped as a pyspiel.Bot plays pyspiel.evaluate_bots and exposes its policy."""
    from complots_solver.play.bots import SpielBot

    config, _ = resolve_game("draft-ambassador")
    game = pyspiel.load_game(config.game_string())
    bots = [
        SpielBot(make_bot("solved", config, np.random.default_rng(1)), 0),
        SpielBot(make_bot("honest", config, np.random.default_rng(2)), 1),
    ]
    assert isinstance(bots[0], pyspiel.Bot)
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 3)
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    policy, action = bots[state.current_player()].step_with_policy(state)
    assert {a for a, _ in policy} == set(state.legal_actions())
    assert sum(p for _, p in policy) == pytest.approx(1.0)
    assert action in state.legal_actions()


def test_truncated_shipped_file_is_a_clear_error(tmp_path) -> None:
    """A corrupt (truncated) policy file is a ValueError naming it, never a uniform policy."""
    from complots_solver.play.search_bot import shipped_dir

    config, _ = resolve_game("draft-ambassador")
    good = (shipped_dir(config) / POLICY_FILE).read_bytes()
    (tmp_path / POLICY_FILE).write_bytes(good[: len(good) // 2])
    with pytest.raises(ValueError, match=POLICY_FILE):
        make_bot(f"net:{tmp_path}", config, np.random.default_rng(0))


def test_search_json_turns_on_safe_resolving(net_dir, tmp_path) -> None:
    """search.json's safe flag reaches the agent, which then re-solves each later turn twice."""
    import json
    import shutil

    config, _ = resolve_game("draft-ambassador")
    folder = tmp_path / "safe"
    folder.mkdir()
    shutil.copy(net_dir / "value-net.npz", folder / "value-net.npz")
    (folder / "search.json").write_text(json.dumps({"safe": True, "iterations": 4}))
    bot = make_bot(f"search:{folder}", config, np.random.default_rng(0))
    assert bot.settings.safe and bot.settings.iterations == 4
    game = pyspiel.load_game("complots(lineup=ambassador)")
    rngs = [np.random.default_rng([7, i]) for i in range(3)]
    winner, turns, bots = play_game_bots(game, [f"search:{folder}", "honest"], rngs)
    assert winner in (0, 1, -1)
    agent = bots[0].agents[0]
    assert agent.settings.safe and agent.subgames > 1  # a later turn was re-solved safely
    assert not agent.settings.average_promise  # off unless asked for
    averaged = tmp_path / "averaged"
    shutil.copytree(folder, averaged)
    (averaged / "search.json").write_text(json.dumps({"safe": True, "average_promise": True}))
    assert make_bot(f"search:{averaged}", config, np.random.default_rng(0)).settings.average_promise
    for rule, folder_name in (("dcfr", "discounted"), ("cfr++", "misspelt")):
        other = tmp_path / folder_name
        shutil.copytree(folder, other)
        (other / "search.json").write_text(json.dumps({"cfr": rule}))
        if rule == "dcfr":
            assert (
                make_bot(f"search:{other}", config, np.random.default_rng(0)).settings.cfr == rule
            )
        else:
            with pytest.raises(ValueError, match="cfr must be one of"):
                make_bot(f"search:{other}", config, np.random.default_rng(0))
    bad = tmp_path / "bad"
    shutil.copytree(folder, bad)
    (bad / "search.json").write_text("[1, 2]")
    with pytest.raises(ValueError, match="search settings"):
        make_bot(f"search:{bad}", config, np.random.default_rng(0))
