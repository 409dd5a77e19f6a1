"""The wire protocol (msgpack frames), the fair-dice scheme and an asyncio client library."""
