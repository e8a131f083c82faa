"""Ctrl-C during a compiled tree walk stops the walk at once instead of when it returns."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator

import numpy as np
import pytest

from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.exact import complots_tree
from complots_solver.solvers.exact.complots_tree import (
    DONE,
    STOPPED,
    BuildInterrupted,
    compile_complots_tree,
    count_tree,
)

# ladder-3: about a second of walking on one core per pass, long enough to interrupt
LONG_GAME = "ladder-3-ambassador"
SHORT_GAME = "ladder-2-ambassador"  # 275,810 nodes: more walk steps than one stop check
WALK_THREAD = "complots-tree-walk"
PROMPT_SECONDS = 1.0


@pytest.fixture
def python_sigint() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt, as at a terminal (a runner may have ignored it)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _walk_args(game: str, stop: np.ndarray) -> tuple:
    """Arguments of a counting walk (no stored tree) of ``game``."""
    config, _ = resolve_game(game)
    empty = [
        complots_tree._empty(attr)
        for attr in ("kind", "player", "infoset", "child_offsets", "children")
        + ("chance_prob", "utility")
    ]
    return (
        config.to_array(),
        config.max_game_length(),
        complots_tree._move_width(config),
        True,
        False,
        True,
        0,
        *empty,
        stop,
    )


def test_the_walk_returns_stopped_when_its_flag_is_raised() -> None:
    """A raised stop flag ends the walk early with STOPPED; a lowered one walks it all."""
    nodes = count_tree(resolve_game(SHORT_GAME)[0]).nodes
    assert nodes > complots_tree.STOP_CHECK_STEPS
    stats, status, *_ = complots_tree._walk(*_walk_args(SHORT_GAME, np.ones(1, dtype=np.int8)))
    walked = int(stats[complots_tree.ST_INTERNAL] + stats[complots_tree.ST_TERMINAL])
    assert status == STOPPED
    assert 0 < walked < nodes
    stats, status, *_ = complots_tree._walk(*_walk_args(SHORT_GAME, np.zeros(1, dtype=np.int8)))
    assert status == DONE
    assert int(stats[complots_tree.ST_INTERNAL] + stats[complots_tree.ST_TERMINAL]) == nodes


def test_ctrl_c_stops_a_tree_build_within_a_second(
    python_sigint: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGINT during the walk: BuildInterrupted at once, the walk stopped, no thread left."""
    compile_complots_tree(resolve_game("ladder-1-ambassador")[0])  # load the compiled walk
    statuses: list[int] = []
    walk = complots_tree._walk

    def recorded(*args: object) -> tuple:
        result = walk(*args)
        statuses.append(int(result[1]))
        return result

    monkeypatch.setattr(complots_tree, "_walk", recorded)
    sent: list[float] = []

    def interrupt() -> None:
        deadline = time.monotonic() + 120
        while not any(t.name == WALK_THREAD for t in threading.enumerate()):
            if time.monotonic() > deadline:
                return
            time.sleep(0.005)
        time.sleep(0.2)  # well inside the first walk
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    sender = threading.Thread(target=interrupt)
    sender.start()
    try:
        with pytest.raises(BuildInterrupted, match="tree build was stopped"):
            compile_complots_tree(resolve_game(LONG_GAME)[0])
        raised = time.monotonic()
    finally:
        sender.join()
    assert sent, "the walk thread never started"
    assert statuses == [STOPPED]  # the first walk was stopped, not waited for
    assert raised - sent[0] < PROMPT_SECONDS
    assert not any(t.name == WALK_THREAD for t in threading.enumerate())
