"""fairgammon's I/O shell: the Starlette app, WebSocket gateway, Redis store and the CLI."""
