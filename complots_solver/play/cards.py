"""Card counting from one player's information: what they know, and what follows.

A :class:`CardTracker` replays a seat's observation tokens (its perfect-recall
information state, ``ComplotsState.view_tokens(seat)``) and keeps what that
seat knows for sure:

* its own face-down cards, every seat's face-up cards and face-down counts;
* a lower bound on the cards of each clan in the Court (``known_court``) and
  out of the game (``known_out``; in the draft, the unpicked piles).

The bounds follow four rules, each sound (never above the truth): a card
seen entering the Court is added (a challenged claimant showing a true claim,
the viewer's own returns after an exchange, a card the viewer saw forced back
by an Examine); a draw the viewer sees removes exactly those cards; a draw of
``k`` hidden cards removes ``k`` from every clan's bound (any of them may have
been drawn); hidden additions (other players' exchange returns) add nothing.

The *unseen* multiset is every card whose place the viewer does not know:
``copies - own hand - face-up - known_court - known_out`` per clan. A claim of
a clan with no unseen copy is impossible. Under a uniform prior over unseen
cards (each opponent's hand a uniformly random subset of the unseen multiset;
private evidence such as a card shown to an Inquisitor is not used), opponent
``q`` holding ``h`` face-down cards has at least one card of clan ``c`` with
probability ``1 - C(M - U_c, h) / C(M, h)`` (``M`` unseen cards, ``U_c`` of clan
``c``): exact hypergeometric combinatorics, no sampling.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from complots_solver.rules import core, view
from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import NUM_CLANS, Clan, Stage, TokenKind, Variant
from complots_solver.rules.layout import (
    A_CHALLENGE,
    A_COUNTER,
    A_FORCE_SWAP,
    A_KEEP,
    A_PASS,
    A_PICK,
    A_REVEAL,
    A_SHOW,
    A_TARGETED,
    MS_FIRST,
    MS_SECOND,
    X_WITCH,
    c2_base,
)
from complots_solver.rules.text import split_token

NO_PLAYER = -1
NO_CLAN = -1


def multiset_counts(m: int) -> np.ndarray:
    """Counts by clan (int64[NUM_CLANS]) of the multiset with id ``m``."""
    out = np.zeros(NUM_CLANS, dtype=np.int64)
    out[MS_FIRST[m]] += 1
    if MS_SECOND[m] >= 0:
        out[MS_SECOND[m]] += 1
    return out


def holding_probabilities(unseen: Sequence[int], hand_size: int) -> np.ndarray:
    """P(a uniformly random ``hand_size``-subset of the ``unseen`` multiset has >= 1 of each clan)."""
    counts = [int(u) for u in unseen]
    if min(counts, default=0) < 0:
        raise ValueError(f"unseen counts must be >= 0, got {counts}")
    total = sum(counts)
    if not 0 <= hand_size <= total:
        raise ValueError(f"hand_size must be from 0 to {total} (unseen cards), got {hand_size}")
    none_ways = math.comb(total, hand_size)
    return np.array(
        [1.0 - math.comb(total - u, hand_size) / none_ways for u in counts], dtype=np.float64
    )


@dataclass(frozen=True)
class CardView:
    """What one seat knows about where the cards are (see the module docstring)."""

    config: GameConfig
    viewer: int
    hand: np.ndarray  # int64[NUM_CLANS]: the viewer's face-down cards
    face_up: np.ndarray  # int64[players, NUM_CLANS]
    face_down: np.ndarray  # int64[players]: face-down card count of each seat
    known_court: np.ndarray  # int64[NUM_CLANS]: lower bound on the Court's cards
    known_out: np.ndarray  # int64[NUM_CLANS]: lower bound on the cards out of the game
    court_size: int

    @property
    def unseen(self) -> np.ndarray:
        """Cards of each clan whose place the viewer does not know."""
        return (
            self.config.copies
            - self.hand
            - self.face_up.sum(axis=0)
            - self.known_court
            - self.known_out
        )

    def impossible_claims(self) -> frozenset[Clan]:
        """Clans no other seat can hold: every copy is accounted for."""
        return frozenset(Clan(c) for c in range(NUM_CLANS) if self.unseen[c] == 0)

    def holding_probabilities(self, player: int) -> np.ndarray:
        """P(seat ``player`` holds at least one card of each clan), uniform prior over unseen cards."""
        if player == self.viewer:
            return (self.hand > 0).astype(np.float64)
        return holding_probabilities(self.unseen, int(self.face_down[player]))

    def claim_probability(self, player: int, clan: int) -> float:
        """P(seat ``player`` truly holds ``clan``) from the viewer's information."""
        return float(self.holding_probabilities(player)[clan])


