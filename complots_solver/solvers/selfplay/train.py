"""League self-play for tables of 3 or more: PPO on the table network against itself, past selves and bots.

Each iteration plays ``games`` games and takes one PPO update on the
learner seats' decisions. A game's chairs are seated one of three ways:

- **self-play** (share ``self_share``): every chair is the learning network;
- **bots** (share ``bot_share``): one chair learns, the others are baseline
  bots drawn from ``bots`` (given by the caller, which owns the bots), each
  chair its own, or in a share ``bot_one_kind`` of these games one kind for
  every bot chair;
- **the exploiter** (share ``exploiter_share``, off by default): one chair is
  the exploiter, the others learn. The exploiter is a second network trained
  each iteration (``exploiter_games`` games) as a best responder to the
  current network (or, with ``exploiter_target=average``, to the average
  network, the strategy the run writes), restarted from a copy of its target
  every ``exploiter_reset`` iterations; playing against it teaches the
  strategy to close the holes a best responder finds (the main-exploiter idea
  of league training);
- **past selves** (the rest): one chair learns, the others are frozen copies
  of the network taken every ``snapshot_every`` iterations (the last
  ``snapshots`` of them), so that the strategy does not forget how to beat
  what it used to play.

With ``average`` set, the learner's decisions also feed the average-strategy
network of :mod:`..nets.average`, which is then the strategy the run writes.

With ``mixture`` M > 1, the strategy the run writes is a **mixture**: the
last network and the M - 1 kept before it, one every ``mixture_every``
iterations (each seat plays one member, drawn for the whole game). The kept
members are in the checkpoint, so a resumed run writes the same mixture;
a warm start begins with none, as it does with past selves.

With ``magnet_every`` set, the ``entropy`` term pulls towards a **magnet**
instead of towards uniform play: the reverse KL to a copy of the network,
replaced by the current network every ``magnet_every`` iterations. A fixed
magnet makes the last iterate converge to the equilibrium of the game
regularised towards it; moving the magnet to that point, again and again,
walks the regularised equilibria towards a Nash equilibrium (magnetic mirror
descent, Sokota et al. 2023; the outer step of R-NaD, Perolat et al. 2021).

With ``frozen`` set, the trainer is a **best responder** instead: one chair
learns against that fixed network in every other chair (no bots, no past
selves; a list of networks is a mixture, each other chair playing one
member drawn for the whole game); its win share over the fair share 1/n is the strategy's measured
weakness (docs/lab/2026-full-game-journal.md section 10).

Everything random comes from ``numpy.random.default_rng([seed, iteration])``,
so a run resumed from its checkpoint continues exactly as an unbroken one.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.common.options import OptionSpec, parse_value
from complots_solver.solvers.common.pool import WorkerPool
from complots_solver.solvers.knowledge.table_features import (
    FEATURE_VERSION,
    MAX_MEMORY,
    config_features,
    memory_of,
)
from complots_solver.solvers.nets.average import AveragePolicy, without_reservoir
from complots_solver.solvers.nets.tablenet import (
    PPO,
    PPOSettings,
    TableNet,
    frozen_arrays,
    frozen_nets,
    optimiser_arrays,
    restore_optimiser,
)
from complots_solver.solvers.selfplay.tables import GameResult, Seat, SeatBot, TableRunner

BotFactory = Callable[[str, np.random.Generator], SeatBot]
DEFAULT_BOTS = "honest,counter,bluffer,trusting,skeptic,brazen,random"
EXPLOITER_TARGETS = ("current", "average")
PAST_KEY = re.compile(r"^past\d+_\d+$")  # a past self's weights in the trainer's state
MEMBER_KEY = re.compile(r"^member\d+_\d+$")  # a kept mixture member's weights


@dataclass(frozen=True)
class SelfPlaySettings:
    """The training settings (``--option key=value`` on the command line)."""

    games: int = 256  # games an iteration
    parallel: int = 64  # games in play at once
    width: int = 256  # units in each of the two hidden layers
    lr: float = 3e-4
    entropy: float = 0.01
    epochs: int = 3
    minibatch: int = 1024
    lam: float = 0.95
    self_share: float = 0.4
    bot_share: float = 0.4
    snapshot_every: int = 10
    snapshots: int = 8
    bots: str = DEFAULT_BOTS
    # share of the bot games in which every bot chair is one bot, drawn from ``bots`` (0: each
    # chair draws its own). Users meet tables of one kind (``complots evaluate --table``), and a
    # table of five card counters almost never comes up when every chair draws its own
    bot_one_kind: float = 0.0
    exploiter_share: float = 0.0
    exploiter_games: int = 128
    exploiter_reset: int = 50
    # whom the exploiter best-responds to: the current network, or the average network
    # (the strategy the run writes, when ``average`` is set)
    exploiter_target: str = "current"
    jobs: int = 2  # independent game streams an iteration is split into (1: the first runs)
    # reservoir rows of the average-strategy network (0: none, the strategy is the last network)
    average: int = 0
    average_steps: int = 32  # Adam steps an iteration fitting the average network
    # 0: the entropy bonus (pull towards uniform); k: pull towards a magnet, the network as it
    # was at the last multiple of k iterations
    magnet_every: int = 0
    # 0: decisions weigh as play reaches them; W > 0: each learner decision's policy term is
    # weighted by 1 / (its seat's own reach so far), at most W, then scaled to mean 1 (the
    # counterfactual weighting of CFR, by importance sampling on the seat's own moves)
    counterfactual: float = 0.0
    # networks in the strategy the run writes: the last one and the mixture - 1 kept before it,
    # one every mixture_every iterations (1: the last network alone). Play draws one per seat
    # for the whole game; the last iterate of league self-play cycles, and a mixture of iterates
    # far enough apart gave a trained responder half to two thirds as much (docs/selfplay.md)
    mixture: int = 1
    mixture_every: int = 100
    # 0: none; K: the run folder keeps a copy of the network about every K iterations
    # (kept/it-NNNNNN/, at the first checkpoint at or past each multiple of K). A league's
    # networks can turn exploitable late in a run (its self-play games stalling), and the
    # best point of a run is found by measuring the kept ones
    keep_every: int = 0
    # the seat's last ``memory`` observations, in order, as inputs after the features (0: none;
    # knowledge.table_features, issue 50): what the features' summary of the record loses
    memory: int = 0
    # the card-count odds as inputs after the features (knowledge.table_features, issue 50)
    odds: bool = False

    @classmethod
    def from_options(cls, options: dict[str, str]) -> SelfPlaySettings:
        """Settings from ``key=value`` strings; ValueError naming an unknown key or a bad value."""
        known = {f.name: f.type for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, raw in options.items():
            if key not in known:
                raise ValueError(f"--option {key}: unknown; allowed: {', '.join(sorted(known))}")
            kind = known[key]
            if kind in ("str", str):
                values[key] = str(raw)
                continue
            if kind in ("bool", bool):
                values[key] = parse_value(OptionSpec(key, bool, False, ""), raw)
                continue
            cast = int if kind in ("int", int) else float
            try:
                values[key] = cast(raw)
            except ValueError:
                raise ValueError(f"--option {key}: {raw!r} is not a number") from None
        settings = cls(**values)
        settings.validate()
        return settings

    def validate(self) -> None:
        """Raise ValueError naming a setting out of range."""
        for name in (
            "games",
            "parallel",
            "width",
            "epochs",
            "minibatch",
            "snapshot_every",
            "exploiter_games",
            "exploiter_reset",
            "jobs",
            "average_steps",
            "mixture",
            "mixture_every",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"--option {name} must be at least 1, got {getattr(self, name)}")
        if self.average < 0:
            raise ValueError(f"--option average must be at least 0, got {self.average}")
        if self.counterfactual < 0:
            raise ValueError(
                f"--option counterfactual must be at least 0, got {self.counterfactual}"
            )
        if self.magnet_every < 0:
            raise ValueError(f"--option magnet_every must be at least 0, got {self.magnet_every}")
        if self.snapshots < 0:
            raise ValueError(f"--option snapshots must be at least 0, got {self.snapshots}")
        if self.keep_every < 0:
            raise ValueError(f"--option keep_every must be at least 0, got {self.keep_every}")
        if not 0 <= self.memory <= MAX_MEMORY:
            raise ValueError(f"--option memory must be in [0, {MAX_MEMORY}], got {self.memory}")
        for name in ("self_share", "bot_share", "exploiter_share", "bot_one_kind"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"--option {name} must be in [0, 1], got {getattr(self, name)}")
        if self.self_share + self.bot_share + self.exploiter_share > 1.0:
            raise ValueError("--option self_share + bot_share + exploiter_share must be at most 1")
        if self.exploiter_target not in EXPLOITER_TARGETS:
            raise ValueError(
                f"--option exploiter_target must be one of {', '.join(EXPLOITER_TARGETS)}, "
                f"got {self.exploiter_target!r}"
            )
        if self.exploiter_target == "average" and self.average == 0:
            raise ValueError("--option exploiter_target=average needs --option average > 0")
        if self.lr <= 0 or self.entropy < 0 or not 0.0 <= self.lam <= 1.0:
            raise ValueError("--option lr must be > 0, entropy >= 0 and lam in [0, 1]")

    def bot_list(self) -> list[str]:
        """The bot names of ``bots``."""
        return [b.strip() for b in self.bots.split(",") if b.strip()]

    def record(self) -> dict[str, Any]:
        """As a plain dict (config.json)."""
        return asdict(self)


LOG_COLUMNS = (
    "iteration",
    "games",
    "decisions",
    "bot_games",
    "bot_win_share",
    "self_turns",
    "entropy",
    "value_loss",
    "clip_frac",
    "seconds",
    "exploiter_win_share",
    "average_loss",
)


@dataclass
class League:
    """Who sits where in an iteration's games (picklable: a worker seats its own games)."""

    players: int
    settings: SelfPlaySettings
    net: TableNet
    past: list[TableNet]
    exploiter: TableNet | None = None
    frozen: list[TableNet] | None = None
    bot_factory: BotFactory | None = None

    def seating(self, rng: np.random.Generator) -> list[Seat]:
        """The chairs of one game (see the module note)."""
        n = self.players
        me = int(rng.integers(n))
        if self.frozen is not None:
            members = self.frozen
            if len(members) == 1:
                seats = [Seat(net=members[0], label="strategy") for _ in range(n)]
            else:  # a mixture: each chair plays one member, drawn for the whole game
                seats = [
                    Seat(net=members[int(rng.integers(len(members)))], label="strategy")
                    for _ in range(n)
                ]
            seats[me] = Seat(net=self.net, learner=True, label="responder")
            return seats
        s = self.settings
        r = rng.random()
        if r < s.self_share:
            return [Seat(net=self.net, learner=True, label="self") for _ in range(n)]
        seats = []
        if s.self_share + s.bot_share <= r < s.self_share + s.bot_share + s.exploiter_share:
            seats = [Seat(net=self.net, learner=True, label="self") for _ in range(n)]
            seats[me] = Seat(net=self.exploiter, label="exploiter")
            return seats
        if r < s.self_share + s.bot_share:
            names = s.bot_list()
            # the draw is made only when asked for, so runs without it deal as before
            one_kind = s.bot_one_kind > 0 and rng.random() < s.bot_one_kind
            kind = names[int(rng.integers(len(names)))] if one_kind else ""
            for _ in range(n):
                name = kind or names[int(rng.integers(len(names)))]
                assert self.bot_factory is not None
                seats.append(Seat(bot=self.bot_factory(name, rng), label=name))
        else:
            for _ in range(n):
                past = self.past[int(rng.integers(len(self.past)))] if self.past else self.net
                seats.append(Seat(net=past, label="past"))
        seats[me] = Seat(net=self.net, learner=True, label="learner")
        return seats


