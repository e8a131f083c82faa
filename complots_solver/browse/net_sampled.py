"""A sampled browser over a policy-network strategy (the belief solver's runs, shipped ``solved``).

The full game's strategies are policy networks: at 2 players a belief
network played with exact beliefs
(:class:`~complots_solver.solvers.belief.netplay.NetPlayer`) or a table
network, at 3 to 6 players a table network, one network playing every seat
(:class:`~complots_solver.solvers.selfplay.player.TablePlayer`, which turns
the network's seat-relative actions into the game's). They have no table to
walk. :class:`NetSampledBrowser` reads one as
:class:`~complots_solver.browse.sampled.SampledBrowser` reads a keyed
strategy: it plays ``games`` self-play games of the network (a player per
seat), records at every decision what the player to move knows (read for
that seat only: its own hand, the public position, the card shown to it),
the network's distribution and the move played, and builds the same
situation and action frames, every aggregate with game-clustered 95%
confidence intervals. A situation is one perfect-recall information state
(its key is the seat's hash of everything it has seen), so the recorded
distribution is the strategy's there.

Game ``g`` draws its randomness from ``SeedSequence(seed, spawn_key=(g,))``:
the same seed gives the same games for any number of workers.
"""

from __future__ import annotations

import json
import multiprocessing as mp
from pathlib import Path
from typing import Any

import numpy as np

from complots_solver.browse.decode import F_OK, F_START_HAND, NUM_FIELDS, read_fields
from complots_solver.browse.sampled import SampledBrowser, SampledGames, note_decision
from complots_solver.rules import core, view
from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import NUM_CLANS, PlayerId, Stage, Variant
from complots_solver.rules.layout import MAX_CHANCE_OUTCOMES
from complots_solver.rules.presets import preset_of, resolve_game
from complots_solver.solvers.belief.netplay import NetPlayer
from complots_solver.solvers.belief.play_policies import NetPolicy
from complots_solver.solvers.belief.policy_net import PolicyNet
from complots_solver.solvers.common.folders import META_FILE, POLICY_FILE
from complots_solver.solvers.mccfr.infokeys import KEYS, init_keys, step_keys
from complots_solver.solvers.nets.tablenet import TableNet
from complots_solver.solvers.policies.open import Kind, open_strategy, strategy_kind
from complots_solver.solvers.selfplay.player import TablePlayer
from complots_solver.solvers.selfplay.policy import TablePolicy

DEFAULT_NET_GAMES = 2000  # a network game costs 0.01 to 0.02 s: the default takes under a minute
_CHANCE = int(PlayerId.CHANCE)
_TERMINAL = int(Stage.TERMINAL)
_PERFECT = KEYS["perfect"]


class _TableSeat:
    """A table network's seat with the belief player's ``action_probabilities(history)``."""

    def __init__(self, cfg: np.ndarray, net: TableNet, mixture: list[TableNet], seat: int) -> None:
        self.player = TablePlayer(cfg, net, mixture, seat)

    def action_probabilities(self, history: list[int]) -> dict[int, float]:
        """The network's probabilities after ``history``."""
        self.player.observe(history)
        return self.player.probabilities()


def _play_games(args: tuple[str, str, int, list[int]]) -> list[dict[str, Any]]:
    """Worker: play and record games ``indices`` of the network (one dict of arrays per game)."""
    game_string, policy_path, seed, indices = args
    config, _ = resolve_game(game_string)
    cfg = np.ascontiguousarray(config.to_array())
    width = config.num_distinct_actions()
    opened = open_strategy(f"net:{Path(policy_path).parent}", config)
    policy: PolicyNet | TableNet
    mixture: list[TableNet] = []
    if isinstance(opened, TablePolicy):
        policy, mixture = opened.net, list(opened.mixture)
    else:
        assert isinstance(opened, NetPolicy)
        policy = opened.policy
    return [_play_one(config, cfg, policy, width, seed, g, mixture) for g in indices]


