"""The algorithm settings of ``complots solve``: the registered families' tables, checked and shown.

``complots solve`` takes a few common options (``--algorithm``, ``-n``,
``--seconds``, ``--out``, ``--resume``, ``--force``, ``--seed``, ``--workers``);
every other setting is ``--option KEY=VALUE`` or a key of a ``--config`` JSON
file, checked here against the chosen method's table, which its family
registers (``solvers/<family>/family.py``). ``complots solve --list-options
[ALGORITHM]`` prints the tables and ``docs/solve-options.md`` holds them (a
test keeps the two equal).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from complots_solver.solvers import families
from complots_solver.solvers.common.options import OptionSpec, parse_value
from complots_solver.solvers.common.registry import SolverFamily


@cache
def registered() -> tuple[SolverFamily, ...]:
    """The registered solver families, in listing order."""
    return tuple(families())


def algorithms() -> tuple[str, ...]:
    """Every method of ``solve``, family by family."""
    return tuple(a for fam in registered() for a in fam.algorithms)


def __getattr__(name: str) -> Any:
    """``ALGORITHMS``: the methods, read from the registry when first asked for."""
    if name == "ALGORITHMS":
        return algorithms()
    raise AttributeError(name)


def family_of(algorithm: str) -> SolverFamily:
    """The family that runs ``algorithm``; ValueError naming the methods there are."""
    for fam in registered():
        if algorithm in fam.algorithms:
            return fam
    raise ValueError(f"algorithm must be one of {', '.join(algorithms())}, got {algorithm!r}")


def family(algorithm: str) -> str:
    """The name of the family of a method (``exact``, ``mccfr``, ...)."""
    return family_of(algorithm).name


def table(algorithm: str) -> dict[str, OptionSpec]:
    """The settings ``algorithm`` takes, by key."""
    return family_of(algorithm).options(algorithm)


def takers(key: str) -> list[str]:
    """The methods that take ``key``, whole families named as such."""
    out = []
    for fam in registered():
        members = [a for a in fam.algorithms if key in fam.options(a)]
        if not members:
            continue
        out.append(fam.title if members == list(fam.algorithms) else " and ".join(members))
    return out


def listed(names: list[str]) -> str:
    """``a, b and c``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def refusal(key: str, algorithm: str) -> str:
    """Why ``algorithm`` refuses ``key``: which methods take it, or which keys it allows."""
    found = takers(key)
    if found:
        return f"applies to {listed(found)} only, not {algorithm}"
    return f"unknown; allowed: {', '.join(sorted(table(algorithm)))}"


def resolve(algorithm: str, given: list[tuple[str, str, Any]]) -> dict[str, Any]:
    """Settings of ``algorithm`` from (hint, key, raw value) in order (later ones win).

    The hint names where the value came from (``--option KEY``, a config file, an
    old flag) and starts the message of the ValueError a bad key or value raises.
    """
    allowed = table(algorithm)
    values: dict[str, Any] = {}
    for hint, key, raw in given:
        if key not in allowed:
            raise ValueError(f"{hint}: {refusal(key, algorithm)}")
        try:
            values[key] = parse_value(allowed[key], raw)
        except ValueError as exc:
            raise ValueError(f"{hint}: {exc}") from None
    return values


def _cell(value: Any) -> str:
    """A default as the table shows it."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def markdown(algorithms: list[str] | None = None) -> str:
    """The option tables as markdown (``docs/solve-options.md``'s tables)."""
    lines: list[str] = []
    for fam in registered():
        names = list(fam.algorithms)
        if algorithms is not None and not set(names) & set(algorithms):
            continue
        lines += [f"### {', '.join(names)}", "", "| key | type | default | meaning |"]
        lines.append("| --- | --- | --- | --- |")
        for spec in fam.options().values():
            note = fam.option_note(spec.name)
            lines.append(
                f"| `{spec.name}` | {spec.type_name} | {_cell(spec.default)} | {spec.help}{note} |"
            )
        lines.append("")
    return "\n".join(lines)
