"""How the hot compiled code avoids numba's reference counting.

numba increments and decrements an atomic counter for every array argument
and view, which costs more than the rules core's small functions do. The
tools here remove it: ``hot`` (``njit`` without reference counting, for
functions that allocate nothing), ``inline`` (``hot``, compiled into each
caller), ``borrow(a)`` (an owner-less view for allocating driver loops),
``keep_alive``, ``advise_huge_pages(a)`` and ``prefetch(a, i)``. Why each exists, its rules of
use and what it measured: docs/engine.md, "Compiled code without reference
counting".
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
