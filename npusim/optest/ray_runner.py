"""Fanning op test cases out as Ray tasks (``npusim optest --ray ADDRESS|auto``), gathered into one report.

Ray is optional (``pip install 'npusim[ray]'``).  ``--ray auto`` connects to the Ray cluster running on this
machine, or starts a local one when there is none (and stops it afterwards); any other value is a cluster address
(``ray://host:10001``, ``host:6379``).  Cases go out in small chunks, one task per chunk and chip; each worker
process keeps one :class:`~npusim.optest.runner.OpTestSession` as a runtime resource
(:func:`~npusim.optest.runner.session_for`), so its implementations, backends and in-memory kernels are reused by
every task it runs, and every worker shares npusim's on-disk kernel cache.  Paths in the cases (op files,
goldens, impl dirs) must be readable on the workers: a shared file system, or a local cluster.
"""
from __future__ import annotations

from typing import Callable, Optional

from npusim.errors import RayUnavailableError
from npusim.optest.runner import RunOptions, session_for

#: cases per Ray task: large enough to amortise a task's overhead, small enough to spread 20 cases over cores
CHUNK_CASES = 4


def ray_module():
    """The ``ray`` module, or RayUnavailableError saying how to install it."""
    try:
        import ray
    except ImportError:
        raise RayUnavailableError("--ray needs Ray, which is not installed: pip install 'npusim[ray]' "
                                  "(or pip install ray)") from None
    return ray


def connect(ray, address: str) -> bool:
    """Connect to ``address`` ("auto": the local cluster, else a new local instance); True when this call started
    a local instance (the caller shuts it down)."""
    if ray.is_initialized():
        return False
    settings = dict(ignore_reinit_error=True, include_dashboard=False, log_to_driver=False)
    if address == "auto":
        try:
            ray.init(address="auto", **settings)
            return False
        except (ConnectionError, RuntimeError, ValueError):
            ray.init(**settings)
            return True
    try:
        ray.init(address=address, **settings)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise RayUnavailableError(f"cannot reach the Ray cluster at {address!r}: {exc}") from None
    return False


def run_chunk(cases: list, soc, options: RunOptions) -> list:
    """What one Ray task runs: ``cases`` on chip ``soc`` with this worker process's session."""
    session = session_for(options)
    return [session.run_case(case, soc) for case in cases]


def run_on_ray(cases: list, options: RunOptions, address: str = "auto",
               progress: Optional[Callable] = None) -> list:
    """Every case on every chip of ``options`` as Ray tasks; the results (unordered: sort them with
    :func:`npusim.optest.report.ordered`)."""
    ray = ray_module()
    started = connect(ray, address)
    try:
        task = ray.remote(run_chunk)
        pending = [task.remote(cases[i:i + CHUNK_CASES], soc, options)
                   for soc in options.socs for i in range(0, len(cases), CHUNK_CASES)]
        total, results = len(cases) * len(options.socs), []
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for chunk in ray.get(done):
                for result in chunk:
                    results.append(result)
                    if progress is not None:
                        progress(len(results), total, result)
        return results
    finally:
        if started:
            ray.shutdown()


__all__ = ["CHUNK_CASES", "connect", "ray_module", "run_chunk", "run_on_ray"]
