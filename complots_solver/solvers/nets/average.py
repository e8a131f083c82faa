"""The average strategy of league self-play as a second network (the NFSP idea).

In a two-player zero-sum game the strategy that approaches an equilibrium is
the *average* of the learner's strategies over the iterations, not the last
one: the last iterate of policy-gradient self-play cycles around the
equilibrium (docs/lab/2026-full-game-journal.md section 12 measures it wandering
between 0.13 and 0.6 exploitability on ladder-3). This module keeps that
average as a network:

- every iteration, each learner decision of the iteration's games enters a
  **reservoir** of ``capacity`` rows (features, legal actions, the learner's
  action probabilities there), so the reservoir is a uniform sample of all
  iterations' decisions;
- the **average network** is then fitted to the reservoir by ``steps`` Adam
  steps of cross-entropy against those probabilities.

With ``binary_from`` B, every input from B on is 0 or 1 (the seat's memory, one-hot) and
the reservoir keeps those packed eight to a byte (``xbits``) beside the first B as float32
(``x``): a row comes back exactly, at a fifth of the bytes of a memory of eight moves.

Decisions enter at the rate the learner's games reach them, so each
iteration's strategy is weighted by how often play reaches each decision,
the reach weighting of the average strategy (Kuhn's theorem), up to the
opponent's part of that reach.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from complots_solver.solvers.nets.tablenet import (
    TableNet,
    masked_softmax,
    optimiser_arrays,
    restore_optimiser,
)
from complots_solver.solvers.nets.valuenet import Adam


def _row_cross_entropy(p: np.ndarray, legal: np.ndarray, target: np.ndarray) -> np.ndarray:
    logp = np.where(legal > 0, np.log(np.maximum(p, 1e-30)), 0.0)
    return -(target * logp).sum(axis=1)


def row_losses(out: np.ndarray, legal: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Each row's cross-entropy of the softmax of ``out``'s logits against ``target``."""
    return _row_cross_entropy(masked_softmax(out[:, :-1], legal), legal, target)


# (outputs, legal mask, targets) -> (loss, gradient of the outputs)
Loss = Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[float, np.ndarray]]


def average_loss(
    out: np.ndarray, legal: np.ndarray, target: np.ndarray
) -> tuple[float, np.ndarray]:
    """Mean cross-entropy of the softmax of ``out``'s logits against ``target``, and its gradient."""
    p = masked_softmax(out[:, :-1], legal)
    b = float(len(out))
    loss = float(_row_cross_entropy(p, legal, target).mean())
    grad = np.zeros_like(out, dtype=np.float64)
    grad[:, :-1] = (p - target) * (legal > 0) / b
    return loss, grad


RESERVOIR = ("x", "xbits", "legal", "probs", "weight")  # the reservoir's arrays in a saved state


def without_reservoir(state: dict[str, np.ndarray], prefix: str = "avg_") -> dict[str, np.ndarray]:
    """``state`` (a trainer's or a checkpoint's) with the average's reservoir emptied and its
    network and optimiser kept (a new dict; unchanged when it holds no average network)."""
    out = dict(state)
    if f"{prefix}seen" not in out:
        return out
    for name in RESERVOIR:
        if f"{prefix}{name}" in out:
            out[f"{prefix}{name}"] = out[f"{prefix}{name}"][:0]
    out[f"{prefix}seen"] = np.array(0)
    return out


