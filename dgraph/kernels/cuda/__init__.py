"""The cuda engine: device twins of the kernels that touch arcs, written with ``numba.cuda``.

Each twin takes and returns the same host arrays as its CPU siblings (so algorithms run
unchanged and the parity tests compare engines directly). Inside, a graph block's arrays are
uploaded once and stay resident on the device across calls and runs (``device.resident``); the
vertex values a call reads go up with it and only its results come back. ``device.transfers``
counts both directions, which a run reports as ``h2d_bytes``/``d2h_bytes``.

On a machine without a GPU, numba's simulator (``NUMBA_ENABLE_CUDASIM=1`` in the environment
before Python starts) runs the same kernels on the CPU, thread by thread: correct and slow,
for tests on small graphs.
"""

from numba import cuda

from ...errors import DgraphInputError

if not cuda.is_available():
    raise DgraphInputError(
        "the cuda kernel engine needs a CUDA GPU and its driver, and numba finds none here: run on "
        "GPU workers (dgraph.cluster.gpu_cluster), or set NUMBA_ENABLE_CUDASIM=1 before starting "
        "Python and the workers to run the device kernels in numba's simulator, or use "
        'dgraph.kernels.set_engine("numba")'
    )

from . import counting, frontier, linalg, paths, unionfind  # noqa: E402

TWINS = {**counting.TWINS, **frontier.TWINS, **linalg.TWINS, **paths.TWINS, **unionfind.TWINS}
