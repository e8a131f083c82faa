"""A small value network in numpy: a multilayer perceptron, Adam training, and pickle-free files.

The network maps a public belief state's features to each player's
expected utility for each possible hand (see :mod:`..knowledge.belief_features`). Inference
and training are plain numpy, so the default install plays and trains it;
weights are saved with ``np.savez`` and loaded with ``allow_pickle=False``,
so a shared file is data, never code.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from complots_solver.solvers.common.atomic import (
    atomic_write_npz_streamed,
    remove_stale_partial_writes,
)

FORMAT = "complots-value-net"
VERSION = 1


@dataclass
class ValueNet:
    """Weights of a tanh-output MLP with ReLU hidden layers."""

    weights: list[np.ndarray]
    biases: list[np.ndarray]
    meta: dict[str, str] = field(default_factory=dict)
    # >= 0: the outputs are two players' values per private state, and the inputs from this
    # column on hold the same players' beliefs over those states; the outputs are then shifted
    # to be zero-sum under those beliefs (DeepStack's zero-sum layer), so a network's errors do
    # not add up to a value both players expect, which bootstrapped targets would compound
    zero_sum_from: int = -1

    @classmethod
    def create(cls, sizes: list[int], seed: int = 0, zero_sum_from: int = -1) -> ValueNet:
        """He-initialised network with layer ``sizes`` (input, hidden..., output)."""
        if len(sizes) < 2 or any(s < 1 for s in sizes):
            raise ValueError(f"sizes must list at least two positive layer widths, got {sizes}")
        rng = np.random.default_rng(seed)
        weights = [
            rng.normal(0.0, np.sqrt(2.0 / a), size=(a, b)).astype(np.float32)
            for a, b in zip(sizes[:-1], sizes[1:], strict=True)
        ]
        weights[-1] *= 0.1
        biases = [np.zeros(b, dtype=np.float32) for b in sizes[1:]]
        return cls(weights, biases, zero_sum_from=zero_sum_from)

    @property
    def sizes(self) -> list[int]:
        """Layer widths."""
        return [self.weights[0].shape[0]] + [w.shape[1] for w in self.weights]

    def forward(self, x: np.ndarray) -> np.ndarray:
        """Outputs for a batch of inputs (rows)."""
        h = np.asarray(x, dtype=np.float32)
        for w, b in zip(self.weights[:-1], self.biases[:-1], strict=True):
            h = np.maximum(h @ w + b, 0.0)
        return self.zero_sum(x, np.tanh(h @ self.weights[-1] + self.biases[-1]))

    def zero_sum(self, x: np.ndarray, out: np.ndarray) -> np.ndarray:
        """``out`` shifted by half its belief-weighted total (unchanged without ``zero_sum_from``)."""
        if self.zero_sum_from < 0:
            return out
        beliefs = np.asarray(x, dtype=np.float32)[
            :, self.zero_sum_from : self.zero_sum_from + out.shape[1]
        ]
        return out - 0.5 * (beliefs * out).sum(axis=1, keepdims=True)

    def save(self, path: Path) -> None:
        """Write the weights atomically as an ``.npz`` (no pickle)."""
        arrays: dict[str, np.ndarray] = {
            "format": np.array(FORMAT),
            "version": np.array(VERSION),
            "layers": np.array(len(self.weights)),
        }
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            arrays[f"w{i}"] = w
            arrays[f"b{i}"] = b
        if self.zero_sum_from >= 0:
            arrays["zero_sum_from"] = np.array(self.zero_sum_from)
        for k, v in self.meta.items():
            arrays[f"meta_{k}"] = np.array(str(v))
        atomic_write_npz_streamed(Path(path), arrays)

    @classmethod
    def load(cls, path: Path) -> ValueNet:
        """Read weights written by :meth:`save`; ValueError for any other file.

        Temporary files of killed writers beside it are removed first.
        """
        remove_stale_partial_writes(Path(path).parent)
        try:
            with np.load(Path(path), allow_pickle=False) as data:
                if "format" not in data.files or str(data["format"]) != FORMAT:
                    raise ValueError(f"{path}: not a {FORMAT} file")
                if int(data["version"]) != VERSION:
                    raise ValueError(
                        f"{path}: {FORMAT} version {int(data['version'])}, expected {VERSION}"
                    )
                n = int(data["layers"])
                weights = [np.asarray(data[f"w{i}"], dtype=np.float32) for i in range(n)]
                biases = [np.asarray(data[f"b{i}"], dtype=np.float32) for i in range(n)]
                meta = {k[5:]: str(data[k]) for k in data.files if k.startswith("meta_")}
                zero_sum_from = int(data["zero_sum_from"]) if "zero_sum_from" in data.files else -1
        except (OSError, KeyError, EOFError, zipfile.BadZipFile) as exc:
            raise ValueError(f"{path}: unreadable or corrupt network file ({exc})") from None
        except ValueError as exc:
            if "pickle" in str(exc).lower():
                raise ValueError(
                    f"{path}: holds pickled objects; refused (strategy files are data)"
                ) from None
            raise
        for a, b in zip(weights[:-1], weights[1:], strict=True):
            if a.shape[1] != b.shape[0]:
                raise ValueError(f"{path}: layer shapes do not chain")
        if zero_sum_from >= 0 and zero_sum_from + weights[-1].shape[1] > weights[0].shape[0]:
            raise ValueError(f"{path}: zero_sum_from {zero_sum_from} is past the inputs")
        return cls(weights, biases, meta, zero_sum_from)


class ValueEnsemble:
    """Several value networks of one game, read as the mean of their outputs."""

    def __init__(self, nets: list[ValueNet]) -> None:
        if not nets:
            raise ValueError("nets: at least one value network is needed")
        if len({tuple(n.sizes[:1] + n.sizes[-1:]) for n in nets}) != 1:
            raise ValueError("nets: the networks take different inputs or give different outputs")
        self.nets = nets
        self.meta = dict(nets[0].meta)

    def forward(self, x: np.ndarray) -> np.ndarray:
        """The mean of the networks' outputs for a batch of inputs."""
        return np.mean([n.forward(x) for n in self.nets], axis=0)


