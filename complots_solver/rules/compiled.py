"""How the hot compiled code avoids numba's reference counting.

numba reference-counts arrays: a compiled function increments the counter of
every array argument on entry and decrements it on exit (atomic operations),
and taking a view such as ``states[d]`` does the same. The rules core is many
small functions over the state array, so these atomics cost more than the
rules themselves: about 6 ns per array argument per call on the benchmark
machine, against about 1 ns for a small function's own work. Two tools remove
them (``scripts/bench_mccfr.py`` measures the effect):

``hot``
    The decorator of every compiled function that allocates nothing (most of
    the rules core, the information keys, the table look-ups): ``njit`` with
    numba's ``_nrt=False`` target option, so the function emits no reference
    counting at all. Such a function cannot allocate arrays (numba refuses
    to compile it), and must not be given a view it keeps beyond the call.

``inline``
    ``hot`` plus numba's ``inline="always"``: the function's body is compiled
    into each caller instead of being called. A call between numba
    functions passes every array as its whole structure (seven machine words
    for a 1-D array, pushed on the stack) and is never inlined by LLVM,
    because each function lives in its own compiled library. For the small
    functions an MCCFR visit calls (the keys, a look-up, regret matching, the
    state copy, the observation token) and the rules' entry points
    (``legal_actions_into``, ``apply_action``, chance sampling) the calls
    cost more than the work: inlining them raised ladder-2 ES visits per
    second by about half (``reports/mccfr-runs.md``, sixth session). Keep it
    for functions on a hot path with few call sites: every call site
    compiles the body again, and inlining the rules core's mid-level
    helpers into each other multiplied its compile time by six.

``borrow(a)``
    In a function that *does* allocate (a solver's driver loop), a view of
    ``a`` with no memory owner (null ``meminfo``), so that views taken from it
    in the hot loop touch no counter. The view does not keep the memory alive:
    borrow only from a function's parameters (the caller holds them for the
    whole call) or from a local that is used again, for example through
    :func:`keep_alive`, after the last use of the view; never return or store
    a borrowed view. Borrowing does not help with the *owned* arrays a loop
    may reassign (a table regrown inside it): numba then increments and
    decrements each of them at every pass of the loop (measured with perf:
    a quarter of an MCCFR run). A loop that must allocate now and then is
    best a ``hot`` function that returns when it needs memory, called again
    by an allocating driver (``mccfr.walk._walk_es`` or ``_walk_os`` and
    ``mccfr.walk.run_walk``).

``advise_huge_pages(a)``
    Asks Linux to back a freshly allocated (not yet touched) array with 2 MiB
    pages (``madvise(MADV_HUGEPAGE)``, honoured when transparent huge pages
    are in "madvise" or "always" mode). numpy does this for its own large
    allocations, numba's ``np.empty`` does not; a hash table of hundreds of
    megabytes read at random then pays a page walk (a TLB miss) on most
    look-ups. Measured on the benchmark VM, random reads and writes over
    512 MB: 23-27 ns each on 4 KiB pages, 14-16 ns on huge pages. A no-op on
    other systems and for arrays under 2 MiB.

``prefetch(a, i)``
    Asks the CPU to start loading row ``i`` of ``a`` (LLVM's
    ``llvm.prefetch``): the MCCFR walk computes a node's key, prefetches its
    hash slot, and only then lists the legal actions, so the slot's cache
    miss overlaps that work. No effect on results.
"""

from __future__ import annotations

import sys

import llvmlite
from llvmlite import binding as llvm
from llvmlite import ir as llvm_ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

HOT_OPTIONS = {"cache": True, "_nrt": False}  # numba options of `hot`
hot = njit(**HOT_OPTIONS)
INLINE_OPTIONS = {**HOT_OPTIONS, "inline": "always"}
inline = njit(**INLINE_OPTIONS)

HUGE_PAGE_BYTES = 1 << 21
MADV_HUGEPAGE = 14  # Linux's value (asm-generic/mman-common.h)

if sys.platform.startswith("linux"):
    _madvise = types.ExternalFunction("madvise", types.intc(types.uintp, types.uintp, types.intc))

    @hot
    def advise_huge_pages(a) -> int:
        """Ask for huge pages under the 2 MiB-aligned part of ``a`` (before touching it)."""
        start = a.ctypes.data
        first = (start + HUGE_PAGE_BYTES - 1) // HUGE_PAGE_BYTES * HUGE_PAGE_BYTES
        last = (start + a.size * a.itemsize) // HUGE_PAGE_BYTES * HUGE_PAGE_BYTES
        if last <= first:
            return 0
        return _madvise(first, last - first, MADV_HUGEPAGE)

else:

    @hot
    def advise_huge_pages(a) -> int:
        """No-op outside Linux (see the module note)."""
        return 0


@intrinsic
def borrow(typingctx, arr):
    """A view of array ``arr`` without a reference-counted owner (see the module note)."""
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, signature, args):
        src = context.make_array(arr)(context, builder, value=args[0])
        out = context.make_array(arr)(context, builder)
        out.meminfo = cgutils.get_null_value(out.meminfo.type)
        out.parent = cgutils.get_null_value(out.parent.type)
        out.nitems = src.nitems
        out.itemsize = src.itemsize
        out.data = src.data
        out.shape = src.shape
        out.strides = src.strides
        return out._getvalue()

    return arr(arr), codegen


@njit(cache=True)
def keep_alive(*arrays):
    """Use ``arrays`` here, so that numba keeps them alive until this point."""
    return len(arrays)


# LLVM names the intrinsic by its pointer type: opaque pointers (always from LLVM 17; an
# llvmlite option before) or typed i8* (LLVM 14)
_OPAQUE_POINTERS = getattr(llvmlite, "opaque_pointers_enabled", llvm.llvm_version_info >= (17,))
_PREFETCH_NAME = "llvm.prefetch.p0" if _OPAQUE_POINTERS else "llvm.prefetch.p0i8"


@intrinsic
def prefetch(typingctx, arr, i):
    """Hint the CPU to fetch row ``i`` of ``arr`` into the caches (no effect on results)."""
    if not isinstance(arr, types.Array) or not isinstance(i, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        ary = context.make_array(arr)(context, builder, value=args[0])
        idx = [args[1]] + [context.get_constant(types.intp, 0)] * (arr.ndim - 1)
        ptr = cgutils.get_item_pointer(context, builder, arr, ary, idx, wraparound=False)
        i8p = llvm_ir.IntType(8).as_pointer()
        i32 = llvm_ir.IntType(32)
        fnty = llvm_ir.FunctionType(llvm_ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, _PREFETCH_NAME)
        # read access, high temporal locality, data cache
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return types.void(arr, i), codegen
