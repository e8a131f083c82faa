"""Pick a self-play run's best kept network by the trained responder, and make it a strategy.

A league run's last network is seldom its best: one hour of the 4-player
Inquisitor kept networks between +0.045 and +0.207 of responder's gain
(docs/selfplay.md). A run with ``--option keep_every=K`` keeps its network
every K iterations (``kept/it-NNNNNN/``); :func:`measure_kept` trains a
responder against each (one budget and seed for all, so their gains compare)
and records each result in ``picks.json`` in the run folder as soon as it is
measured, atomically, so a pick killed at any moment resumes where it stopped
and a result measured with other settings is measured again.

The lowest of several noisy gains is an optimistic figure for the network
that has it, so :func:`pick` measures the chosen network again at other seeds
(``confirm``) and the quality it writes quotes those. :func:`write_picked`
writes the choice as a whole strategy folder (``picked/`` by default): the
network, the run's ``meta.json`` with the pick's figures, the training log up
to its iteration, and a ``selfplay-state.npz`` made from the network, so that
``complots solve PRESET --algorithm selfplay --option warm_start=DIR``
continues it (its Adam moments restart: the kept copies hold none).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.common.atomic import atomic_write_json, atomic_write_npz
from complots_solver.solvers.common.folders import META_FILE, POLICY_FILE, TRAINING_LOG
from complots_solver.solvers.nets.tablenet import TableNet
from complots_solver.solvers.selfplay.responder import (
    ResponderResult,
    responder_bound,
    responder_iterations,
)
from complots_solver.solvers.selfplay.run import (
    ALGORITHM,
    KEPT_DIR,
    KEPT_PREFIX,
    KIT_FILE,
    kept_iterations,
    kit_from_network,
    read_kit,
)

PICKS_FILE = "picks.json"  # the run folder's record of every kept network measured
PICKS_KIND = "complots pick"
PICKS_VERSION = 1
PICKED_DIR = "picked"  # the chosen network as a strategy folder, under the run folder
RUN_CONFIG = "config.json"  # the run driver's record of the game and settings
RESPONDER_TARGET = 0.05  # a table strategy holds if a responder's gain stays below this
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
class KeptGain:
    """One responder measurement of one kept network."""

    iteration: int
    seed: int
    budget: int  # the responder's training games
    games: int  # measuring games per seat
    gain: float
    ci95: tuple[float, float]
    win_share: float
    seat_wins: tuple[int, ...]
    seat_games: tuple[int, ...]
    train_seconds: float
    text: str

    def key(self) -> tuple[int, int, int, int]:
        """What makes two measurements the same one."""
        return (self.iteration, self.seed, self.budget, self.games)

    @classmethod
    def of(
        cls, iteration: int, seed: int, budget: int, games: int, result: ResponderResult
    ) -> KeptGain:
        """The measurement ``result`` of the network kept at ``iteration``."""
        lo, hi = result.interval()
        return cls(
            iteration,
            seed,
            budget,
            games,
            round(result.gain, 4),
            (round(lo, 4), round(hi, 4)),
            round(result.share, 4),
            tuple(result.seat_wins),
            tuple(result.seat_games),
            round(result.train_seconds, 1),
            result.text(),
        )


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


def read_run(run: Path) -> dict[str, Any]:
    """The run's ``config.json`` (game, settings, seed); ValueError unless a selfplay run that kept networks."""
    path = Path(run) / RUN_CONFIG
    if not path.is_file():
        raise ValueError(f"{run} is not a run folder (it has no {RUN_CONFIG})")
    record = json.loads(path.read_text())
    if not isinstance(record, dict) or record.get("algorithm") != ALGORITHM:
        found = record.get("algorithm") if isinstance(record, dict) else None
        raise ValueError(f"{run} holds a {found} run; pick reads selfplay runs")
    if not kept_iterations(run):
        raise ValueError(
            f"{run} kept no networks: train with --option keep_every=K (e.g. 100) to keep some"
        )
    return record


def read_picks(run: Path) -> list[KeptGain]:
    """Every measurement recorded in the run's ``picks.json`` (none if absent)."""
    path = Path(run) / PICKS_FILE
    if not path.is_file():
        return []
    data = json.loads(path.read_text())
    if not isinstance(data, dict) or data.get("kind") != PICKS_KIND:
        raise ValueError(f"{path} is not a pick record")
    out = []
    for row in data.get("measures", []):
        row = dict(row)
        for name in ("ci95", "seat_wins", "seat_games"):
            row[name] = tuple(row[name])
        out.append(KeptGain(**row))
    return out


def _write_picks(run: Path, game: str, measures: Sequence[KeptGain]) -> None:
    rows = [asdict(m) for m in sorted(measures, key=KeptGain.key)]
    record = {"kind": PICKS_KIND, "version": PICKS_VERSION, "game": game, "measures": rows}
    atomic_write_json(Path(run) / PICKS_FILE, record)


def kept_folder(run: Path, iteration: int) -> Path:
    """The folder of the network the run kept at ``iteration``."""
    return Path(run) / KEPT_DIR / f"{KEPT_PREFIX}{iteration:06d}"


