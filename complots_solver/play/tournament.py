"""Round-robin tournaments between bots: win rates with 95% intervals, draws, Bradley-Terry.

Seatings: with 2 players every ordered pair of distinct bots (so each bot
plays both seats); with ``n`` players every combination of ``n`` distinct bots
in each of its ``n`` cyclic seat rotations. Each seating plays ``games`` games.
A **fixed table** (``fixed_table=True``) names one bot per seat, names may
repeat (one strategy against copies of a bot), and plays each of its ``n``
cyclic rotations, identical ones included: every rotation is a seating.

Game ``g`` of seating ``m`` draws all its randomness (chance and each seat's
bot) from ``SeedSequence(seed, spawn_key=(m, g))``, so the results do not
depend on how games are split between worker processes.

**Duplicate format** (``duplicate=True``, the default of ``complots evaluate``
at 3 or more players): the seatings of one table (the same set of bots, in
its rotations) share their chance stream, drawn from
``SeedSequence(seed, spawn_key=(t, g, DUPLICATE_TAG))`` for table ``t``. Game
``g`` of every rotation is then the same deal (the same hands, and the same
later draws while play agrees), so every bot plays every seat of every deal,
and luck of the deal cancels out of the comparison. Intervals of a bot's
table share then treat each deal (all its rotations) as one sample.

Each game also records, per seat, how many decisions its bot looked up in a
strategy table and how many of those hit an information state the table lacks
(keyed Monte Carlo CFR strategies play those uniformly):
:meth:`TournamentResult.table_misses` sums them per policy bot.
"""

from __future__ import annotations

import csv
import itertools
import math
import multiprocessing as mp
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyspiel

import complots_solver.openspiel  # noqa: F401  (registers "complots")
from complots_solver.play.bots import Bot, make_bot
from complots_solver.rules import view
from complots_solver.rules.config import GameConfig
from complots_solver.rules.stats import wilson_interval

NO_WINNER = -1
DUPLICATE_TAG = 1  # third spawn-key entry of a duplicate deal's chance stream
ELO_SCALE = 400.0 / math.log(10.0)  # Bradley-Terry log-strength -> Elo points
BT_PRIOR = 0.5  # virtual wins each way between every pair of bots that met
BT_ITERATIONS = 10_000
BT_TOLERANCE = 1e-10
CHUNKS_PER_WORKER = 4


@dataclass(frozen=True)
class GameRecord:
    """One game of a tournament."""

    seating: int  # index into Tournament.seatings
    game: int  # game index within the seating
    seats: tuple[str, ...]  # bot spec of each seat
    winner: int  # winning seat, NO_WINNER on a turn-cap draw
    turns: int
    lookups: tuple[int, ...] = ()  # per seat: decisions looked up in a strategy table
    misses: tuple[int, ...] = ()  # per seat: of those, states the table lacks (uniform)
    deal: int = -1  # duplicate format: the table whose rotations share game g's deal; else -1

    @property
    def capped(self) -> bool:
        """Whether the game ended at the turn cap (a draw)."""
        return self.winner == NO_WINNER

    @property
    def winner_bot(self) -> str:
        """Spec of the winning bot, '' on a draw."""
        return "" if self.capped else self.seats[self.winner]


