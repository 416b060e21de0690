"""Where a sweep's points run: one point in a worker (`run_point`, with its
per-point timeout), and the executors that spread points over a local
process pool, a Dask cluster, or the calling process. Only the parent
writes files (dcflow.sweep), so workers need no shared file system."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from dcflow.scenario import Scenario, ScenarioError

__all__ = ["EXECUTORS", "run_point", "spawnable_main"]


class PointTimeout(Exception):
    """A point ran longer than the sweep's per-point timeout."""


def _deadline_watch(timeout: float | None):
    """A progress callback that stops the run (by raising) past `timeout`
    seconds of wall time; the engines call it every ~50 ms."""
    if timeout is None:
        return None
    deadline = time.monotonic() + timeout

    def watch(*_progress: Any) -> None:
        if time.monotonic() > deadline:
            raise PointTimeout(f"stopped after the per-point timeout of {timeout:g} s")

    return watch


def run_point(base_json: str, params: list[list[Any]], seed: int, timeout: float | None = None) -> dict[str, Any]:
    """Run one point (in a worker process). Returns ``status``, ``error``,
    ``summary``, ``flows`` and ``timeseries`` (Arrow tables or None).
    Never raises for a bad scenario or a failed run: the error is returned.
    A run longer than ``timeout`` seconds has status "timeout"."""
    from dcflow.run import run_scenario

    try:
        sc = Scenario.from_json(base_json).with_overrides({k: v for k, v in params})
        sc = sc.with_overrides({"seed": seed})
        res = run_scenario(sc, _deadline_watch(timeout))
    except PointTimeout as e:
        return {"status": "timeout", "error": str(e), "summary": {}, "flows": None, "timeseries": None}
    except ScenarioError as e:
        return {"status": "error", "error": " ".join(str(e).split()), "summary": {}, "flows": None,
                "timeseries": None}
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # noqa: BLE001 - a crash (even a Rust panic) in one point must not stop the sweep
        return {"status": "error", "error": f"{type(e).__name__}: {' '.join(str(e).split())}",
                "summary": {}, "flows": None, "timeseries": None}
    return {"status": "ok", "error": None, "summary": res.summary, "flows": res.flows,
            "timeseries": res.timeseries}


def _run_inline(points, tasks, on_done, workers, address) -> None:
    for p, t in zip(points, tasks):
        on_done(p, run_point(*t))


def _worker_init() -> None:
    """Pool workers die with their parent (Linux): a sweep killed with SIGKILL
    leaves no orphan processes behind (the forkserver exits with the sweep).
    They ignore SIGINT: Ctrl-C reaches the whole process group, and the
    parent alone decides, stopping them itself (:func:`_run_local`); a worker
    interrupted on its own would print a traceback and break the pool. They
    start with SIGINT blocked (:func:`_sigint_blocked`), so one that arrives
    while a worker imports is discarded here, not raised."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
            if os.getppid() == 1:  # the parent is already gone
                os._exit(1)
        except (OSError, AttributeError):
            pass


@contextlib.contextmanager
def _sigint_blocked():
    """Block SIGINT in the parent while it starts workers: they inherit the
    mask, so a Ctrl-C during their start-up waits, in them, until
    :func:`_worker_init` ignores it. The parent receives it when the block
    ends (a KeyboardInterrupt then)."""
    import signal

    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


@contextlib.contextmanager
def spawnable_main():
    """While worker processes start, hide a plain script's (or stdin's) path
    from multiprocessing's spawn, which would run that file again in every
    worker: a script without `if __name__ == "__main__":` then started its
    sweep in each worker and the pool broke (BrokenProcessPool), and `python
    -` has no file to run. Workers need nothing from `__main__` (points are
    scenario data; the function is dcflow's), so they start without it."""
    main = sys.modules.get("__main__")
    hide = main is not None and getattr(main, "__spec__", None) is None and hasattr(main, "__file__")
    path = main.__file__ if hide else None
    if hide:
        del main.__file__
    try:
        yield
    finally:
        if hide:
            main.__file__ = path


def _run_local(points, tasks, on_done, workers, address) -> None:
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor, as_completed

    n = workers or os.cpu_count() or 1
    n = max(1, min(n, len(tasks)))
    ctx = mp.get_context("spawn")
    with ProcessPoolExecutor(max_workers=n, mp_context=ctx, initializer=_worker_init) as pool:
        try:
            with spawnable_main(), _sigint_blocked():  # workers start as tasks are submitted
                futs = {pool.submit(run_point, *t): p for p, t in zip(points, tasks)}
            for fut in as_completed(futs):
                on_done(futs[fut], fut.result())
        except BaseException:
            # Ctrl-C (or a failure writing a point): stop now. Waiting for
            # the points in flight took seconds; the finished ones are
            # written already, and `--resume` runs the others.
            for proc in list((getattr(pool, "_processes", None) or {}).values()):
                proc.terminate()
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def _run_dask(points, tasks, on_done, workers, address) -> None:
    import logging

    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:  # pragma: no cover - dask is a dependency
        from dcflow.sweep import SweepError

        raise SweepError("executor dask: the 'distributed' package is not installed "
                         "(pip install 'dask[distributed]')") from None
    logging.getLogger("distributed").setLevel(logging.ERROR)
    cluster = None
    if address:
        client = Client(address, timeout="30s")
    else:
        n = workers or os.cpu_count() or 1
        n = max(1, min(n, len(tasks)))
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR)
        client = Client(cluster)
    try:
        futs = []
        by_key = {}
        for p, t in zip(points, tasks):
            f = client.submit(run_point, *t, key=f"dcflow-point-{p.id}-{os.getpid()}", pure=False)
            futs.append(f)
            by_key[f.key] = p
        for fut in as_completed(futs):
            p = by_key[fut.key]
            try:
                outcome = fut.result()
            except Exception as e:  # a lost worker, a deserialization error
                outcome = {"status": "error", "error": f"{type(e).__name__}: {e}", "summary": {},
                           "flows": None, "timeseries": None}
            fut.release()
            on_done(p, outcome)
    except BaseException:
        # Ctrl-C: cancel what is queued; a local cluster's workers, this
        # process's children, stop now rather than after their points.
        client.cancel(futs)
        if cluster is not None:
            import multiprocessing

            for proc in multiprocessing.active_children():
                proc.terminate()
        raise
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


#: The executors by name: each runs `tasks` (run_point's arguments) for
#: `points` and calls `on_done(point, outcome)` in the parent as each finishes.
EXECUTORS: dict[str, Callable[..., None]] = {"local": _run_local, "dask": _run_dask, "inline": _run_inline}
