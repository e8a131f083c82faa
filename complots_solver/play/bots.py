"""Baseline bots behind one interface, and their OpenSpiel wrapper.

Every bot answers ``action_probabilities(state)`` (a distribution over the
legal actions of the seat to move) and ``step(state)`` (one action sampled
from it with the bot's own ``np.random.Generator``). Bots read only what the
seat to move may know: the public fields of the state (stage, actor, announced
action, claims, coins), and their own cards and card counting from that seat's
observation tokens (:mod:`complots_solver.play.cards`).

Bot specs (:func:`make_bot`): ``random``, ``honest``, ``bluffer``, ``counter``
and ``policy:DIR`` / ``policy:DIR:greedy`` (a solved strategy file: exact
tree-aligned or keyed Monte Carlo CFR).
"""

from __future__ import annotations

import abc
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import pyspiel

from complots_solver.play.base import Bot
from complots_solver.play.cards import CardTracker, CardView, holding_probabilities
from complots_solver.rules import view
from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import NUM_CLANS, ActionKind, Clan, Lineup, Stage
from complots_solver.rules.layout import (
    A_CHALLENGE,
    A_COUNTER,
    A_EXCHANGE,
    A_FORCE_SWAP,
    A_FOREIGN_AID,
    A_INCOME,
    A_KEEP,
    A_PASS,
    A_PICK,
    A_RETURN_CARD,
    A_REVEAL,
    A_SHOW,
    A_TARGETED,
    A_TAX,
    MS_FIRST,
    MS_SECOND,
    T_ASSASSINATE,
    T_COUP,
    T_EXAMINE,
    T_STEAL,
    X_CLAIM,
    X_PAY,
    c2_base,
)

COUP_COST = 7
COMPLOTS2_STAGES = (
    Stage.JUSTICE_GIVE,
    Stage.BLACKMAIL_CHOICE,
    Stage.SPY_AGAIN,
    Stage.ILLUSION_CLAIM,
    Stage.UNDERTAKER_CLAIM,
    Stage.CLAIM_CHALLENGE,
)
ASSASSINATE_COST = 3
STEAL_WORTHWHILE = 2  # steal only from a seat with at least this many coins
DUPLICATE_DISCOUNT = 0.5  # a second copy of a clan is worth this share of the first

# How much a face-down card is worth to keep (higher is better).
CARD_VALUE = {
    Clan.COLLECTOR: 5.0,
    Clan.THIEF: 4.0,
    Clan.ASSASSIN: 4.0,
    Clan.UNTOUCHABLE: 3.0,
    Clan.NEGOTIATOR: 2.0,
}
STRONG_CARD = 4.0  # an Inquisitor forces a swap of a shown card worth at least this


class BotKind(StrEnum):
    """Names of the bot families accepted by :func:`make_bot`."""

    RANDOM = "random"
    HONEST = "honest"
    BLUFFER = "bluffer"
    COUNTER = "counter"
    SKEPTIC = "skeptic"  # challenges everything: punishes over-bluffing
    BRAZEN = "brazen"  # bluffs everything, never challenges: punishes never challenging
    TRUSTING = "trusting"  # honest and never challenges
    POLICY = "policy"


GREEDY_SUFFIX = "greedy"


# ---- what the seat to move knows ------------------------------------------------
@dataclass(frozen=True)
class Situation:
    """The decision at hand, as the seat to move sees it."""

    config: GameConfig
    player: int
    stage: Stage
    legal: tuple[int, ...]
    coins: tuple[int, ...]
    actor: int
    kind: int  # ActionKind announced this turn, -1 before
    target: int
    claim: int  # clan claimed by the announced action, -1 if none
    counterer: int
    counter_clan: int
    shown: int  # clan shown to this seat by an Examine target, -1 if none
    cards: CardView

    @property
    def hand(self) -> np.ndarray:
        """The seat's face-down cards by clan."""
        return self.cards.hand

    def holds(self, clan: int) -> bool:
        """Whether the seat holds a card of ``clan``."""
        return bool(self.cards.hand[clan] > 0)

    def opponents(self) -> list[int]:
        """Living seats other than this one."""
        return [
            q
            for q in range(self.config.players)
            if q != self.player and self.cards.face_down[q] > 0
        ]

    def action(self, block: int, target: int) -> int:
        """Action id of a targeted action kind (T_COUP, ...) on ``target``."""
        return A_TARGETED + block * self.config.players + target


