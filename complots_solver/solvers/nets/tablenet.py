"""The table network: action logits and a value from one seat's features, and its PPO update.

One multilayer perceptron (numpy, the belief solver's :class:`ValueNet`
weights and pickle-free files) whose last layer holds one logit per
seat-relative action id and, last, the expected return of the seat to move.
Training is proximal policy optimisation (clipped surrogate, entropy bonus,
squared value error), with the gradients written out by hand so that the
default install trains it without a deep-learning framework.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.common.folders import POLICY_FILE
from complots_solver.solvers.knowledge.table_features import FEATURE_VERSION
from complots_solver.solvers.nets.valuenet import Adam, ValueNet

KIND = "table-policy"
THRESHOLD_KEY = "threshold"  # meta entry: thresholding at play (see thresholded)
NEG = -1e9
MIXTURE_PREFIX = "mixture-"  # mixture-TAG-00.npz, ...: further members beside policy-net.npz
MIXTURE_KEY = "mixture"  # policy-net.npz's meta: its members' file names, comma-separated
MIXTURE_HOW = "each seat draws one member for the whole game, uniformly"  # meta.json's words


def is_table_net(path: Path) -> bool:
    """Whether the network file at ``path`` is a table network (else a belief-solver one)."""
    from complots_solver.solvers.nets.valuenet import ValueNet

    return ValueNet.load(Path(path)).meta.get("kind") == KIND


def mixture_files(folder: Path, policy: TableNet | None = None) -> list[Path]:
    """The further members of a mixture strategy in ``folder``, in order (none: one network):
    the files its ``policy-net.npz`` (or ``policy``, that file already read) names
    (``MIXTURE_KEY``), or in a folder written before the names were kept, every
    ``mixture-NN.npz``."""
    folder = Path(folder)
    if policy is not None:
        listed = policy.net.meta.get(MIXTURE_KEY)
    elif (folder / POLICY_FILE).is_file():
        listed = ValueNet.load(folder / POLICY_FILE).meta.get(MIXTURE_KEY)
    else:
        listed = None
    if listed is not None:
        return [folder / name for name in str(listed).split(",") if name]
    return sorted(folder.glob(f"{MIXTURE_PREFIX}[0-9][0-9].npz"))


def load_mixture(folder: Path, policy: TableNet | None = None) -> list[TableNet]:
    """The further members of the mixture in ``folder`` (``policy``: its network, already
    read); ValueError for a bad or missing file."""
    members = []
    for path in mixture_files(folder, policy):
        if not path.is_file():
            raise ValueError(f"{folder}: the mixture member {path.name} is missing")
        members.append(TableNet.load(path))
    return members


def _member_names(members: Sequence[TableNet]) -> list[str]:
    """File names for ``members``: tagged by a digest of their weights, so a new set never
    overwrites a file the set before it still names."""
    digest = hashlib.sha1()
    for net in members:
        for w in (*net.net.weights, *net.net.biases):
            digest.update(np.ascontiguousarray(w).tobytes())
    tag = digest.hexdigest()[:8]
    return [f"{MIXTURE_PREFIX}{tag}-{k:02d}.npz" for k in range(len(members))]


def save_strategy_nets(
    folder: Path, policy: TableNet, members: Sequence[TableNet], meta: dict[str, str]
) -> None:
    """Write ``policy-net.npz`` and the mixture's members beside it as one set: the members
    first, then the policy naming them (atomically), then the files no longer named, so a
    writer killed at any moment leaves the old set or the new one whole."""
    folder = Path(folder)
    names = _member_names(members)
    for name, net in zip(names, members, strict=True):
        net.save(folder / name, meta=meta)
    stale = set(mixture_files(folder)) - {folder / n for n in names}
    # a copy: the caller's network keeps no listing to carry into a folder of its own
    policy.copy().save(folder / POLICY_FILE, meta={**meta, MIXTURE_KEY: ",".join(names)})
    for old in stale:
        old.unlink(missing_ok=True)


class TableNet:
    """Logits over seat-relative actions and a value, from table features."""

    def __init__(self, net: ValueNet) -> None:
        self.net = net

    @classmethod
    def create(
        cls, features: int, actions: int, hidden: tuple[int, ...] = (256, 256), seed: int = 0
    ) -> TableNet:
        """A fresh network for ``features`` inputs and ``actions`` action ids."""
        return cls(ValueNet.create([features, *hidden, actions + 1], seed=seed))

    @property
    def num_actions(self) -> int:
        """Action ids the network scores."""
        return self.net.sizes[-1] - 1

    @property
    def num_features(self) -> int:
        """Inputs the network reads."""
        return self.net.sizes[0]

    def outputs(self, x: np.ndarray) -> np.ndarray:
        """Raw outputs (logits, then the value) for a batch of rows."""
        h = np.asarray(x, dtype=np.float32)
        net = self.net
        for w, b in zip(net.weights[:-1], net.biases[:-1], strict=True):
            h = np.maximum(h @ w + b, 0.0)
        return h @ net.weights[-1] + net.biases[-1]

    @property
    def threshold(self) -> float:
        """Probabilities below this are dropped at play (meta ``threshold``; 0: none)."""
        return float(self.net.meta.get(THRESHOLD_KEY, 0.0))

    def policy_value(self, x: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Softmax over each row's legal actions (thresholded, see :func:`thresholded`), and
        the value of each row."""
        out = self.outputs(x)
        probs = masked_softmax(out[:, :-1], legal)
        if self.threshold > 0.0:
            probs = thresholded(probs, self.threshold)
        return probs, out[:, -1]

    def params(self) -> list[np.ndarray]:
        """The weight matrices then the bias vectors (the arrays themselves, not copies)."""
        return self.net.weights + self.net.biases

    def assign(self, other: TableNet) -> None:
        """Overwrite these weights in place with ``other``'s (same shapes; ValueError if not)."""
        mine, theirs = self.params(), other.params()
        if [p.shape for p in mine] != [p.shape for p in theirs]:
            raise ValueError("other: a network of another shape")
        for a, b in zip(mine, theirs, strict=True):
            a[...] = b

    def copy(self) -> TableNet:
        """An independent copy (a frozen past self)."""
        return TableNet(
            ValueNet(
                [w.copy() for w in self.net.weights],
                [b.copy() for b in self.net.biases],
                dict(self.net.meta),
            )
        )

    def save(self, path: Path, meta: dict[str, str] | None = None) -> None:
        """Write the weights atomically (npz, no pickle) with ``meta``."""
        self.net.meta.update(meta or {})
        self.net.meta["kind"] = KIND
        self.net.save(path)

    @classmethod
    def load(cls, path: Path) -> TableNet:
        """Read a network written by :meth:`save`; ValueError for anything else."""
        net = ValueNet.load(path)
        if net.meta.get("kind") != KIND:
            raise ValueError(f"{path}: not a table network (kind {net.meta.get('kind')!r})")
        return cls(net)


