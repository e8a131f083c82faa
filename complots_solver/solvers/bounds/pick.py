"""Pick a run's best kept network by the trained responder, and make it a strategy.

A league run's last network is seldom its best: one hour of the 4-player
Inquisitor kept networks between +0.045 and +0.207 of responder's gain
(docs/selfplay.md), and a regret run's average network does not improve
monotonically either (docs/regret.md). A self-play run with ``--option
keep_every=K`` keeps its network every K iterations (``kept/it-NNNNNN/``), a
regret run its average network and state every 100 (``snapshots/iteration-N/``);
:func:`measure_kept` trains a responder against each (one budget and seed for
all, so their gains compare; at 2 players the figure is the mean return per
game, the strongest bound's unit)
and records each result in ``picks.json`` in the run folder as soon as it is
measured, atomically, so a pick killed at any moment resumes where it stopped
and a result measured with other settings is measured again.

The lowest of several noisy gains is an optimistic figure for the network
that has it, so :func:`pick` measures the chosen network again at other seeds
(``confirm``) and the quality it writes quotes those. :func:`write_picked`
writes the choice as a whole strategy folder (``picked/`` by default): the
network, the run's ``meta.json`` with the pick's figures, the training log up
to its iteration, and the state file a warm start continues (a regret
snapshot's own ``regret-state.npz``; for self-play a ``selfplay-state.npz``
made from the network, whose Adam moments restart: the kept copies hold none).
"""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.common.atomic import atomic_write_json, atomic_write_npz
from complots_solver.solvers.common.driver import read_record
from complots_solver.solvers.common.folders import META_FILE, POLICY_FILE, TRAINING_LOG
from complots_solver.solvers.common.rundir import CONFIG_FILE, numbered_folders
from complots_solver.solvers.nets.tablenet import TableNet
from complots_solver.solvers.regret import run as regret_run
from complots_solver.solvers.selfplay import run as selfplay_run
from complots_solver.solvers.selfplay.responder import (
    ResponderResult,
    responder_bound,
    responder_iterations,
)

PICKS_FILE = "picks.json"  # the run folder's record of every kept network measured
PICKS_KIND = "complots pick"
PICKS_VERSION = 2
PICKED_DIR = "picked"  # the chosen network as a strategy folder, under the run folder
RESPONDER_TARGET = 0.05  # a strategy holds if a responder's gain stays below this
# the budgets the docs' figures use (training games, games per seat), by table size
USUAL_BUDGET = {2: (153_600, 2000), 3: (38_400, 400), 4: (25_600, 300)}
LARGE_TABLE_BUDGET = (12_800, 200)  # 5 players and more
STATE_NOTE = (
    "made from the picked network (complots pick): the run keeps no optimiser with its kept "
    "networks, so a continuation's Adam moments restart from zero and its past selves start empty"
)

# trains a responder against one network: (network, training games, games per seat, seed)
Measure = Callable[[TableNet, int, int, int], ResponderResult]


def usual_budget(players: int) -> tuple[int, int]:
    """The responder's usual budget at ``players``: (training games, games per seat)."""
    return USUAL_BUDGET.get(players, LARGE_TABLE_BUDGET)


@dataclass(frozen=True)
class RunKind:
    """Where a family's run keeps its networks, and how a kept one gets its state file."""

    algorithm: str
    folder: str  # under the run folder
    prefix: str  # before the iteration in a kept folder's name
    digits: int  # the iteration's width (0: as many as it has)
    state_file: str

    def name(self, iteration: int) -> str:
        """The kept folder's name for ``iteration``."""
        return (
            f"{self.prefix}{iteration:0{self.digits}d}"
            if self.digits
            else f"{self.prefix}{iteration}"
        )

    def iterations(self, run: Path) -> list[int]:
        """The iterations of the networks ``run`` kept, oldest first."""
        return numbered_folders(Path(run) / self.folder, self.prefix, POLICY_FILE)


KINDS = {
    selfplay_run.ALGORITHM: RunKind(
        selfplay_run.ALGORITHM, selfplay_run.KEPT_DIR, selfplay_run.KEPT_PREFIX, 6,
        selfplay_run.KIT_FILE,
    ),
    regret_run.ALGORITHM: RunKind(
        regret_run.ALGORITHM, regret_run.SNAPSHOT_DIR, "iteration-", 0, regret_run.KIT_FILE
    ),
}  # fmt: skip


