"""One way to open a strategy: any kind of strategy folder, or ``solved``, as a ``Policy``.

A strategy folder holds one or more of:

- ``policy-net.npz``: a table network (league self-play, sampled regret
  matching+, a saved responder; mixture members beside it (which it names) make a
  mixture) or a belief run's policy network, spelled ``net:DIR``;
- ``strategy.npz``: a tabular strategy, exact (on the compiled tree) or keyed
  (Monte Carlo CFR), spelled ``policy:DIR``;
- ``value-net.npz``: the belief search player's value network (with an
  optional ``search.json``), spelled ``search:DIR``.

``solved`` is the game's shipped folder under ``games/strategies/``. A bare
folder opens the first kind it holds in that order. :func:`open_strategy` is
the only place that decides what a folder holds; a spelling that does not fit
the folder is refused with the spelling that does.
"""

from __future__ import annotations

import json
from enum import StrEnum
from functools import cache
from pathlib import Path

from complots_solver.rules.config import GameConfig
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.belief.play_policies import NetPolicy, SearchPolicy
from complots_solver.solvers.belief.policy_net import PolicyNet
from complots_solver.solvers.belief.search import SearchSettings
from complots_solver.solvers.common.folders import (
    META_FILE,
    POLICY_FILE,
    SEARCH_SETTINGS_FILE,
    STRATEGY_FILE,
    VALUE_FILE,
    shipped_dir,
)
from complots_solver.solvers.common.protocols import Policy
from complots_solver.solvers.common.strategy_file import is_keyed_strategy
from complots_solver.solvers.nets.tablenet import KIND as TABLE_NET_KIND
from complots_solver.solvers.nets.tablenet import TableNet, load_mixture
from complots_solver.solvers.nets.valuenet import ValueNet
from complots_solver.solvers.policies.exact_policy import ExactPolicy
from complots_solver.solvers.policies.mccfr_policy import KeyedPolicy
from complots_solver.solvers.selfplay.policy import TablePolicy

SOLVED = "solved"


class Kind(StrEnum):
    """What a strategy folder holds."""

    EXACT = "an exact strategy file"
    KEYED = "a keyed strategy file"
    TABLE_NET = "a table network"
    POLICY_NET = "a belief policy network"
    SEARCH = "a search player's value network"


SPELLINGS: dict[str, tuple[Kind, ...]] = {
    "policy": (Kind.EXACT, Kind.KEYED),
    "net": (Kind.TABLE_NET, Kind.POLICY_NET),
    "search": (Kind.SEARCH,),
}


def spelling_of(kind: Kind) -> str:
    """The spec prefix that opens ``kind`` (``policy``, ``net`` or ``search``)."""
    return next(name for name, kinds in SPELLINGS.items() if kind in kinds)


def _net_kind(path: Path) -> str | None:
    """The ``kind`` a network file's metadata records."""
    stat = path.stat()
    return _read_net_kind(str(path.resolve()), stat.st_mtime_ns, stat.st_size)


@cache
def _read_net_kind(path: str, mtime_ns: int, size: int) -> str | None:
    """:func:`_net_kind`, read once per version of the file and process."""
    return ValueNet.load(Path(path)).meta.get("kind")


def held_kinds(folder: str | Path) -> list[Kind]:
    """Every kind of strategy ``folder`` holds, in the order a bare folder prefers them."""
    path = Path(folder)
    found = []
    net = path / POLICY_FILE
    if net.is_file():
        table = _net_kind(net) == TABLE_NET_KIND
        found.append(Kind.TABLE_NET if table else Kind.POLICY_NET)
    if (path / STRATEGY_FILE).is_file():
        found.append(Kind.KEYED if is_keyed_strategy(path) else Kind.EXACT)
    if (path / VALUE_FILE).is_file():
        found.append(Kind.SEARCH)
    return found


def strategy_kind(folder: str | Path, spelling: str | None = None) -> Kind:
    """The kind ``spelling`` (None: any) opens in ``folder``; ValueError naming the right one."""
    path = Path(folder)
    held = held_kinds(path)
    if not held:
        raise ValueError(
            f"{path} holds no strategy ({POLICY_FILE}, {STRATEGY_FILE} or {VALUE_FILE})"
        )
    if spelling is None:
        return held[0]
    if spelling not in SPELLINGS:
        raise ValueError(f"{spelling}: a strategy is spelled {', '.join(SPELLINGS)} or {SOLVED}")
    fits = [k for k in held if k in SPELLINGS[spelling]]
    if fits:
        return fits[0]
    wants = " or ".join(k.value for k in SPELLINGS[spelling])
    right = spelling_of(held[0])
    raise ValueError(
        f"{spelling}:{path}: the folder holds {held[0].value}, not {wants}: use {right}:{path}"
    )


def split_spec(spec: str | Path) -> tuple[str | None, str]:
    """(spelling or None, folder or ``solved``) of a strategy spec such as ``net:DIR``."""
    text = str(spec).strip()
    head, sep, rest = text.partition(":")
    if sep and head in SPELLINGS and rest:
        return head, rest
    return None, text


