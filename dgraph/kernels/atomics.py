"""Compare-and-swap on an array element, for numba's CPU kernels (numba offers atomics only on
devices): what lets threads hook union-find roots at once, as GAP's Afforest does."""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def swap_if(typingctx, array, index, expected, new):
    """In a numba kernel: ``array[index] = new`` if it holds ``expected``, as one atomic step;
    returns what it held (``expected`` when the swap happened). No bounds check, no negative
    index."""
    sig = array.dtype(array, types.intp, array.dtype, array.dtype)

    def codegen(context, builder, signature, args):
        kind, (ary, at, old, value) = signature.args[0], args
        ptr = cgutils.get_item_pointer(context, builder, kind, context.make_array(kind)(context, builder, ary), [at])
        return builder.extract_value(builder.cmpxchg(ptr, old, value, "seq_cst", "seq_cst"), 0)

    return sig, codegen