def hand_value(hand: np.ndarray) -> float:
    """Worth of a hand of face-down cards: card values, duplicates discounted."""
    total = 0.0
    for c in range(NUM_CLANS):
        if hand[c] > 0:
            total += CARD_VALUE[Clan(c)] * (1 + DUPLICATE_DISCOUNT * (hand[c] - 1))
    return total


def _multiset(m: int) -> np.ndarray:
    out = np.zeros(NUM_CLANS, dtype=np.int64)
    out[MS_FIRST[m]] += 1
    if MS_SECOND[m] >= 0:
        out[MS_SECOND[m]] += 1
    return out


def _one_hot(clan: int) -> np.ndarray:
    out = np.zeros(NUM_CLANS, dtype=np.int64)
    out[clan] = 1
    return out


def _uniform(actions: Iterable[int]) -> dict[int, float]:
    acts = sorted(set(actions))
    return {a: 1.0 / len(acts) for a in acts}


def _best(actions: Sequence[int], score: dict[int, float]) -> dict[int, float]:
    """Uniform over the actions of maximal score."""
    top = max(score[a] for a in actions)
    return _uniform(a for a in actions if score[a] >= top - 1e-12)


def _mix(parts: Sequence[tuple[float, dict[int, float]]]) -> dict[int, float]:
    """Weighted mixture of distributions (weights renormalised over non-empty parts)."""
    parts = [(w, d) for w, d in parts if w > 0 and d]
    total = sum(w for w, _ in parts)
    out: dict[int, float] = {}
    for w, d in parts:
        for a, p in d.items():
            out[a] = out.get(a, 0.0) + w / total * p
    return out


# ---- shared card-keeping decisions ------------------------------------------------
def least_useful_reveal(sit: Situation) -> dict[int, float]:
    """Reveal the card whose loss leaves the most valuable hand."""
    reveals = [a for a in sit.legal if a < A_TARGETED]  # not the Sorciere claims (Complots 2)
    score = {a: hand_value(sit.hand - _one_hot(a - A_REVEAL)) for a in reveals}
    return _best(reveals, score)


def least_useful_show(sit: Situation) -> dict[int, float]:
    """Show an Inquisitor the card we would miss least if it were swapped."""
    score = {a: hand_value(sit.hand - _one_hot(a - A_SHOW)) for a in sit.legal}
    return _best(sit.legal, score)


def best_keep(sit: Situation) -> dict[int, float]:
    """Keep the most valuable cards after an exchange."""
    score = {a: hand_value(_multiset(a - A_KEEP)) for a in sit.legal}
    return _best(sit.legal, score)


def best_pick(sit: Situation) -> dict[int, float]:
    """Draft pick that makes the most valuable hand with the dealt card."""
    score = {a: hand_value(sit.hand + _one_hot(a - A_PICK)) for a in sit.legal}
    return _best(sit.legal, score)


def examine_decision(sit: Situation) -> dict[int, float]:
    """Force a swap of a strong shown card, return a weak one."""
    strong = sit.shown >= 0 and CARD_VALUE[Clan(sit.shown)] >= STRONG_CARD
    return {A_FORCE_SWAP if strong else A_RETURN_CARD: 1.0}


def strongest_opponent(sit: Situation) -> list[int]:
    """Opponents with the most face-down cards, then the most coins."""
    opps = sit.opponents()
    key = {q: (int(sit.cards.face_down[q]), sit.coins[q]) for q in opps}
    top = max(key.values())
    return [q for q in opps if key[q] == top]


def richest_opponent(sit: Situation) -> list[int]:
    """Opponents with the most coins."""
    opps = sit.opponents()
    top = max(sit.coins[q] for q in opps)
    return [q for q in opps if sit.coins[q] == top]