def seatings(bots: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """The seatings of a round robin (see the module docstring)."""
    names = list(bots)
    if len(set(names)) != len(names):
        raise ValueError(f"bots must be distinct, got {', '.join(names)}")
    if len(names) < 2:
        raise ValueError(f"a tournament needs at least 2 bots, got {len(names)}")
    if len(names) < players:
        raise ValueError(
            f"a {players}-player tournament needs at least {players} distinct bots, got {len(names)}"
        )
    if players == 2:
        return list(itertools.permutations(names, 2))
    out = []
    for combo in itertools.combinations(names, players):
        out += [combo[r:] + combo[:r] for r in range(players)]
    return out


def rotations(seats: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """The seatings of a fixed table: its ``players`` cyclic seat rotations, repeats included."""
    names = tuple(seats)
    if len(names) != players:
        raise ValueError(
            f"a {players}-player game seats {players} bots, one per seat, "
            f"got {len(names)} ({', '.join(names)})"
        )
    return [names[r:] + names[:r] for r in range(players)]


def tables_of(table: Sequence[tuple[str, ...]]) -> list[int]:
    """Per seating, the index of its table: its set of bots, numbered in order of appearance."""
    index: dict[frozenset[str], int] = {}
    return [index.setdefault(frozenset(seats), len(index)) for seats in table]


def game_rngs(
    seed: int, seating: int, game: int, players: int, deal: int = -1
) -> list[np.random.Generator]:
    """Generators of one game: chance first, then one per seat.

    With ``deal >= 0`` (duplicate format) chance comes from the deal's own
    stream, shared by every seating of that table.
    """
    seq = np.random.SeedSequence(seed, spawn_key=(seating, game))
    rngs = [np.random.default_rng(child) for child in seq.spawn(players + 1)]
    if deal >= 0:
        shared = np.random.SeedSequence(seed, spawn_key=(deal, game, DUPLICATE_TAG))
        rngs[0] = np.random.default_rng(shared)
    return rngs


def play_game(
    game: pyspiel.Game, specs: Sequence[str], rngs: Sequence[np.random.Generator]
) -> tuple[int, int]:
    """Play one game between the bots ``specs`` (seat order); return (winner, turns)."""
    winner, turns, _ = play_game_bots(game, specs, rngs)
    return winner, turns


def play_game_bots(
    game: pyspiel.Game,
    specs: Sequence[str],
    rngs: Sequence[np.random.Generator],
    on_decision: Callable[[pyspiel.State, Bot, int], None] | None = None,
) -> tuple[int, int, list[Bot]]:
    """Like :func:`play_game`, also returning the seats' bots (with their table counters).

    ``on_decision(state, bot, action)`` is called before each player action is applied.
    """
    config: GameConfig = game.config
    chance_rng = rngs[0]
    bots = [make_bot(spec, config, rng) for spec, rng in zip(specs, rngs[1:], strict=True)]
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            cdf = np.cumsum([p for _, p in outcomes])
            k = int(np.searchsorted(cdf, chance_rng.random() * cdf[-1], side="right"))
            action = outcomes[min(k, len(outcomes) - 1)][0]
        else:
            bot = bots[state.current_player()]
            action = bot.step(state)
            if on_decision is not None:
                on_decision(state, bot, action)
        state.apply_action(action)
    return state.winner(), view.turn(state.s), bots


def _play_chunk(
    args: tuple[str, list[tuple[str, ...]], list[tuple[int, int]], int, list[int] | None],
) -> list[GameRecord]:
    """Worker: play the (seating, game) units of one chunk (``deals``: duplicate tables)."""
    game_string, table, units, seed, deals = args
    game = pyspiel.load_game(game_string)
    out = []
    for m, g in units:
        specs = table[m]
        deal = -1 if deals is None else deals[m]
        rngs = game_rngs(seed, m, g, len(specs), deal)
        winner, turns, bots = play_game_bots(game, specs, rngs)
        lookups = tuple(b.table_lookups for b in bots)
        misses = tuple(b.table_misses for b in bots)
        out.append(GameRecord(m, g, specs, winner, turns, lookups, misses, deal))
    return out


@dataclass
class TournamentResult:
    """Every game of a tournament, with the summaries computed from them."""

    config: GameConfig
    bots: list[str]
    seatings: list[tuple[str, ...]]
    games_per_seating: int
    seed: int
    records: list[GameRecord]
    duplicate: bool = False

    def table_shares(self) -> pd.DataFrame:
        """Per bot and table it sat at: its win share against the fair share 1/n, and per seat.

        ``opponents`` names the other seats' bots. A bot with several seats
        at the table (``copies``, a fixed table) is pooled over them: its share
        is its wins over its seats' games (``games`` times ``copies``), so 1/n
        stays the fair share. The interval is Wilson's over games; in
        duplicate format, or over a bot's copies, over an effective number of
        games, scaled by the design effect of the deals (the variance of the
        per-deal shares, each deal's rotations one sample, or of each game's
        share among the copies, against the binomial variance), so games
        that share a deal, or seats that share a game, are not counted as
        independent where they are not.
        ``verdict`` says whether the interval lies wholly above or below 1/n.
        ``draws``: the games of the table that ended at the turn cap.
        Columns ``seatP``: the bot's win share in the games it sat at seat P.
        """
        n = self.config.players
        fair = 1.0 / n
        tables = tables_of(self.seatings)
        rows = []
        for t in sorted(set(tables)):
            members = next(s for s, k in zip(self.seatings, tables, strict=True) if k == t)
            mine = [r for r in self.records if tables[r.seating] == t]
            for bot in [b for b in self.bots if b in members]:
                copies = members.count(bot)
                others = list(members)
                others.remove(bot)
                wins = [float(r.winner_bot == bot) for r in mine]
                games = len(wins)
                slots = games * copies
                share = sum(wins) / slots if slots else float("nan")
                by_deal: dict[object, list[float]] = {}
                for r, w in zip(mine, wins, strict=True):
                    key = r.game if self.duplicate else (r.seating, r.game)
                    by_deal.setdefault(key, []).append(w / copies)
                size = float(slots)
                if (self.duplicate or copies > 1) and len(by_deal) > 1 and 0.0 < share < 1.0:
                    samples = np.array([np.mean(v) for v in by_deal.values()])
                    clustered = samples.var(ddof=1) / len(samples)
                    effect = clustered / (share * (1.0 - share) / slots)
                    size = slots / max(effect, 1.0 / n)
                low, high = wilson_interval(share * size, size)
                verdict = "above" if low > fair else "below" if high < fair else "-"
                row = {
                    "bot": bot,
                    "opponents": ", ".join(others),
                    "copies": copies,
                    "games": games,
                    "wins": int(sum(wins)),
                    "draws": sum(r.capped for r in mine),
                    "share": share,
                    "ci_low": low,
                    "ci_high": high,
                    "fair": fair,
                    "verdict": verdict,
                }
                for seat in range(n):
                    at = [r for r in mine if r.seats[seat] == bot]
                    won = sum(r.winner == seat for r in at)
                    row[f"seat{seat}"] = won / len(at) if at else float("nan")
                rows.append(row)
        return pd.DataFrame(rows)

    def standings(self) -> pd.DataFrame:
        """Per bot: games, wins, draws, losses, win rate with its 95% Wilson interval, rating."""
        ratings = self.bradley_terry()
        rows = []
        for bot in self.bots:
            mine = [r for r in self.records if bot in r.seats]
            wins = sum(r.winner_bot == bot for r in mine)
            draws = sum(r.capped for r in mine)
            low, high = wilson_interval(wins, len(mine))
            rows.append(
                {
                    "bot": bot,
                    "games": len(mine),
                    "wins": wins,
                    "draws": draws,
                    "losses": len(mine) - wins - draws,
                    "win_rate": wins / len(mine) if mine else float("nan"),
                    "ci_low": low,
                    "ci_high": high,
                    "bt_rating": ratings[bot],
                }
            )
        return pd.DataFrame(rows)

    def head_to_head(self) -> pd.DataFrame:
        """Per ordered pair (a, b) of bots that met: a's wins, b's wins, draws, a's win rate and CI."""
        rows = []
        for a, b in itertools.permutations(self.bots, 2):
            met = [r for r in self.records if a in r.seats and b in r.seats]
            if not met:
                continue
            wins_a = sum(r.winner_bot == a for r in met)
            wins_b = sum(r.winner_bot == b for r in met)
            low, high = wilson_interval(wins_a, len(met))
            rows.append(
                {
                    "bot": a,
                    "opponent": b,
                    "games": len(met),
                    "wins": wins_a,
                    "opponent_wins": wins_b,
                    "draws": sum(r.capped for r in met),
                    "win_rate": wins_a / len(met),
                    "ci_low": low,
                    "ci_high": high,
                }
            )
        return pd.DataFrame(rows)

    def by_seat(self) -> pd.DataFrame:
        """Win rate of each seat over all games, with 95% intervals."""
        total = len(self.records)
        rows = []
        for seat in range(self.config.players):
            wins = sum(r.winner == seat for r in self.records)
            low, high = wilson_interval(wins, total)
            rate = wins / total if total else float("nan")
            row = {"seat": seat, "games": total, "wins": wins, "win_rate": rate}
            rows.append({**row, "ci_low": low, "ci_high": high})
        return pd.DataFrame(rows)

    def table_misses(self) -> pd.DataFrame:
        """Per bot that looked decisions up in a strategy table: lookups, misses, miss share.

        A miss is a decision at an information state the bot's keyed table
        lacks, played uniformly; exact (tree-aligned) strategies never miss.
        """
        index = {b: i for i, b in enumerate(self.bots)}
        lookups = np.zeros(len(self.bots), dtype=np.int64)
        misses = np.zeros(len(self.bots), dtype=np.int64)
        for r in self.records:
            for seat, spec in enumerate(r.seats):
                if seat < len(r.lookups):
                    lookups[index[spec]] += r.lookups[seat]
                    misses[index[spec]] += r.misses[seat]
        rows = [
            {
                "bot": bot,
                "lookups": int(lookups[i]),
                "misses": int(misses[i]),
                "miss_share": float(misses[i] / lookups[i]),
            }
            for i, bot in enumerate(self.bots)
            if lookups[i] > 0
        ]
        return pd.DataFrame(rows, columns=["bot", "lookups", "misses", "miss_share"])

    def pairwise_wins(self) -> np.ndarray:
        """W[i, j]: how often bot i beat bot j (a winner beats every other seat; draws 1/2 each)."""
        index = {b: i for i, b in enumerate(self.bots)}
        wins = np.zeros((len(self.bots), len(self.bots)))
        for r in self.records:
            ids = [index[s] for s in r.seats]
            if r.capped:
                for i, j in itertools.permutations(ids, 2):
                    wins[i, j] += 0.5
            else:
                w = index[r.seats[r.winner]]
                for j in ids:
                    if j != w:
                        wins[w, j] += 1.0
        return wins

    def bradley_terry(self) -> dict[str, float]:
        """Bradley-Terry ratings on the Elo scale (mean 0), fitted by MM from the pairwise wins.

        Every pair of bots that met gets ``BT_PRIOR`` virtual wins each way so
        that a bot that never won still has a finite rating.
        """
        wins = self.pairwise_wins()
        met = (wins + wins.T) > 0
        wins = wins + BT_PRIOR * met
        games = wins + wins.T
        strength = np.ones(len(self.bots))
        total_wins = wins.sum(axis=1)
        for _ in range(BT_ITERATIONS):
            denom = (games / (strength[:, None] + strength[None, :])).sum(axis=1)
            new = np.where(denom > 0, total_wins / np.where(denom > 0, denom, 1.0), 1.0)
            new /= np.exp(np.mean(np.log(new)))
            if np.max(np.abs(new - strength)) < BT_TOLERANCE:
                strength = new
                break
            strength = new
        logs = np.log(strength)
        return {
            b: float(ELO_SCALE * (x - logs.mean())) for b, x in zip(self.bots, logs, strict=True)
        }

    def write_csv(self, path: Path) -> None:
        """One row per game: seating, game, each seat's bot, winner, turns, capped, table counts.

        ``lookupsP`` and ``missesP``: seat P's strategy-table lookups and misses;
        ``deal``: the duplicate table whose rotations share the game's deal (-1: none).
        """
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", newline="") as fh:
            writer = csv.writer(fh)
            seat_cols = [f"seat{p}" for p in range(self.config.players)]
            players = range(self.config.players)
            writer.writerow(
                ["seating", "game", *seat_cols, "winner_seat", "winner_bot", "turns", "capped"]
                + [f"lookups{p}" for p in players]
                + [f"misses{p}" for p in players]
                + ["deal"]
            )
            for r in self.records:
                lookups = r.lookups or (0,) * self.config.players
                misses = r.misses or (0,) * self.config.players
                writer.writerow(
                    [r.seating, r.game, *r.seats, r.winner, r.winner_bot, r.turns, int(r.capped)]
                    + list(lookups)
                    + list(misses)
                    + [r.deal]
                )


def read_records(path: Path) -> list[GameRecord]:
    """The games of a tournament CSV written by :meth:`TournamentResult.write_csv`."""
    with Path(path).open() as fh:
        rows = list(csv.DictReader(fh))
    if not rows:
        raise ValueError(f"path {path} holds no games")
    seats = sorted((k for k in rows[0] if k.startswith("seat") and k[4:].isdigit()), key=len)
    n = len(seats)
    counted = f"lookups{n - 1}" in rows[0]
    return [
        GameRecord(
            int(r["seating"]),
            int(r["game"]),
            tuple(r[s] for s in seats),
            int(r["winner_seat"]),
            int(r["turns"]),
            tuple(int(r[f"lookups{p}"]) for p in range(n)) if counted else (),
            tuple(int(r[f"misses{p}"]) for p in range(n)) if counted else (),
            int(r.get("deal", -1)),
        )
        for r in rows
    ]


def run_tournament(
    config: GameConfig,
    bots: Sequence[str],
    games: int,
    seed: int,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    duplicate: bool = False,
    fixed_table: bool = False,
) -> TournamentResult:
    """Play a round robin of ``games`` games per seating; identical results for any ``workers``.

    ``duplicate``: the rotations of each table replay the same deals (module note).
    ``fixed_table``: ``bots`` is one table, a bot per seat (names may repeat), played
    in each of its seat rotations; the result's ``bots`` are its distinct names.
    """
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    bots = [b.strip() for b in bots]
    for spec in dict.fromkeys(bots):  # fail early on a bad spec; loads (and caches) strategy tables
        make_bot(spec, config, np.random.default_rng(0))
    table = rotations(bots, config.players) if fixed_table else seatings(bots, config.players)
    bots = list(dict.fromkeys(bots))
    game_string = config.game_string()
    units = [(m, g) for m in range(len(table)) for g in range(games)]
    if workers == 1:
        chunks = [units[i : i + games] for i in range(0, len(units), games)]
    else:
        size = max(1, math.ceil(len(units) / (workers * CHUNKS_PER_WORKER)))
        chunks = [units[i : i + size] for i in range(0, len(units), size)]
    deals = tables_of(table) if duplicate else None
    tasks = [(game_string, table, chunk, seed, deals) for chunk in chunks]
    records: list[GameRecord] = []
    if workers == 1:
        results = map(_play_chunk, tasks)
        for part in results:
            records += part
            if progress is not None:
                progress(len(part))
    else:
        methods = mp.get_all_start_methods()
        ctx = mp.get_context("fork" if "fork" in methods else "spawn")
        with ctx.Pool(workers) as pool:
            for part in pool.imap(_play_chunk, tasks):
                records += part
                if progress is not None:
                    progress(len(part))
    records.sort(key=lambda r: (r.seating, r.game))
    return TournamentResult(config, bots, table, games, seed, records, duplicate)
