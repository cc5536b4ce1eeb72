"""Bit tricks on uint64 card masks as LLVM intrinsics usable inside njit code.

They return int64: numba turns int64 mixed with uint64 into float64, which
would creep into every index computed from them.

``np.bitwise_count`` is not supported in nopython mode; these compile to the
single popcnt / tzcnt / lzcnt instructions. ``pext`` and ``pdep`` are BMI2's
bit gather and scatter: only for CPUs that have them (``config.FAST_PEXT``;
elsewhere the instruction cannot be compiled)."""

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from .config import JIT


@intrinsic
def _ctpop(typingctx, x):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def _cttz(typingctx, x):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


@intrinsic
def _ctlz(typingctx, x):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


@njit(**JIT)
def popcount(x):
    """Number of set bits."""
    return np.int64(_ctpop(x))


@njit(**JIT)
def lowest_bit(x):
    """Index of the lowest set bit (64 for 0)."""
    return np.int64(_cttz(x))


@njit(**JIT)
def highest_bit(x):
    """Index of the highest set bit (-1 for 0)."""
    return 63 - np.int64(_ctlz(x))


def _bmi2(name):
    @intrinsic
    def _op(typingctx, x, m):
        sig = types.uint64(types.uint64, types.uint64)

        def codegen(context, builder, signature, args):
            fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(64), ir.IntType(64)])
            return builder.call(builder.module.declare_intrinsic(name, fnty=fnty), args)

        return sig, codegen

    return _op


_pext = _bmi2("llvm.x86.bmi.pext.64")
_pdep = _bmi2("llvm.x86.bmi.pdep.64")


@njit(**JIT)
def pext(x, m):
    """The bits of ``x`` where ``m`` has ones, packed to the bottom (BMI2)."""
    return _pext(x, m)


@njit(**JIT)
def pdep(x, m):
    """The low bits of ``x`` spread to where ``m`` has ones (BMI2)."""
    return _pdep(x, m)


@intrinsic
def _prefetch(typingctx, arr, idx):
    sig = types.none(arr, types.int64)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        # a 2-d array: the first word of row ``idx``
        inds = [args[1]] + [context.get_constant(types.intp, 0)] * (signature.args[0].ndim - 1)
        ptr = cgutils.get_item_pointer(context, builder, signature.args[0], ary, inds, wraparound=False)
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        # read, keep in every cache level, data
        builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


def prefetch(arr, idx):
    """Ask the CPU to bring word ``idx`` of the 1-d array ``arr`` (of a 2-d
    one: the first word of row ``idx``) into its caches, without waiting
    for it (a hint: it changes no value). Compiled into the njit code that
    calls it (an overload, not a compiled function of its own, which would
    be compiled once per array type); called from Python, as the kernel's
    plain-Python form is in tests, it does nothing."""


@overload(prefetch)
def _prefetch_overload(arr, idx):
    def impl(arr, idx):
        _prefetch(arr, idx)

    return impl
