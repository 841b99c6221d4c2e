"""A match's shards as the tasks of a Ray cluster (``rummy500.eval.shards``).

Each shard is one task of one CPU, played by ``play_shard`` as a worker process
plays it, so the results are those of one process. A program that has already
joined a cluster (``ray.init``) keeps it; otherwise the run joins the one at the
address given and leaves it after.
"""

from __future__ import annotations

from collections.abc import Sequence

from rummy500.eval.shards import (
    INTERRUPTED,
    Played,
    Shard,
    ShardResult,
    Workers,
    dispatch_order,
    empty_result,
    play_shard,
)


def check_ray_address(address: str) -> None:
    """A one-line ``ValueError`` unless Ray is installed and, for ``HOST:PORT``, something
    answers there (Ray itself waits minutes on an address where nothing listens)."""
    import importlib.util
    import socket

    if importlib.util.find_spec("ray") is None:
        raise ValueError("Ray is not installed (pip install 'rummy500[rllib]')")
    host, colon, port = address.rpartition(":")
    if not colon or "://" in address or not port.isdigit():
        return  # auto, local, ray://...: Ray's own forms
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as e:
        raise ValueError(
            f"nothing answers at {address} ({e.strerror or e}); start the "
            "cluster with ray start, or give its address"
        ) from None


def on_ray(shards: Sequence[Shard], workers: Workers) -> Played:
    """Play ``shards`` as tasks of the Ray cluster at ``workers.address`` (``local``: a Ray
    started here for the run)."""
    import ray

    started = not ray.is_initialized()
    if started:
        try:
            ray.init(
                address=None if workers.address == "local" else workers.address,
                log_to_driver=False,
                configure_logging=False,
            )
        except (ConnectionError, RuntimeError, ValueError) as e:
            first_line = (str(e).strip().splitlines() or [type(e).__name__])[0]
            yield (
                None,
                ShardResult(
                    empty_result(
                        shards[0],
                        f"cannot reach the Ray cluster at {workers.address}: {first_line}",
                    )
                ),
            )
            return
    task = ray.remote(num_cpus=1, max_retries=0)(play_shard)
    order = dispatch_order(shards)
    pending = [task.remote(shards[i], workers.threads) for i in order]
    index_of = dict(zip(pending, order))
    try:
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            i = index_of[ready[0]]
            try:
                result = ray.get(ready[0])
            except ray.exceptions.RayError as e:
                first_line = (str(e).strip().splitlines() or [type(e).__name__])[0]
                yield (
                    None,
                    ShardResult(empty_result(shards[i], f"a Ray task failed ({first_line})")),
                )
                return
            yield i, result
    except KeyboardInterrupt:
        yield None, ShardResult(empty_result(shards[0], INTERRUPTED))
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()
