"""``complots bound``: a lower bound on a strategy's exploitability from a best responder.

The strategy is ``solved`` (the shipped policy network of the game), a
folder with a policy network (``policy-net.npz``, from the belief solver) or
a folder with an exact strategy (``strategy.npz``, from ``complots solve``
on a rung that fits in memory: its value is then exact), opened by
:func:`~complots_solver.solvers.policies.open.open_strategy` (``net:`` and
``policy:`` spellings accepted).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click
import numpy as np

from complots_solver.cli.checks import at_least
from complots_solver.rules.config import GameConfig
from complots_solver.rules.presets import resolve_game
from complots_solver.rules.text import signed

if TYPE_CHECKING:
    from complots_solver.solvers.bounds.measure import Bound
    from complots_solver.solvers.bounds.strategy import BoundStrategy
    from complots_solver.solvers.selfplay.responder import ResponderResult

# the solver's choices, repeated so that the command line starts without loading numba
# (tests/cli/test_bound_cmd.py checks they agree)
SOLVER_METHODS = ("lbr", "trained")
BOTS_METHOD = "bots"  # the heuristic bots as fixed responders (play layer)
RESPONDER_METHOD = "responder"  # 3+ players: a table network trained against the strategy
METHODS = (*SOLVER_METHODS, BOTS_METHOD, RESPONDER_METHOD)
DEFAULT_RESPONDER_SECONDS = 600.0
DEFAULT_BOTS = "honest,counter,trusting,skeptic,bluffer,brazen,random"
KEYS = ("perfect", "abstract")
DEFAULT_ROLLOUTS = 16
DEFAULT_TRAIN_GAMES = 2000


def bot_spec(spec: str, folder: Path) -> str:
    """The bot spec that plays the strategy ``spec`` (``solved``, or the folder as its kind is spelt)."""
    from complots_solver.solvers.policies.open import SOLVED, spelling_of, split_spec, strategy_kind

    if spec == SOLVED:
        return SOLVED
    return f"{spelling_of(strategy_kind(folder, split_spec(spec)[0]))}:{folder}"


def strategy_folder(spec: str, config: GameConfig) -> Path:
    """The folder ``--strategy`` names: the shipped one for ``solved``, else the path (any spelling)."""
    from complots_solver.solvers.policies.open import strategy_folder as folder_of

    return folder_of(spec, config)


def load_strategy(spec: str, config: GameConfig) -> tuple[BoundStrategy, Path]:
    """The strategy named by ``spec`` (``solved`` or a folder) and its folder; ValueError if unusable."""
    from complots_solver.solvers.bounds.open import bound_strategy
    from complots_solver.solvers.policies.open import open_strategy

    if config.players != 2:
        raise ValueError(f"GAME: bounds are for 2-player games, not {config.players} players")
    folder = strategy_folder(spec, config)
    return bound_strategy(open_strategy(spec, config), config, str(folder)), folder


def parse_budget(text: str | None) -> tuple[int | None, float | None]:
    """``--budget``: N training games per seat, or Ns seconds per seat."""
    if text is None:
        return DEFAULT_TRAIN_GAMES, None
    raw = text.strip().lower()
    try:
        if raw.endswith("s"):
            seconds = float(raw[:-1])
            if seconds > 0:
                return None, seconds
        else:
            games = int(raw)
            if games > 0:
                return games, None
    except ValueError:
        pass
    raise click.BadParameter(
        f"{text!r}: training games per seat (e.g. 2000) or seconds per seat (e.g. 600s)",
        param_hint="--budget",
    )


def _interval(lo: float, hi: float) -> str:
    """'-0.012, +0.034': an interval's ends to three decimals, never '-0.000'."""
    return f"{signed(lo, 3)}, {signed(hi, 3)}"


def describe(bound: Bound) -> list[str]:
    """The bound as lines of text, each figure with its interval."""
    lines = []
    for s in bound.seats:
        lo, hi = s.ci95
        lines.append(
            f"seat {s.seat}: responder {signed(s.responder_mean, 3)} (stderr "
            f"{s.responder_stderr:.3f}) over {s.games} games; strategy's own value "
            f"{signed(s.value, 3)}; gain {signed(s.gain, 3)} [95% CI {_interval(lo, hi)}]; "
            f"{s.seconds:.0f} s"
        )
    lo, hi = bound.ci95
    lines.append(
        "exploitability lower bound (mean of the two responder values): "
        f"{signed(bound.exploitability, 3)} [95% CI {_interval(lo, hi)}]"
    )
    lines.append(f"how: {bound.how}")
    lines.append(f"strategy's own value: {bound.value_how}")
    return lines


