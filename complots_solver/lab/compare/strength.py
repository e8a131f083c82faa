"""Strength per core-hour on the exact ladder: exact exploitability against wall time, per method.

Each method runs in this process (one core), in growing chunks of
iterations, with its own set-up (tree or public-tree building) timed apart;
after each chunk its average strategy is mapped onto the game's history tree
and its exact exploitability computed (that evaluation is not counted as
solving time). The time to a target exploitability is set-up plus solving
time at the first point at or below it.
"""

from __future__ import annotations

import csv
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from complots_solver.rules.config import GameConfig
from complots_solver.solvers.belief.exact_eval import to_tree_strategy
from complots_solver.solvers.belief.public_tree import build_public_tree
from complots_solver.solvers.belief.vector_cfr import VectorCFR
from complots_solver.solvers.exact.best_response import exploitability
from complots_solver.solvers.exact.cfr import TreeSolver
from complots_solver.solvers.exact.complots_tree import compile_complots_tree
from complots_solver.solvers.exact.tree import Tree
from complots_solver.solvers.knowledge.hypotheses import Hypotheses, Memory
from complots_solver.solvers.mccfr.solver import MCCFRSolver

BELIEF = "belief"
CFR_PLUS = "cfr+"
OS_MCCFR = "os-mccfr"
SELFPLAY = "selfplay"
REGRET = "regret"
# OpenSpiel's PyTorch Deep CFR and ESCHER; optional (the deepcfr extra), not run by default
DEEP_CFR = "deep-cfr"
ESCHER = "escher"
METHODS = (BELIEF, CFR_PLUS, OS_MCCFR, SELFPLAY, REGRET)
ALL_METHODS = (*METHODS, DEEP_CFR, ESCHER)
REFERENCE = OS_MCCFR
OS_FIRST_CHUNK = 2_000
EXACT_FIRST_CHUNK = 4
DEEP_CFR_FIRST_CHUNK = 2
SELFPLAY_FIRST_CHUNK = 4  # iterations of 256 games
REGRET_FIRST_CHUNK = 2  # iterations of 2 x 2,000 games
REGRET_GAMES = 2_000  # per seat and iteration: the ladder's setting (docs section 19)
MakeBot = Callable[[str, GameConfig, np.random.Generator], object]


@dataclass(frozen=True)
class CurvePoint:
    """One measurement: a method's exact exploitability after some solving time."""

    game: str
    method: str
    iterations: int
    setup_s: float
    solve_s: float
    exploitability: float

    @property
    def total_s(self) -> float:
        """Set-up plus solving time."""
        return self.setup_s + self.solve_s