class CardTracker:
    """Incrementally replays one seat's observation tokens into a :class:`CardView`."""

    def __init__(self, config: GameConfig, viewer: int) -> None:
        """Start from what every seat knows before the deal."""
        self.config = config
        self.viewer = viewer
        self._cfg = config.to_array()
        n = config.players
        self.processed = 0
        self.hand = np.zeros(NUM_CLANS, dtype=np.int64)
        self.face_up = np.zeros((n, NUM_CLANS), dtype=np.int64)
        self.face_down = np.zeros(n, dtype=np.int64)
        s0 = core.initial_state(self._cfg)
        self.known_court = view.court(s0).astype(np.int64)
        self.known_out = view.out_of_game(s0).astype(np.int64)
        self.court_size = int(self.known_court.sum())
        # the current turn, as far as the viewer has seen it
        self._actor = NO_PLAYER
        self._claim = NO_CLAN
        self._counterer = NO_PLAYER
        self._counter_clan = NO_CLAN
        self._examine_target = NO_PLAYER
        self._co_claimant = NO_PLAYER  # Complots 2: claimant of a co-claim or Sorciere claim
        self._co_clan = NO_CLAN
        self._witch = False
        self._shown = NO_CLAN
        self._exchange_drawn = 0

    def view(self) -> CardView:
        """A snapshot of what the viewer knows now."""
        return CardView(
            config=self.config,
            viewer=self.viewer,
            hand=self.hand.copy(),
            face_up=self.face_up.copy(),
            face_down=self.face_down.copy(),
            known_court=self.known_court.copy(),
            known_out=self.known_out.copy(),
            court_size=self.court_size,
        )

    def update(self, tokens: Sequence[int]) -> None:
        """Consume the tokens after the ones already processed (``tokens`` is the full list)."""
        self.extend(tokens[self.processed :])

    def extend(self, new_tokens: Sequence[int]) -> None:
        """Consume the tokens that follow the ones already processed."""
        for token in new_tokens:
            self._apply(int(token))
        self.processed += len(new_tokens)

    def catch_up(self, state: object) -> None:
        """Consume the viewer's tokens of a ``ComplotsState`` since the last call: only the new
        moves are copied (a whole-history copy each decision made long games quadratic)."""
        self.extend(state.view_tokens(self.viewer, self.processed))  # type: ignore[attr-defined]

    # -- one token --
    def _hidden_draw(self, k: int) -> None:
        np.maximum(self.known_court - k, 0, out=self.known_court)

    def _own_draw(self, drawn: np.ndarray) -> None:
        self.hand += drawn
        np.maximum(self.known_court - drawn, 0, out=self.known_court)

    def _draw(self, kind: int, who: int, value: int, size: int) -> None:
        """A draw of ``size`` cards from the Court by ``who``."""
        if kind == TokenKind.PRIVATE:
            self._own_draw(multiset_counts(value))
        else:
            self._hidden_draw(size)
        self.face_down[who] += size
        self.court_size -= size

    def _apply(self, token: int) -> None:
        kind, stage, who, value = split_token(token)
        cfg = self.config
        if stage == Stage.DEAL:
            size = 1 if cfg.variant == Variant.DRAFT else cfg.influence
            self._draw(kind, who, value, size)
        elif stage == Stage.PICK:
            if kind == TokenKind.PRIVATE:
                clan = value - A_PICK
                self.hand[clan] += 1
                self.known_out[clan] = max(self.known_out[clan] - 1, 0)
            else:
                np.maximum(self.known_out - 1, 0, out=self.known_out)
            self.face_down[who] += 1
        elif stage == Stage.ACTION:
            kind_, _ = core.target_of_action(self._cfg, value)
            self._actor = who
            self._claim = int(core.claim_of(kind_))
            self._counterer = NO_PLAYER
            self._counter_clan = NO_CLAN
            self._examine_target = NO_PLAYER
            self._shown = NO_CLAN
        elif stage == Stage.COUNTER:
            if value != A_PASS:
                self._counterer = who
                self._counter_clan = value - A_COUNTER
        elif stage in (Stage.CHALLENGE, Stage.COUNTER_CHALLENGE):
            if value == A_CHALLENGE and kind == TokenKind.CHALLENGE_TRUE:
                on_action = stage == Stage.CHALLENGE
                claimant = self._actor if on_action else self._counterer
                clan = self._claim if on_action else self._counter_clan
                self.known_court[clan] += 1  # the shown card goes back to the Court (D-7)
                self.court_size += 1
                self.face_down[claimant] -= 1
                if claimant == self.viewer:
                    self.hand[clan] -= 1
        elif stage in (Stage.CHALLENGE_DRAW, Stage.EXAMINE_DRAW):
            self._draw(kind, who, value, 1)
        elif stage in (Stage.CHALLENGE_LOSS, Stage.EFFECT_LOSS) and (
            kind == TokenKind.HIDDEN or value >= A_TARGETED
        ):
            # a Sorciere claim: a card is lost face down (only its owner knows which)
            self.face_down[who] -= 1
            if kind == TokenKind.PRIVATE:
                self.hand[value - c2_base(cfg.players) - X_WITCH] -= 1
            self._co_claimant, self._co_clan, self._witch = who, int(Clan.UNTOUCHABLE), True
        elif stage in (Stage.ILLUSION_CLAIM, Stage.UNDERTAKER_CLAIM):
            if value != A_PASS:
                clan = Clan.COLLECTOR if stage == Stage.ILLUSION_CLAIM else Clan.UNTOUCHABLE
                self._co_claimant, self._co_clan, self._witch = who, int(clan), False
        elif stage == Stage.CLAIM_CHALLENGE:
            if self._witch and kind in (TokenKind.CHALLENGE_TRUE, TokenKind.CHALLENGE_FALSE):
                # the card lost face down is turned face up; the token names it
                self.face_up[self._co_claimant, value - A_REVEAL] += 1
            elif value == A_CHALLENGE and kind == TokenKind.CHALLENGE_TRUE:
                claimant, clan = self._co_claimant, self._co_clan
                self.known_court[clan] += 1  # shown, back to the Court (D-7)
                self.court_size += 1
                self.face_down[claimant] -= 1
                if claimant == self.viewer:
                    self.hand[clan] -= 1
        elif stage in (Stage.CHALLENGE_LOSS, Stage.EFFECT_LOSS):
            clan = value - A_REVEAL
            self.face_up[who, clan] += 1
            self.face_down[who] -= 1
            if who == self.viewer:
                self.hand[clan] -= 1
        elif stage == Stage.EXCHANGE_DRAW:
            size = min(cfg.exchange_draw(), self.court_size)
            self._exchange_drawn = size
            self._draw(kind, who, value, size)
        elif stage == Stage.EXCHANGE_KEEP:
            if kind == TokenKind.PRIVATE:
                kept = multiset_counts(value - A_KEEP)
                returned = self.hand - kept
                self.known_court += returned
                self.hand = kept
            self.face_down[who] -= self._exchange_drawn
            self.court_size += self._exchange_drawn
            self._exchange_drawn = 0
        elif stage == Stage.EXAMINE_SHOW:
            self._examine_target = who
            self._shown = value - A_SHOW if kind == TokenKind.PRIVATE else NO_CLAN
        elif stage == Stage.EXAMINE_DECIDE:
            if value == A_FORCE_SWAP:
                target = self._examine_target
                if self._shown != NO_CLAN:
                    self.known_court[self._shown] += 1
                    if target == self.viewer:
                        self.hand[self._shown] -= 1
                self.face_down[target] -= 1
                self.court_size += 1


def card_view(state: object, viewer: int, tracker: CardTracker | None = None) -> CardView:
    """What seat ``viewer`` knows at a ``ComplotsState`` (optionally reusing a tracker)."""
    if tracker is None or tracker.processed > len(state.tokens):  # type: ignore[attr-defined]
        tracker = CardTracker(state.config, viewer)  # type: ignore[attr-defined]
    tracker.catch_up(state)
    return tracker.view()