def _on(sit: Situation, block: int, targets: Iterable[int]) -> dict[int, float]:
    return _uniform(a for t in targets if (a := sit.action(block, t)) in sit.legal)


class RandomBot(Bot):
    """Uniformly random over the legal actions."""

    def action_probabilities(self, state: pyspiel.State) -> dict[int, float]:
        """Uniform over the legal actions."""
        return _uniform(state.legal_actions())


class HeuristicBot(Bot):
    """A rule-based bot: one decision function per stage, with card counting."""

    def __init__(self, config: GameConfig, rng: np.random.Generator, name: str) -> None:
        """A heuristic bot; keeps one card tracker per seat it plays."""
        super().__init__(config, rng, name)
        self._trackers: dict[int, tuple[object, CardTracker]] = {}

    def restart(self) -> None:
        """Drop the card trackers."""
        self._trackers.clear()

    def situation(self, state: pyspiel.State) -> Situation:
        """The decision at hand as the seat to move sees it."""
        s = state.s
        p = view.current_player(s)
        if p < 0:
            raise ValueError(f"{self.name} bot asked to move at a non-decision node (player {p})")
        owner, tracker = self._trackers.get(p, (None, None))
        if owner is not state.tokens or tracker is None:  # a new or cloned game: replay
            tracker = CardTracker(self.config, p)
            self._trackers[p] = (state.tokens, tracker)
        tracker.catch_up(state)
        stage = Stage(view.stage(s))
        actor = view.actor(s)
        shown = view.shown(s) if stage == Stage.EXAMINE_DECIDE and actor == p else -1
        return Situation(
            config=self.config,
            player=p,
            stage=stage,
            legal=tuple(state.legal_actions()),
            coins=tuple(view.all_coins(s, self.config.players).tolist()),
            actor=actor,
            kind=view.announced(s),
            target=view.target(s),
            claim=view.claim(s),
            counterer=view.counterer(s),
            counter_clan=view.counter_clan(s),
            shown=shown,
            cards=tracker.view(),
        )

    def action_probabilities(self, state: pyspiel.State) -> dict[int, float]:
        """Dispatch on the stage to the bot's decision functions."""
        sit = self.situation(state)
        stage = sit.stage
        if stage == Stage.ACTION:
            probs = self.choose_action(sit)
        elif stage == Stage.CHALLENGE:
            probs = self.challenge(sit, sit.actor, sit.claim)
        elif stage == Stage.COUNTER_CHALLENGE:
            probs = self.challenge(sit, sit.counterer, sit.counter_clan)
        elif stage == Stage.COUNTER:
            probs = self.counter(sit)
        elif stage in (Stage.CHALLENGE_LOSS, Stage.EFFECT_LOSS):
            probs = least_useful_reveal(sit)
        elif stage == Stage.EXCHANGE_KEEP:
            probs = best_keep(sit)
        elif stage == Stage.PICK:
            probs = best_pick(sit)
        elif stage == Stage.EXAMINE_SHOW:
            probs = least_useful_show(sit)
        elif stage == Stage.EXAMINE_DECIDE:
            probs = examine_decision(sit)
        elif stage in COMPLOTS2_STAGES:
            probs = self.complots2_decision(sit)
        else:
            raise ValueError(f"no decision at stage {stage.name}")
        probs = {a: p for a, p in probs.items() if p > 0}
        if self.config.extended and (not probs or not set(probs) <= set(sit.legal)):
            # Complots 2 sets: a Complots 1 heuristic that names a power not in play
            # falls back to a uniform choice among the legal moves.
            probs = _uniform(list(sit.legal))
        if not probs or not set(probs) <= set(sit.legal):
            raise AssertionError(f"{self.name} chose {probs} outside the legal {sit.legal}")
        return probs

    @abc.abstractmethod
    def choose_action(self, sit: Situation) -> dict[int, float]:
        """The turn's action."""

    @abc.abstractmethod
    def challenge(self, sit: Situation, claimant: int, clan: int) -> dict[int, float]:
        """Pass or challenge ``claimant``'s claim of ``clan``."""

    @abc.abstractmethod
    def counter(self, sit: Situation) -> dict[int, float]:
        """Pass or counter the action."""

    def complots2_decision(self, sit: Situation) -> dict[int, float]:
        """Complots 2 windows: claim only what it holds, pay when it can, stop spying."""
        base = c2_base(sit.config.players)
        if sit.stage == Stage.CLAIM_CHALLENGE:
            return {A_PASS: 1.0}
        if sit.stage in (Stage.ILLUSION_CLAIM, Stage.UNDERTAKER_CLAIM):
            clan = Clan.COLLECTOR if sit.stage == Stage.ILLUSION_CLAIM else Clan.UNTOUCHABLE
            return {base + X_CLAIM if sit.holds(clan) else A_PASS: 1.0}
        if sit.stage == Stage.BLACKMAIL_CHOICE:
            return {base + X_PAY: 1.0}
        if sit.stage == Stage.SPY_AGAIN:
            return {A_PASS: 1.0}
        return _uniform(list(sit.legal))  # JUSTICE_GIVE: any tied poorest player

    # -- helpers shared by the heuristic bots --
    @staticmethod
    def held_counters(sit: Situation) -> list[int]:
        """Legal counters claiming a clan the seat holds."""
        return [a for a in sit.legal if a != A_PASS and sit.holds(a - A_COUNTER)]

    @staticmethod
    def negotiator_action(sit: Situation) -> dict[int, float]:
        """Exchange (Ambassador) or Examine the strongest opponent (Inquisitor)."""
        if sit.config.lineup == Lineup.INQUISITOR:
            examine = _on(sit, T_EXAMINE, strongest_opponent(sit))
            if examine:
                return examine
        return {A_EXCHANGE: 1.0} if A_EXCHANGE in sit.legal else {}

    @staticmethod
    def is_lethal_assassination(sit: Situation) -> bool:
        """This seat is the target of an Assassinate and has one card left."""
        return (
            sit.kind == ActionKind.ASSASSINATE
            and sit.target == sit.player
            and sit.cards.face_down[sit.player] == 1
        )