def optimiser_arrays(net: TableNet, opt: Adam, prefix: str = "") -> dict[str, np.ndarray]:
    """A network's weights and its Adam state as named arrays (``{prefix}adam_t``, ``p0``, ``m0``...)."""
    out: dict[str, np.ndarray] = {f"{prefix}adam_t": np.array(opt.t)}
    for i, p in enumerate(net.params()):
        out[f"{prefix}p{i}"] = p
        out[f"{prefix}m{i}"] = opt.m[i]
        out[f"{prefix}v{i}"] = opt.v[i]
    return out


def restore_optimiser(
    net: TableNet, opt: Adam, state: dict[str, np.ndarray], prefix: str = ""
) -> None:
    """Restore what :func:`optimiser_arrays` wrote (ValueError for a network of another shape)."""
    opt.t = int(state[f"{prefix}adam_t"])
    for i, target in enumerate(net.params()):
        if target.shape != state[f"{prefix}p{i}"].shape:
            raise ValueError("--resume: the checkpoint's network has another shape")
        target[...] = state[f"{prefix}p{i}"]
        opt.m[i][...] = state[f"{prefix}m{i}"]
        opt.v[i][...] = state[f"{prefix}v{i}"]


def frozen_arrays(prefix: str, nets: Sequence[TableNet]) -> dict[str, np.ndarray]:
    """The weights of ``nets`` as named arrays ``{prefix}{k}_{i}`` (past selves, mixture members)."""
    return {f"{prefix}{k}_{i}": p for k, net in enumerate(nets) for i, p in enumerate(net.params())}


