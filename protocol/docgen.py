"""Generate the reference parts of docs/protocol.md from the code, so they cannot drift.

The document holds blocks ``<!-- generated:NAME -->`` ... ``<!-- /generated:NAME -->``; this
module rewrites what is between the markers (message tables, error and close codes, the HTTP
API's own error codes, limits, and the worked examples, which are real frames made by the
codec), and single values within a line, ``<!-- value:NAME -->…<!-- /value:NAME -->`` (each
mention of the protocol version, ``protocol.limits.PROTOCOL_VERSION``)::

    python -m protocol.docgen docs/protocol.md          # rewrite the generated blocks
    python -m protocol.docgen --check docs/protocol.md  # exit status 1 if any is stale

>>> doc = "a\\n<!-- generated:close-codes -->\\nold\\n<!-- /generated:close-codes -->"
>>> print(render(doc).splitlines()[2])
| code | name | meaning | reconnect? |
>>> render("version <!-- value:protocol-version -->1<!-- /value:protocol-version -->")
'version <!-- value:protocol-version -->5<!-- /value:protocol-version -->'
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack

from protocol import limits
from protocol.close_codes import CloseCode, close_code_for
from protocol.codec import DECODER_BUDGETS, DECODER_LIMITS, decode, encode
from protocol.errors import DESCRIPTIONS, ErrorCode
from protocol.examples import TURN
from protocol.http_errors import DESCRIPTIONS as HTTP_DESCRIPTIONS
from protocol.http_errors import STATUS, HttpCode
from protocol.refusals import PLAYER_WORDS
from protocol.registry import EVENT_KINDS, MESSAGES, NESTED, Direction, Envelope, MessageType
from protocol.schema import Field, struct_spec
from protocol.versions import ADDED, KINDS_ADDED, SUNSET

_BLOCK = re.compile(
    r"(<!-- generated:(?P<name>[a-z-]+) -->\n)(?P<body>.*?)(<!-- /generated:(?P=name) -->)",
    re.DOTALL,
)


_VALUE = re.compile(
    r"(<!-- value:(?P<name>[a-z-]+) -->)(?P<body>[^\n]*?)(<!-- /value:(?P=name) -->)"
)
VALUES: dict[str, Callable[[], str]] = {
    "protocol-version": lambda: str(limits.PROTOCOL_VERSION),
}
"""The single values a line may name, by marker name."""


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _field_table(fields: tuple[Field, ...], extra: list[tuple[str, str, str]] = ()) -> str:  # type: ignore[assignment]
    rows = ["| field | type and limits | meaning |", "|---|---|---|"]
    for name, kind, doc in extra:
        rows.append(f"| `{name}` | {_cell(kind)} | {_cell(doc)} |")
    for f in fields:
        rows.append(f"| `{f.name}` | {_cell(f.spec.describe())} | {_cell(f.doc)} |")
    return "\n".join(rows)


_ENVELOPE_TEXT = {
    Envelope.PLAIN: '`{"t": "%s", "p": {…}}`',
    Envelope.ACTION: '`{"t": "%s", "s": seq, "p": {…}}`',
    Envelope.EVENT: '`{"t": "%s", "v": version, "k": kind, "p": {…}}`',
}


def _message(mt: MessageType) -> str:
    head = f"#### `{mt.name}` ({mt.cls.__name__})\n\n{mt.doc}\n\n"
    head += f"Frame: {_ENVELOPE_TEXT[mt.envelope] % mt.name}"
    if mt.envelope is Envelope.EVENT:
        return head + " — `p` is the kind's data, see [Event kinds](#event-kinds).\n"
    if not mt.payload.fields:
        return head + ", `p` is an empty map.\n"
    return head + ", `p`:\n\n" + _field_table(mt.payload.fields) + "\n"


def messages(direction: Direction) -> str:
    return "\n".join(_message(mt) for mt in MESSAGES[direction].values())


def event_kinds() -> str:
    out = []
    for kind in EVENT_KINDS.values():
        out.append(f"#### `{kind.name}` ({kind.cls.__name__})\n\n{kind.doc}\n")
        out.append(_field_table(kind.payload.fields) + "\n")
    return "\n".join(out)


def nested_maps() -> str:
    out = []
    for cls in NESTED:
        spec = struct_spec(cls)
        out.append(f"#### {cls.__name__}\n\n{' '.join((cls.__doc__ or '').split())}\n")
        out.append(_field_table(spec.fields) + "\n")
    reused = sorted(
        {
            f.spec.describe().split("map: ")[1].split(" ")[0]
            for cls in NESTED
            for f in struct_spec(cls).fields
            if "map: " in f.spec.describe()
        }
        - {cls.__name__ for cls in NESTED}
    )
    names = {k.cls.__name__: k.name for k in EVENT_KINDS.values()}
    out.append(
        "Also nested: "
        + ", ".join(f"{n} (the data of event `{names[n]}`)" for n in reused if n in names)
        + ".\n"
    )
    return "\n".join(out)


def error_codes() -> str:
    rows = ["| code | meaning | close code when fatal |", "|---|---|---|"]
    for code in ErrorCode:
        close = close_code_for(code)
        shown = f"{int(close)} {close.name}" if close else "— (reject only)"
        rows.append(f"| `{code.value}` | {_cell(DESCRIPTIONS[code])} | {shown} |")
    return "\n".join(rows) + "\n"


def http_error_codes() -> str:
    rows = ["| code | status | meaning |", "|---|---|---|"]
    for code in HttpCode:
        rows.append(f"| `{code.value}` | {STATUS[code]} | {_cell(HTTP_DESCRIPTIONS[code])} |")
    return "\n".join(rows) + "\n"


def refusal_words() -> str:
    rows = ["| code | a player reads |", "|---|---|"]
    for code, words in PLAYER_WORDS.items():
        rows.append(f"| `{code.value}` | {_cell(words)} |")
    return "\n".join(rows) + "\n"


def close_codes() -> str:
    rows = ["| code | name | meaning | reconnect? |", "|---|---|---|---|"]
    for code in CloseCode:
        again = "yes, with backoff" if code.reconnect else "no"
        rows.append(f"| {int(code)} | `{code.name}` | {_cell(code.meaning)} | {again} |")
    return "\n".join(rows) + "\n"


def limit_table() -> str:
    rows = ["| constant | value | meaning |", "|---|---|---|"]
    for name in dir(limits):
        value = getattr(limits, name)
        if name.isupper() and type(value) is int:
            rows.append(f"| `{name}` | {value} | {_cell(_limit_doc(name))} |")
    rows += ["", "Decoder limits, by who sends the frame:", ""]
    rows += [
        "| sender | max str bytes | max bin bytes | max array length | max map length | ext "
        "| most maps per frame | most arrays per frame |"
    ]
    rows += ["|---|---|---|---|---|---|---|---|"]
    for d, lim in DECODER_LIMITS.items():
        maps, arrays = DECODER_BUDGETS[d]
        rows.append(
            f"| {d.value} | {lim['max_str_len']} | {lim['max_bin_len']} | "
            f"{lim['max_array_len']} | {lim['max_map_len']} | refused | {maps} | {arrays} |"
        )
    return "\n".join(rows) + "\n"


def version_table() -> str:
    """Each version spoken, what it added to existing maps and which event kinds it added to
    every match, and the deprecated ones' last day (``protocol.versions``)."""
    rows = [
        "| `hello.proto` | fields added to existing maps | event kinds added | kept until |",
        "|---|---|---|---|",
    ]
    for v in limits.PROTOCOL_VERSIONS:
        added = ", ".join(
            f"`{where}.{name}`" for where, names in ADDED.get(v, {}).items() for name in names
        )
        kinds = ", ".join(f"`{k}`" for k in KINDS_ADDED.get(v, ()))
        until = SUNSET.get(v, "newest" if v == limits.PROTOCOL_VERSION else "not deprecated")
        rows.append(f"| {v} | {added or '—'} | {kinds or '—'} | {until} |")
    return "\n".join(rows) + "\n"