class HonestBot(HeuristicBot):
    """Claims only what it holds, never bluffs, challenges only impossible claims."""

    def choose_action(self, sit: Situation) -> dict[int, float]:
        """Coup when it can; otherwise use a character it holds; else Income or Foreign Aid."""
        if sit.coins[sit.player] >= COUP_COST:
            return _on(sit, T_COUP, strongest_opponent(sit))
        if sit.holds(Clan.ASSASSIN) and sit.coins[sit.player] >= ASSASSINATE_COST:
            return _on(sit, T_ASSASSINATE, strongest_opponent(sit))
        if sit.holds(Clan.COLLECTOR):
            return {A_TAX: 1.0}
        if sit.holds(Clan.THIEF):
            rich = [q for q in richest_opponent(sit) if sit.coins[q] >= STEAL_WORTHWHILE]
            if rich:
                return _on(sit, T_STEAL, rich)
        if sit.holds(Clan.NEGOTIATOR):
            probs = self.negotiator_action(sit)
            if probs:
                return probs
        return _uniform([A_INCOME, A_FOREIGN_AID])

    def challenge(self, sit: Situation, claimant: int, clan: int) -> dict[int, float]:
        """Challenge only a claim that is impossible from what it has seen."""
        return {A_CHALLENGE if Clan(clan) in sit.cards.impossible_claims() else A_PASS: 1.0}

    def counter(self, sit: Situation) -> dict[int, float]:
        """Counter only with a card it holds."""
        held = self.held_counters(sit)
        return _uniform(held) if held else {A_PASS: 1.0}


