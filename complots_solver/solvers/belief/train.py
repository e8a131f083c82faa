"""Self-play training of the value network (ReBeL's loop), with atomic checkpoints and resume.

Each round plays ``games`` self-play games by subgame solving with the
current network (:func:`.search.self_play_game`), adds every turn-start
root's per-hand values to a replay buffer, and takes Adam steps on the
buffer. Game g of round r is seeded from (seed, r, g) alone, so a run gives
the same network for a fixed seed whatever the number of workers, and a run
resumed from a checkpoint continues exactly as if it had not stopped.
"""

from __future__ import annotations

import json
import time
import zipfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.belief.policy_net import PolicyNet
from complots_solver.solvers.belief.search import SearchSettings, self_play_game
from complots_solver.solvers.common.atomic import atomic_write_bytes, atomic_write_npz_streamed
from complots_solver.solvers.common.folders import POLICY_FILE, TRAINING_LOG, VALUE_FILE
from complots_solver.solvers.common.pool import WorkerPool
from complots_solver.solvers.knowledge.belief_features import F_HANDS, NUM_FEATURES, NUM_OUTPUTS
from complots_solver.solvers.nets.valuenet import Adam, ValueNet

CHECKPOINT = "belief-checkpoint.npz"


@dataclass(frozen=True)
class TrainSettings:
    """Budget and hyper-parameters of a training run."""

    games: int = 16  # self-play games per round
    iterations: int = 64  # CFR iterations per subgame
    epsilon: float = 0.1  # exploration in self-play
    explore_beliefs: bool = True  # epsilon also in beliefs and value targets (see SearchSettings)
    leaf_average: bool = False  # leaf beliefs from the average strategy (see SearchSettings)
    sample_iteration: bool = False  # one iteration's beliefs carry the game on (SearchSettings)
    hidden: tuple[int, ...] = (128, 128)
    buffer: int = 200_000  # examples kept (newest)
    steps: int = 100  # Adam steps per round
    batch: int = 256
    lr: float = 1e-3
    outcome_weight: float = 0.0  # blend of the game's result into the held hands' targets
    # 0: none; 1: the network's two players' values are shifted to sum to 0 under the belief
    # where it is used (leaves, promises), its outputs fitted before the shift; 2: fitted
    # through the shift as well (DeepStack's zero-sum layer)
    zero_sum: int = 0
    # True: roots carry counterfactual reaches and every hand they allow gets a target
    counterfactual: bool = False
    seed: int = 0
    workers: int = 1

    def validate(self) -> None:
        """ValueError naming the first bad setting."""
        for name in ("games", "iterations", "buffer", "steps", "batch", "workers"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if not 0.0 <= self.epsilon <= 1.0:
            raise ValueError(f"epsilon must be in [0, 1], got {self.epsilon}")
        if not 0.0 <= self.outcome_weight <= 1.0:
            raise ValueError(f"outcome_weight must be in [0, 1], got {self.outcome_weight}")
        if self.zero_sum not in (0, 1, 2):
            raise ValueError(f"zero_sum must be 0, 1 or 2, got {self.zero_sum}")
        if self.lr <= 0.0:
            raise ValueError(f"lr must be positive, got {self.lr}")
        if not self.hidden or any(h < 1 for h in self.hidden):
            raise ValueError(f"hidden must list positive widths, got {self.hidden}")

    @property
    def zero_sum_from(self) -> int:
        """The network's ``zero_sum_from`` under these settings."""
        return F_HANDS if self.zero_sum else -1

    @property
    def fit_through_zero_sum(self) -> bool:
        """Whether Adam fits the outputs after the zero-sum shift (``zero_sum=2``)."""
        return self.zero_sum == 2

    def new_net(self) -> ValueNet:
        """A fresh value network of these settings (layers, seed, zero-sum layer)."""
        return ValueNet.create(
            [NUM_FEATURES, *self.hidden, NUM_OUTPUTS],
            seed=self.seed,
            zero_sum_from=self.zero_sum_from,
        )

    def search(self) -> SearchSettings:
        """The subgame settings of self-play."""
        return SearchSettings(
            iterations=self.iterations,
            epsilon=self.epsilon,
            explore_beliefs=self.explore_beliefs,
            leaf_average=self.leaf_average,
            sample_iteration=self.sample_iteration,
        )


def _game_seed(seed: int, round_: int, game: int) -> np.random.Generator:
    return np.random.default_rng([seed, round_, game])


def _play(args: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, int]:
    """One self-play game in a worker: stacked (features, targets, masks), result, turns."""
    cfg, net, search, seed, round_, game, outcome_weight, counterfactual = args
    examples, result, turns = self_play_game(
        cfg,
        net,
        search,
        _game_seed(seed, round_, game),
        outcome_weight,
        counterfactual=counterfactual,
    )
    if examples:
        feats = np.stack([e[0] for e in examples])
        targets = np.stack([e[1] for e in examples])
        masks = np.stack([e[2] for e in examples])
    else:
        feats = np.empty((0, NUM_FEATURES), np.float32)
        targets = np.empty((0, NUM_OUTPUTS), np.float32)
        masks = np.empty((0, NUM_OUTPUTS), np.float32)
    return feats, targets, masks, result, turns


@dataclass
class TrainState:
    """Everything a checkpoint holds."""

    net: ValueNet
    adam: Adam
    feats: np.ndarray
    targets: np.ndarray
    masks: np.ndarray
    round: int = 0
    games: int = 0
    examples: int = 0
    seconds: float = 0.0
    history: list[dict] = field(default_factory=list)
    pretrained: bool = False


class Trainer:
    """A resumable training run in a directory (see the module note)."""

    def __init__(
        self,
        config: GameConfig,
        settings: TrainSettings,
        out: Path,
        resume: bool = False,
        initial_net: ValueNet | None = None,
    ) -> None:
        settings.validate()
        if config.players != 2:
            raise ValueError("players: the belief solver handles 2-player games")
        self.config = config
        self.cfg = config.to_array()
        self.settings = settings
        self.out = Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        path = self.out / CHECKPOINT
        if resume and path.exists():
            self.state = self._load(path)
        else:
            net = settings.new_net()
            if initial_net is not None:
                if initial_net.sizes != net.sizes:
                    raise ValueError(
                        f"initial_net: layers {initial_net.sizes}, expected {net.sizes}"
                    )
                net = ValueNet(
                    [w.copy() for w in initial_net.weights],
                    [b.copy() for b in initial_net.biases],
                    zero_sum_from=net.zero_sum_from,
                )
            self.state = TrainState(
                net=net,
                adam=Adam(net, lr=settings.lr, through_zero_sum=settings.fit_through_zero_sum),
                feats=np.empty((0, NUM_FEATURES), np.float32),
                targets=np.empty((0, NUM_OUTPUTS), np.float32),
                masks=np.empty((0, NUM_OUTPUTS), np.float32),
                pretrained=initial_net is not None,
            )

    # ---- one round ----------------------------------------------------------------
    def round(self, executor: WorkerPool | None = None) -> dict:
        """Play a round of games, train on the buffer, checkpoint; the round's figures."""
        st = self.state
        s = self.settings
        start = time.perf_counter()
        # a fresh network's first round values every leaf at 0; a pretrained one is used at once
        net = st.net if st.round > 0 or st.pretrained else None
        jobs = [
            (self.cfg, net, s.search(), s.seed, st.round, g, s.outcome_weight, s.counterfactual)
            for g in range(s.games)
        ]
        results = (executor or WorkerPool(1)).map(_play, jobs)
        play_s = time.perf_counter() - start
        feats = np.concatenate([st.feats] + [r[0] for r in results])[-s.buffer :]
        targets = np.concatenate([st.targets] + [r[1] for r in results])[-s.buffer :]
        masks = np.concatenate([st.masks] + [r[2] for r in results])[-s.buffer :]
        st.feats, st.targets, st.masks = feats, targets, masks
        rng = np.random.default_rng([s.seed, st.round, 1 << 20])
        losses = []
        for _ in range(s.steps):
            idx = rng.integers(len(feats), size=min(s.batch, len(feats)))
            losses.append(st.adam.step(feats[idx], targets[idx], masks[idx]))
        new_examples = sum(len(r[0]) for r in results)
        st.round += 1
        st.games += s.games
        st.examples += new_examples
        elapsed = time.perf_counter() - start
        st.seconds += elapsed
        row = {
            "round": st.round,
            "games": st.games,
            "examples": st.examples,
            "buffer": len(feats),
            "loss": float(np.mean(losses[-max(1, s.steps // 4) :])),
            "seat0_mean": float(np.mean([r[3] for r in results])),
            "turns_mean": float(np.mean([r[4] for r in results])),
            "play_s": round(play_s, 2),
            "seconds": round(st.seconds, 1),
        }
        st.history.append(row)
        self._save()
        return row

    def run(
        self,
        rounds: int | None = None,
        seconds: float | None = None,
        log: object | None = None,
        ray_address: str | None = None,
    ) -> None:
        """Rounds until ``rounds`` more are done or ``seconds`` more have passed.

        The games of a round are played on ``settings.workers`` processes, or
        on as many Ray actors when ``ray_address`` is given; the result does not
        depend on either (each game has its own seed).
        """
        if rounds is None and seconds is None:
            raise ValueError("give rounds or seconds")
        start = time.perf_counter()
        done = 0
        executor = WorkerPool(self.settings.workers, ray_address)
        try:
            while (rounds is None or done < rounds) and (
                seconds is None or time.perf_counter() - start < seconds
            ):
                row = self.round(executor)
                done += 1
                if log is not None:
                    log(row)
        finally:
            executor.shutdown()

    # ---- files ----------------------------------------------------------------------
    def _save(self) -> None:
        st = self.state
        arrays: dict[str, np.ndarray] = {
            "feats": st.feats,
            "targets": st.targets,
            "masks": st.masks,
            "adam_t": np.array(st.adam.t),
            "info": np.array(
                json.dumps(
                    {
                        "round": st.round,
                        "games": st.games,
                        "examples": st.examples,
                        "seconds": st.seconds,
                        "history": st.history,
                        "pretrained": st.pretrained,
                        "settings": asdict(self.settings),
                        "game": self.config.game_string(),
                    }
                )
            ),
        }
        for i, (m, v) in enumerate(zip(st.adam.m, st.adam.v, strict=True)):
            arrays[f"adam_m{i}"] = m
            arrays[f"adam_v{i}"] = v
        for i, (w, b) in enumerate(zip(st.net.weights, st.net.biases, strict=True)):
            arrays[f"net_w{i}"] = w
            arrays[f"net_b{i}"] = b
        st.net.meta = {"game": self.config.game_string(), "round": str(st.round)}
        atomic_write_npz_streamed(self.out / CHECKPOINT, arrays)
        st.net.save(self.out / VALUE_FILE)  # the export; the checkpoint is what resumes
        lines = [",".join(st.history[0].keys())] + [
            ",".join(str(v) for v in r.values()) for r in st.history
        ]
        atomic_write_bytes(self.out / TRAINING_LOG, ("\n".join(lines) + "\n").encode())

    def _load(self, path: Path) -> TrainState:
        try:
            return self._read(path)
        except (OSError, KeyError, EOFError, zipfile.BadZipFile, json.JSONDecodeError) as exc:
            raise ValueError(f"{path}: unreadable or corrupt checkpoint ({exc})") from None

    def _read(self, path: Path) -> TrainState:
        with np.load(path, allow_pickle=False) as data:
            info = json.loads(str(data["info"]))
            if info["game"] != self.config.game_string():
                raise ValueError(
                    f"{path}: a checkpoint of {info['game']}, not {self.config.game_string()}"
                )
            layers = sum(1 for k in data.files if k.startswith("net_w"))
            net = ValueNet(
                [np.asarray(data[f"net_w{i}"]) for i in range(layers)],
                [np.asarray(data[f"net_b{i}"]) for i in range(layers)],
                {"game": info["game"], "round": str(info["round"])},
                self.settings.zero_sum_from,
            )
            adam = Adam(
                net, lr=self.settings.lr, through_zero_sum=self.settings.fit_through_zero_sum
            )
            adam.t = int(data["adam_t"])
            adam.m = [np.asarray(data[f"adam_m{i}"]) for i in range(len(adam.m))]
            adam.v = [np.asarray(data[f"adam_v{i}"]) for i in range(len(adam.v))]
            return TrainState(
                net=net,
                adam=adam,
                feats=np.asarray(data["feats"]),
                targets=np.asarray(data["targets"]),
                masks=np.asarray(data["masks"]),
                round=int(info["round"]),
                games=int(info["games"]),
                examples=int(info["examples"]),
                seconds=float(info["seconds"]),
                history=list(info["history"]),
                pretrained=bool(info.get("pretrained", False)),
            )


def _play_policy(args: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One self-play game in a worker, returning its decision examples stacked."""
    cfg, net, search, seed, game, num_actions, own_reach = args
    out: list = []
    rng = _game_seed(seed, 1 << 30, game)
    self_play_game(cfg, net, search, rng, 0.0, num_actions, out, own_reach=own_reach)
    return tuple(np.concatenate([o[i] for o in out]) for i in range(4))


def _play_dagger(args: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One game of the policy network in a worker, its decisions labelled by search, stacked."""
    from complots_solver.solvers.belief.dagger import dagger_game

    cfg, net, policy, search, seed, game, num_actions, own_reach = args
    rng = _game_seed(seed, (1 << 30) + 1, game)
    out = dagger_game(cfg, net, policy, search, rng, num_actions, own_reach)
    return tuple(np.concatenate([o[i] for o in out]) for i in range(4))


def _fit(trainer, data, epochs, batch, rng, log, phase) -> None:
    feats, targets, legal, weights = data
    for epoch in range(epochs):
        order = rng.permutation(len(feats))
        losses = []
        for i in range(0, len(order), batch):
            idx = order[i : i + batch]
            losses.append(trainer.step(feats[idx], targets[idx], legal[idx], weights[idx]))
        if log is not None:
            log(
                {
                    "phase": phase,
                    "epoch": epoch + 1,
                    "examples": len(feats),
                    "loss": float(np.mean(losses)),
                }
            )


def distill_policy(
    config: GameConfig,
    net: ValueNet,
    out: Path,
    games: int,
    iterations: int = 64,
    epochs: int = 30,
    batch: int = 512,
    hidden: tuple[int, ...] = (256, 256),
    seed: int = 0,
    workers: int = 1,
    log: object | None = None,
    ray_address: str | None = None,
    dagger_games: int = 0,
    own_reach: bool = False,
) -> PolicyNet:
    """Fit a policy network to every decision solved in ``games`` search self-play games.

    With ``dagger_games``, the fitted network then plays that many games with
    its own beliefs, each turn labelled by search (see dagger.py), and
    training continues on both sets for half as many epochs. ``own_reach``
    weights decisions by the actor's own reach instead of the joint reach.
    """
    from complots_solver.solvers.belief.policy_net import PolicyNet, PolicyTrainer

    if games < 1 or epochs < 1:
        raise ValueError("games and epochs must be at least 1")
    if dagger_games < 0:
        raise ValueError(f"dagger_games must be at least 0, got {dagger_games}")
    cfg = config.to_array()
    num_actions = config.num_distinct_actions()
    search = SearchSettings(iterations=iterations)
    jobs = [(cfg, net, search, seed, g, num_actions, own_reach) for g in range(games)]
    with WorkerPool(workers, ray_address) as pool:
        parts = pool.map(_play_policy, jobs)
        data = [np.concatenate([p[i] for p in parts]) for i in range(4)]
        data[3] = np.maximum(data[3], 1e-3)
        policy = PolicyNet.create(num_actions, hidden, seed=seed)
        trainer = PolicyTrainer(policy)
        rng = np.random.default_rng([seed, 7])
        _fit(trainer, data, epochs, batch, rng, log, "search")
        if dagger_games > 0:
            jobs2 = [
                (cfg, net, policy, search, seed, g, num_actions, own_reach)
                for g in range(dagger_games)
            ]
            parts2 = pool.map(_play_dagger, jobs2)
            more = [np.concatenate([p[i] for p in parts2]) for i in range(4)]
            more[3] = np.maximum(more[3], 1e-3)
            data = [np.concatenate([a, b]) for a, b in zip(data, more, strict=True)]
            _fit(trainer, data, max(1, epochs // 2), batch, rng, log, "own beliefs")
    policy.net.meta.update(
        {"game": config.game_string(), "games": str(games), "dagger_games": str(dagger_games)}
    )
    policy.save(Path(out) / POLICY_FILE)
    return policy
