"""The dask engine: chunked inputs as dask graphs of meancli's kernels.

Modules: graphs (the dask graphs), cluster (connecting to where they run),
compute (running them, with progress), run (the engine's entry points for
the planner), tasks (the functions shipped to workers).

- ReduceMean: ``dask.array.reduction`` with the exact partial states as
  chunk / combine / aggregate (meancli.engine.dask.tasks): the same bits for any
  chunk grid, ``split_every``, worker count or scheduler.
- Mean: ``dask.array.blockwise`` over the inputs aligned on their trailing
  dims (multidirectional broadcasting: a size-1 dim stretches).

Where it runs (meancli.engine.where.Where): this process with dask's synchronous
scheduler (chunk by chunk, bounded memory), a ``LocalCluster`` of
``workers`` processes on 127.0.0.1, or the cluster at ``scheduler``. Only
public dask and distributed API is used.
"""
