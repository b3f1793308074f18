"""Tensor files meancli reads and writes, one module per job.

- ``registry``: the one input registry and the one output registry: every
  FILE argument is opened, and every output written, through it.
- ``npy_format``: the ``.npy`` header (parsing and checks, writing).
- ``npy_read``: the one ``.npy`` reader, for bytes from any file object
  (a file, stdin, an ``.npz`` member, a shard).
- ``npy_write``: ``.npy`` outputs (atomic files, stdout).
- ``npz``: ``.npz`` archives: numpy's member lookup, members read by ``npy_read``.
- ``onnx_tensor``: ONNX ``TensorProto`` files (``.pb``), through the ``onnx`` package.
- ``detect``: which format a path holds (by content, as ``np.load`` decides).
- ``pipes``: stdin and stdout, also when they are non-blocking pipes.
- ``atomic_write``: a file replaced whole or not at all.
- ``inputs``: ``.npy``, ``.npz``, ``.pb`` and stdin inputs as NamedArrays.
- ``source``: inputs read on demand (large files, stdin, large members).
- ``chunked``, ``zarr_input``, ``shards``: inputs read a chunk at a time (zarr arrays, shard datasets).
- ``zarr_output``: zarr outputs, written into a temporary store and published in one step.
- ``messages``: how errors name files and reasons.

Nothing here is imported by ``meancli.io`` itself: each run loads only what
its files need.
"""