class BlufferBot(HeuristicBot):
    """Claims Duchess, Assassin and Captain freely, counters freely, rarely challenges."""

    CHALLENGE_RATE = 0.05
    ASSASSINATE_WEIGHT = 0.4
    STEAL_WEIGHT = 0.3
    TAX_WEIGHT = 0.3
    BLUFF_COUNTER_RATE = 0.5

    def choose_action(self, sit: Situation) -> dict[int, float]:
        """Coup when it can; else Assassinate, Steal or Tax whatever it holds."""
        if sit.coins[sit.player] >= COUP_COST:
            return _on(sit, T_COUP, strongest_opponent(sit))
        rich = [q for q in richest_opponent(sit) if sit.coins[q] >= STEAL_WORTHWHILE]
        return _mix(
            [
                (self.ASSASSINATE_WEIGHT, _on(sit, T_ASSASSINATE, strongest_opponent(sit))),
                (self.STEAL_WEIGHT, _on(sit, T_STEAL, rich)),
                (self.TAX_WEIGHT, {A_TAX: 1.0}),
            ]
        )

    def challenge(self, sit: Situation, claimant: int, clan: int) -> dict[int, float]:
        """Challenge rarely, at random."""
        return {A_PASS: 1.0 - self.CHALLENGE_RATE, A_CHALLENGE: self.CHALLENGE_RATE}

    def counter(self, sit: Situation) -> dict[int, float]:
        """Counter with a held card, else bluff a counter (always when facing death)."""
        held = self.held_counters(sit)
        if held:
            return _uniform(held)
        counters = [a for a in sit.legal if a != A_PASS]
        if self.is_lethal_assassination(sit):
            return _uniform(counters)
        return _mix(
            [
                (self.BLUFF_COUNTER_RATE, _uniform(counters)),
                (1 - self.BLUFF_COUNTER_RATE, {A_PASS: 1.0}),
            ]
        )