@dataclass(frozen=True)
class KeptGain:
    """One responder measurement of one kept network (what :class:`ResponderResult` holds)."""

    iteration: int
    seed: int
    budget: int  # the responder's training games
    games: int  # measuring games per seat
    players: int
    wins: int
    draws: int
    seat_wins: tuple[int, ...]
    seat_games: tuple[int, ...]
    train_iterations: int
    train_seconds: float

    def key(self) -> tuple[int, int, int, int]:
        """What makes two measurements the same one."""
        return (self.iteration, self.seed, self.budget, self.games)

    def result(self) -> ResponderResult:
        """The measurement as the responder reported it (without its network)."""
        return ResponderResult(
            self.players, sum(self.seat_games), self.wins, self.seat_wins, self.seat_games,
            self.train_iterations, self.budget, self.train_seconds, self.draws,
        )  # fmt: skip

    def figure(self) -> tuple[float, float, float]:
        """The figure a pick compares, with its 95% interval: the gain over 1/n, and at 2
        players the mean return per game (the strongest bound's unit)."""
        r = self.result()
        if self.players == 2:
            return (r.mean_return, *r.return_interval())
        return (r.gain, *r.interval())

    def describe(self) -> str:
        """'+0.045 [+0.020, +0.071]'."""
        value, lo, hi = self.figure()
        return f"{value:+.3f} [{lo:+.3f}, {hi:+.3f}]"

    @classmethod
    def of(
        cls, iteration: int, seed: int, budget: int, games: int, result: ResponderResult
    ) -> KeptGain:
        """The measurement ``result`` of the network kept at ``iteration``."""
        return cls(
            iteration, seed, budget, games, result.players, result.wins, result.draws,
            tuple(result.seat_wins), tuple(result.seat_games), result.train_iterations,
            round(result.train_seconds, 1),
        )  # fmt: skip


def responder_measure(config: GameConfig) -> Measure:
    """The real measurement: ``complots bound --method responder`` on one network."""

    def measure(net: TableNet, budget: int, games: int, seed: int) -> ResponderResult:
        return responder_bound(
            config,
            [net],
            iterations=responder_iterations(budget),
            games=games * config.players,
            seed=seed,
        )

    return measure


def read_run(run: Path) -> tuple[dict[str, Any], RunKind]:
    """The run's ``config.json`` (game, settings, seed) and kind; ValueError unless a self-play
    or regret run that kept networks."""
    record = read_record(run)
    if record is None:
        raise ValueError(f"{run} is not a run folder (it has no {CONFIG_FILE})")
    found = record.get("algorithm")
    kind = KINDS.get(str(found))
    if kind is None:
        raise ValueError(f"{run} holds a {found} run; pick reads selfplay and regret runs")
    if not kind.iterations(run):
        how = (
            "train with --option keep_every=K (e.g. 100) to keep some"
            if kind.algorithm == selfplay_run.ALGORITHM
            else "a regret run keeps one every 100 iterations"
        )
        raise ValueError(f"{run} kept no networks: {how}")
    return record, kind


def read_picks(run: Path) -> list[KeptGain]:
    """Every measurement recorded in the run's ``picks.json`` (none if absent)."""
    path = Path(run) / PICKS_FILE
    if not path.is_file():
        return []
    data = json.loads(path.read_text())
    if not isinstance(data, dict) or data.get("kind") != PICKS_KIND:
        raise ValueError(f"{path} is not a pick record")
    if data.get("version") != PICKS_VERSION:
        return []  # an older record: measured again
    out = []
    for row in data.get("measures", []):
        row = dict(row)
        for name in ("seat_wins", "seat_games"):
            row[name] = tuple(row[name])
        out.append(KeptGain(**row))
    return out


def _write_picks(run: Path, game: str, measures: Sequence[KeptGain]) -> None:
    rows = [asdict(m) for m in sorted(measures, key=KeptGain.key)]
    record = {"kind": PICKS_KIND, "version": PICKS_VERSION, "game": game, "measures": rows}
    atomic_write_json(Path(run) / PICKS_FILE, record)


def kept_folder(run: Path, iteration: int, kind: RunKind | None = None) -> Path:
    """The folder of the network the run kept at ``iteration``."""
    kind = kind or read_run(run)[1]
    return Path(run) / kind.folder / kind.name(iteration)