def strategy_folder(spec: str | Path, config: GameConfig | None = None) -> Path:
    """The folder a spec names: the game's shipped folder for ``solved``, else the path."""
    _, where = split_spec(spec)
    if where == SOLVED:
        if config is None:
            raise ValueError("solved: the game is needed to find its shipped strategy")
        return shipped_dir(config)
    return Path(where)


def open_strategy(spec: str | Path, config: GameConfig | None = None) -> Policy:
    """The strategy ``spec`` names (``solved``, a folder, ``policy:``/``net:``/``search:DIR``).

    ``config`` is the game it must play (the folder's own game when None;
    ``solved`` needs it). Tabular strategies are shared per folder and process
    (compiling a tree or indexing a table is slow); a network gets a fresh
    policy each call, its weights read once. ValueError when the
    folder holds no strategy, another kind than the spelling opens, or a
    strategy of another game.
    """
    spelling, _ = split_spec(spec)
    folder = strategy_folder(spec, config)
    kind = strategy_kind(folder, spelling)
    if kind in (Kind.EXACT, Kind.KEYED):
        policy = _tabular(str(folder.resolve()), kind)
        if config is not None and policy.config != config:
            raise ValueError(
                f"the strategy was solved for {policy.config.game_string()}, "
                f"not {config.game_string()}"
            )
        return policy
    if config is None:
        config = folder_config(folder)
    if kind == Kind.TABLE_NET:
        path = folder / POLICY_FILE
        net, mixture = _table_nets(str(path.resolve()))
        for member in (net, *mixture):
            _check_net(path, "a table network", member.net.meta.get("game"), config)
            if member.num_actions != config.num_distinct_actions():
                raise ValueError(
                    f"{path}: the network's actions do not match {config.game_string()}"
                )
        return TablePolicy(config, net, mixture)
    if kind == Kind.POLICY_NET:
        path = folder / POLICY_FILE
        policy_net = _policy_net(str(path.resolve()))
        _check_net(path, "a policy network", policy_net.net.meta.get("game"), config)
        if policy_net.net.sizes[-1] != config.num_distinct_actions():
            raise ValueError(f"{path}: the network's actions do not match {config.game_string()}")
        return NetPolicy(config, policy_net)
    net_v, settings = _search(str(folder.resolve()))
    _check_net(folder, "a value network", net_v.meta.get("game"), config)
    return SearchPolicy(config, net_v, settings)


def _check_net(path: Path, what: str, game: object, config: GameConfig) -> None:
    """A network plays only the game it was trained for (when it records one)."""
    if game is not None and game != config.game_string():
        raise ValueError(f"{path}: {what} for {game}, not {config.game_string()}")


def folder_config(folder: str | Path) -> GameConfig:
    """The game a strategy folder's meta.json (or its network) records; ValueError if none."""
    path = Path(folder)
    game = None
    try:
        meta = json.loads((path / META_FILE).read_text())
        game = meta.get("game") if isinstance(meta, dict) else None
    except (OSError, ValueError):
        pass
    for name in (POLICY_FILE, VALUE_FILE):
        if game is None and (path / name).is_file():
            game = ValueNet.load(path / name).meta.get("game")
    if not isinstance(game, str):
        raise ValueError(f"{path}: neither meta.json nor the network names a game")
    return resolve_game(game)[0]


@cache
def _tabular(directory: str, kind: Kind) -> ExactPolicy | KeyedPolicy:
    """A strategy file as a policy, loaded once per folder and process."""
    if kind == Kind.KEYED:
        return KeyedPolicy.load(directory)
    return ExactPolicy.load(directory)


@cache
def _table_nets(path: str) -> tuple[TableNet, tuple[TableNet, ...]]:
    """A table network and its mixture members, read once per file and process."""
    net = TableNet.load(Path(path))
    return net, tuple(load_mixture(Path(path).parent, net))


@cache
def _policy_net(path: str) -> PolicyNet:
    """A belief policy network, read once per file and process."""
    return PolicyNet.load(Path(path))


@cache
def _search(directory: str) -> tuple[ValueNet, SearchSettings]:
    """The search player's value network and settings (``search.json``), read once."""
    path = Path(directory)
    net = ValueNet.load(path / VALUE_FILE)
    settings = SearchSettings()
    sfile = path / SEARCH_SETTINGS_FILE
    if sfile.is_file():
        try:
            raw = json.loads(sfile.read_text())
            settings = SearchSettings(
                iterations=int(raw.get("iterations", settings.iterations)),
                prune=float(raw.get("prune", settings.prune)),
                leaf_average=bool(raw.get("leaf_average", settings.leaf_average)),
                safe=bool(raw.get("safe", settings.safe)),
                average_promise=bool(raw.get("average_promise", settings.average_promise)),
                cfr=str(raw.get("cfr", settings.cfr)),
            )
        except (ValueError, TypeError, AttributeError) as exc:
            raise ValueError(f"{sfile}: unreadable search settings ({exc})") from None
    settings.validate()
    return net, settings