class Adam:
    """Adam optimiser state for a :class:`ValueNet`."""

    def __init__(
        self,
        net: ValueNet,
        lr: float = 1e-3,
        beta1: float = 0.9,
        beta2: float = 0.999,
        through_zero_sum: bool = True,
    ) -> None:
        self.net = net
        # False: fit the outputs before the zero-sum layer (which then corrects only at use)
        self.through_zero_sum = through_zero_sum
        self.lr = lr
        self.beta1 = beta1
        self.beta2 = beta2
        self.t = 0
        self.m = [np.zeros_like(p) for p in net.weights + net.biases]
        self.v = [np.zeros_like(p) for p in net.weights + net.biases]

    def outputs(self, x: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
        """Hidden activations, pre-activations and the output layer's pre-activation of a batch."""
        net = self.net
        acts = [np.asarray(x, dtype=np.float32)]
        pre = []
        for w, b in zip(net.weights[:-1], net.biases[:-1], strict=True):
            z = acts[-1] @ w + b
            pre.append(z)
            acts.append(np.maximum(z, 0.0))
        return acts, pre, acts[-1] @ net.weights[-1] + net.biases[-1]

    def update(self, acts: list[np.ndarray], pre: list[np.ndarray], grad: np.ndarray) -> None:
        """Back-propagate ``grad`` (loss gradient at the output pre-activation) and take a step."""
        net = self.net
        gw: list[np.ndarray] = []
        gb: list[np.ndarray] = []
        for layer in range(len(net.weights) - 1, -1, -1):
            gw.append(acts[layer].T @ grad)
            gb.append(grad.sum(axis=0))
            if layer > 0:
                grad = (grad @ net.weights[layer].T) * (pre[layer - 1] > 0)
        gw.reverse()
        gb.reverse()
        self.t += 1
        params = net.weights + net.biases
        grads = gw + gb
        c1 = 1.0 - self.beta1**self.t
        c2 = 1.0 - self.beta2**self.t
        for i, (p, g) in enumerate(zip(params, grads, strict=True)):
            self.m[i] = self.beta1 * self.m[i] + (1 - self.beta1) * g
            self.v[i] = self.beta2 * self.v[i] + (1 - self.beta2) * g * g
            p -= (self.lr * (self.m[i] / c1) / (np.sqrt(self.v[i] / c2) + 1e-8)).astype(p.dtype)

    def step(self, x: np.ndarray, y: np.ndarray, mask: np.ndarray) -> float:
        """One gradient step on masked squared error of the tanh outputs; returns the batch loss."""
        acts, pre, z = self.outputs(x)
        out = np.tanh(z)
        through = self.through_zero_sum and self.net.zero_sum_from >= 0
        diff = ((self.net.zero_sum(x, out) if through else out) - y) * mask
        denom = max(float(mask.sum()), 1.0)
        loss = float((diff * diff).sum() / denom)
        grad = 2.0 * diff / denom
        if through:  # through the shift: d/d out_k = g_k - b_k sum(g) / 2
            beliefs = acts[0][:, self.net.zero_sum_from : self.net.zero_sum_from + out.shape[1]]
            grad = grad - 0.5 * beliefs * grad.sum(axis=1, keepdims=True)
        self.update(acts, pre, grad * (1.0 - out * out))
        return loss