def measure_kept(
    run: Path,
    config: GameConfig,
    iterations: Sequence[int],
    budget: int,
    games: int,
    seeds: Sequence[int],
    measure: Measure,
    report: Callable[[KeptGain, bool], None] | None = None,
    kind: RunKind | None = None,
) -> list[KeptGain]:
    """Each network kept at ``iterations`` measured at each seed, recorded ones reused; each
    new one written to ``picks.json`` before the next starts. ``report(m, reused)`` hears each;
    ``kind``: the run's, when the caller has read it."""
    kind = kind or read_run(run)[1]
    done = read_picks(run)
    known = {m.key(): m for m in done}
    out = []
    for iteration in iterations:
        for seed in seeds:
            found = known.get((iteration, seed, budget, games))
            reused = found is not None
            if found is None:
                net = TableNet.load(kept_folder(run, iteration, kind) / POLICY_FILE)
                found = KeptGain.of(
                    iteration, seed, budget, games, measure(net, budget, games, seed)
                )
                done.append(found)
                known[found.key()] = found
                _write_picks(run, config.game_string(), done)
            if report is not None:
                report(found, reused)
            out.append(found)
    return out


@dataclass(frozen=True)
class Pick:
    """The chosen network, what chose it, and its measurements at other seeds."""

    iteration: int
    candidates: tuple[KeptGain, ...]  # every kept network at the choosing seed
    confirm: tuple[KeptGain, ...]  # the chosen one at other seeds

    @property
    def chosen(self) -> KeptGain:
        """The chosen network's measurement at the choosing seed."""
        return next(m for m in self.candidates if m.iteration == self.iteration)


def choose(candidates: Sequence[KeptGain]) -> int:
    """The iteration with the lowest figure (the earlier one on a tie: fewer iterations)."""
    if not candidates:
        raise ValueError("nothing measured to choose from")
    return min(candidates, key=lambda m: (m.figure()[0], m.iteration)).iteration


def pick(
    run: Path,
    config: GameConfig,
    budget: int,
    games: int,
    seed: int,
    confirm: int,
    measure: Measure,
    last: int = 0,
    report: Callable[[KeptGain, bool], None] | None = None,
) -> Pick:
    """Measure the run's kept networks (the ``last`` newest if > 0) at ``seed``, choose the lowest
    figure, measure it again at the ``confirm`` seeds after ``seed``."""
    kind = read_run(run)[1]
    iterations = kind.iterations(run)
    if last > 0:
        iterations = iterations[-last:]
    candidates = measure_kept(run, config, iterations, budget, games, [seed], measure, report, kind)
    chosen = choose(candidates)
    others = [seed + k for k in range(1, confirm + 1)]
    again = measure_kept(run, config, [chosen], budget, games, others, measure, report, kind)
    return Pick(chosen, tuple(candidates), tuple(again))


def record_responder(
    meta: dict[str, Any], result: ResponderResult, command: str, quality: str | None = None
) -> None:
    """Write ``result`` into a strategy's ``meta``: ``responder_gain``, at 2 players also the
    ``exploitability_bound`` entry, and the quality sentence (``quality``, or one made from
    ``result``: WEAK above 0.05)."""
    lo, hi = result.interval()
    meta["responder_gain"] = {
        "gain": round(result.gain, 4),
        "ci95": [round(lo, 4), round(hi, 4)],
        "win_share": round(result.share, 4),
        "games": result.games,
        "seat_wins": list(result.seat_wins),
        "seat_games": list(result.seat_games),
        "train_iterations": result.train_iterations,
        "train_games": result.train_games,
        "train_seconds": round(result.train_seconds, 1),
        "command": command,
    }
    # the 2-player goal (a best responder gains at most 0.05) read as win share over 1/n
    label = "WEAK" if hi > RESPONDER_TARGET else "HOLDS"
    if result.players == 2:
        rlo, rhi = result.return_interval()
        meta["responder_gain"]["per_game"] = round(result.mean_return, 4)
        meta["responder_gain"]["per_game_ci95"] = [round(rlo, 4), round(rhi, 4)]
        bounds = meta.get("exploitability_bound")
        bounds = dict(bounds) if isinstance(bounds, dict) else {}
        bounds["responder"] = {
            "exploitability_lower_bound": round(result.mean_return, 4),
            "ci95": [round(rlo, 4), round(rhi, 4)],
            "how": (
                f"a table network trained {result.train_games} games against the strategy "
                f"from a copy of it, then {result.games} fresh games, each seat equally "
                "often; mean return per game (the strategy's own value over both seats is 0)"
            ),
            "command": command,
        }
        meta["exploitability_bound"] = bounds
        label = "WEAK" if rhi > RESPONDER_TARGET else "HOLDS"
    meta["quality"] = quality or f"{label}: {result.text()} ({command})."


