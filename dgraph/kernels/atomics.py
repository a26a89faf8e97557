"""Atomic steps on array elements for numba's CPU kernels (numba offers atomics only on devices):
compare-and-swap, which lets threads hook union-find roots at once, as GAP's Afforest does, and
the loads, adds and spin barrier that let threads run one kernel call in lockstep rounds, as
GAP's delta-stepping does, and the threads that run it (``on_threads``)."""

from __future__ import annotations

import threading

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

# Spins a barrier waits before it yields its core each turn: far more than threads on cores of
# their own need, so that only threads that share a core (more threads than cores) yield
SPINS_BEFORE_YIELD = 1 << 12


def _pointer(context, builder, kind, ary, at):
    return cgutils.get_item_pointer(context, builder, kind, context.make_array(kind)(context, builder, ary), [at])


@intrinsic
def swap_if(typingctx, array, index, expected, new):
    """In a numba kernel: ``array[index] = new`` if it holds ``expected``, as one atomic step;
    returns what it held (``expected`` when the swap happened). No bounds check, no negative
    index."""
    sig = array.dtype(array, types.intp, array.dtype, array.dtype)

    def codegen(context, builder, signature, args):
        kind, (ary, at, old, value) = signature.args[0], args
        ptr = _pointer(context, builder, kind, ary, at)
        return builder.extract_value(builder.cmpxchg(ptr, old, value, "seq_cst", "seq_cst"), 0)

    return sig, codegen


@intrinsic
def fetch_add(typingctx, array, index, value):
    """In a numba kernel: add ``value`` to the integer ``array[index]`` as one atomic step;
    returns what it held before."""
    sig = array.dtype(array, types.intp, array.dtype)

    def codegen(context, builder, signature, args):
        kind, (ary, at, value) = signature.args[0], args
        return builder.atomic_rmw("add", _pointer(context, builder, kind, ary, at), value, "seq_cst")

    return sig, codegen


@intrinsic
def fetch_or(typingctx, array, index, value):
    """In a numba kernel: ``array[index] |= value`` on an integer array as one atomic step
    (threads setting bits of one byte); returns what it held before."""
    sig = array.dtype(array, types.intp, array.dtype)

    def codegen(context, builder, signature, args):
        kind, (ary, at, value) = signature.args[0], args
        return builder.atomic_rmw("or", _pointer(context, builder, kind, ary, at), value, "seq_cst")

    return sig, codegen


@intrinsic
def load(typingctx, array, index):
    """In a numba kernel: ``array[index]`` read as one atomic step, never hoisted out of a loop
    (a plain read in a wait loop may be read once)."""
    sig = array.dtype(array, types.intp)

    def codegen(context, builder, signature, args):
        kind, (ary, at) = signature.args[0], args
        align = context.get_abi_sizeof(context.get_data_type(kind.dtype))
        return builder.load_atomic(_pointer(context, builder, kind, ary, at), "seq_cst", align)

    return sig, codegen


@intrinsic
def yield_core(typingctx):
    """In a numba kernel: let the operating system run another thread on this core
    (``sched_yield``)."""

    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(32), []), "sched_yield")
        builder.call(fn, [])
        return context.get_dummy_value()

    return types.void(), codegen


@njit(nogil=True, cache=True)
def barrier(state, threads):
    """Wait in a numba kernel until all ``threads`` threads of one call have arrived; ``state``
    (int64, 3 zeros at the start) is shared by them: arrivals, rounds passed, and a flag that a
    thread failed. Returns False when that flag is raised (the threads should stop), else True."""
    passed = load(state, 1)
    if fetch_add(state, 0, 1) == threads - 1:
        state[0] = 0  # every thread has arrived: none counts again until the round below passes
        fetch_add(state, 1, 1)
        return True
    spins = 0
    while load(state, 1) == passed:
        if load(state, 2):
            return False
        spins += 1
        if spins > SPINS_BEFORE_YIELD:
            yield_core()
    return True


def on_threads(work, k, state=None, name="dgraph"):
    """Run ``work(t)`` for t in 0..k-1: t = 0 on this thread, the others on threads of their
    own (numba kernels compiled ``nogil`` run there side by side), and raise here the first
    error any raised once all have ended. ``state``: the state of the ``barrier`` the threads
    meet at, whose failure flag an error raises, so that the others stop at their next barrier
    instead of waiting for the thread that failed."""
    failures = []

    def run(t):
        try:
            work(t)
        except BaseException as error:
            if state is not None:
                state[2] = 1
            failures.append(error)

    helpers = [threading.Thread(target=run, args=(t,), name=f"{name}-{t}") for t in range(1, k)]
    for helper in helpers:
        helper.start()
    run(0)
    for helper in helpers:
        helper.join()
    if failures:
        raise failures[0]
