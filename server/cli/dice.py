"""``fairgammon dice chain|roll``: a seat's chain links and the dice of a roll, for players and
auditors (the logic is :mod:`protocol.fairdice.cli`).

    fairgammon dice chain --match-id HEX32 --game N --seat S --secret HEX64 [--length N] [--index K]
    fairgammon dice roll --match-id HEX32 --game N --roll K --seat0 HEX64 --seat1 HEX64
"""

from __future__ import annotations

import argparse

from protocol.fairdice.cli import BadUsage, add_dice_arguments, run_dice
from server.cli import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_dice_arguments(parser)


def run(args: argparse.Namespace) -> int:
    try:
        return run_dice(args)
    except BadUsage as exc:
        raise UsageError(str(exc)) from None