def _limit_doc(name: str) -> str:
    source = Path(limits.__file__).read_text()
    m = re.search(rf"^{name} = .*?\n(\"\"\"(?P<doc>.*?)\"\"\")?", source, re.M | re.S)
    doc = m.group("doc") if m and m.group("doc") else ""
    return " ".join(doc.split())


def _jsonable(value: Any) -> Any:
    if isinstance(value, bytes):
        return "<bin:" + value.hex() + ">"
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


def example_turn() -> str:
    lines = ["```text"]
    for who, note, msg in TURN:
        frame = encode(msg)
        sender = Direction.CLIENT if who.endswith("→ S") else Direction.SERVER
        assert decode(frame, sender) == msg  # the example is valid by construction
        wire = msgpack.unpackb(frame)
        if note:
            lines.append(f"# {note}")
        lines.append(f"{who:<8} {json.dumps(_jsonable(wire), ensure_ascii=False)}")
    lines.append("```")
    return "\n".join(lines) + "\n"


def example_hex() -> str:
    msg = next(m for _, _, m in TURN if type(m).__name__ == "Move")
    frame = encode(msg)
    out = [f"`{msg!r}` encodes to these {len(frame)} bytes:", "", "```text"]
    for i in range(0, len(frame), 16):
        chunk = frame[i : i + 16]
        text = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
        out.append(f"{i:08x}  {chunk.hex(' '):<47}  |{text}|")
    out += ["```", "", "Byte by byte:", "", "```text"]
    out += annotate(frame)
    out.append("```")
    return "\n".join(out) + "\n"