class _Stepper:
    """A method as (set-up, run n more iterations, average strategy on the history tree)."""

    def __init__(
        self,
        method: str,
        config: GameConfig,
        ctree: Tree,
        seed: int,
        make_bot: MakeBot | None = None,
        selfplay_options: dict[str, str] | None = None,
    ) -> None:
        start = time.perf_counter()
        self.config = config
        if method == SELFPLAY:
            from complots_solver.solvers.selfplay.train import SelfPlaySettings, SelfPlayTrainer

            # the shipped recipe; without the play layer's bots their share goes to self-play
            options = dict(selfplay_options or {})
            if make_bot is None:
                options.setdefault("bot_share", "0")
            settings = SelfPlaySettings.from_options(options)
            factory = None
            if make_bot is not None:
                factory = lambda name, rng: make_bot(name, config, rng)  # noqa: E731
            SelfPlayTrainer(config, settings, seed=seed, bot_factory=factory).step(1)  # compile
            self.solver = SelfPlayTrainer(config, settings, seed=seed, bot_factory=factory)
            self.first = SELFPLAY_FIRST_CHUNK
        elif method == REGRET:
            from complots_solver.solvers.regret.sampler import RegretSampler, RegretSettings

            settings = RegretSettings(games=REGRET_GAMES)
            RegretSampler(config, replace(settings, games=2), seed=seed).step(2)  # compile
            self.solver = RegretSampler(config, settings, seed=seed)
            self.first = REGRET_FIRST_CHUNK
        elif method == BELIEF:
            cfg = config.to_array()
            self.ptree = build_public_tree(cfg, Hypotheses.initial(cfg), memory=Memory.CANONICAL)
            VectorCFR(self.ptree).run(1)  # compile outside the timing, as for the others
            self.solver = VectorCFR(self.ptree)
            self.first = EXACT_FIRST_CHUNK
        elif method == CFR_PLUS:
            TreeSolver(ctree, "cfr+").run(1)
            self.solver = TreeSolver(ctree, "cfr+")
            self.first = EXACT_FIRST_CHUNK
        elif method == OS_MCCFR:
            MCCFRSolver(config, "os", key="perfect", seed=seed).run(10)
            self.solver = MCCFRSolver(config, "os", key="perfect", seed=seed)
            self.first = OS_FIRST_CHUNK
        elif method == DEEP_CFR:
            from complots_solver.lab.compare.deep_cfr import DeepCFRRun

            self.solver = DeepCFRRun(config, ctree, seed)
            self.first = DEEP_CFR_FIRST_CHUNK
        elif method == ESCHER:
            from complots_solver.lab.compare.deep_cfr import EscherRun

            self.solver = EscherRun(config, ctree, seed)
            self.first = DEEP_CFR_FIRST_CHUNK
        else:
            raise ValueError(f"method: one of {', '.join(ALL_METHODS)}; got {method!r}")
        self.method = method
        self.ctree = ctree
        self.iterations = 0
        self.setup_s = time.perf_counter() - start

    def run(self, n: int) -> None:
        """``n`` more iterations."""
        self.solver.run(n)
        self.iterations += n

    def strategy(self) -> np.ndarray:
        """The average strategy on the history tree's infosets (self-play: the current network)."""
        if self.method in (SELFPLAY, REGRET):  # regret: its average network
            from complots_solver.solvers.selfplay.exact import table_tree_strategy

            return table_tree_strategy(self.config, self.solver.policy(), self.ctree)
        if self.method == BELIEF:
            return to_tree_strategy(self.ptree, self.solver.average_strategy(), self.ctree)
        if self.method in (DEEP_CFR, ESCHER):  # the policy network, fitted to the average
            return self.solver.tree_strategy()
        if self.method == CFR_PLUS:
            return self.solver.average_strategy()
        return self.solver.tree_strategy(self.ctree)[0]


def method_curve(
    name: str,
    config: GameConfig,
    method: str,
    seconds: float,
    target: float,
    ctree: Tree,
    seed: int = 0,
    log: Callable[[CurvePoint], None] | None = None,
    tree_s: float = 0.0,
    make_bot: MakeBot | None = None,
    selfplay_options: dict[str, str] | None = None,
) -> list[CurvePoint]:
    """Points until the exploitability reaches ``target`` or ``seconds`` of solving have passed.

    ``tree_s`` (the time ``ctree`` took to compile) counts as CFR+'s set-up,
    since CFR+ solves on that tree; the other methods build their own.

    Chunks double in size (from a few iterations for the exact methods, 2,000
    for OS-MCCFR), so the points are spaced evenly on a log time axis.
    """
    if seconds <= 0:
        raise ValueError(f"seconds: must be positive; got {seconds}")
    if not 0 < target < 1:
        raise ValueError(f"target: must be in (0, 1); got {target}")
    step = _Stepper(method, config, ctree, seed, make_bot, selfplay_options)
    label = method
    if method == SELFPLAY and selfplay_options:
        label += "(" + ",".join(f"{k}={v}" for k, v in sorted(selfplay_options.items())) + ")"
    if method == CFR_PLUS:
        step.setup_s += tree_s
    points: list[CurvePoint] = []
    solved = 0.0
    chunk = step.first
    while True:
        start = time.perf_counter()
        step.run(chunk)
        solved += time.perf_counter() - start
        value = exploitability(ctree, step.strategy())
        point = CurvePoint(name, label, step.iterations, step.setup_s, solved, float(value))
        points.append(point)
        if log is not None:
            log(point)
        if value <= target or solved >= seconds:
            return points
        chunk = step.iterations  # doubles the total


