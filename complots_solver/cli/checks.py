"""Checks the commands share: the GAME argument, folders before long work, an interrupted run's exit.

Shared by the commands without an import cycle.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import NoReturn

import click
from rich.console import Console

from complots_solver.rules.config import GameConfig
from complots_solver.rules.presets import resolve_game

INTERRUPTED = 130  # 128 + SIGINT, the shell's convention


def exit_interrupted(console: Console, message: str) -> NoReturn:
    """Print what an interrupted run kept (``message``) and exit with INTERRUPTED."""
    console.print(message, markup=False)
    raise click.exceptions.Exit(INTERRUPTED) from None


def writable_folder(path: Path, option: str, target: Path | None = None) -> None:
    """Create folder ``path`` now, before any long work, or stop naming ``option``.

    ``target`` is the file the command will write there, named in the message.
    """
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        where = f"{target} (folder {path})" if target is not None else str(path)
        raise click.BadParameter(
            f"cannot create or write {where}: {exc.strerror or exc}", param_hint=option
        ) from None


def at_least(value: int | None, name: str, least: int) -> None:
    """Stop naming option ``name`` unless ``value`` (None: not given) is at least ``least``."""
    if value is not None and value < least:
        raise click.BadParameter(f"at least {least}, got {value}", param_hint=name)


def game_arg(spec: str) -> tuple[GameConfig, str | None]:
    """The game and preset a GAME argument names, or a usage error naming GAME."""
    try:
        return resolve_game(spec)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="GAME") from None