def write_bound(folder: Path, bound: Bound, command: str) -> None:
    """Record ``bound`` in ``folder/meta.json`` (``exploitability_bound`` by method, a quality sentence)."""
    from complots_solver.solvers.common.atomic import atomic_write_json
    from complots_solver.solvers.common.folders import META_FILE

    path = folder / META_FILE
    meta = json.loads(path.read_text()) if path.is_file() else {}
    if not isinstance(meta, dict):
        raise ValueError(f"--write: {path} is not a JSON object")
    bounds = meta.get("exploitability_bound")
    bounds = bounds if isinstance(bounds, dict) else {}
    lo, hi = bound.ci95
    bounds[bound.method] = {
        "exploitability_lower_bound": round(bound.exploitability, 4),
        "ci95": [round(lo, 4), round(hi, 4)],
        "seats": [
            {
                "seat": s.seat,
                "games": s.games,
                "gain": round(s.gain, 4),
                "ci95": [round(s.ci95[0], 4), round(s.ci95[1], 4)],
                "responder_mean": round(s.responder_mean, 4),
                "value": round(s.value, 4),
            }
            for s in bound.seats
        ],
        "how": bound.how,
        "value_how": bound.value_how,
        "command": command,
    }
    meta["exploitability_bound"] = bounds
    prefix = f"Exploitability lower bound ({bound.method}): "
    sentence = (
        f"{prefix}{signed(bound.exploitability, 3)} [95% CI {_interval(lo, hi)}], "
        f"{bound.seats[0].games} games per seat ({command})."
    )
    kept = [s for s in str(meta.get("quality", "")).split("\n") if s and not s.startswith(prefix)]
    meta["quality"] = "\n".join([*kept, sentence])
    atomic_write_json(path, meta)


@click.command(short_help="Bound a strategy's exploitability from below with a best responder.")
@click.argument("game")
@click.option(
    "--strategy",
    "spec",
    default="solved",
    show_default=True,
    help="solved (the game's shipped strategy) or a folder with policy-net.npz or strategy.npz",
)
@click.option(
    "--method",
    type=click.Choice(METHODS),
    default=None,
    help="lbr (default), trained or bots for a 2-player strategy; responder (a trained table "
    "network) for a table network (league self-play), its default and the only one at 3+ "
    "players; a 2-player table network also takes lbr, trained and bots",
)
@click.option("--games", "-n", type=int, default=200, show_default=True, help="games per seat")
@click.option("--seed", type=int, default=0, show_default=True, help="seed of every game")
@click.option("--workers", type=int, default=1, show_default=True, help="worker processes")
@click.option(
    "--rollouts",
    type=int,
    default=DEFAULT_ROLLOUTS,
    show_default=True,
    help="lbr: rollouts per legal action per decision",
)
@click.option(
    "--budget",
    default=None,
    help=f"trained: training games per seat (default {DEFAULT_TRAIN_GAMES}) or seconds ('600s'); "
    f"responder: training games or seconds (default {DEFAULT_RESPONDER_SECONDS:.0f}s)",
)
@click.option(
    "--key",
    type=click.Choice(KEYS),
    default=None,
    help="trained: information key (default: perfect for an exact strategy, abstract otherwise)",
)
@click.option(
    "--value-games",
    type=int,
    default=None,
    help="self-play games for the strategy's own value when it is not exact (default: --games)",
)
@click.option(
    "--bots",
    "bot_list",
    default=DEFAULT_BOTS,
    show_default=True,
    help="bots: comma-separated heuristic bots, each a fixed responder",
)
@click.option("--write", is_flag=True, help="record the bound in the strategy folder's meta.json")
@click.option(
    "--save-responder",
    "save_to",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="responder: also keep the trained responder in this new folder, to play it "
    "(net:DIR) or study how it beats the strategy",
)
def bound(
    game: str,
    spec: str,
    method: str | None,
    games: int,
    seed: int,
    workers: int,
    rollouts: int,
    budget: str | None,
    key: str | None,
    value_games: int | None,
    bot_list: str,
    write: bool,
    save_to: Path | None,
) -> None:
    """Bound the exploitability of a strategy of GAME from below, per seat, with 95% intervals.

    lbr: a local best response (exact belief, rollouts of the strategy). trained:
    a responder trained against the strategy with a fixed budget, then played
    on fresh games. bots: each heuristic bot of --bots as a fixed responder
    (the largest is the strongest bound). Gain of a seat = responder's mean
    return minus the strategy's own value there (exact for an exact
    strategy, else self-play). responder (for table networks): a network
    trained from a copy of the strategy in one chair, its win share over
    1/n, and at 2 players its mean return per game.
    """
    try:
        config, _ = resolve_game(game)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="GAME") from None
    at_least(games, "--games", 2)
    at_least(workers, "--workers", 1)
    if config.players >= 3:
        if method not in (None, RESPONDER_METHOD):
            raise click.BadParameter(
                f"{method} is for 2-player games; at {config.players} players use responder",
                param_hint="--method",
            )
        _responder_bound(game, spec, config, games, seed, budget, write, save_to)
        return
    if _holds_table_net(spec, config) and method in (None, RESPONDER_METHOD):
        _responder_bound(game, spec, config, games, seed, budget, write, save_to)
        return
    if save_to is not None:
        raise click.BadParameter(
            "only the responder method (a table network's bound) trains a network to keep",
            param_hint="--save-responder",
        )
    if method is None:
        method = "lbr"
    if method == RESPONDER_METHOD:
        raise click.BadParameter(
            "responder measures table networks (league self-play); this strategy is not one: "
            "use lbr, trained or bots",
            param_hint="--method",
        )
    if rollouts < 1:
        raise click.BadParameter(f"at least 1, got {rollouts}", param_hint="--rollouts")
    if value_games is not None and value_games < 2:
        raise click.BadParameter(f"at least 2, got {value_games}", param_hint="--value-games")
    train_games, train_seconds = parse_budget(budget)
    bots = _check_bots(bot_list) if method == BOTS_METHOD else []
    try:
        strategy, folder = load_strategy(spec, config)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--strategy") from None
    if write and not folder.is_dir():
        raise click.BadParameter(f"{folder} is not a folder", param_hint="--strategy")
    from complots_solver.solvers.bounds.measure import lbr_bound, trained_bound

    cfg = np.ascontiguousarray(config.to_array())
    exact = strategy.exact_value() is not None
    if method == BOTS_METHOD:
        _bots_bounds(
            game,
            spec,
            folder,
            config,
            cfg,
            strategy,
            bots,
            games,
            seed,
            workers,
            value_games,
            write,
        )
        return
    start = time.perf_counter()
    if method == "lbr":
        result = lbr_bound(cfg, strategy, games, seed, rollouts, workers, value_games)
    else:
        result = trained_bound(
            cfg,
            strategy,
            games,
            seed,
            key or ("perfect" if exact else "abstract"),
            train_games=train_games,
            train_seconds=train_seconds,
            workers=workers,
            value_games=value_games,
        )
    elapsed = time.perf_counter() - start
    click.echo(f"{game}: strategy {spec} ({folder}), method {method}")
    for line in describe(result):
        click.echo(line)
    click.echo(f"wall time {elapsed:.0f} s with {workers} worker(s)")
    if write:
        options = f"--method {method} --games {games} --seed {seed}"
        if method == "lbr":
            options += f" --rollouts {rollouts}"
        else:
            options += f" --budget {budget or DEFAULT_TRAIN_GAMES}"
            options += f" --key {key or ('perfect' if exact else 'abstract')}"
        write_bound(folder, result, f"complots bound {game} --strategy {spec} {options}")
        click.echo(f"written to {folder / 'meta.json'}")


