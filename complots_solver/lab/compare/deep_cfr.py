"""OpenSpiel's PyTorch Deep CFR (Brown et al. 2019) as a ladder baseline, on the registered game.

Deep CFR is network CFR without importance weights: external-sampling
traversals fill each player's advantage memory, an advantage network is
trained from it every iteration, and a policy network is fitted to the
average strategy at the end. OpenSpiel ships it in PyTorch; it runs here on
the registered ``complots`` game (the Python adapter: every traversal step
goes through pyspiel), and its policy network is read at each infoset's
representative state of the compiled history tree and measured exactly.

Optional: it needs the ``deepcfr`` extra (``pip install -e '.[deepcfr]'``:
torch, CPU build, and dm-tree, which OpenSpiel's module imports).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.exact.tree import Tree


@dataclass(frozen=True)
class DeepCFRSettings:
    """OpenSpiel ``DeepCFRSolver`` arguments (its defaults are for Kuhn-sized games)."""

    policy_network_layers: tuple[int, ...] = (128, 128)
    advantage_network_layers: tuple[int, ...] = (128, 128)
    num_traversals: int = 100  # per player and iteration
    learning_rate: float = 1e-3
    batch_size_advantage: int = 1024
    batch_size_strategy: int = 1024
    memory_capacity: int = 1_000_000
    policy_network_train_steps: int = 1000
    advantage_network_train_steps: int = 200
    reinitialize_advantage_networks: bool = True


def _modules() -> tuple[object, object]:
    try:
        import torch
        from open_spiel.python.pytorch.deep_cfr import DeepCFRSolver
    except ImportError as err:
        raise RuntimeError(
            "Deep CFR needs the deepcfr extra (torch and dm-tree): pip install -e '.[deepcfr]'"
        ) from err
    return torch, DeepCFRSolver


class _OpenSpielRun:
    """What both network solvers share: the game loaded and seeded, the policy read on the tree."""

    name = ""

    def __init__(self, config: GameConfig, tree: Tree, seed: int) -> None:
        if config.players != 2:
            raise ValueError(f"config: {self.name} here is for 2 players, got {config.players}")
        torch, self._solver_class = _modules()
        import pyspiel

        import complots_solver.openspiel  # noqa: F401  (registers "complots")

        torch.manual_seed(seed)
        torch.set_num_threads(1)  # one core, as every method of the comparison
        self.game = pyspiel.load_game(config.game_string())
        self.tree = tree
        self._states: list | None = None

    def _policy(self) -> object:
        raise NotImplementedError

    def tree_strategy(self) -> np.ndarray:
        """The policy network's strategy on the tree's slots (read at representative states)."""
        from complots_solver.lab.mccfr.quality import openspiel_strategy

        if self._states is None:
            self._states = [self.tree.keys.state(i) for i in range(self.tree.num_infosets)]
        return openspiel_strategy(self.tree, self._policy(), self._states)


class DeepCFRRun(_OpenSpielRun):
    """A Deep CFR solve in chunks of iterations, its policy read on a compiled tree."""

    name = "Deep CFR"

    def __init__(
        self, config: GameConfig, tree: Tree, seed: int = 0, settings: DeepCFRSettings | None = None
    ) -> None:
        super().__init__(config, tree, seed)
        self.settings = settings or DeepCFRSettings()
        self.solver = self._solver_class(
            self.game, num_iterations=1, seed=seed, **asdict(self.settings)
        )

    @property
    def iterations(self) -> int:
        """Deep CFR iterations run so far (OpenSpiel counts from 1)."""
        return int(self.solver._iteration) - 1

    def run(self, n: int) -> None:
        """``n`` more iterations, then the policy network refitted to the average strategy."""
        if n < 1:
            raise ValueError(f"n must be at least 1, got {n}")
        self.solver._num_iterations = n
        self.solver.solve()

    def _policy(self) -> object:
        return self.solver


class _ArrayPolicy:
    """ESCHER's agent answers with an array over all actions; the tree reader wants a dict."""

    def __init__(self, agent: object) -> None:
        self.agent = agent

    def action_probabilities(self, state: object) -> dict[int, float]:
        """Probability of each legal action of ``state``."""
        probs = self.agent.action_probabilities(state)
        return {int(a): float(probs[a]) for a in state.legal_actions()}


class EscherRun(_OpenSpielRun):
    """OpenSpiel's PyTorch ESCHER (McAleer et al. 2023) in chunks, with its Kuhn-poker settings.

    ESCHER drops importance weights altogether: the traverser samples its own
    actions uniformly and its regrets come from a learned history value
    function. OpenSpiel's module draws from numpy's global generator, seeded
    here.
    """

    name = "ESCHER"

    def __init__(self, config: GameConfig, tree: Tree, seed: int = 0) -> None:
        super().__init__(config, tree, seed)
        from open_spiel.python.pytorch import escher

        np.random.seed(seed)
        self._escher = escher
        self.agent = escher.Agent(self.game, escher.Config())
        self.train = escher.TrainConfig(self.game)
        self.iterations = 0

    def run(self, n: int) -> None:
        """``n`` more iterations, then the average policy network refitted."""
        if n < 1:
            raise ValueError(f"n must be at least 1, got {n}")
        for _ in range(n):
            self._escher._train_regret(self.train, self.agent)
            self.agent.t += 1
        self._escher._train_avg_policy(self.agent)
        self.iterations += n

    def _policy(self) -> object:
        return _ArrayPolicy(self.agent)
