"""Seeded self-play of a shipped strategy, recording what the balance report needs.

Each game is played by :func:`complots_solver.play.tournament.play_game_bots`
(the tournament's game loop and bots), every seat the bot spec ``solved`` (or one other spec,
such as ``net:DIR`` for a second strategy of the preset).
Game ``g`` of a preset draws its randomness from
:func:`~complots_solver.play.tournament.game_rngs` with the seating key
:func:`preset_key` (a checksum of the preset's name), so a game's outcome
depends only on the seed, the preset and ``g``: not on the worker count nor on
which other presets are played.

At every decision the recorder reads the true state (every hand), which the
report needs to tell a bluff from a true claim: the strategy itself never sees
it.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pyspiel

from complots_solver.play.base import Bot
from complots_solver.play.tournament import game_rngs, play_game_bots  # registers "complots"
from complots_solver.rules import core, view
from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import NUM_CLANS, ActionKind, Stage
from complots_solver.rules.layout import (
    A_CHALLENGE,
    A_COUNTER,
    A_PASS,
    A_PICK,
)
from complots_solver.rules.presets import load_presets

SOLVED = "solved"
CHUNKS_PER_WORKER = 4
NO_CLAN = -1


def preset_key(preset: str) -> int:
    """The seating key of a preset's games (stable across runs and preset lists)."""
    return zlib.crc32(preset.encode("utf-8"))


@dataclass
class Claim:
    """A claim of a character: by an announced action or by a counter."""

    seat: int
    clan: int
    bluff: bool  # the claimant held no copy of the character
    kind: str  # 'action' or 'counter'
    challenged: bool = False


@dataclass
class Response:
    """A decision whether to challenge a claim."""

    seat: int
    clan: int  # the claimed character's clan
    holds: bool  # the responder holds at least one copy of it
    challenged: bool
    kind: str  # 'action' or 'counter'


@dataclass
class GameRecord:
    """What one self-play game showed."""

    game: int
    winner: int  # -1 on a turn-cap draw
    turns: int
    hands: list[tuple[int, ...]]  # per seat: its starting hand, clans sorted
    picks: list[tuple[int, int]] = field(default_factory=list)  # per seat: (random card, pick)
    claims: list[Claim] = field(default_factory=list)
    responses: list[Response] = field(default_factory=list)
    first_moves: list[tuple[int, str, int, bool]] = field(default_factory=list)
    # first_moves: (seat, action name, claimed clan or -1, bluff)


def _hand(s: np.ndarray, seat: int) -> tuple[int, ...]:
    """The face-down cards of ``seat`` as sorted clans."""
    counts = view.hand(s, seat)
    return tuple(c for c in range(NUM_CLANS) for _ in range(int(counts[c])))


def _holds(s: np.ndarray, seat: int, clan: int) -> bool:
    """Whether ``seat`` holds a face-down copy of ``clan``."""
    return view.hidden(s, seat, clan) > 0


def action_name(kind: int) -> str:
    """'Foreign Aid' for ActionKind.FOREIGN_AID."""
    return ActionKind(kind).name.replace("_", " ").title()


