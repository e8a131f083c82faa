"""Rehearsal for the regret network: keep what it holds where this iteration sampled nothing.

Sampled regret matching+ fits its regret network, each iteration, only to the decisions that
iteration's games reached (``RegretSampler.fit_regrets``): everywhere else the held regrets
move wherever the fit drags them. On ladder-3-inquisitor the current strategies, not the
average's fitting, hold the exact exploitability at 0.05-0.08, and four times the fitting
steps makes them worse (docs/lab/2026-12-07-exploiter-and-memory-longer.md), which is what
that drift would do.

Rehearsal keeps a uniform reservoir of the traverser decisions of every earlier iteration
(features and legal actions) and gives a share ``share`` of each minibatch to rows drawn from
it, with the network's own output before this iteration's fit, clipped at 0, as their target:
where this iteration has no sample the held regret stays (the running target's guess that
the unseen regret equals the held one).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.nets.average import reservoir_slots
from complots_solver.solvers.nets.tablenet import regret_loss
from complots_solver.solvers.regret.sampler import RegretSampler, RegretSettings


@dataclass(frozen=True)
class RehearsalSettings:
    """How much of each regret fit rehearses the earlier iterations' decisions."""

    share: float = 0.5  # of each minibatch's rows, drawn from the reservoir
    capacity: int = 200_000  # rows of earlier traverser decisions kept

    def validate(self) -> None:
        """Raise ValueError naming the first setting out of range."""
        if not 0.0 <= self.share < 1.0:
            raise ValueError(f"share: in [0, 1), got {self.share}")
        if self.capacity < 1:
            raise ValueError(f"capacity: at least 1, got {self.capacity}")

    def record(self) -> dict[str, float]:
        """The settings as plain values."""
        return asdict(self)


class RehearsalSampler(RegretSampler):
    """Sampled regret matching+ whose regret fit rehearses earlier decisions (the module note)."""

    def __init__(
        self,
        config: GameConfig,
        settings: RegretSettings,
        rehearsal: RehearsalSettings,
        seed: int = 0,
        **kwargs: object,
    ) -> None:
        """The sampler of ``settings`` with an empty reservoir of ``rehearsal.capacity`` rows."""
        rehearsal.validate()
        super().__init__(config, settings, seed=seed, **kwargs)  # type: ignore[arg-type]
        self.rehearsal = rehearsal
        width = self.net.num_features
        self.kept_x = np.zeros((rehearsal.capacity, width), dtype=np.float32)
        self.kept_legal = np.zeros((rehearsal.capacity, self.num_actions), dtype=np.float32)
        self.kept_seen = 0

    @property
    def kept(self) -> int:
        """Rows the reservoir holds."""
        return min(self.kept_seen, self.rehearsal.capacity)

    def _keep(self, x: np.ndarray, legal: np.ndarray, rng: np.random.Generator) -> None:
        """Offer the iteration's decisions to the reservoir (uniform over all offered)."""
        slot, keep = reservoir_slots(self.kept_seen, len(x), self.rehearsal.capacity, rng)
        self.kept_x[slot[keep]] = x[keep]
        self.kept_legal[slot[keep]] = legal[keep]
        self.kept_seen += len(x)

    def fit_regrets(
        self, x: np.ndarray, legal: np.ndarray, target: np.ndarray, rng: np.random.Generator
    ) -> list[float]:
        """The library's fit, a share of each minibatch rehearsing earlier decisions against
        the network's clipped output before this fit; then the iteration's rows are kept."""
        s = self.settings
        old = self.kept
        share = self.rehearsal.share if old else 0.0
        rehearsed = int(round(share * s.minibatch))
        fresh = s.minibatch - rehearsed
        if rehearsed:  # the targets are read before any step moves the network
            drawn = rng.integers(0, old, size=(s.steps, rehearsed))
            flat = drawn.ravel()
            held = self.net.outputs(self.kept_x[flat])[:, :-1].astype(np.float64)
            held_target = (np.maximum(held, 0.0) * (self.kept_legal[flat] > 0)).reshape(
                s.steps, rehearsed, -1
            )
        losses = []
        for step in range(s.steps):
            idx = rng.integers(0, len(x), size=fresh)
            bx, blegal, btarget = x[idx], legal[idx], target[idx]
            if rehearsed:
                rows = drawn[step]
                bx = np.concatenate([bx, self.kept_x[rows]])
                blegal = np.concatenate([blegal, self.kept_legal[rows]])
                btarget = np.concatenate([btarget, held_target[step]])
            acts, pre, out = self.opt.outputs(bx)
            loss, grad = regret_loss(out, blegal, btarget)
            self.opt.update(acts, pre, grad.astype(np.float32))
            losses.append(loss)
        # a stream of its own: the average's fit after this one draws from ``rng`` as without
        self._keep(x, legal, np.random.default_rng([self.seed, self.iteration, 3]))
        return losses