def _check_bots(text: str) -> list[str]:
    """--bots as a list of heuristic bot names; BadParameter naming the allowed ones."""
    from complots_solver.play.bots import HEURISTIC_BOTS

    allowed = list(HEURISTIC_BOTS)
    names = [n.strip() for n in text.split(",") if n.strip()]
    bad = [n for n in names if n not in allowed]
    if not names or bad:
        raise click.BadParameter(
            f"{', '.join(bad) or 'none given'}: choose from {', '.join(allowed)}",
            param_hint="--bots",
        )
    return list(dict.fromkeys(names))


def _bots_bounds(
    game: str,
    spec: str,
    folder: Path,
    config: GameConfig,
    cfg: np.ndarray,
    strategy: BoundStrategy,
    bots: list[str],
    games: int,
    seed: int,
    workers: int,
    value_games: int | None,
    write: bool,
) -> None:
    """Each bot as a fixed responder; print every bound and the strongest, and record them."""
    from complots_solver.play.bot_responders import bot_bound
    from complots_solver.solvers.bounds.measure import strategy_values

    start = time.perf_counter()
    value = strategy_values(cfg, strategy, value_games or games, seed, workers)
    player = bot_spec(spec, folder)
    click.echo(f"{game}: strategy {spec} ({folder}), method bots")
    results = []
    for name in bots:
        result = bot_bound(config, player, name, games, seed, value, workers)
        results.append(result)
        click.echo(f"-- {name}")
        for line in describe(result):
            click.echo(line)
        if write:
            options = f"--method bots --bots {name} --games {games} --seed {seed}"
            write_bound(folder, result, f"complots bound {game} --strategy {spec} {options}")
    best = max(results, key=lambda r: r.exploitability)
    lo, hi = best.ci95
    click.echo(
        f"strongest: {best.method} {signed(best.exploitability, 3)} [95% CI {_interval(lo, hi)}]"
    )
    click.echo(f"wall time {time.perf_counter() - start:.0f} s with {workers} worker(s)")
    if write:
        click.echo(f"written to {folder / 'meta.json'}")