def annotate(frame: bytes) -> list[str]:
    """One line per msgpack item: its bytes, indented by depth, and what they mean.

    >>> print("\\n".join(annotate(bytes.fromhex("81a16101"))))
    81                      map, 1 entry
      a1 61                 str "a"
      01                    int 1
    """
    lines: list[str] = []
    _annotate(frame, 0, 0, lines)
    return lines


def _annotate(b: bytes, i: int, depth: int, lines: list[str]) -> int:
    tag = b[i]

    def emit(n: int, what: str) -> None:
        lines.append(f"{'  ' * depth}{b[i : i + n].hex(' '):<{24 - 2 * depth}}{what}")

    if tag <= 0x7F:
        emit(1, f"int {tag}")
        return i + 1
    if 0x80 <= tag <= 0x8F or tag in (0xDE, 0xDF):
        n, head = _length(b, i, tag, 0x80, 0xDE)
        emit(head, f"map, {n} {'entry' if n == 1 else 'entries'}")
        i += head
        for _ in range(2 * n):
            i = _annotate(b, i, depth + 1, lines)
        return i
    if 0x90 <= tag <= 0x9F or tag in (0xDC, 0xDD):
        n, head = _length(b, i, tag, 0x90, 0xDC)
        emit(head, f"array, {n} element{'' if n == 1 else 's'}")
        i += head
        for _ in range(n):
            i = _annotate(b, i, depth + 1, lines)
        return i
    if 0xA0 <= tag <= 0xBF or tag in (0xD9, 0xDA, 0xDB):
        n, head = _str_length(b, i, tag)
        emit(head + n, f'str "{b[i + head : i + head + n].decode()}"')
        return i + head + n
    if tag in (0xC4, 0xC5, 0xC6):
        size = 1 << (tag - 0xC4)
        n = int.from_bytes(b[i + 1 : i + 1 + size], "big")
        emit(1 + size + n, f"bin, {n} bytes")
        return i + 1 + size + n
    if tag in (0xCC, 0xCD, 0xCE, 0xCF, 0xD0, 0xD1, 0xD2, 0xD3):
        size = 1 << ((tag - 0xCC) % 4)
        n = int.from_bytes(b[i + 1 : i + 1 + size], "big", signed=tag >= 0xD0)
        emit(1 + size, f"int {n}")
        return i + 1 + size
    if tag >= 0xE0:
        emit(1, f"int {tag - 256}")
        return i + 1
    names = {0xC0: "nil", 0xC2: "false", 0xC3: "true"}
    emit(1, names.get(tag, f"0x{tag:02x}"))
    return i + 1


def _length(b: bytes, i: int, tag: int, fix: int, wide: int) -> tuple[int, int]:
    if fix <= tag <= fix + 0x0F:
        return tag - fix, 1
    size = 2 if tag == wide else 4
    return int.from_bytes(b[i + 1 : i + 1 + size], "big"), 1 + size


def _str_length(b: bytes, i: int, tag: int) -> tuple[int, int]:
    if tag <= 0xBF:
        return tag - 0xA0, 1
    size = {0xD9: 1, 0xDA: 2, 0xDB: 4}[tag]
    return int.from_bytes(b[i + 1 : i + 1 + size], "big"), 1 + size


BLOCKS: dict[str, Callable[[], str]] = {
    "client-messages": lambda: messages(Direction.CLIENT),
    "server-messages": lambda: messages(Direction.SERVER),
    "event-kinds": event_kinds,
    "nested-maps": nested_maps,
    "error-codes": error_codes,
    "http-error-codes": http_error_codes,
    "refusal-words": refusal_words,
    "close-codes": close_codes,
    "versions": version_table,
    "limits": limit_table,
    "example-turn": example_turn,
    "example-hex": example_hex,
}


def render(text: str) -> str:
    """``text`` with every generated block brought up to date."""

    def fill(m: re.Match[str]) -> str:
        make = BLOCKS.get(m.group("name"))
        if make is None:
            raise KeyError(f"unknown generated block {m.group('name')}")
        return m.group(1) + make() + m.group(4)

    def value(m: re.Match[str]) -> str:
        make = VALUES.get(m.group("name"))
        if make is None:
            raise KeyError(f"unknown generated value {m.group('name')}")
        return m.group(1) + make() + m.group(4)

    return _VALUE.sub(value, _BLOCK.sub(fill, text))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Regenerate the code-derived parts of a doc.")
    parser.add_argument("path", type=Path)
    parser.add_argument("--check", action="store_true", help="only report whether it is stale")
    args = parser.parse_args(argv)
    old = args.path.read_text()
    new = render(old)
    if args.check:
        if new != old:
            print(f"{args.path}: generated blocks are stale; run python -m protocol.docgen")
            return 1
        return 0
    if new != old:
        args.path.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