class _Recorder:
    """Collects one game's claims, challenge decisions, draft picks and first moves."""

    def __init__(self, config: GameConfig) -> None:
        self.config = config
        self.cfg = config.to_array()
        self.hands: list[tuple[int, ...]] | None = None
        self.picks: dict[int, tuple[int, int]] = {}
        self.claims: list[Claim] = []
        self.responses: list[Response] = []
        self.first: dict[int, tuple[int, str, int, bool]] = {}
        self.open_claim: dict[str, Claim] = {}  # the claim a challenge window is about

    def __call__(self, state: pyspiel.State, bot: Bot, action: int) -> None:
        """Record the decision ``action`` of the seat to move in ``state`` (before it applies)."""
        s = state.s
        stage = view.stage(s)
        seat = state.current_player()
        if stage == Stage.PICK:
            held = _hand(s, seat)
            self.picks[seat] = (held[0] if held else NO_CLAN, action - A_PICK)
            return
        if self.hands is None and stage == Stage.ACTION:
            self.hands = [_hand(s, p) for p in range(self.config.players)]
        if stage == Stage.ACTION:
            kind, _ = core.target_of_action(self.cfg, action)
            clan = int(core.claim_of(kind))
            bluff = clan >= 0 and not _holds(s, seat, clan)
            if clan >= 0:
                claim = Claim(seat, clan, bluff, "action")
                self.claims.append(claim)
                self.open_claim["action"] = claim
            if seat not in self.first:
                self.first[seat] = (seat, action_name(int(kind)), clan, bluff)
        elif stage == Stage.COUNTER and action != A_PASS:
            clan = action - A_COUNTER
            if 0 <= clan < NUM_CLANS:
                claim = Claim(seat, clan, not _holds(s, seat, clan), "counter")
                self.claims.append(claim)
                self.open_claim["counter"] = claim
        elif stage in (Stage.CHALLENGE, Stage.COUNTER_CHALLENGE):
            kind = "action" if stage == Stage.CHALLENGE else "counter"
            clan = view.claim(s) if kind == "action" else view.counter_clan(s)
            claimant = view.actor(s) if kind == "action" else view.counterer(s)
            challenged = action == A_CHALLENGE
            self.responses.append(Response(seat, clan, _holds(s, seat, clan), challenged, kind))
            claim = self.open_claim.get(kind)
            if challenged and claim is not None and claim.seat == claimant:
                claim.challenged = True

    def record(self, game: int, winner: int, turns: int) -> GameRecord:
        """The finished game's record."""
        seats = range(self.config.players)
        return GameRecord(
            game=game,
            winner=winner,
            turns=turns,
            hands=self.hands or [() for _ in seats],
            picks=[self.picks[p] for p in seats if p in self.picks],
            claims=self.claims,
            responses=self.responses,
            first_moves=[self.first[p] for p in seats if p in self.first],
        )


def _play_chunk(args: tuple[str, str, list[int], int, str]) -> list[GameRecord]:
    """Worker: play and record games ``indices`` of one preset."""
    preset, game_string, indices, seed, spec = args
    game = pyspiel.load_game(game_string)
    config: GameConfig = game.config
    key = preset_key(preset)
    out = []
    for g in indices:
        recorder = _Recorder(config)
        specs = [spec] * config.players
        rngs = game_rngs(seed, key, g, config.players)
        winner, turns, _ = play_game_bots(game, specs, rngs, on_decision=recorder)
        out.append(recorder.record(g, winner, turns))
    return out


def play_preset(
    preset: str,
    games: int,
    seed: int,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    spec: str = SOLVED,
) -> list[GameRecord]:
    """``games`` recorded self-play games of ``preset``'s shipped strategy (any ``workers``);
    ``spec``: the bot in every seat (default ``solved``), the same games' randomness."""
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    presets = load_presets()
    if preset not in presets:
        raise ValueError(f"preset must be one of {', '.join(sorted(presets))}, got {preset!r}")
    game_string = presets[preset].config().game_string()
    indices = list(range(games))
    size = max(1, math.ceil(games / (workers * CHUNKS_PER_WORKER)))
    tasks = [
        (preset, game_string, indices[i : i + size], seed, spec) for i in range(0, games, size)
    ]
    records: list[GameRecord] = []
    if workers == 1:
        parts = map(_play_chunk, tasks)
        for part in parts:
            records += part
            if progress is not None:
                progress(len(part))
    else:
        methods = mp.get_all_start_methods()
        ctx = mp.get_context("fork" if "fork" in methods else "spawn")
        with ctx.Pool(min(workers, len(tasks))) as pool:
            for part in pool.imap(_play_chunk, tasks):
                records += part
                if progress is not None:
                    progress(len(part))
    records.sort(key=lambda r: r.game)
    return records