def _play_one(
    config: GameConfig,
    cfg: np.ndarray,
    policy: PolicyNet | TableNet,
    width: int,
    seed: int,
    g: int,
    mixture: list[TableNet] | None = None,
) -> dict[str, Any]:
    """One self-play game of the network, every decision recorded (see the numba recorder)."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(g,)))
    n = config.players
    draft = config.variant == Variant.DRAFT
    players: list[Any]
    if isinstance(policy, TableNet):
        players = [_TableSeat(cfg, policy, mixture or [], p) for p in range(n)]
    else:
        players = [NetPlayer(cfg, p, policy, width) for p in range(n)]
    s = core.initial_state(cfg).astype(np.int32)
    history: list[int] = []
    hashes = np.zeros(n, dtype=np.uint64)
    memory = np.zeros(n, dtype=np.int64)
    new_hashes = np.zeros(n, dtype=np.uint64)
    new_memory = np.zeros(n, dtype=np.int64)
    init_keys(cfg, hashes, memory)
    outcomes = np.empty(MAX_CHANCE_OUTCOMES, dtype=np.int32)
    chance_probs = np.empty(MAX_CHANCE_OUTCOMES)
    draft_card = np.full(n, -1, dtype=np.int64)
    own_turns = np.zeros(n, dtype=np.int64)
    drawn = np.full(n, -1, dtype=np.int64)
    start = np.zeros((n, NUM_CLANS), dtype=np.int32)
    setup_done = 0
    claim_rec = counter_rec = -1
    rec: dict[str, list] = {k: [] for k in ("seat", "key", "choice", "fields", "actions", "probs")}
    challenged: list[int] = []
    while view.stage(s) != _TERMINAL:
        st = view.stage(s)
        if view.current_player(s) == _CHANCE:
            a = int(core.sample_chance(s, cfg, rng, outcomes, chance_probs))
            if st == Stage.DEAL and draft:
                draft_card[view.deal_next(s)] = a
            elif st == Stage.EXCHANGE_DRAW:
                drawn[view.drawer(s)] = a
        else:
            cur = view.current_player(s)
            probs = players[cur].action_probabilities(history)
            actions = np.array(sorted(probs), dtype=np.int32)
            p = np.array([probs[int(x)] for x in actions])
            j = int(rng.choice(len(actions), p=p / p.sum()))
            a = int(actions[j])
            row = np.zeros(NUM_FIELDS, dtype=np.int32)
            row[F_OK] = 1
            read_fields(s, cfg, cur, draft_card[cur], own_turns[cur], drawn[cur], setup_done, row)
            row[F_START_HAND : F_START_HAND + NUM_CLANS] = start[cur]
            r = len(rec["seat"])
            rec["seat"].append(cur)
            rec["key"].append(np.int64(hashes[cur].view(np.int64)))
            rec["choice"].append(j)
            rec["fields"].append(row)
            rec["actions"].append(actions)
            rec["probs"].append(p)
            challenged.append(0)
            claim_rec, counter_rec, mark = note_decision(
                st, a, cur, r, claim_rec, counter_rec, own_turns, drawn
            )
            if mark >= 0:
                challenged[mark] = 1
        step_keys(s, cfg, a, _PERFECT, hashes, memory, new_hashes, new_memory)
        core.apply_action(s, cfg, a)
        history.append(a)
        hashes[:] = new_hashes
        memory[:] = new_memory
        if setup_done == 0 and view.stage(s) not in (Stage.DEAL, Stage.PICK):
            setup_done = 1
            for q in range(n):
                start[q] = [view.hidden(s, q, c) for c in range(NUM_CLANS)]
    returns = np.zeros(n)
    core.returns_into(s, cfg, returns)
    return {
        **rec,
        "challenged": challenged,
        "returns": returns,
        "capped": view.winner(s) < 0,
        "start": start,
    }


def record_net_games(
    config: GameConfig, policy_path: Path, games: int, seed: int, workers: int = 1
) -> SampledGames:
    """Play and record ``games`` self-play games of the network at ``policy_path`` (2-6 players)."""
    if not isinstance(games, int | np.integer) or isinstance(games, bool) or games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    if not isinstance(seed, int | np.integer) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if config.players != 2 and strategy_kind(Path(policy_path).parent, "net") != Kind.TABLE_NET:
        raise ValueError(
            f"a {config.players}-player game is read from a table network only "
            "(a belief network plays 2-player games)"
        )
    size = max(1, -(-games // (workers * 4)))
    tasks = [
        (config.game_string(), str(policy_path), int(seed), list(range(i, min(i + size, games))))
        for i in range(0, games, size)
    ]
    if workers == 1:
        parts = [_play_games(t) for t in tasks]
    else:
        methods = mp.get_all_start_methods()
        ctx = mp.get_context("fork" if "fork" in methods else "spawn")
        with ctx.Pool(workers) as pool:
            parts = pool.map(_play_games, tasks)
    played = [g for part in parts for g in part]
    return _as_samples(played, games, seed)


def _as_samples(played: list[dict[str, Any]], games: int, seed: int) -> SampledGames:
    """The recorded games as the arrays of :class:`SampledGames`."""
    counts = [len(g["seat"]) for g in played]
    count = int(sum(counts))
    k = [len(a) for g in played for a in g["actions"]]
    slot = np.zeros(count + 1, dtype=np.int64)
    slot[1:] = np.cumsum(k)

    def cat(name: str, dtype: type) -> np.ndarray:
        return np.array([x for g in played for x in g[name]], dtype=dtype)

    return SampledGames.from_records(
        games=games,
        seed=seed,
        game=np.repeat(np.arange(games, dtype=np.int32), counts),
        seat=cat("seat", np.int64),
        key=cat("key", np.int64),
        row=np.zeros(count, dtype=np.int64),  # every decision is the network's own
        choice=cat("choice", np.int64),
        challenged=cat("challenged", np.int8).astype(bool),
        fields=(
            np.vstack([f for g in played for f in g["fields"]])
            if count
            else np.zeros((0, NUM_FIELDS), np.int32)
        ),
        slot=slot,
        slot_action=np.concatenate([a for g in played for a in g["actions"]]).astype(np.int32),
        slot_prob=np.concatenate([p for g in played for p in g["probs"]]),
        returns=np.array([g["returns"] for g in played]),
        capped=np.array([g["capped"] for g in played], dtype=bool),
        start_hands=np.array([g["start"] for g in played], dtype=np.int32),
    )


class NetSampledBrowser(SampledBrowser):
    """Sampled view of a policy-network strategy: the keyed browser's queries, from its games."""

    def __init__(
        self,
        run_dir: Path | str,
        games: int = DEFAULT_NET_GAMES,
        seed: int = 0,
        workers: int = 1,
    ) -> None:
        """Load the network in ``run_dir`` and play ``games`` self-play games with ``seed``."""
        self.run_dir = Path(run_dir)
        path = self.run_dir / POLICY_FILE
        if not path.is_file():
            raise ValueError(f"{self.run_dir}: no {POLICY_FILE}")
        try:
            meta = json.loads((self.run_dir / META_FILE).read_text())
        except (OSError, ValueError):
            meta = {}
        self.table = strategy_kind(self.run_dir, "net") == Kind.TABLE_NET
        policy = TableNet.load(path).net if self.table else PolicyNet.load(path).net
        game = meta.get("game") or policy.meta.get("game")
        if not isinstance(game, str):
            raise ValueError(f"{self.run_dir}: neither meta.json nor the network names a game")
        self.meta: dict[str, Any] = meta if isinstance(meta, dict) else {}
        # thresholding at play lives in the network file, where every player reads it
        self.threshold = TableNet(policy).threshold if self.table else 0.0
        self.config, self.preset = resolve_game(game)
        if self.meta.get("preset"):
            self.preset = self.meta["preset"]
        elif self.preset is None:
            self.preset = preset_of(self.config)  # runs that stored only the game string
        if policy.sizes[-1] - (1 if self.table else 0) != self.config.num_distinct_actions():
            raise ValueError(f"{path}: the network's actions do not match {game}")
        self.policy = None
        self.table_rows = 0
        self.samples = record_net_games(self.config, path, games, seed, workers)
        self.games = self.samples.games
        self.seed = self.samples.seed
        self.method = f"{self.games:,} self-play games, seed {self.seed}, 95% CI"
        self._build()

    def exploitability_bound(self) -> dict[str, Any] | None:
        """The strongest sampled lower bound recorded in meta.json (any responder), if any."""
        found = []
        bounds = self.meta.get("exploitability_bound")
        for method, record in (bounds or {}).items() if isinstance(bounds, dict) else ():
            if isinstance(record, dict) and "exploitability_lower_bound" in record:
                found.append(
                    {
                        "lower_bound": float(record["exploitability_lower_bound"]),
                        "ci95": record.get("ci95") or [float("nan"), float("nan")],
                        "responder": responder_name(str(method)),
                    }
                )
        return max(found, key=lambda b: b["lower_bound"]) if found else None

    def describe_run(self) -> dict[str, Any]:
        """Run facts for report headers: the training behind the network, the sampling."""
        m = self.meta
        out = super().describe_run()
        games = m.get("training_games")
        regret = self.table and m.get("algorithm") == "regret"
        if regret:
            solver_text = "regret (sampled regret matching+ of a table network" + (
                f"; {games:,} training games)" if games else ")"
            )
        elif self.table:
            solver_text = "selfplay (league self-play of a table network, PPO" + (
                f"; {games:,} training games)" if games else ")"
            )
        else:
            solver_text = "belief (public-belief search, distilled policy network" + (
                f"; {games:,} self-play training games)" if games else ")"
            )
        if self.threshold > 0:
            solver_text += f", played with actions under {self.threshold:.0%} dropped"
        mixture = m.get("mixture")
        if isinstance(mixture, dict) and len(mixture.get("iterations") or []) > 1:
            its = ", ".join(f"{i:,}" for i in mixture["iterations"])
            solver_text += (
                f"; a mixture of {len(mixture['iterations'])} networks of the run "
                f"(iterations {its}), each seat playing one for the whole game"
            )
        out.update(
            algorithm="regret" if regret else "selfplay" if self.table else "belief",
            iterations=None,
            solver_text=solver_text,
            quality=m.get("quality"),
            # at a table of 3+, a trained responder's win share against copies of the strategy
            responder_gain=m.get("responder_gain") if self.config.players > 2 else None,
            infosets=None,
            key_scheme=None,
            miss_share=0.0,
        )
        return out


def responder_name(method: str) -> str:
    """A bound's method key in words."""
    if method.startswith("bot:"):
        return f"the '{method[4:]}' bot as a fixed responder"
    budget = method.removeprefix("responder_")
    if budget != method and budget.isdigit():  # a responder trained on another budget
        return f"trained network responder ({int(budget):,} training games)"
    names = {
        "lbr": "local best response",
        "trained": "trained responder",
        "responder": "trained network responder",
    }
    return names.get(method, method)


__all__ = [
    "DEFAULT_NET_GAMES",
    "NetSampledBrowser",
    "record_net_games",
    "responder_name",
]
