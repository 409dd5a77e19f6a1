"""A cheaper ``dataclasses.replace`` for the frozen value classes a transition rebuilds.

``dataclasses.replace(obj, **changes)`` walks the class's fields at run time and calls
``__init__``; for a class whose ``__init__`` only stores its fields (no ``__post_init__``, no
``InitVar``, every field in ``__init__``) that is the same as copying the fields and setting
the changed ones, which :func:`evolve` does with code made once per class. It refuses a class
it would not copy faithfully (one with a ``__post_init__``, which may check or normalise what
it is given: keep ``replace`` for those), and an unknown field name, as ``replace`` does.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True, slots=True)
... class P:
...     x: int
...     y: int = 0
>>> evolve(P(1, 2), y=5)
P(x=1, y=5)
>>> evolve(P(1), z=3)
Traceback (most recent call last):
...
TypeError: P has no field 'z'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_COPIERS: dict[type, Callable[[Any, dict[str, Any]], Any]] = {}


def evolve(obj: T, **changes: Any) -> T:
    """``dataclasses.replace(obj, **changes)`` for a dataclass that validates nothing."""
    copier = _COPIERS.get(type(obj)) or _copier(type(obj))
    return copier(obj, changes)  # type: ignore[no-any-return]


def _copier(cls: type) -> Callable[[Any, dict[str, Any]], Any]:
    if not dataclasses.is_dataclass(cls) or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} is not a plain dataclass: use dataclasses.replace")
    fields = dataclasses.fields(cls)
    if any(not f.init for f in fields) or len(fields) != len(cls.__dataclass_fields__):
        raise TypeError(f"{cls.__name__} has fields outside __init__: use dataclasses.replace")
    names = [f.name for f in fields]
    for name in names:
        if not name.isidentifier():  # pragma: no cover - dataclass field names are identifiers
            raise TypeError(f"odd field name {name!r}")
    # One line per field: the changed value if given, else the object's own.
    body = "".join(
        f"    set_(new, {n!r}, changes.pop({n!r}) if {n!r} in changes else obj.{n})\n"
        for n in names
    )
    source = (
        "def copy(obj, changes):\n"
        "    new = new_(cls)\n"
        f"{body}"
        "    if changes:\n"
        "        raise TypeError(f'{cls.__name__} has no field {next(iter(changes))!r}')\n"
        "    return new\n"
    )
    namespace: dict[str, Any] = {"cls": cls, "new_": object.__new__, "set_": object.__setattr__}
    exec(source, namespace)  # the code is made from the class's own field names
    copier = namespace["copy"]
    _COPIERS[cls] = copier
    return copier  # type: ignore[no-any-return]
