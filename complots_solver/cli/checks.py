"""Checks the commands make before long work (shared by main and report_cmds without a cycle)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import click


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
