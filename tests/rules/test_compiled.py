"""rules/compiled.py: borrowed views; hot functions refuse to allocate; inlining; prefetch; huge pages."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from numba import njit
from numba.core.errors import NumbaError

from complots_solver.rules import core
from complots_solver.rules.compiled import (
    HOT_OPTIONS,
    HUGE_PAGE_BYTES,
    INLINE_OPTIONS,
    advise_huge_pages,
    borrow,
    keep_alive,
    prefetch,
)
from complots_solver.rules.layout import STATE_SIZE
from complots_solver.rules.presets import resolve_game


@njit
def _write_through_borrowed(a: np.ndarray, value: int) -> int:
    view = borrow(a)
    row = view[1]  # a view of a borrowed view: no owner either
    row[2] = value
    return view.shape[0] * 100 + view.shape[1]


@njit
def _sum_borrowed_local(n: int) -> int:
    own = np.arange(n)
    view = borrow(own)
    total = 0
    for i in range(view.shape[0]):
        total += view[i]
    keep_alive(own)
    return total


def test_borrowed_view_aliases_the_array() -> None:
    a = np.zeros((3, 4), dtype=np.int64)
    assert _write_through_borrowed(a, 7) == 304
    assert a[1, 2] == 7
    assert a.sum() == 7


def test_borrowed_local_kept_alive_reads_its_values() -> None:
    assert _sum_borrowed_local(1000) == 999 * 1000 // 2


def test_hot_function_cannot_allocate() -> None:
    options = {**HOT_OPTIONS, "cache": False}  # a function defined here cannot be cached

    @njit(**options)
    def allocates(n: int) -> int:
        return np.zeros(n).shape[0]

    @njit(**options)
    def reads(a: np.ndarray) -> int:
        return a[0] + a.shape[0]

    assert reads(np.array([4, 5])) == 6
    with pytest.raises(NumbaError, match="Only accept returning of array passed into"):
        allocates(3)


def test_copy_state_copies_every_field() -> None:
    cfg = resolve_game("ladder-2-ambassador")[0].to_array()
    src = np.arange(STATE_SIZE, dtype=np.int32)
    dst = np.full(STATE_SIZE, -5, dtype=np.int32)
    core.copy_state(dst, src)
    assert np.array_equal(dst, src)
    fresh = core.initial_state(cfg)
    core.copy_state(dst, fresh)
    assert np.array_equal(dst, fresh)


@njit
def _advised_zeros(n: int) -> tuple[np.ndarray, int]:
    a = np.empty(n)
    code = advise_huge_pages(a)
    a[:] = 0.0
    return a, code


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="madvise is Linux's")
def test_advise_huge_pages_succeeds_and_leaves_the_array_usable() -> None:
    # madvise returns -1 (EINVAL) for a misaligned range or a wrong argument type
    big, code = _advised_zeros(4 * HUGE_PAGE_BYTES // 8)
    assert code == 0
    big[::1000] = 1.0
    assert big.sum() == len(range(0, big.shape[0], 1000))
    small, code = _advised_zeros(10)  # under one huge page: nothing to ask for
    assert code == 0 and small.sum() == 0.0


@njit
def _sum_with_prefetch(a: np.ndarray, b: np.ndarray) -> float:
    total = 0.0
    for i in range(a.shape[0]):
        prefetch(a, (i * 7) % a.shape[0])
        prefetch(b, i % b.shape[0])  # a 2-D array: its row i
        total += a[i] + b[i % b.shape[0], 1]
    return total


def test_prefetch_emits_the_hint_and_leaves_results_alone() -> None:
    a = np.arange(100, dtype=np.float64)
    b = np.arange(20, dtype=np.float64).reshape(10, 2)
    assert _sum_with_prefetch(a, b) == a.sum() + 10 * b[:, 1].sum()
    llvm = _sum_with_prefetch.inspect_llvm(_sum_with_prefetch.signatures[0])
    assert "llvm.prefetch" in llvm


def test_inline_functions_are_compiled_into_their_caller() -> None:
    options = {**INLINE_OPTIONS, "cache": False}
    plain = {**HOT_OPTIONS, "cache": False}

    @njit(**options)
    def twice_inlined(a: np.ndarray, i: int) -> float:
        return 2.0 * a[i]

    @njit(**plain)
    def twice_called(a: np.ndarray, i: int) -> float:
        return 2.0 * a[i]

    @njit(**plain)
    def caller_inlined(a: np.ndarray) -> float:
        return twice_inlined(a, 1) + 1.0

    @njit(**plain)
    def caller_called(a: np.ndarray) -> float:
        return twice_called(a, 1) + 1.0

    a = np.array([1.0, 3.0])
    assert caller_inlined(a) == caller_called(a) == 7.0
    # a call between numba functions names the callee in the caller's LLVM module
    assert "twice_called" in caller_called.inspect_llvm(caller_called.signatures[0])
    assert "twice_inlined" not in caller_inlined.inspect_llvm(caller_inlined.signatures[0])


def test_the_mccfr_visit_helpers_are_inlined() -> None:
    # (a cached function keeps no LLVM text to inspect: the options are checked instead;
    # the test above checks what the option does)
    from complots_solver.solvers.mccfr import infokeys, table, walk

    helpers = [
        table.regret_matching, table.probe, table.sample, walk._step_child, table.stamp_row,
        infokeys.step_keys, infokeys.key_of, core.observation_token, core.copy_state,
        core.legal_actions_into, core.apply_action, core.sample_chance, core.return_of,
    ]  # fmt: skip
    for f in helpers:
        assert f.targetoptions.get("inline") == "always", f.__name__
    for kernel in (walk._walk_es, walk._walk_os):  # the walks themselves are called
        assert kernel.targetoptions.get("inline") != "always"
