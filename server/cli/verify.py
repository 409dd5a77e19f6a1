"""``fairgammon verify TRANSCRIPT.json``: verify a finished game's transcript — every commitment,
link, roll and roll-off step, and every play through the rules engine — and print one line.
Exit status 0 when it verifies, 1 when it does not, 2 on bad usage (unreadable file, not JSON).
"""

from __future__ import annotations

import argparse

from protocol.fairdice.cli import BadUsage, add_verify_arguments, run_verify
from server.cli import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_verify_arguments(parser)


def run(args: argparse.Namespace) -> int:
    try:
        return run_verify(args)
    except BadUsage as exc:
        raise UsageError(str(exc)) from None
