"""Reports of a policy-network strategy (the shipped full-game strategy), read from sampled games."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyspiel
import pytest

import complots_solver.openspiel  # noqa: F401  (registers the game)
from complots_solver.browse import load_run
from complots_solver.browse.decode import F_HAND
from complots_solver.browse.net_sampled import NetSampledBrowser, record_net_games
from complots_solver.cli.main import main
from complots_solver.play.search_bot import load_net_bot
from complots_solver.rules import view
from complots_solver.rules.enums import NUM_CLANS
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.belief import netplay
from complots_solver.solvers.knowledge.table_features import config_features
from complots_solver.solvers.nets.tablenet import TableNet

SHIPPED = (
    Path(__file__).resolve().parents[2] / "games" / "strategies" / "belief" / "draft-ambassador"
)
GAMES = 6


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple:
    """Game 0 of the shipped network played by the recorder, with every history it decided at."""
    config, _ = resolve_game("draft-ambassador")
    seen: list[tuple[int, list[int]]] = []
    real = netplay.NetPlayer.action_probabilities

    def spy(self, history):  # type: ignore[no-untyped-def]
        seen.append((self.seat, list(history)))
        return real(self, history)

    netplay.NetPlayer.action_probabilities = spy  # type: ignore[method-assign]
    try:
        samples = record_net_games(config, SHIPPED / "policy-net.npz", 1, seed=7)
    finally:
        netplay.NetPlayer.action_probabilities = real  # type: ignore[method-assign]
    return config, samples, seen


def test_each_record_is_the_network_at_that_history(recorded: tuple) -> None:
    """Replayed through the play layer's bot, every record's distribution, move and hand agree."""
    config, samples, seen = recorded
    assert samples.count == len(seen) > 10
    game = pyspiel.load_game(config.game_string())
    bot = load_net_bot(SHIPPED, config, np.random.default_rng(0), "solved")
    final = seen[-1][1]
    for r, (seat, history) in enumerate(seen):
        state = game.new_initial_state()
        for a in history:
            state.apply_action(a)
        assert state.current_player() == seat == samples.seat[r]
        want = bot.action_probabilities(state)
        got = samples.probabilities(r)
        assert sorted(got) == sorted(want)
        assert all(got[a] == pytest.approx(want[a], abs=1e-6) for a in want)
        played = int(samples.slot_action[samples.slot[r] + samples.choice[r]])
        assert r == len(seen) - 1 or final[len(history)] == played
        hand = [view.hidden(state.s, seat, c) for c in range(NUM_CLANS)]
        assert list(samples.fields[r, F_HAND : F_HAND + NUM_CLANS]) == hand
    assert samples.returns[0].sum() == 0.0 and abs(samples.returns[0, 0]) in (0.0, 1.0)


def test_same_seed_same_games_for_any_worker_count() -> None:
    """Games are seeded one by one: two workers record exactly what one does."""
    config, _ = resolve_game("draft-ambassador")
    one = record_net_games(config, SHIPPED / "policy-net.npz", 4, seed=3, workers=1)
    two = record_net_games(config, SHIPPED / "policy-net.npz", 4, seed=3, workers=2)
    for name in ("game", "seat", "key", "choice", "fields", "slot_prob", "returns"):
        np.testing.assert_array_equal(getattr(one, name), getattr(two, name), err_msg=name)
    other = record_net_games(config, SHIPPED / "policy-net.npz", 4, seed=4)
    assert not np.array_equal(one.key[:20], other.key[:20])


def test_report_of_the_shipped_strategy(tmp_path: Path) -> None:
    """complots report reads a strategy folder holding a policy network, flagged weak."""
    browser = load_run(SHIPPED, games=GAMES, seed=1)
    assert isinstance(browser, NetSampledBrowser) and browser.games == GAMES
    assert browser.game_value()[0] == pytest.approx(browser.samples.returns[:, 0].mean())
    bound = browser.exploitability_bound()
    assert bound is not None and bound["lower_bound"] >= 0.0333
    main(
        ["report", str(SHIPPED), "--format", "html", "--out", str(tmp_path / "r"),
         "--games", str(GAMES), "--seed", "1"]
    )  # fmt: skip
    page = (tmp_path / "r.html").read_text()
    assert "public-belief search, distilled policy network" in page
    assert f"sampled: {GAMES} self-play games, seed 1, 95% CI" in page
    assert "Warning: weak strategy" in page
    assert "strategy table lacks" not in page and "information key" not in page


def test_a_table_network_is_recorded_as_it_plays_and_reported(tmp_path: Path) -> None:
    """A 2-player table network (league self-play): each record is the bot's distribution at that
    history, and the report names the method."""
    config, _ = resolve_game("draft-inquisitor")
    net = TableNet.create(
        config_features(config.to_array()), config.num_distinct_actions(), (16,), seed=2
    )
    folder = tmp_path / "table"
    folder.mkdir()
    net.save(folder / "policy-net.npz", meta={"game": config.game_string()})
    (folder / "meta.json").write_text(
        json.dumps({"game": config.game_string(), "quality": "WEAK: a test network"})
    )
    samples = record_net_games(config, folder / "policy-net.npz", 2, seed=5)
    assert samples.games == 2 and samples.count > 4
    game = pyspiel.load_game(config.game_string())
    bot = load_net_bot(folder, config, np.random.default_rng(0), "net")
    # replay game 0: the chance moves are not recorded, so follow the seat's decisions through
    # a fresh recorder with a spy on the table player
    from complots_solver.solvers.selfplay import player as table_player

    seen: list[list[int]] = []
    real = table_player.TablePlayer.probabilities

    def spy(self):  # type: ignore[no-untyped-def]
        seen.append(list(self.history_seen))
        return real(self)

    real_observe = table_player.TablePlayer.observe

    def observe(self, history):  # type: ignore[no-untyped-def]
        self.history_seen = list(history)
        return real_observe(self, history)

    table_player.TablePlayer.probabilities = spy  # type: ignore[method-assign]
    table_player.TablePlayer.observe = observe  # type: ignore[method-assign]
    try:
        again = record_net_games(config, folder / "policy-net.npz", 1, seed=5)
    finally:
        table_player.TablePlayer.probabilities = real  # type: ignore[method-assign]
        table_player.TablePlayer.observe = real_observe  # type: ignore[method-assign]
    assert again.count == len(seen) == int((samples.game == 0).sum())
    for r, history in enumerate(seen):
        state = game.new_initial_state()
        for a in history:
            state.apply_action(a)
        want = bot.action_probabilities(state)
        got = again.probabilities(r)
        assert sorted(got) == sorted(want)
        assert all(got[a] == pytest.approx(want[a], abs=1e-6) for a in want)
    browser = load_run(folder, games=GAMES, seed=1)
    assert isinstance(browser, NetSampledBrowser)
    assert browser.describe_run()["algorithm"] == "selfplay"
    main(
        ["report", str(folder), "--format", "html", "--out", str(tmp_path / "r"),
         "--games", str(GAMES), "--seed", "1"]
    )  # fmt: skip
    page = (tmp_path / "r.html").read_text()
    assert "league self-play of a table network" in page
    assert "Warning: weak or unmeasured strategy" in page  # no bound recorded


def test_a_regret_network_is_named_as_such(tmp_path: Path) -> None:
    """A table network whose meta says ``regret`` is described as sampled regret matching+."""
    config, _ = resolve_game("draft-ambassador")
    net = TableNet.create(
        config_features(config.to_array()), config.num_distinct_actions(), (8,), seed=1
    )
    folder = tmp_path / "regret"
    folder.mkdir()
    net.save(folder / "policy-net.npz", meta={"game": config.game_string()})
    meta = {"game": config.game_string(), "algorithm": "regret", "training_games": 1200}
    (folder / "meta.json").write_text(json.dumps(meta))
    facts = load_run(folder, games=GAMES, seed=1).describe_run()
    assert facts["algorithm"] == "regret"
    assert (
        facts["solver_text"]
        == "regret (sampled regret matching+ of a table network; 1,200 training games)"
    )
    net.save(folder / "policy-net.npz", meta={"game": config.game_string(), "threshold": 0.05})
    facts = load_run(folder, games=GAMES, seed=1).describe_run()
    assert facts["solver_text"].endswith(
        "1,200 training games), played with actions under 5% dropped"
    )


def test_bound_names_say_which_responder_and_its_budget():
    """A responder record keyed with its budget names the budget; the strongest one is chosen."""
    from complots_solver.browse.net_sampled import responder_name

    assert responder_name("responder") == "trained network responder"
    assert (
        responder_name("responder_614400") == "trained network responder (614,400 training games)"
    )
    assert responder_name("bot:counter") == "the 'counter' bot as a fixed responder"
    assert responder_name("responder_x") == "responder_x"


def test_a_mixture_is_named_with_its_members(tmp_path: Path) -> None:
    """A table folder whose meta names a mixture says so in the report header, with the members'
    iterations; one without says nothing of a mixture."""
    config, _ = resolve_game("complots-inquisitor-3")
    folder = tmp_path / "mix"
    folder.mkdir()
    for k, name in enumerate(("policy-net.npz", "mixture-00.npz", "mixture-01.npz")):
        net = TableNet.create(
            config_features(config.to_array()), config.num_distinct_actions(), (8,), seed=k
        )
        net.save(folder / name, meta={"game": config.game_string()})
    meta = {"game": config.game_string(), "algorithm": "selfplay", "training_games": 5000}
    (folder / "meta.json").write_text(json.dumps(meta))
    assert "mixture" not in load_run(folder, games=GAMES, seed=1).describe_run()["solver_text"]
    meta["mixture"] = {"iterations": [3195, 2941, 2757]}
    (folder / "meta.json").write_text(json.dumps(meta))
    assert load_run(folder, games=GAMES, seed=1).describe_run()["solver_text"] == (
        "selfplay (league self-play of a table network, PPO; 5,000 training games); a mixture "
        "of 3 networks of the run (iterations 3,195, 2,941, 2,757), each seat playing one for "
        "the whole game"
    )
