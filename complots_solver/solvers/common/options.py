"""Algorithm settings given as ``key=value`` pairs or a JSON file, checked against a table.

Each solver family describes its settings once, as the fields of its settings
dataclass (name, type, default; help text in the field's ``metadata``).
:func:`option_table` turns such a dataclass into :class:`OptionSpec` rows, and
:func:`parse_value` turns a command-line string or a JSON value into the
field's type, with a ValueError naming the key and what it takes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import MISSING, dataclass, fields
from pathlib import Path
from typing import Any

TRUE = ("true", "yes", "on", "1")
FALSE = ("false", "no", "off", "0")
NONE = ("none", "null")
KINDS = {"int": int, "float": float, "bool": bool, "str": str}


@dataclass(frozen=True)
class OptionSpec:
    """One algorithm setting: its key, type, default, help and allowed values."""

    name: str
    kind: type
    default: Any
    help: str
    optional: bool = False  # None (``none`` on the command line) allowed
    choices: tuple[str, ...] | None = None

    @property
    def type_name(self) -> str:
        """The type as the docs show it (``int``, ``float or none``, ``one of a, b``)."""
        base = f"one of {', '.join(self.choices)}" if self.choices else self.kind.__name__
        return f"{base} or none" if self.optional else base


def _kind(annotation: Any) -> tuple[type, bool]:
    """(base type, None allowed) of a field annotation such as ``"float | None"``."""
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    parts = [p.strip() for p in str(text).split("|")]
    optional = "None" in parts
    names = [p for p in parts if p != "None"]
    if len(names) != 1 or names[0] not in KINDS:
        raise ValueError(f"annotation {annotation!r}: not an option type")
    return KINDS[names[0]], optional


def option_table(
    settings: type,
    exclude: Iterable[str] = (),
    helps: Mapping[str, str] | None = None,
    defaults: Mapping[str, Any] | None = None,
) -> dict[str, OptionSpec]:
    """The options of a settings dataclass, by key, leaving out ``exclude``.

    The help text is the field's ``metadata["help"]`` (or ``helps[name]``);
    ``defaults`` overrides the defaults shown.
    """
    skip = set(exclude)
    table: dict[str, OptionSpec] = {}
    for f in fields(settings):
        if f.name in skip:
            continue
        kind, optional = _kind(f.type)
        default = f.default if f.default is not MISSING else None
        if defaults and f.name in defaults:
            default = defaults[f.name]
        text = (helps or {}).get(f.name) or f.metadata.get("help", "")
        choices = f.metadata.get("choices")
        table[f.name] = OptionSpec(f.name, kind, default, text, optional, choices)
    return table


def parse_value(spec: OptionSpec, raw: Any) -> Any:
    """``raw`` (a command-line string or a JSON value) as the option's type.

    A value of another type, or outside the choices, raises a ValueError saying
    what the option takes (the caller names the option).
    """
    if isinstance(raw, str):
        text = raw.strip()
        if spec.optional and text.lower() in NONE:
            return None
        if spec.kind is bool:
            if text.lower() in TRUE:
                return True
            if text.lower() in FALSE:
                return False
            value: Any = None
        elif spec.kind is str:
            value = text
        else:
            try:
                value = spec.kind(text)
            except ValueError:
                value = None
    elif raw is None and spec.optional:
        return None
    elif spec.kind is float and isinstance(raw, (int, float)) and not isinstance(raw, bool):
        value = float(raw)
    elif isinstance(raw, spec.kind) and not (spec.kind is int and isinstance(raw, bool)):
        value = raw
    else:
        value = None
    if value is None:
        raise ValueError(f"expected {spec.type_name}, got {raw!r}")
    if spec.choices and value not in spec.choices:
        raise ValueError(f"must be one of {', '.join(spec.choices)}, got {value!r}")
    return value


def parse_pairs(pairs: Iterable[str]) -> dict[str, str]:
    """``key=value`` strings as a dict; ValueError naming a malformed one."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise ValueError(f"--option: expected key=value, got {pair!r}")
        out[key.strip()] = value.strip()
    return out


def read_config_file(path: Path) -> dict[str, Any]:
    """The settings of a JSON file holding one object; ValueError if it is not one."""
    try:
        data = json.loads(Path(path).read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"--config: {path} is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError(f"--config: {path} must hold one JSON object of settings")
    return data


def argument_type(default: Any) -> Callable[[str], Any]:
    """The ``argparse`` type of a setting with this default: its type, but a bool reads a
    true/false word as ``--option`` does (``bool("false")`` is True)."""
    if not isinstance(default, bool):
        return type(default)

    def flag(text: str) -> bool:
        return parse_value(OptionSpec("flag", bool, False, ""), text)

    return flag
