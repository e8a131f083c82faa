"""Pause points for tests: a run stops at a named point so that a test can kill it there.

Set ``COMPLOTS_TEST_PAUSE`` to ``POINT`` or ``POINT@N`` (the N-th time the
point is reached; the first by default). The process then writes
``complots-test: paused at POINT`` as one line to stderr and sleeps until it
is killed, so a test kills it at a known place without depending on timing.
The points a run passes:

- ``tree-build``: compiling an exact tree has begun (nothing of the tree saved);
- ``iterations``: a chunk of iterations is done, not yet checkpointed;
- ``replace:NAME``: an atomic write of the file NAME has its temporary file
  complete and is about to rename it into place.

Unset (always, outside tests), a pause point costs one environment look-up.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter

PAUSE_ENV = "COMPLOTS_TEST_PAUSE"
PAUSED = "complots-test: paused at"
SLEEP_SECONDS = 3600.0

_reached: Counter[str] = Counter()


def pause_point(name: str) -> None:
    """Sleep until killed if ``COMPLOTS_TEST_PAUSE`` names this point (and its count is due)."""
    spec = os.environ.get(PAUSE_ENV)
    if not spec:
        return
    point, _, count = spec.rpartition("@") if "@" in spec else (spec, "", "1")
    if point != name:
        return
    _reached[name] += 1
    if _reached[name] != int(count):
        return
    sys.stderr.write(f"{PAUSED} {name}\n")
    sys.stderr.flush()
    while True:
        time.sleep(SLEEP_SECONDS)