class CounterBot(HeuristicBot):
    """Card-counting heuristic in the style of popular open-source Coup clients.

    Challenges impossible claims, and improbable ones (posterior below
    ``CHALLENGE_BELOW``; ``LETHAL_CHALLENGE_BELOW`` when an Assassinate would
    take its last card and it has no Countess); counters with the card when it
    holds it (and bluffs the Countess against a lethal Assassinate); prefers
    Tax and Steal, bluffing Tax when no Duchess is publicly accounted for;
    reveals its least useful card; keeps the best cards in an exchange.
    """

    CHALLENGE_BELOW = 0.25
    LAST_CARD_CHALLENGE_BELOW = 0.15
    LETHAL_CHALLENGE_BELOW = 0.75
    ASSASSINATE_IF_COUNTESS_BELOW = 0.5
    STEAL_IF_BLOCK_BELOW = 0.5
    BLUFF_TAX_RATE = 0.6
    FOREIGN_AID_IF_DUCHESS_BELOW = 0.5

    def choose_action(self, sit: Situation) -> dict[int, float]:
        """Coup; Assassinate unless a Countess is likely; Steal or Tax; bluff Tax; else Aid/Income."""
        me = sit.player
        cards = sit.cards
        if sit.coins[me] >= COUP_COST:
            return _on(sit, T_COUP, strongest_opponent(sit))
        if sit.holds(Clan.ASSASSIN) and sit.coins[me] >= ASSASSINATE_COST:
            p_countess = {q: cards.claim_probability(q, Clan.UNTOUCHABLE) for q in sit.opponents()}
            best = min(p_countess.values())
            if best < self.ASSASSINATE_IF_COUNTESS_BELOW:
                return _on(sit, T_ASSASSINATE, [q for q, p in p_countess.items() if p == best])
        if sit.holds(Clan.THIEF):
            rich = [q for q in richest_opponent(sit) if sit.coins[q] >= STEAL_WORTHWHILE]
            blockers = [Clan.THIEF, Clan.NEGOTIATOR]
            safe = [q for q in rich if self._p_any(cards, q, blockers) < self.STEAL_IF_BLOCK_BELOW]
            if safe:
                return _on(sit, T_STEAL, safe)
        if sit.holds(Clan.COLLECTOR):
            return {A_TAX: 1.0}
        if sit.holds(Clan.NEGOTIATOR) and hand_value(sit.hand) < CARD_VALUE[Clan.THIEF]:
            probs = self.negotiator_action(sit)
            if probs:
                return probs
        # Bluff Tax while the Duchess is plausible to everyone: at most one copy face up.
        duchess_up = int(cards.face_up[:, Clan.COLLECTOR].sum())
        p_duchess = max(cards.claim_probability(q, Clan.COLLECTOR) for q in sit.opponents())
        honest = (
            {A_FOREIGN_AID: 1.0}
            if p_duchess < self.FOREIGN_AID_IF_DUCHESS_BELOW
            else {A_INCOME: 1.0}
        )
        if duchess_up <= 1:
            return _mix([(self.BLUFF_TAX_RATE, {A_TAX: 1.0}), (1 - self.BLUFF_TAX_RATE, honest)])
        return honest

    @staticmethod
    def _p_any(cards: CardView, player: int, clans: Sequence[int]) -> float:
        """P(``player`` holds a card of any of ``clans``) under the uniform prior."""
        unseen = cards.unseen
        merged = [int(sum(unseen[c] for c in clans))] + [
            int(unseen[c]) for c in range(NUM_CLANS) if c not in clans
        ]
        return float(holding_probabilities(merged, int(cards.face_down[player]))[0])

    def challenge(self, sit: Situation, claimant: int, clan: int) -> dict[int, float]:
        """Challenge impossible or improbable claims; be bold when the alternative is death."""
        cards = sit.cards
        if Clan(clan) in cards.impossible_claims():
            return {A_CHALLENGE: 1.0}
        p = cards.claim_probability(claimant, clan)
        threshold = self.CHALLENGE_BELOW
        if cards.face_down[sit.player] == 1:
            threshold = self.LAST_CARD_CHALLENGE_BELOW
        if (
            sit.stage == Stage.CHALLENGE
            and self.is_lethal_assassination(sit)
            and not sit.holds(Clan.UNTOUCHABLE)
        ):
            threshold = self.LETHAL_CHALLENGE_BELOW
        return {A_CHALLENGE if p < threshold else A_PASS: 1.0}

    def counter(self, sit: Situation) -> dict[int, float]:
        """Counter with a held card; bluff a counter only against a lethal Assassinate."""
        held = self.held_counters(sit)
        if held:
            return _uniform(held)
        if self.is_lethal_assassination(sit):
            return _uniform(a for a in sit.legal if a != A_PASS)
        return {A_PASS: 1.0}


class SkepticBot(CounterBot):
    """Exploits over-bluffing: plays like ``counter`` but challenges every claim and counter."""

    def challenge(self, sit: Situation, claimant: int, clan: int) -> dict[int, float]:
        """Always challenge."""
        return {A_CHALLENGE: 1.0} if A_CHALLENGE in sit.legal else {A_PASS: 1.0}


class BrazenBot(HeuristicBot):
    """Exploits never challenging: claims the strongest action whatever it holds, counters every attack.

    Coups at 7 coins; otherwise Assassinates with 3 coins, Steals from a
    player worth robbing, else Taxes, all without looking at its cards; counters
    every counterable action by claiming the counter; never challenges (it
    would rather not lose cards it needs for its bluffs).
    """

    def choose_action(self, sit: Situation) -> dict[int, float]:
        """Coup, else Assassinate, else Steal from the rich, else Tax (claims need no card)."""
        if sit.coins[sit.player] >= COUP_COST:
            return _on(sit, T_COUP, strongest_opponent(sit))
        if sit.coins[sit.player] >= ASSASSINATE_COST:
            probs = _on(sit, T_ASSASSINATE, strongest_opponent(sit))
            if probs:
                return probs
        rich = [q for q in richest_opponent(sit) if sit.coins[q] >= STEAL_WORTHWHILE]
        if rich:
            probs = _on(sit, T_STEAL, rich)
            if probs:
                return probs
        if A_TAX in sit.legal:
            return {A_TAX: 1.0}
        return _uniform([A_INCOME, A_FOREIGN_AID])

    def challenge(self, sit: Situation, claimant: int, clan: int) -> dict[int, float]:
        """Never challenge."""
        return {A_PASS: 1.0}

    def counter(self, sit: Situation) -> dict[int, float]:
        """Counter whenever a counter is legal."""
        counters = [a for a in sit.legal if a != A_PASS]
        return _uniform(counters) if counters else {A_PASS: 1.0}