def frozen_nets(
    template: TableNet, state: dict[str, np.ndarray], prefix: str, count: int
) -> list[TableNet]:
    """``count`` copies of ``template`` holding the weights :func:`frozen_arrays` wrote."""
    nets = []
    for k in range(count):
        net = template.copy()
        for i, target in enumerate(net.params()):
            target[...] = state[f"{prefix}{k}_{i}"]
        nets.append(net)
    return nets


def thresholded(probs: np.ndarray, threshold: float) -> np.ndarray:
    """Each row with its probabilities below ``threshold`` set to zero and the rest rescaled;
    a row's most likely action is always kept (thresholding, the purification of Ganzfried,
    Sandholm and Waugh: a fitted average network spreads small probabilities over actions
    its iterates rarely played, which a best responder can aim at)."""
    keep = (probs >= threshold) | (probs >= probs.max(axis=1, keepdims=True))
    out = np.where(keep, probs, 0.0)
    return out / out.sum(axis=1, keepdims=True)


def masked_softmax(logits: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Softmax of each row over the entries where ``legal`` is positive."""
    z = np.where(legal > 0, logits, NEG)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z) * (legal > 0)
    return e / e.sum(axis=1, keepdims=True)


def regret_loss(out: np.ndarray, legal: np.ndarray, target: np.ndarray) -> tuple[float, np.ndarray]:
    """Mean squared error of the network's action outputs against ``target`` on legal actions,
    and its gradient (the value output is not trained)."""
    diff = (out[:, :-1] - target) * (legal > 0)
    b = float(len(out))
    grad = np.zeros_like(out, dtype=np.float64)
    grad[:, :-1] = 2.0 * diff / b
    return float((diff**2).sum() / b), grad


@dataclass(frozen=True)
class PPOSettings:
    """The PPO update's settings."""

    lr: float = 3e-4
    clip: float = 0.2
    entropy: float = 0.01
    value: float = 0.5
    epochs: int = 3
    minibatch: int = 1024


def ppo_loss(
    out: np.ndarray,
    legal: np.ndarray,
    action: np.ndarray,
    old_logp: np.ndarray,
    advantage: np.ndarray,
    target: np.ndarray,
    cfg: PPOSettings,
    magnet_logp: np.ndarray | None = None,
) -> tuple[float, np.ndarray, dict[str, float]]:
    """The PPO loss of a minibatch, its gradient at the raw outputs, and its terms.

    Loss = -mean(min(r A, clip(r) A)) - entropy * mean(H) + value * mean((v - R)^2),
    r the probability ratio of the taken action to when it was sampled. With
    ``magnet_logp`` (each row's log-probabilities under a magnet policy) the
    entropy term becomes ``entropy * mean(KL(pi || magnet))``: the same up to a
    constant for a uniform magnet, and magnetic mirror descent's pull otherwise.
    """
    rows = np.arange(len(out))
    p = masked_softmax(out[:, :-1], legal)
    logp_all = np.where(legal > 0, np.log(np.maximum(p, 1e-30)), 0.0)
    logp = logp_all[rows, action]
    ratio = np.exp(logp - old_logp)
    unclipped = ratio * advantage
    clipped = np.clip(ratio, 1 - cfg.clip, 1 + cfg.clip) * advantage
    active = unclipped <= clipped  # the minimum is the unclipped term: it has a gradient
    entropy = -(p * logp_all).sum(axis=1)
    # the pull: KL(pi || magnet), which for no magnet (uniform) is -H up to a constant
    d = logp_all if magnet_logp is None else np.where(legal > 0, logp_all - magnet_logp, 0.0)
    pull = (p * d).sum(axis=1)
    value = out[:, -1]
    b = float(len(out))
    loss = float(
        -np.minimum(unclipped, clipped).mean()
        + cfg.entropy * pull.mean()
        + cfg.value * ((value - target) ** 2).mean()
    )
    grad = np.zeros_like(out, dtype=np.float64)
    coef = np.where(active, -advantage * ratio, 0.0) / b
    g_logits = -coef[:, None] * p
    g_logits[rows, action] += coef
    # d(c pull)/dz_j = c p_j (d_j - pull)
    g_logits += cfg.entropy / b * p * (d - pull[:, None])
    grad[:, :-1] = g_logits * (legal > 0)
    grad[:, -1] = cfg.value * 2.0 * (value - target) / b
    terms = {
        "policy_loss": float(-np.minimum(unclipped, clipped).mean()),
        "value_loss": float(((value - target) ** 2).mean()),
        "entropy": float(entropy.mean()),
        "clip_frac": float((np.abs(ratio - 1) > cfg.clip).mean()),
    }
    if magnet_logp is not None:
        terms["magnet_kl"] = float(pull.mean())
    return loss, grad, terms


class PPO(Adam):
    """Adam on the PPO loss of a :class:`TableNet`."""

    def __init__(self, table: TableNet, settings: PPOSettings) -> None:
        super().__init__(table.net, lr=settings.lr)
        self.table = table
        self.settings = settings

    def step(  # type: ignore[override]
        self,
        x: np.ndarray,
        legal: np.ndarray,
        action: np.ndarray,
        old_logp: np.ndarray,
        advantage: np.ndarray,
        target: np.ndarray,
        magnet_logp: np.ndarray | None = None,
    ) -> dict[str, float]:
        """One gradient step on a minibatch; the loss terms."""
        acts, pre, out = self.outputs(x)
        _, grad, terms = ppo_loss(
            out, legal, action, old_logp, advantage, target, self.settings, magnet_logp
        )
        self.update(acts, pre, grad.astype(np.float32))
        return terms

    def train(self, batch: dict[str, np.ndarray], rng: np.random.Generator) -> dict[str, float]:
        """``epochs`` passes of minibatch steps over ``batch``; the last pass's mean loss terms."""
        n = len(batch["x"])
        adv = batch["advantage"]
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        if "weight" in batch:  # per-decision weights of the policy term (mean 1)
            adv = adv * batch["weight"]
        out: dict[str, list[float]] = {}
        for _ in range(self.settings.epochs):
            out = {}
            order = rng.permutation(n)
            for i in range(0, n, self.settings.minibatch):
                idx = order[i : i + self.settings.minibatch]
                terms = self.step(
                    batch["x"][idx],
                    batch["legal"][idx],
                    batch["action"][idx],
                    batch["logp"][idx],
                    adv[idx],
                    batch["target"][idx],
                    batch["magnet_logp"][idx] if "magnet_logp" in batch else None,
                )
                for k, v in terms.items():
                    out.setdefault(k, []).append(v)
        return {k: float(np.mean(v)) for k, v in out.items()}


def policy_meta(config: GameConfig, algorithm: str) -> dict[str, str]:
    """What a table network's file records beside its weights: game, maker, feature version."""
    return {"game": config.game_string(), "algorithm": algorithm, "features": str(FEATURE_VERSION)}
