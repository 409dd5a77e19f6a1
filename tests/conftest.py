"""Shared test configuration: hypothesis profiles."""

import os

from hypothesis import HealthCheck, settings

# "ci" (the default) keeps the whole suite well inside CI's budget; "thorough" is for local hunts:
#   HYPOTHESIS_PROFILE=thorough make test
settings.register_profile(
    "ci", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("thorough", max_examples=5000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# --- a private redis-server for the tests (never one somebody else started) ---

import pytest  # noqa: E402

from server.ops.redis_process import RedisProcess  # noqa: E402


@pytest.fixture(scope="session")
def redis_process(tmp_path_factory):
    """One private redis-server (AOF, appendfsync always) for the whole session."""
    server = RedisProcess(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()


@pytest.fixture
async def redis_url(redis_process):
    """The session's Redis (brought back if a test killed it), emptied before each test."""
    from harness.srv_support import empty_redis

    empty_redis(redis_process)
    return redis_process.url


@pytest.fixture
async def server(redis_url):
    """A real server process (uvicorn) on the test Redis, for one test."""
    from harness.serverproc import ServerProcess

    proc = ServerProcess(redis_url)
    proc.start()
    yield proc
    proc.stop()


# --- a watchdog: a test that hangs fails with where it waits, instead of stalling the run ---

WATCHDOG_SECONDS = float(os.environ.get("FAIRGAMMON_TEST_WATCHDOG", "420"))
"""The longest test takes about 75 s on a loaded 2-core machine; one that runs this long is stuck
(a run once sat for ten minutes on a test awaiting nothing, with no way to tell which)."""


def _cancel_stuck(nodeid: str) -> None:
    """From the watchdog's thread: print every task of the running event loops (the captured
    output the failure report shows) and cancel them, so the test fails where it waits."""
    import asyncio
    import gc
    import sys

    print(f"\nWATCHDOG: {nodeid} still running after {WATCHDOG_SECONDS:.0f} s", file=sys.stderr)
    loops = [o for o in gc.get_objects() if isinstance(o, asyncio.AbstractEventLoop)]
    for loop in loops:
        if not loop.is_running() or loop.is_closed():
            continue

        def cancel(loop=loop) -> None:
            for task in asyncio.all_tasks(loop):
                task.print_stack(file=sys.stderr)
                task.cancel()

        loop.call_soon_threadsafe(cancel)


@pytest.fixture(autouse=True)
def _watchdog(request):
    import threading

    done = threading.Event()

    def watch() -> None:
        if not done.wait(WATCHDOG_SECONDS):
            _cancel_stuck(request.node.nodeid)
            if not done.wait(60):  # not an awaiting test, or it ignores cancellation
                import faulthandler
                import sys

                print(f"\nWATCHDOG: {request.node.nodeid} ignored the cancellation",
                      file=sys.stderr)
                faulthandler.dump_traceback(all_threads=True)
                os._exit(70)  # xdist reports the crashed worker with the test's name

    threading.Thread(target=watch, name="test-watchdog", daemon=True).start()
    yield
    done.set()