def reservoir_slots(
    seen: int, n: int, capacity: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Where ``n`` rows offered after ``seen`` go in a reservoir of ``capacity`` (each kept with
    probability capacity / rows offered so far): their slots, and which are kept."""
    index = seen + np.arange(n)
    slot = np.where(index < capacity, index, rng.integers(0, index + 1))
    return slot, slot < capacity


class AveragePolicy:
    """A reservoir of the learner's decisions and a network fitted to it (see the module note)."""

    def __init__(
        self,
        net: TableNet,
        capacity: int,
        steps: int,
        minibatch: int,
        lr: float = 1e-3,
        weighted: bool = False,
        binary_from: int | None = None,
        loss: Loss | None = None,
    ) -> None:
        """An empty reservoir; ``weighted``: minibatches drawn in proportion to each row's
        weight (the iteration, for a linear average), else uniformly; ``binary_from``: the
        first of the inputs that are all 0 or 1, kept packed (None: none); ``loss``: of the
        network's outputs against the rows' targets (:func:`average_loss`, the cross-entropy
        of a strategy, by default; ``lab.regret`` fits sampled regrets by squared error)."""
        if capacity < 1 or steps < 0 or minibatch < 1:
            raise ValueError("capacity and minibatch must be at least 1, steps at least 0")
        width = net.num_features
        dense = width if binary_from is None else int(binary_from)
        if not 0 <= dense <= width:
            raise ValueError(f"binary_from must be in [0, {width}], got {binary_from}")
        self.net = net
        self.capacity = capacity
        self.steps = steps
        self.minibatch = minibatch
        self.opt = Adam(net.net, lr=lr)
        self.dense = dense  # inputs kept as float32; the rest packed as bits
        self.x = np.zeros((capacity, dense), dtype=np.float32)
        self.xbits = np.zeros((capacity, -(-(width - dense) // 8)), dtype=np.uint8)
        self.legal = np.zeros((capacity, net.num_actions), dtype=np.float32)
        self.probs = np.zeros((capacity, net.num_actions), dtype=np.float32)
        self.weight = np.ones(capacity, dtype=np.float64)
        self.weighted = bool(weighted)
        self.loss: Loss = average_loss if loss is None else loss
        self.seen = 0  # decisions offered to the reservoir so far

    @property
    def size(self) -> int:
        """Rows held."""
        return min(self.seen, self.capacity)

    def add(
        self,
        x: np.ndarray,
        legal: np.ndarray,
        probs: np.ndarray,
        rng: np.random.Generator,
        weight: float = 1.0,
    ) -> None:
        """Offer decisions to the reservoir (each kept with probability capacity / seen so far)."""
        n = len(x)
        if n == 0:
            return
        slot, keep = reservoir_slots(self.seen, n, self.capacity, rng)
        # a later row that draws the same slot overwrites an earlier one, as in sequential order
        packed = self._pack(x[:, self.dense :]) if self.dense < x.shape[1] else None
        self.x[slot[keep]] = x[keep, : self.dense]
        if packed is not None:
            self.xbits[slot[keep]] = packed[keep]
        self.legal[slot[keep]] = legal[keep]
        self.probs[slot[keep]] = probs[keep]
        self.weight[slot[keep]] = weight
        self.seen += n

    @staticmethod
    def _pack(bits: np.ndarray) -> np.ndarray:
        """0/1 inputs packed eight to a byte; ValueError for any other value."""
        if np.any((bits != 0) & (bits != 1)):
            raise ValueError("binary_from: an input past it is neither 0 nor 1")
        return np.packbits(bits.astype(np.uint8), axis=1)

    def rows(self, idx: np.ndarray) -> np.ndarray:
        """The reservoir's rows ``idx`` as the network reads them (float32, unpacked)."""
        dense = self.x[idx]
        width = self.net.num_features
        if self.dense == width:
            return dense
        bits = np.unpackbits(self.xbits[idx], axis=1, count=width - self.dense)
        return np.concatenate([dense, bits.astype(np.float32)], axis=1)

    def train(self, rng: np.random.Generator) -> float:
        """``steps`` Adam steps on minibatches drawn from the reservoir; their mean loss."""
        if self.size == 0 or self.steps == 0:
            return float("nan")
        losses = []
        cdf = np.cumsum(self.weight[: self.size]) if self.weighted else None
        for _ in range(self.steps):
            if cdf is None:
                idx = rng.integers(0, self.size, size=min(self.minibatch, self.size))
            else:
                u = rng.random(min(self.minibatch, self.size)) * cdf[-1]
                idx = np.minimum(np.searchsorted(cdf, u, side="right"), self.size - 1)
            acts, pre, out = self.opt.outputs(self.rows(idx))
            loss, grad = self.loss(out, self.legal[idx], self.probs[idx])
            self.opt.update(acts, pre, grad.astype(np.float32))
            losses.append(loss)
        return float(np.mean(losses))

    def get_state(self, prefix: str = "avg_") -> dict[str, np.ndarray]:
        """Network, optimiser and reservoir as named arrays."""
        return {
            f"{prefix}seen": np.array(self.seen),
            f"{prefix}x": self.x[: self.size],
            f"{prefix}xbits": self.xbits[: self.size],
            f"{prefix}legal": self.legal[: self.size],
            f"{prefix}probs": self.probs[: self.size],
            f"{prefix}weight": self.weight[: self.size],
            **optimiser_arrays(self.net, self.opt, prefix),
        }

    def set_state(self, state: dict[str, np.ndarray], prefix: str = "avg_") -> None:
        """Restore what :meth:`get_state` returned (ValueError for another shape)."""
        if f"{prefix}seen" not in state:
            raise ValueError("--resume: the checkpoint holds no average network")
        seen = int(state[f"{prefix}seen"])
        n = min(seen, self.capacity)
        x = state[f"{prefix}x"]
        bits = state.get(f"{prefix}xbits")
        if bits is None and x.shape == (n, self.net.num_features):  # saved before packing
            x, bits = x[:, : self.dense], self._pack(x[:, self.dense :])
        arrays = {"x": x, "xbits": bits, "legal": state[f"{prefix}legal"]}
        arrays["probs"] = state[f"{prefix}probs"]
        for name, saved in arrays.items():
            target = getattr(self, name)
            if saved is None or saved.shape != (n, target.shape[1]):
                raise ValueError("--resume: the checkpoint's reservoir has another shape")
        self.seen = seen
        for name, saved in arrays.items():
            getattr(self, name)[:n] = saved
        weight = state.get(f"{prefix}weight")  # absent in checkpoints from before weights
        self.weight[:n] = 1.0 if weight is None else weight[:n]
        restore_optimiser(self.net, self.opt, state, prefix)