_RUNNERS: dict[tuple[str, int, float], TableRunner] = {}


def play_job(job: tuple) -> tuple[dict[str, np.ndarray], list[GameResult]]:
    """One stream of an iteration's games: ``(config, parallel, lam, league, games, seed)``."""
    config, parallel, lam, league, games, seed = job
    key = (config.game_string(), parallel, lam)
    if key not in _RUNNERS:  # one pyspiel game per worker process
        _RUNNERS[key] = TableRunner(config, parallel=parallel, lam=lam)
    return _RUNNERS[key].play(games, league.seating, np.random.default_rng(seed))


def merge_batches(batches: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The examples of several streams, in stream order."""
    return {k: np.concatenate([b[k] for b in batches]) for k in batches[0]}


def counterfactual_weights(reach_logp: np.ndarray, cap: float) -> np.ndarray:
    """``min(1 / own reach, cap)`` per decision, scaled to mean 1 (``reach_logp``: log own reach)."""
    w = np.minimum(np.exp(-reach_logp.astype(np.float64)), cap)
    return (w / w.mean()).astype(np.float32)


def without_league(state: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A trainer's state (:meth:`SelfPlayTrainer.get_state`, or a checkpoint's) without its past
    selves and with the average network's reservoir emptied, its weights and optimiser kept:
    what a warm start needs (the network and its Adam moments, about a quarter of a
    checkpoint with eight past selves)."""
    out = without_reservoir(
        {k: v for k, v in state.items() if not (PAST_KEY.match(k) or MEMBER_KEY.match(k))}
    )
    out["past"] = np.array(0)
    out["members"] = np.array(0)
    out["member_iterations"] = np.zeros(0, dtype=np.int64)
    return out


class SelfPlayTrainer:
    """The network, its optimiser and its past selves, one iteration at a time (see the module note)."""

    def __init__(
        self,
        config: GameConfig,
        settings: SelfPlaySettings,
        seed: int = 0,
        bot_factory: BotFactory | None = None,
        frozen: TableNet | Sequence[TableNet] | None = None,
        pool: WorkerPool | None = None,
    ) -> None:
        """A fresh trainer (``frozen``: a best responder to that network; ``pool``: where the
        ``jobs`` game streams are played, which changes only the wall time)."""
        settings.validate()
        self.pool = pool
        self.config = config
        self.settings = settings
        self.seed = seed
        if isinstance(frozen, TableNet):
            frozen = [frozen]
        self.frozen = None if frozen is None else list(frozen)
        if self.frozen is not None and not self.frozen:
            raise ValueError("frozen: at least one network")
        self.bot_factory = bot_factory
        if settings.bot_share > 0 and frozen is None and bot_factory is None:
            raise ValueError("bot_share > 0 needs a bot factory")
        self.runner = TableRunner(config, parallel=settings.parallel, lam=settings.lam)
        cfg = config.to_array()
        feats = config_features(cfg, settings.memory, settings.odds)
        for f in self.frozen or ():
            try:
                memory_of(f.num_features, cfg)
            except ValueError:
                raise ValueError("frozen: the network was trained on other features") from None
        self.net = TableNet.create(
            feats,
            config.num_distinct_actions(),
            (settings.width, settings.width),
            seed=seed,
        )
        self.ppo = PPO(
            self.net,
            PPOSettings(
                lr=settings.lr,
                entropy=settings.entropy,
                epochs=settings.epochs,
                minibatch=settings.minibatch,
            ),
        )
        self.past: list[TableNet] = []
        self.members: list[tuple[int, TableNet]] = []  # kept for the written mixture
        self.exploiter: TableNet | None = None
        self.exploiter_ppo: PPO | None = None
        if frozen is None and settings.exploiter_share > 0:
            self.exploiter = self.net.copy()
            self.exploiter_ppo = PPO(self.exploiter, self.ppo.settings)
        self.average: AveragePolicy | None = None
        if frozen is None and settings.average > 0:
            self.average = AveragePolicy(
                self.net.copy(),
                settings.average,
                settings.average_steps,
                settings.minibatch,
                binary_from=config_features(cfg, 0, settings.odds) if settings.memory else None,
            )
        self.magnet: TableNet | None = None
        if frozen is None and settings.magnet_every > 0:
            self.magnet = self.net.copy()
        self.iteration = 0
        self.games = 0
        self.last: dict[str, float] = {}
        self.stepping = False  # True inside an iteration: the state is then half-updated

    # -- seating ---------------------------------------------------------------------
    def league(self) -> League:
        """The seating of this iteration's games."""
        return League(
            self.config.players,
            self.settings,
            self.net,
            self.past,
            self.exploiter,
            self.frozen,
            self.bot_factory,
        )

    def _seating(self, rng: np.random.Generator) -> list[Seat]:
        return self.league().seating(rng)

    def _play(self, rng: np.random.Generator) -> tuple[dict[str, np.ndarray], list[GameResult]]:
        """The iteration's games: one stream drawn from ``rng`` in this process, or ``jobs``
        streams of their own on the pool."""
        s = self.settings
        if s.jobs == 1:
            return self.runner.play(s.games, self._seating, rng)
        league = self.league()
        jobs = [
            (
                self.config, s.parallel, s.lam, league, s.games // s.jobs + (j < s.games % s.jobs),
                [self.seed, self.iteration, 29, j],
            )
            for j in range(s.jobs)
        ]  # fmt: skip
        pool = self.pool or WorkerPool(1)
        done = pool.map(play_job, jobs)
        results = [g for _, rs in done for g in rs]
        return merge_batches([b for b, _ in done]), results

    # -- one iteration ---------------------------------------------------------------
    def step(self, iterations: int | None = None) -> int:
        """Play and learn ``iterations`` iterations (None: one)."""
        n = 1 if iterations is None else iterations
        for _ in range(n):
            self.stepping = True
            self._iterate()
            self.stepping = False
        return n

    def run(self, iterations: int) -> None:
        """Run ``iterations`` more iterations."""
        self.step(iterations)

    def _exploiter_target(self) -> TableNet:
        """The network the exploiter best-responds to (``exploiter_target``)."""
        if self.settings.exploiter_target == "average" and self.average is not None:
            return self.average.net
        return self.net

    def _exploiter_seating(self, rng: np.random.Generator) -> list[Seat]:
        n = self.config.players
        me = int(rng.integers(n))
        target = self._exploiter_target()
        seats = [Seat(net=target, label="strategy") for _ in range(n)]
        seats[me] = Seat(net=self.exploiter, learner=True, label="exploiter")
        return seats

    def _train_exploiter(self, rng: np.random.Generator) -> float:
        """One exploiter update against its target; its win share in those games."""
        assert self.exploiter is not None and self.exploiter_ppo is not None
        s = self.settings
        if self.iteration % s.exploiter_reset == 0:
            self.exploiter.assign(self._exploiter_target())
            self.exploiter_ppo = PPO(self.exploiter, self.ppo.settings)
        batch, results = self.runner.play(s.exploiter_games, self._exploiter_seating, rng)
        if len(batch["x"]):
            self.exploiter_ppo.train(batch, rng)
        wins = sum(1 for g in results if g.winner == g.learners[0])
        return wins / max(len(results), 1)

    def _iterate(self) -> None:
        start = time.perf_counter()
        s = self.settings
        exploiter_share = float("nan")
        if self.exploiter is not None:
            exploiter_share = self._train_exploiter(
                np.random.default_rng([self.seed, self.iteration, 31])
            )
        if self.magnet is not None and self.iteration % s.magnet_every == 0:
            self.magnet.assign(self.net)
        # one stream: the games, then the update, draw from one generator (as the first runs)
        rng = np.random.default_rng(
            [self.seed, self.iteration, 29, *([] if s.jobs == 1 else [s.jobs])]
        )
        batch, results = self._play(rng)
        average_loss = float("nan")
        if self.average is not None:
            # its own generator, so that a run without the average network is unchanged
            avg_rng = np.random.default_rng([self.seed, self.iteration, 37])
            probs, _ = self.net.policy_value(batch["x"], batch["legal"])
            self.average.add(batch["x"], batch["legal"], probs, avg_rng)
        if self.magnet is not None and len(batch["x"]):
            mp, _ = self.magnet.policy_value(batch["x"], batch["legal"])
            batch["magnet_logp"] = np.where(
                batch["legal"] > 0, np.log(np.maximum(mp, 1e-30)), 0.0
            ).astype(np.float32)
        if s.counterfactual > 0 and len(batch["x"]):
            batch["weight"] = counterfactual_weights(batch["reach_logp"], s.counterfactual)
        terms = self.ppo.train(batch, rng) if len(batch["x"]) else {}
        if self.average is not None:
            average_loss = self.average.train(avg_rng)
        self.iteration += 1
        self.games += len(results)
        if self.frozen is None and s.snapshots > 0 and self.iteration % s.snapshot_every == 0:
            self.past.append(self.net.copy())
            self.past = self.past[-s.snapshots :]
        if self.frozen is None and s.mixture > 1 and self.iteration % s.mixture_every == 0:
            self.members.append((self.iteration, self.policy().copy()))
            self.members = self.members[-s.mixture :]
        if self.frozen is not None:
            bot_games = results  # the responder's games against the strategy
        else:
            bot_games = [
                g
                for g in results
                if g.labels[g.learners[0]] == "learner" and "past" not in g.labels
            ]
        wins = sum(1 for g in bot_games if g.winner == g.learners[0])
        self_games = [g for g in results if len(g.learners) == self.config.players]
        self.last = {
            "iteration": float(self.iteration),
            "games": float(self.games),
            "decisions": float(len(batch["x"])),
            "bot_games": float(len(bot_games)),
            "bot_win_share": wins / len(bot_games) if bot_games else float("nan"),
            "self_turns": float(np.mean([g.turns for g in self_games]))
            if self_games
            else float("nan"),
            "entropy": terms.get("entropy", float("nan")),
            "value_loss": terms.get("value_loss", float("nan")),
            "clip_frac": terms.get("clip_frac", float("nan")),
            "seconds": time.perf_counter() - start,
            "exploiter_win_share": exploiter_share,
            "average_loss": average_loss,
        }

    # -- the driver's solver protocol ------------------------------------------------
    def get_state(self) -> dict[str, np.ndarray]:
        """Network, optimiser, past selves and counters as named arrays."""
        out: dict[str, np.ndarray] = {
            "iteration": np.array(self.iteration),
            "games": np.array(self.games),
            "past": np.array(len(self.past)),
            "members": np.array(len(self.members)),
            "member_iterations": np.array([it for it, _ in self.members], dtype=np.int64),
            "features": np.array(FEATURE_VERSION),
            **optimiser_arrays(self.net, self.ppo),
        }
        out.update(frozen_arrays("past", self.past))
        out.update(frozen_arrays("member", [net for _, net in self.members]))
        if self.exploiter is not None and self.exploiter_ppo is not None:
            out.update(optimiser_arrays(self.exploiter, self.exploiter_ppo, "x_"))
        if self.average is not None:
            out.update(self.average.get_state())
        if self.magnet is not None:
            for i, p in enumerate(self.magnet.params()):
                out[f"magnet_{i}"] = p
        return out

    def kit_state(self) -> dict[str, np.ndarray]:
        """What a warm start needs: :meth:`get_state` without the past selves and with the
        average's reservoir empty (:func:`without_league`)."""
        return without_league(self.get_state())

    def set_state(self, state: dict[str, np.ndarray]) -> None:
        """Restore what :meth:`get_state` (or :meth:`kit_state`) returned."""
        if int(state.get("features", FEATURE_VERSION)) != FEATURE_VERSION:
            raise ValueError("--resume: the checkpoint was written with other table features")
        self.iteration = int(state["iteration"])
        self.games = int(state["games"])
        restore_optimiser(self.net, self.ppo, state)
        if self.exploiter is not None and self.exploiter_ppo is not None and "x_adam_t" in state:
            restore_optimiser(self.exploiter, self.exploiter_ppo, state, "x_")
        if self.average is not None:
            self.average.set_state(state)
        if self.magnet is not None:
            if "magnet_0" not in state:
                raise ValueError(
                    "--resume: the checkpoint has no magnet (a run without magnet_every)"
                )
            for i, target in enumerate(self.magnet.params()):
                target[...] = state[f"magnet_{i}"]
        self.past = frozen_nets(self.net, state, "past", int(state["past"]))
        # a checkpoint from before mixtures holds none
        iterations = state.get("member_iterations", np.zeros(0, dtype=np.int64))
        members = frozen_nets(self.net, state, "member", int(state.get("members", 0)))
        self.members = [(int(it), net) for it, net in zip(iterations, members, strict=True)]

    def mixture_members(self) -> list[tuple[int, TableNet]]:
        """The earlier networks the written strategy mixes with the last one, newest first, with
        their iterations: up to ``mixture - 1`` kept ones at least half of ``mixture_every``
        iterations before the current one (a run stopped 4 iterations after keeping a member
        would otherwise mix two near copies of one network)."""
        newest = self.iteration - max(1, self.settings.mixture_every // 2)
        earlier = [(it, net) for it, net in self.members if it <= newest]
        return earlier[::-1][: self.settings.mixture - 1]

    def policy(self) -> TableNet:
        """The strategy: the average network when there is one, else the current network."""
        return self.average.net if self.average is not None else self.net

    def evaluate(self) -> dict[str, float]:
        """The last iteration's figures (see LOG_COLUMNS)."""
        return dict(self.last)

    def measure(self, spent: float) -> tuple[tuple[float, ...], dict[str, float]]:
        """The log row and progress figures after a step."""
        figures = self.evaluate()
        return tuple(figures.get(c, float("nan")) for c in LOG_COLUMNS), figures