def measure_kept(
    run: Path,
    config: GameConfig,
    iterations: Sequence[int],
    budget: int,
    games: int,
    seeds: Sequence[int],
    measure: Measure,
    report: Callable[[KeptGain, bool], None] | None = None,
) -> list[KeptGain]:
    """Each network kept at ``iterations`` measured at each seed, recorded ones reused; each
    new one written to ``picks.json`` before the next starts. ``report(m, reused)`` hears each."""
    done = read_picks(run)
    known = {m.key(): m for m in done}
    out = []
    for iteration in iterations:
        for seed in seeds:
            found = known.get((iteration, seed, budget, games))
            reused = found is not None
            if found is None:
                net = TableNet.load(kept_folder(run, iteration) / POLICY_FILE)
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
    """The iteration with the lowest gain (the earlier one on a tie: fewer iterations to reach)."""
    if not candidates:
        raise ValueError("nothing measured to choose from")
    return min(candidates, key=lambda m: (m.gain, m.iteration)).iteration


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
    gain, measure it again at the ``confirm`` seeds after ``seed``."""
    iterations = kept_iterations(run)
    if last > 0:
        iterations = iterations[-last:]
    candidates = measure_kept(run, config, iterations, budget, games, [seed], measure, report)
    chosen = choose(candidates)
    others = [seed + k for k in range(1, confirm + 1)]
    again = measure_kept(run, config, [chosen], budget, games, others, measure, report)
    return Pick(chosen, tuple(candidates), tuple(again))


def responder_record(result: KeptGain | ResponderResult, command: str) -> dict[str, Any]:
    """The ``responder_gain`` entry of a strategy's ``meta.json`` for one measurement."""
    if isinstance(result, ResponderResult):
        lo, hi = result.interval()
        return {
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
    return {
        "gain": result.gain,
        "ci95": list(result.ci95),
        "win_share": result.win_share,
        "games": sum(result.seat_games),
        "seat_wins": list(result.seat_wins),
        "seat_games": list(result.seat_games),
        "train_iterations": responder_iterations(result.budget),
        "train_games": result.budget,
        "train_seconds": result.train_seconds,
        "command": command,
    }


def _seconds_until(log: Path, iteration: int) -> tuple[list[str], float]:
    """The training log's lines up to ``iteration`` (header first) and their seconds in all."""
    lines = log.read_text().splitlines()
    header = lines[0].split(",")
    col = header.index("seconds")
    kept = [lines[0]] + [r for r in lines[1:] if r and int(r.split(",")[0]) <= iteration]
    return kept, sum(float(r.split(",")[col]) for r in kept[1:])


def write_picked(
    run: Path, config: GameConfig, chosen: Pick, command: str, out: Path | None = None
) -> Path:
    """Write the chosen network as a strategy folder (``out``, default ``RUN/picked``), whole or
    not at all; its state file loads back before the folder takes its name."""
    run = Path(run)
    record = read_run(run)
    out = Path(out) if out is not None else run / PICKED_DIR
    part = out.with_name(out.name + ".part")
    if part.exists():
        shutil.rmtree(part)  # left by a pick killed while writing
    part.mkdir(parents=True)
    source = kept_folder(run, chosen.iteration)
    shutil.copy(source / POLICY_FILE, part / POLICY_FILE)
    kept_meta = json.loads((source / META_FILE).read_text())
    meta = json.loads((run / META_FILE).read_text())
    lines, seconds = _seconds_until(run / TRAINING_LOG, chosen.iteration)
    (part / TRAINING_LOG).write_text("\n".join(lines) + "\n")
    best = chosen.chosen
    meta.update(
        training_iterations=chosen.iteration,
        training_games=int(kept_meta["training_games"]),
        training_seconds=round(seconds, 1),
        mixture=None,
        command=command,
        picked={
            "from": str(run),
            "how": (
                f"the lowest responder's gain of {len(chosen.candidates)} kept networks at seed "
                f"{best.seed} (optimistic for the one chosen: the lowest of several noisy "
                "figures), then measured again at other seeds"
            ),
            "budget": best.budget,
            "games_per_seat": best.games,
            "candidates": [
                {"iteration": m.iteration, "gain": m.gain, "ci95": list(m.ci95)}
                for m in chosen.candidates
            ],
            "confirm": [
                {"seed": m.seed, "gain": m.gain, "ci95": list(m.ci95)} for m in chosen.confirm
            ],
        },
    )
    fair = f"fair share 1/{config.players}"
    shown = chosen.confirm or (best,)
    figures = ", ".join(f"{m.gain:+.3f} [{m.ci95[0]:+.3f}, {m.ci95[1]:+.3f}]" for m in shown)
    where = "at seeds " + ", ".join(str(m.seed) for m in shown)
    label = "WEAK" if max(m.ci95[1] for m in shown) > RESPONDER_TARGET else "HOLDS"
    meta["responder_gain"] = responder_record(shown[0], f"{command} (seed {shown[0].seed})")
    meta["quality"] = (
        f"{label}: a responder trained {best.budget} games gains {figures} over the {fair} "
        f"{where} ({'measured again after the pick' if chosen.confirm else 'the pick itself'})"
    )
    meta["state_file"] = STATE_NOTE
    atomic_write_json(part / META_FILE, meta)
    kit = kit_from_network(part, config, seed=int(record["solver"].get("seed", 0)))
    atomic_write_npz(part / KIT_FILE, kit, compressed=True)
    read_kit(part, config)  # loads back, without pickle, before the folder is named
    if out.exists():
        shutil.rmtree(out)
    part.rename(out)
    return out
