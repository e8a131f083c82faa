"""How two strategies play against each other: action mix, bluffs, counters and challenges.

Tallied from the true state of 2-player games between two bot specs (each in
both seats), so every claim is known true or a bluff. It reads how an
exploiter beats a strategy (``complots bound --save-responder``), or how a
strategy differs from the bots: an equilibrium strategy cannot lose most
games to a never-bluffing bot, so a high challenge rate on true claims is a
quick sign of a far-from-equilibrium strategy.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import pyspiel

import complots_solver.openspiel  # noqa: F401  (registers "complots")
from complots_solver.play.tournament import game_rngs, play_game_bots
from complots_solver.rules import view
from complots_solver.rules.config import GameConfig
from complots_solver.rules.enums import NUM_CLANS, Stage
from complots_solver.rules.layout import A_CHALLENGE, A_COUNTER
from complots_solver.rules.stats import utility_interval

TRUE, BLUFF = 0, 1  # index of a claim's truth in the (true, bluff) pairs


@dataclass
class Behaviour:
    """What one side did over its games (both seats pooled)."""

    spec: str
    games: int = 0
    wins: int = 0
    losses: int = 0
    actions: Counter[str] = field(default_factory=Counter)  # turn actions by kind
    claims: list[int] = field(default_factory=lambda: [0, 0])  # its action claims: true, bluff
    counters: list[int] = field(default_factory=lambda: [0, 0])  # its counters: true, bluff
    counter_windows: int = 0  # times it could counter
    # windows in which it could challenge the other side's action claim / counter, by truth
    action_windows: list[int] = field(default_factory=lambda: [0, 0])
    action_challenges: list[int] = field(default_factory=lambda: [0, 0])
    counter_claim_windows: list[int] = field(default_factory=lambda: [0, 0])
    counter_challenges: list[int] = field(default_factory=lambda: [0, 0])

    @property
    def mean_return(self) -> float:
        """Mean return per game (win +1, loss -1, turn cap 0)."""
        return utility_interval(self.wins, self.losses, self.games)[0]

    def return_interval(self) -> tuple[float, float]:
        """95% interval of :attr:`mean_return` (``rules.stats.utility_interval``)."""
        return utility_interval(self.wins, self.losses, self.games)[1:]


def _holds(state: pyspiel.State, seat: int, clan: int) -> bool:
    return view.hidden(state.s, seat, clan) > 0


def _kind(text: str) -> str:
    """An action's kind without its target ("Steal from P1" -> "Steal")."""
    for cut in (" from P", " on P", " P"):
        if cut in text:
            return text.split(cut)[0]
    return text


def behaviour(
    config: GameConfig, specs: tuple[str, str], games: int, seed: int = 0
) -> tuple[Behaviour, Behaviour]:
    """Play ``games`` games with each spec in each seat; what each side did."""
    if config.players != 2:
        raise ValueError(f"players: behaviour is tallied at 2 players, got {config.players}")
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    game = pyspiel.load_game(config.game_string())
    sides = (Behaviour(specs[0]), Behaviour(specs[1]))
    for seating in (0, 1):
        seat_side = (0, 1) if seating == 0 else (1, 0)  # which side sits in each seat

        def record(
            state: pyspiel.State, _bot: object, action: int, seat_side: tuple[int, int] = seat_side
        ) -> None:
            stage = view.stage(state.s)
            me = state.current_player()
            side = sides[seat_side[me]]
            if stage == Stage.ACTION:
                side.actions[_kind(state.action_to_string(me, action))] += 1
            elif stage == Stage.CHALLENGE:  # an action's claim (the context is set once challenged)
                actor = view.actor(state.s)
                truth = TRUE if _holds(state, actor, view.claim(state.s)) else BLUFF
                sides[seat_side[actor]].claims[truth] += 1
                side.action_windows[truth] += 1
                side.action_challenges[truth] += action == A_CHALLENGE
            elif stage == Stage.COUNTER:
                side.counter_windows += 1
                if A_COUNTER <= action < A_COUNTER + NUM_CLANS:
                    side.counters[TRUE if _holds(state, me, action - A_COUNTER) else BLUFF] += 1
            elif stage == Stage.COUNTER_CHALLENGE:
                counterer, clan = view.counterer(state.s), view.counter_clan(state.s)
                truth = TRUE if _holds(state, counterer, clan) else BLUFF
                side.counter_claim_windows[truth] += 1
                side.counter_challenges[truth] += action == A_CHALLENGE

        seated = tuple(specs[seat_side[s]] for s in (0, 1))
        for g in range(games):
            winner, _, _ = play_game_bots(game, seated, game_rngs(seed, seating, g, 2), record)
            for seat in (0, 1):
                side = sides[seat_side[seat]]
                side.games += 1
                side.wins += winner == seat
                side.losses += winner == 1 - seat
    return sides


def _rate(part: int, whole: int) -> str:
    return f"{part / whole:.2f} ({part}/{whole})" if whole else "-"


def behaviour_table(sides: tuple[Behaviour, Behaviour]) -> str:
    """The two sides' behaviour as a Markdown table."""
    rows = [["", *(s.spec for s in sides)]]
    rows.append(["games (both seats)", *(str(s.games) for s in sides)])
    rows.append(
        [
            "mean return per game",
            *(
                f"{s.mean_return:+.3f} [{s.return_interval()[0]:+.3f}, {s.return_interval()[1]:+.3f}]"
                for s in sides
            ),
        ]
    )
    kinds = sorted(set().union(*(s.actions for s in sides)))
    for kind in kinds:
        rows.append(
            [
                f"turn action: {kind}",
                *(_rate(s.actions[kind], sum(s.actions.values())) for s in sides),
            ]
        )
    rows.append(
        ["its action claims that are bluffs", *(_rate(s.claims[1], sum(s.claims)) for s in sides)]
    )
    rows.append(
        [
            "counters when it may counter",
            *(_rate(sum(s.counters), s.counter_windows) for s in sides),
        ]
    )
    rows.append(
        ["its counters that are bluffs", *(_rate(s.counters[1], sum(s.counters)) for s in sides)]
    )
    for what, done, windows in (
        ("action claim", "action_challenges", "action_windows"),
        ("counter", "counter_challenges", "counter_claim_windows"),
    ):
        for truth, word in ((TRUE, "true"), (BLUFF, "bluffed")):
            rows.append(
                [
                    f"challenges a {word} {what}",
                    *(_rate(getattr(s, done)[truth], getattr(s, windows)[truth]) for s in sides),
                ]
            )
    lines = [
        "| " + " | ".join(rows[0]) + " |",
        "| --- | " + " | ".join("---:" for _ in sides) + " |",
    ]
    lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return "\n".join(lines)
