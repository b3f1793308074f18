"""Tensor files meancli reads and writes, one module per job.

- ``npy_format``: the ``.npy`` header (parsing and checks, writing).
- ``npy_read``: the one ``.npy`` reader, for bytes from any file object
  (a file, stdin, an ``.npz`` member, a shard).
- ``npy_write``: ``.npy`` outputs (atomic files, stdout).
- ``npz``: ``.npz`` archives: numpy's member lookup, members read by ``npy_read``.
- ``onnx_tensor``: ONNX ``TensorProto`` files (``.pb``), through the ``onnx`` package.
- ``detect``: which format a path holds (by content, as ``np.load`` decides).
- ``pipes``: stdin and stdout, also when they are non-blocking pipes.
- ``atomic_write``: a file replaced whole or not at all.
- ``dtypes``: bfloat16 as ``.npy`` stores it, native byte order.
- ``messages``: how errors name files and reasons.

Nothing here is imported by ``meancli.formats`` itself: each run loads only what
its files need.
"""
