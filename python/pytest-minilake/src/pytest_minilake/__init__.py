"""pytest-minilake: MiniLake (the Databricks API on your machine) as pytest fixtures.

The plugin loads itself (entry point ``pytest11``); this module also exports the server handle for code that
starts a server of its own, e.g. one with other settings or one to kill and restart::

    from pytest_minilake import start
    s = start(bin="apps/server/dist/cli.js", env={"MINILAKE_PERSIST": "1"})
    ...
    s.stop()
"""
from .server import (DEFAULT_TOKEN, MiniLake, MiniLakeError, MiniLakeStartError, command_for, free_port,
                     start)

__all__ = ["DEFAULT_TOKEN", "MiniLake", "MiniLakeError", "MiniLakeStartError", "command_for", "free_port", "start"]
__version__ = "0.1.0"
