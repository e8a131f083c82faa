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
from complots_solver.solvers.nets.average import reservoir_slots
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
    """Sampled regret matching whose regret network learns the kept samples (the module note)."""

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
        n, width = memory.capacity, self.net.num_features
        self.kept_x = np.zeros((n, width), dtype=np.float32)
        self.kept_legal = np.zeros((n, self.num_actions), dtype=np.float32)
        self.kept_regret = np.zeros((n, self.num_actions), dtype=np.float32)
        self.kept_weight = np.zeros(n, dtype=np.float64)
        self.kept_seen = 0

    def get_state(self) -> dict[str, np.ndarray]:
        """The library's state and the reservoir of sampled regrets (a checkpoint resumes it)."""
        n = self.kept
        return {
            **super().get_state(),
            f"{PREFIX}seen": np.array(self.kept_seen),
            f"{PREFIX}x": self.kept_x[:n],
            f"{PREFIX}legal": self.kept_legal[:n],
            f"{PREFIX}regret": self.kept_regret[:n],
            f"{PREFIX}weight": self.kept_weight[:n],
        }

    def kit_state(self) -> dict[str, np.ndarray]:
        """The library's state file: the networks without either reservoir."""
        return {k: v for k, v in super().kit_state().items() if not k.startswith(PREFIX)}

    def set_state(self, state: dict[str, np.ndarray]) -> None:
        """Restore :meth:`get_state`'s arrays (a state file without the reservoir: empty)."""
        super().set_state(state)
        self.kept_seen = int(state.get(f"{PREFIX}seen", 0))
        n = self.kept
        for name in ("x", "legal", "regret", "weight"):
            if n:
                getattr(self, f"kept_{name}")[:n] = state[f"{PREFIX}{name}"]

    @property
    def kept(self) -> int:
        """Rows the reservoir holds."""
        return min(self.kept_seen, self.memory.capacity)

    def regret_targets(self, x: np.ndarray, legal: np.ndarray, regret: np.ndarray) -> np.ndarray:
        """The iteration's sampled regrets themselves (the reservoir holds the rest)."""
        return regret

    def fit_regrets(
        self, x: np.ndarray, legal: np.ndarray, target: np.ndarray, rng: np.random.Generator
    ) -> list[float]:
        """Keep the iteration's rows, then ``steps`` Adam steps on minibatches drawn from the
        reservoir in proportion to the rows' weights, against their sampled regrets."""
        s = self.settings
        keep_rng = np.random.default_rng([self.seed, self.iteration, 3])
        slot, keep = reservoir_slots(self.kept_seen, len(x), self.memory.capacity, keep_rng)
        rows = slot[keep]
        self.kept_x[rows] = x[keep]
        self.kept_legal[rows] = legal[keep]
        self.kept_regret[rows] = target[keep]
        self.kept_weight[rows] = float(self.iteration) if self.memory.linear else 1.0
        self.kept_seen += len(x)
        cum = np.cumsum(self.kept_weight[: self.kept])
        losses = []
        for _ in range(s.steps):
            idx = np.searchsorted(cum, rng.random(s.minibatch) * cum[-1], side="right")
            idx = np.minimum(idx, self.kept - 1)
            acts, pre, out = self.opt.outputs(self.kept_x[idx])
            loss, grad = regret_loss(out, self.kept_legal[idx], self.kept_regret[idx])
            self.opt.update(acts, pre, grad.astype(np.float32))
            losses.append(loss)
        return losses
