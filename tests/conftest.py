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
    """The session's Redis, emptied before each test."""
    import redis.asyncio as aioredis

    if not redis_process.alive():  # a test killed it: bring it back for the next ones
        redis_process.start()
    client = aioredis.from_url(redis_process.url)
    await client.flushall()
    await client.aclose()
    return redis_process.url


@pytest.fixture
async def server(redis_url):
    """A real server process (uvicorn) on the test Redis, for one test."""
    from harness.serverproc import ServerProcess

    proc = ServerProcess(redis_url)
    proc.start()
    yield proc
    proc.stop()