def _holds_table_net(spec: str, config: GameConfig) -> bool:
    """Whether the strategy ``spec`` names is a table network (False when there is none)."""
    from complots_solver.solvers.policies.open import Kind, split_spec, strategy_kind

    try:
        return strategy_kind(strategy_folder(spec, config), split_spec(spec)[0]) == Kind.TABLE_NET
    except ValueError:
        return False


def _responder_folder(save_to: Path) -> Path:
    """Make the folder a responder will be saved to, before training; BadParameter if unusable."""
    from complots_solver.solvers.common.folders import POLICY_FILE

    if (save_to / POLICY_FILE).exists():
        raise click.BadParameter(
            f"{save_to} already holds {POLICY_FILE}; give a new or empty folder",
            param_hint="--save-responder",
        )
    try:
        save_to.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise click.BadParameter(
            f"cannot make {save_to}: {exc.strerror}", param_hint="--save-responder"
        ) from None
    return save_to


def _save_responder(
    save_to: Path, result: ResponderResult, config: GameConfig, spec: str, command: str
) -> None:
    """Write the trained responder as a table network folder that ``net:DIR`` plays."""
    from complots_solver.solvers.common.atomic import atomic_write_json
    from complots_solver.solvers.common.folders import META_FILE, POLICY_FILE
    from complots_solver.solvers.nets.tablenet import policy_meta

    assert result.responder is not None
    text = result.text()
    meta = {
        "algorithm": "responder",
        "game": config.game_string(),
        "against": spec,
        "training_iterations": result.train_iterations,
        "training_games": result.train_games,
        "training_seconds": round(result.train_seconds, 1),
        "quality": (
            f"EXPLOITER, not an equilibrium strategy: trained to beat {spec} and nothing else "
            f"({text}); against other opponents it may be weak"
        ),
        "command": command,
    }
    try:
        result.responder.save(save_to / POLICY_FILE, meta=policy_meta(config, "responder"))
        atomic_write_json(save_to / META_FILE, meta)
    except OSError as exc:
        raise click.BadParameter(
            f"cannot write to {save_to}: {exc.strerror}", param_hint="--save-responder"
        ) from None
    click.echo(f"responder saved to {save_to} (play it with net:{save_to})")


def _responder_bound(
    game: str,
    spec: str,
    config: GameConfig,
    games: int,
    seed: int,
    budget: str | None,
    write: bool,
    save_to: Path | None = None,
) -> None:
    """Train a table network against a table strategy, measure its gain over 1/n."""
    from complots_solver.solvers.bounds.pick import record_responder
    from complots_solver.solvers.policies.open import open_strategy
    from complots_solver.solvers.selfplay.policy import TablePolicy
    from complots_solver.solvers.selfplay.responder import responder_bound, responder_iterations

    if budget is None:
        train_games, train_seconds = None, DEFAULT_RESPONDER_SECONDS
    else:
        train_games, train_seconds = parse_budget(budget)
    try:
        folder = strategy_folder(spec, config)
        policy = open_strategy(spec, config)
        if not isinstance(policy, TablePolicy):
            raise ValueError(f"{folder} holds no table network: the responder measures those")
        strategy = [policy.net, *policy.mixture]
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--strategy") from None
    iterations = None if train_games is None else responder_iterations(train_games)
    total = games * config.players
    if save_to is not None:
        save_to = _responder_folder(save_to)
    result = responder_bound(
        config, strategy, seconds=train_seconds, iterations=iterations, games=total, seed=seed
    )
    click.echo(f"{game}: strategy {spec} ({folder}), method responder")
    pairs = zip(result.seat_wins, result.seat_games, strict=True)
    seats = ", ".join(f"seat {i}: {w}/{n}" for i, (w, n) in enumerate(pairs))
    click.echo(result.text())
    click.echo(f"responder wins per seat: {seats}; {result.draws} games hit the turn cap")
    spent = budget or f"{DEFAULT_RESPONDER_SECONDS:.0f}s"
    command = (
        f"complots bound {game} --strategy {spec} --method responder --games {games} "
        f"--budget {spent} --seed {seed}"
    )
    if save_to is not None:
        _save_responder(save_to, result, config, spec, f"{command} --save-responder {save_to}")
    if write:
        from complots_solver.solvers.common.atomic import atomic_write_json
        from complots_solver.solvers.common.folders import META_FILE

        mpath = folder / META_FILE
        meta = json.loads(mpath.read_text()) if mpath.is_file() else {}
        if not isinstance(meta, dict):
            raise click.BadParameter(f"{mpath} is not a JSON object", param_hint="--write")
        record_responder(meta, result, command)
        atomic_write_json(mpath, meta)
        click.echo(f"written to {mpath}")