def ladder_curves(
    games: Sequence[str],
    methods: Sequence[str] = METHODS,
    seconds: float = 120.0,
    target: float = 1e-3,
    seed: int = 0,
    log: Callable[[CurvePoint], None] | None = None,
    make_bot: MakeBot | None = None,
    selfplay_options: dict[str, str] | None = None,
) -> list[CurvePoint]:
    """Every method's curve on every rung (one history tree per rung, shared for evaluation).

    ``make_bot(name, config, rng)`` gives league self-play its baseline bots
    (the play layer's, passed in by the caller); without it their share is self-play.
    """
    from complots_solver.rules.presets import resolve_game

    for m in methods:
        if m not in ALL_METHODS:
            raise ValueError(f"methods: each one of {', '.join(ALL_METHODS)}; got {m!r}")
    points: list[CurvePoint] = []
    for name in games:
        config, _ = resolve_game(name)
        if config.players != 2:
            raise ValueError(f"games: {name} is not a 2-player game")
        start = time.perf_counter()
        ctree = compile_complots_tree(config)
        tree_s = time.perf_counter() - start
        for m in methods:
            points += method_curve(
                name, config, m, seconds, target, ctree, seed, log, tree_s, make_bot,
                selfplay_options,
            )  # fmt: skip
    return points


def time_to(points: Sequence[CurvePoint], target: float) -> float:
    """Set-up plus solving seconds at the first point at or below ``target`` (inf if none)."""
    for p in points:
        if p.exploitability <= target:
            return p.total_s
    return math.inf


def ratio_rows(points: Sequence[CurvePoint], targets: Sequence[float]) -> list[dict]:
    """Per rung, method and target: time to reach it and the speed-up over OS-MCCFR.

    When OS-MCCFR did not reach a target within its budget, the speed-up is a
    lower bound (its whole time over the method's), marked with ``>=``.
    """
    rows = []
    for game in dict.fromkeys(p.game for p in points):
        by_method = {
            m: [p for p in points if p.game == game and p.method == m]
            for m in dict.fromkeys(p.method for p in points if p.game == game)
        }
        ref = by_method.get(REFERENCE, [])
        for target in targets:
            ref_t = time_to(ref, target)
            for m, pts in by_method.items():
                t = time_to(pts, target)
                if not math.isfinite(t) or not ref:
                    speedup = "n/a" if not math.isfinite(t) else "no reference"
                elif math.isfinite(ref_t):
                    speedup = f"{ref_t / t:.1f}x"
                else:
                    speedup = f">={ref[-1].total_s / t:.1f}x"
                rows.append(
                    {
                        "game": game,
                        "method": m,
                        "target": target,
                        "seconds": t,
                        "best": min(p.exploitability for p in pts),
                        "speedup_vs_os_mccfr": speedup,
                    }
                )
    return rows


def write_points(points: Sequence[CurvePoint], path: Path) -> None:
    """The points as CSV."""
    fields = [*asdict(points[0]).keys(), "total_s"] if points else ["game"]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for p in points:
            w.writerow(asdict(p) | {"total_s": round(p.total_s, 3)})


def read_points(path: Path) -> list[CurvePoint]:
    """Points written by :func:`write_points`."""
    with open(path, newline="") as f:
        return [
            CurvePoint(
                r["game"],
                r["method"],
                int(r["iterations"]),
                float(r["setup_s"]),
                float(r["solve_s"]),
                float(r["exploitability"]),
            )
            for r in csv.DictReader(f)
        ]


def plot_curves(points: Sequence[CurvePoint], path: Path, target: float | None = None) -> None:
    """Exploitability (log) against wall time (log), one panel per rung, one line per method."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    games = list(dict.fromkeys(p.game for p in points))
    cols = min(2, len(games))
    rows = math.ceil(len(games) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(6 * cols, 4 * rows), squeeze=False)
    for ax, game in zip(axes.flat, games, strict=False):
        for m in dict.fromkeys(p.method for p in points if p.game == game):
            pts = [p for p in points if p.game == game and p.method == m]
            ax.plot([p.total_s for p in pts], [p.exploitability for p in pts], "o-", label=m)
        if target is not None:
            ax.axhline(target, color="grey", linestyle=":", linewidth=1)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(game)
        ax.set_xlabel("wall seconds on one core (set-up + solving)")
        ax.set_ylabel("exact exploitability")
        ax.legend()
        ax.grid(True, which="both", alpha=0.3)
    for ax in list(axes.flat)[len(games) :]:
        ax.set_visible(False)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