class TrustingBot(HonestBot):
    """Exploits over-challenging from the other side: honest play that never challenges."""

    def challenge(self, sit: Situation, claimant: int, clan: int) -> dict[int, float]:
        """Never challenge."""
        return {A_PASS: 1.0}


HEURISTIC_BOTS: dict[str, type[Bot]] = {
    BotKind.RANDOM: RandomBot,
    BotKind.HONEST: HonestBot,
    BotKind.BLUFFER: BlufferBot,
    BotKind.COUNTER: CounterBot,
    BotKind.SKEPTIC: SkepticBot,
    BotKind.BRAZEN: BrazenBot,
    BotKind.TRUSTING: TrustingBot,
}
BOT_SPECS_HELP = (
    "random, honest, bluffer, counter, skeptic, brazen, trusting, solved, net:DIR, search:DIR, "
    "policy:DIR or policy:DIR:greedy"
)
SEARCH_PREFIX = "search"
NET_PREFIX = "net"
SOLVED = "solved"


def parse_bot_spec(spec: str) -> tuple[BotKind, str | None, bool]:
    """(kind, strategy directory or None, greedy) of a bot spec; ValueError if malformed."""
    text = spec.strip()
    if text in HEURISTIC_BOTS:
        return BotKind(text), None, False
    if text == SOLVED or text.startswith((SEARCH_PREFIX + ":", NET_PREFIX + ":")):
        return BotKind.POLICY, text, False
    head, sep, rest = text.partition(":")
    if head == BotKind.POLICY and sep and rest:
        greedy = False
        directory = rest
        base, sep2, tail = rest.rpartition(":")
        if sep2 and tail == GREEDY_SUFFIX:
            directory, greedy = base, True
        if directory:
            return BotKind.POLICY, directory, greedy
    raise ValueError(f"bot must be one of {BOT_SPECS_HELP}; got {spec!r}")


def make_bot(spec: str, config: GameConfig, rng: np.random.Generator) -> Bot:
    """Build the bot named by ``spec`` for games of ``config``."""
    text = spec.strip()
    kind, directory, greedy = parse_bot_spec(spec)
    if kind == BotKind.POLICY:
        from complots_solver.play.strategy_bot import strategy_bot

        if directory == text:  # solved, net:DIR or search:DIR, opened as spelt
            return strategy_bot(text, config, rng, text)
        return strategy_bot(f"policy:{directory}", config, rng, text, greedy)
    return HEURISTIC_BOTS[kind](config, rng, text)


# ---- OpenSpiel ------------------------------------------------------------------------
class SpielBot(pyspiel.Bot):
    """A :class:`Bot` as an OpenSpiel ``pyspiel.Bot`` (e.g. for ``pyspiel.evaluate_bots``)."""

    def __init__(self, bot: Bot, player_id: int) -> None:
        """Wrap ``bot`` playing seat ``player_id``."""
        pyspiel.Bot.__init__(self)
        self.bot = bot
        self._player_id = player_id

    def player_id(self) -> int:
        """The seat this bot plays."""
        return self._player_id

    def restart_at(self, state: pyspiel.State) -> None:
        """Forget the previous game."""
        self.bot.restart()

    def provides_policy(self) -> bool:
        """Bots expose their action probabilities."""
        return True

    def step_with_policy(self, state: pyspiel.State) -> tuple[list[tuple[int, float]], int]:
        """(policy as (action, probability) pairs, sampled action)."""
        probs = self.bot.action_probabilities(state)
        return sorted(probs.items()), self.bot.step(state)

    def step(self, state: pyspiel.State) -> int:
        """One action for the seat to move."""
        return self.bot.step(state)