def _log_until(log: Path, iteration: int) -> tuple[list[str], float | None, int]:
    """The training log's lines up to ``iteration`` (header first), their seconds in all (None
    when the log has no seconds, or lacks them for some rows: a run logged before the column)
    and the games column at ``iteration``."""
    lines = log.read_text().splitlines()
    header = lines[0].split(",")
    kept = [lines[0]] + [r for r in lines[1:] if r and int(r.split(",")[0]) <= iteration]
    if len(kept) < 2 or int(kept[-1].split(",")[0]) != iteration:
        raise ValueError(f"{log} has no row for iteration {iteration}")
    games = int(float(kept[-1].split(",")[header.index("games")]))
    if "seconds" not in header:
        return kept, None, games
    col = header.index("seconds")
    total = sum(float(r.split(",")[col]) for r in kept[1:])
    return kept, None if math.isnan(total) else total, games


def _figure_row(m: KeptGain, key: str) -> dict[str, Any]:
    """One measurement in ``meta.json``: its iteration or seed, its figure and interval."""
    value, lo, hi = m.figure()
    return {key: getattr(m, key), "figure": round(value, 4), "ci95": [round(lo, 4), round(hi, 4)]}


def write_picked(
    run: Path, config: GameConfig, chosen: Pick, command: str, out: Path | None = None
) -> Path:
    """Write the chosen network as a strategy folder (``out``, default ``RUN/picked``), whole or
    not at all; its state file loads back before the folder takes its name."""
    run = Path(run)
    record, kind = read_run(run)
    out = Path(out) if out is not None else run / PICKED_DIR
    part = out.with_name(out.name + ".part")
    if part.exists():
        shutil.rmtree(part)  # left by a pick killed while writing
    part.mkdir(parents=True)
    source = kept_folder(run, chosen.iteration, kind)
    shutil.copy(source / POLICY_FILE, part / POLICY_FILE)
    meta = json.loads((run / META_FILE).read_text())
    lines, seconds, games = _log_until(run / TRAINING_LOG, chosen.iteration)
    (part / TRAINING_LOG).write_text("\n".join(lines) + "\n")
    best = chosen.chosen
    shown = chosen.confirm or (best,)
    meta.update(
        training_iterations=chosen.iteration,
        training_games=games,
        training_seconds=None if seconds is None else round(seconds, 1),
        command=command,
        picked={
            "from": str(run),
            "how": (
                f"the lowest responder's figure of {len(chosen.candidates)} kept networks at "
                f"seed {best.seed} (optimistic for the one chosen: the lowest of several noisy "
                "figures), then measured again at other seeds"
            ),
            "figure": "mean return per game" if config.players == 2 else "gain over 1/n",
            "budget": best.budget,
            "games_per_seat": best.games,
            "candidates": [_figure_row(m, "iteration") for m in chosen.candidates],
            "confirm": [_figure_row(m, "seed") for m in chosen.confirm],
        },
    )
    if "mixture" in meta:
        meta["mixture"] = None
    unit = "a game" if config.players == 2 else f"over the fair share 1/{config.players}"
    figures = ", ".join(m.describe() for m in shown)
    where = "at seeds " + ", ".join(str(m.seed) for m in shown)
    label = "WEAK" if max(m.figure()[2] for m in shown) > RESPONDER_TARGET else "HOLDS"
    quality = (
        f"{label}: a responder trained {best.budget} games gains {figures} {unit} {where} "
        f"({'measured again after the pick' if chosen.confirm else 'the pick itself'})"
    )
    record_responder(meta, shown[0].result(), f"{command} (seed {shown[0].seed})", quality)
    if kind.algorithm == selfplay_run.ALGORITHM:
        meta["state_file"] = STATE_NOTE
        atomic_write_json(part / META_FILE, meta)
        kit = selfplay_run.kit_from_network(part, config, seed=int(record["solver"].get("seed", 0)))
        atomic_write_npz(part / kind.state_file, kit, compressed=True)
        selfplay_run.read_kit(part, config)  # loads back, without pickle
    else:
        atomic_write_json(part / META_FILE, meta)
        shutil.copy(source / kind.state_file, part / kind.state_file)
        regret_run.read_kit(part, config)
    if out.exists():
        shutil.rmtree(out)
    part.rename(out)
    return out
