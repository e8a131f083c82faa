"""A regret network fitted to every iteration's sampled regrets, kept, instead of to its own output.

The library's sampler (``RegretSampler``) fits its regret network each iteration to a running
target: its own clipped output before the fit, moved by 1/t towards this iteration's sampled
regrets (regret matching+). The held value is the network's previous fit, so each fit's error
stays in it for the rest of the run, and decisions this iteration did not reach drift with the
fit elsewhere. On ladder-3-inquisitor the current strategies, not the average's fit, hold the
exact exploitability at 0.05-0.08 (docs/lab/2026-12-07-exploiter-and-memory-longer.md).

Deep CFR's way (Brown, Lerer, Gross and Sandholm, 2019) needs no held value: keep every
iteration's sampled regrets in a reservoir, each row weighted by its iteration t (linear CFR),
and fit the network to them as they are, minibatches drawn in proportion to the weights. The
network then estimates the weighted mean of the sampled regrets at each decision, whose
positive part regret matching plays (linear CFR, not CFR+: a clipped running sum cannot be
rebuilt from the samples). Its error is the fit's at the end, not a sum of every fit's; its
noise is averaged by the regression over all the samples kept.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.nets.average import AveragePolicy
from complots_solver.solvers.nets.tablenet import regret_loss
from complots_solver.solvers.regret.sampler import RegretSampler, RegretSettings

PREFIX = "rmem_"  # the reservoir's arrays in a checkpoint


@dataclass(frozen=True)
class RegretMemorySettings:
    """The reservoir of sampled regrets the regret network is fitted to."""

    capacity: int = 2_000_000  # rows of traverser decisions kept, uniform over all offered
    linear: bool = True  # rows weighted by their iteration (linear CFR); else all alike

    def validate(self) -> None:
        """Raise ValueError naming the first setting out of range."""
        if self.capacity < 1:
            raise ValueError(f"capacity: at least 1, got {self.capacity}")

    def record(self) -> dict[str, object]:
        """The settings as plain values."""
        return asdict(self)


class RegretMemorySampler(RegretSampler):
    """Sampled regret matching whose regret network learns the kept samples (the module note).

    The reservoir is the library's weighted one (``nets.average.AveragePolicy``) over the
    regret network itself, fitting by squared error (``regret_loss``) with the sampler's own
    optimiser: its rows' targets (``probs``) are the sampled regrets."""

    def __init__(
        self,
        config: GameConfig,
        settings: RegretSettings,
        memory: RegretMemorySettings,
        seed: int = 0,
        **kwargs: object,
    ) -> None:
        """The sampler of ``settings`` with an empty reservoir of ``memory.capacity`` rows."""
        memory.validate()
        super().__init__(config, settings, seed=seed, **kwargs)  # type: ignore[arg-type]
        self.memory = memory
        self.kept = AveragePolicy(
            self.net, memory.capacity, settings.steps, settings.minibatch, settings.lr,
            weighted=True, binary_from=self.average.dense,
            loss=regret_loss,
        )  # fmt: skip
        self.opt = self.kept.opt  # one optimiser for the regret network: the reservoir's

    def get_state(self) -> dict[str, np.ndarray]:
        """The library's state and the reservoir of sampled regrets (a checkpoint resumes it)."""
        return {**super().get_state(), **self.kept.get_state(PREFIX)}

    def kit_state(self) -> dict[str, np.ndarray]:
        """The library's state file: the networks without either reservoir."""
        return {k: v for k, v in super().kit_state().items() if not k.startswith(PREFIX)}

    def set_state(self, state: dict[str, np.ndarray]) -> None:
        """Restore :meth:`get_state`'s arrays (a state file without the reservoir: empty)."""
        super().set_state(state)
        if f"{PREFIX}seen" in state:
            self.kept.set_state(state, PREFIX)

    def regret_targets(self, x: np.ndarray, legal: np.ndarray, regret: np.ndarray) -> np.ndarray:
        """The iteration's sampled regrets themselves (the reservoir holds the rest)."""
        return regret

    def fit_regrets(
        self, x: np.ndarray, legal: np.ndarray, target: np.ndarray, rng: np.random.Generator
    ) -> list[float]:
        """Keep the iteration's rows, weighted by the iteration (or alike), then ``steps`` Adam
        steps on minibatches drawn from the reservoir in proportion to the weights."""
        weight = float(self.iteration) if self.memory.linear else 1.0
        self.kept.add(
            x, legal, target, np.random.default_rng([self.seed, self.iteration, 3]), weight
        )
        return [self.kept.train(rng)]
