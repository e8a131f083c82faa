"""open_strategy opens every kind of strategy folder: the shipped ones and run folders from before it.

Each folder opens as a ``Policy`` whose distribution at the first decision of
a game covers exactly the legal actions and sums to 1; a spelling that does
not fit a folder is refused with the one that does.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyspiel
import pytest

from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.belief.play_policies import NetPolicy, SearchPolicy
from complots_solver.solvers.common.folders import POLICY_FILE, VALUE_FILE, strategies_dir
from complots_solver.solvers.common.protocols import Policy
from complots_solver.solvers.policies.exact_policy import ExactPolicy
from complots_solver.solvers.policies.mccfr_policy import KeyedPolicy
from complots_solver.solvers.policies.open import Kind, folder_config, open_strategy
from complots_solver.solvers.selfplay.policy import TablePolicy

OLD = Path(__file__).resolve().parents[1] / "fixtures" / "runs-before-registry"
OLD_RUNS = [
    ("exact", ExactPolicy),
    ("mccfr", KeyedPolicy),
    ("regret", TablePolicy),
    ("selfplay", TablePolicy),
]
SHIPPED = sorted({p.parent for n in (POLICY_FILE, VALUE_FILE) for p in strategies_dir().rglob(n)})


def _first_decision(game: str, seed: int = 0) -> pyspiel.State:
    """A new game of ``game`` played through its chance moves to the first decision."""
    state = pyspiel.load_game(game).new_initial_state()
    rng = np.random.default_rng(seed)
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(rng.choice(outcomes, p=probs)))
    return state


def _assert_distribution(policy: Policy, game: str) -> None:
    """The policy's answer at a first decision is a distribution over the legal actions."""
    state = _first_decision(game)
    probs = policy.action_probabilities(state)
    assert sorted(probs) == sorted(state.legal_actions())
    assert all(p >= 0 for p in probs.values())
    assert sum(probs.values()) == pytest.approx(1.0)


def test_every_shipped_folder_is_found() -> None:
    """The shipped folders include the presets' networks and the belief search folders."""
    names = {p.relative_to(strategies_dir()).as_posix() for p in SHIPPED}
    assert {"draft-ambassador", "complots-inquisitor-3", "belief/draft-inquisitor"} <= names


@pytest.mark.parametrize(
    "folder", SHIPPED, ids=lambda p: p.relative_to(strategies_dir()).as_posix()
)
def test_every_shipped_folder_opens_as_a_policy(folder: Path) -> None:
    """Each shipped folder opens by its bare path; its policy plays a first decision."""
    config = folder_config(folder)
    policy = open_strategy(folder, config)
    assert isinstance(policy, Policy)
    assert isinstance(policy, TablePolicy | NetPolicy)
    _assert_distribution(policy, config.game_string())
    if (folder / VALUE_FILE).is_file():
        search = open_strategy(f"search:{folder}", config)
        assert isinstance(search, SearchPolicy)


def test_solved_opens_the_shipped_folder() -> None:
    """``solved`` is the game's shipped network, the same weights as its folder."""
    config, _ = resolve_game("draft-inquisitor")
    solved = open_strategy("solved", config)
    direct = open_strategy(strategies_dir() / "draft-inquisitor", config)
    assert isinstance(solved, TablePolicy) and isinstance(direct, TablePolicy)
    assert solved.net is direct.net
    assert solved is not direct  # each opening keeps its own seats' players


@pytest.mark.parametrize(("folder", "kind"), OLD_RUNS)
def test_run_folders_from_before_open_as_policies(folder: str, kind: type) -> None:
    """Run folders written before open_strategy open by their bare path as the right kind."""
    config = folder_config(OLD / folder)
    policy = open_strategy(OLD / folder)
    assert isinstance(policy, kind) and isinstance(policy, Policy)
    _assert_distribution(policy, config.game_string())


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        (f"policy:{OLD / 'regret'}", f"use net:{OLD / 'regret'}"),
        (f"policy:{OLD / 'selfplay'}", f"use net:{OLD / 'selfplay'}"),
        (f"net:{OLD / 'exact'}", f"use policy:{OLD / 'exact'}"),
        (f"net:{OLD / 'mccfr'}", f"use policy:{OLD / 'mccfr'}"),
        (f"search:{OLD / 'regret'}", f"use net:{OLD / 'regret'}"),
    ],
)
def test_a_folder_of_the_wrong_kind_names_the_right_spelling(spec: str, needle: str) -> None:
    """The error names what the folder holds and the spelling that opens it."""
    with pytest.raises(ValueError, match="holds a") as err:
        open_strategy(spec)
    assert needle in str(err.value)
    assert "complots-strategy file" not in str(err.value)


def test_a_folder_without_a_strategy_says_so(tmp_path: Path) -> None:
    """An empty folder names the files a strategy folder holds."""
    with pytest.raises(ValueError, match="holds no strategy") as err:
        open_strategy(f"net:{tmp_path}")
    assert POLICY_FILE in str(err.value)


def test_a_strategy_of_another_game_is_refused() -> None:
    """A folder opened for another game than its own is a ValueError naming both."""
    other, _ = resolve_game("ladder-1-inquisitor")
    with pytest.raises(ValueError, match="not complots"):
        open_strategy(OLD / "regret", other)
    with pytest.raises(ValueError, match="solved for"):
        open_strategy(OLD / "exact", other)


def test_kinds_are_spelt_as_before() -> None:
    """The three spellings stay: policy for files, net for networks, search for value networks."""
    from complots_solver.solvers.policies.open import spelling_of

    assert [spelling_of(k) for k in Kind] == ["policy", "policy", "net", "net", "search"]


def test_a_trainers_table_network_plays_through_its_policy_adapter() -> None:
    """SelfPlayTrainer.policy() stays a TableNet; TablePolicy makes it a Policy that plays."""
    from complots_solver.solvers.nets.tablenet import TableNet
    from complots_solver.solvers.selfplay.train import SelfPlaySettings, SelfPlayTrainer

    config, _ = resolve_game("complots-ambassador-3")
    trainer = SelfPlayTrainer(config, SelfPlaySettings(jobs=1, bot_share=0.0), seed=0)
    net = trainer.policy()
    assert isinstance(net, TableNet) and not isinstance(net, Policy)
    policy = TablePolicy(config, net)
    assert isinstance(policy, Policy)
    _assert_distribution(policy, config.game_string())
