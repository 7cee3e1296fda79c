"""Value types of the option table: how a command-line, ini or YAML value becomes a setting.

Text (command line, ini file) is converted: ``"3"`` becomes 3. A YAML value keeps its YAML type and must
already have the right one (``runs: '3'`` is refused), because YAML 1.1 silently turns ``yes`` into a
boolean and ``0123`` into 83. Every error names where the value came from.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


class SettingsError(ValueError):
    """A setting with a bad value; str() names the source (flag, ini key or file:line: key) and the value."""


@dataclass(frozen=True)
class Origin:
    """Where a raw value came from: its label in errors, the folder relative paths start from, its kind."""

    where: str
    base: Path
    typed: bool = False
    """True for YAML values: native types, checked strictly; False for text, which is converted."""

    def error(self, problem: str) -> SettingsError:
        """Return the error ``'<where>: <problem>'``."""
        return SettingsError(f"{self.where}: {problem}")


class ValueType(Protocol):
    """How one option's raw value is checked and converted."""

    @property
    def metavar(self) -> str:
        """Return the placeholder ``--help`` shows for the value."""
        ...

    def parse(self, value: object, origin: Origin) -> object:
        """Return the setting's value, or raise SettingsError naming ``origin``."""
        ...


def recorded(value_type: ValueType, value: object) -> object:
    """Return ``value`` as a run records it (JSON-native): the type's own ``record`` when it has one,
    lists for tuples, the value itself otherwise."""
    record = getattr(value_type, "record", None)
    if value is None:
        return None
    if callable(record):
        return record(value)
    return list(value) if isinstance(value, tuple) else value


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@dataclass(frozen=True)
class Integer:
    """An integer of at least ``minimum``."""

    minimum: int = 1
    metavar: str = "N"

    def parse(self, value: object, origin: Origin) -> int:
        """Return the value as an int >= minimum."""
        if origin.typed and not (isinstance(value, int) and not isinstance(value, bool)):
            raise origin.error(f"expected an integer, got {value!r}")
        try:
            number = int(str(value).strip())
        except ValueError:
            raise origin.error(f"expected an integer, got {value!r}") from None
        if number < self.minimum:
            raise origin.error(f"must be at least {self.minimum}, got {number}")
        return number


@dataclass(frozen=True)
class Number:
    """A number greater than ``low`` and, when ``high`` is given, less than ``high``."""

    low: float = 0.0
    high: float | None = None
    metavar: str = "X"

    def parse(self, value: object, origin: Origin) -> float:
        """Return the value as a float inside the bounds."""
        if origin.typed and not _is_number(value):
            raise origin.error(f"expected a number, got {value!r}")
        try:
            number = float(str(value).strip())
        except ValueError:
            raise origin.error(f"expected a number, got {value!r}") from None
        if number != number or number <= self.low or (self.high is not None and number >= self.high):
            high = self.high
            bounds = f"between {self.low:g} and {high:g}" if high is not None else f"greater than {self.low:g}"
            raise origin.error(f"must be {bounds}, got {value!r}")
        return number


@dataclass(frozen=True)
class Boolean:
    """true or false; in text also yes/no, on/off, 1/0 (case-insensitive)."""

    metavar: str = "BOOL"

    def parse(self, value: object, origin: Origin) -> bool:
        """Return the value as a bool."""
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if not origin.typed and text in ("true", "yes", "on", "1", "false", "no", "off", "0"):
            return text in ("true", "yes", "on", "1")
        raise origin.error(f"expected true or false, got {value!r}")


@dataclass(frozen=True)
class Text:
    """A non-empty string."""

    metavar: str = "TEXT"

    def parse(self, value: object, origin: Origin) -> str:
        """Return the value as a stripped string."""
        if origin.typed and not isinstance(value, str):
            raise origin.error(f"expected a string, got {value!r}")
        text = str(value).strip()
        if not text:
            raise origin.error("must not be empty")
        return text


@dataclass(frozen=True)
class Choice:
    """One of ``choices``."""

    choices: tuple[str, ...]
    metavar: str = "CHOICE"

    def parse(self, value: object, origin: Origin) -> str:
        """Return the value, which must be one of the choices."""
        text = Text().parse(value, origin)
        if text not in self.choices:
            close = difflib.get_close_matches(text, self.choices, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise origin.error(f"expected one of {', '.join(self.choices)}, got {value!r}{hint}")
        return text


_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


@dataclass(frozen=True)
class ByteSize:
    """A size such as ``500MB``, ``2GB``, ``1.5G`` (K, M, G, T: powers of 1024; a plain number: bytes),
    or ``unlimited``."""

    metavar: str = "SIZE"

    def parse(self, value: object, origin: Origin) -> int | None:
        """Return the size in bytes (at least 1 MiB), or None for ``unlimited``."""
        text = Text().parse(value, origin).lower().replace(" ", "")
        if text == "unlimited":
            return None
        match = re.fullmatch(r"(\d+(?:\.\d+)?)(?:([kmgt])i?)?b?", text)
        if match is None:
            raise origin.error(f"expected a size such as 500MB or 2GB (or unlimited), got {value!r}")
        size = int(float(match[1]) * _UNITS[match[2] or ""])
        if size < 1 << 20:
            raise origin.error(f"must be at least 1MB, got {value!r}")
        return size


@dataclass(frozen=True)
class PathValue:
    """A path; a relative one is taken from the origin's folder."""

    metavar: str = "PATH"

    def parse(self, value: object, origin: Origin) -> Path:
        """Return the path, made absolute against ``origin.base``."""
        return origin.base / Text().parse(value, origin)

    def record(self, value: Path) -> str:
        """Return the path as a run records it: a file by its name and the SHA-256 of its content (the same
        file on every machine of a CI matrix), anything else by its path."""
        try:
            digest = hashlib.sha256(value.read_bytes()).hexdigest()
        except OSError:
            return str(value)
        return f"{value.name} sha256:{digest}"


@dataclass(frozen=True)
class PathList:
    """One or more paths (repeated values, or a YAML list); relative ones are taken from the origin's folder."""

    metavar: str = "PATH"

    def parse(self, value: object, origin: Origin) -> tuple[Path, ...]:
        """Return the paths, in order."""
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, Sequence):
            raise origin.error(f"expected a list of paths, got {value!r}")
        return tuple(PathValue().parse(item, origin) for item in items)


_SHARD = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


@dataclass(frozen=True)
class Shard:
    """``I/N``: the I-th of N shards, 1 <= I <= N."""

    metavar: str = "I/N"

    def record(self, value: tuple[int, int]) -> str:
        """Return the shard as a run records it: ``I/N``."""
        return f"{value[0]}/{value[1]}"

    def parse(self, value: object, origin: Origin) -> tuple[int, int]:
        """Return (I, N)."""
        text = Text().parse(value, origin)
        match = _SHARD.fullmatch(text)
        if match is None:
            raise origin.error(f"expected I/N such as 1/3, got {text!r}")
        index, count = int(match.group(1)), int(match.group(2))
        if count < 1 or not 1 <= index <= count:
            raise origin.error(f"I must be between 1 and N, got {text!r}")
        return index, count


@dataclass(frozen=True)
class Names:
    """A list of names, separated by spaces or commas (outside brackets); ``choices`` limits them."""

    choices: tuple[str, ...] = ()
    metavar: str = "LIST"

    def parse(self, value: object, origin: Origin) -> tuple[str, ...]:
        """Return the names, in order, without duplicates."""
        names = tuple(dict.fromkeys(split_list(_items(value, origin, str, "strings"))))
        unknown = [n for n in names if self.choices and n not in self.choices]
        if unknown:
            close = difflib.get_close_matches(unknown[0], self.choices, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise origin.error(f"unknown {unknown[0]!r}{hint}; choose from {', '.join(self.choices)}")
        return names


@dataclass(frozen=True)
class Cutoffs:
    """A list of positive integers, separated by spaces or commas; returned sorted and unique."""

    metavar: str = "LIST"

    def parse(self, value: object, origin: Origin) -> tuple[int, ...]:
        """Return the cut-offs, sorted, without duplicates; at least one."""
        parts = split_list(_items(value, origin, int, "integers"))
        if not parts:
            raise origin.error("give at least one cut-off, e.g. 1,5,10")
        text_origin = Origin(origin.where, origin.base)
        return tuple(sorted({Integer().parse(part, text_origin) for part in parts}))


def _items(value: object, origin: Origin, item_type: type, plural: str) -> list[str]:
    """Return a list value's items as text: a YAML sequence, a string, or repeated command-line values."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Sequence) and all(
        isinstance(v, item_type if origin.typed else str) and not isinstance(v, bool) for v in value
    ):
        return [str(v) for v in value]
    raise origin.error(f"expected a list of {plural} (or one string of them), got {value!r}")


def split_list(values: Sequence[str]) -> list[str]:
    """Return the items of ``values``, each split on commas and whitespace outside brackets.

    ``["bm25[k1=1.2, b=0.75] keyword", "oracle"]`` gives ``bm25[k1=1.2, b=0.75]``, ``keyword``, ``oracle``.
    """
    items: list[str] = []
    for value in values:
        depth, current = 0, ""
        for char in value:
            depth = max(0, depth + (char == "[") - (char == "]"))
            if depth == 0 and (char == "," or char.isspace()):
                items.append(current)
                current = ""
            else:
                current += char
        items.append(current)
    return [item for item in items if item]


@dataclass(frozen=True)
class RepoMap:
    """``NAME=PATH`` pairs (repeated values, whitespace-separated ini lines) or a YAML mapping of names to paths;
    relative paths are taken from the origin's folder."""

    metavar: str = "NAME=PATH"

    def parse(self, value: object, origin: Origin) -> tuple[tuple[str, Path], ...]:
        """Return (name, absolute path) pairs in order; a later pair for the same name wins."""
        if isinstance(value, dict):
            pairs = [(Text().parse(k, origin), Text().parse(v, origin)) for k, v in value.items()]
        else:
            entries = value.split() if isinstance(value, str) else value
            if not isinstance(entries, Sequence) or not all(isinstance(e, str) for e in entries):
                raise origin.error(f"expected NAME=PATH entries, got {value!r}")
            pairs = [_pair(entry, origin) for entry in entries]
        mapping = {name: (origin.base / path).resolve() for name, path in pairs}
        return tuple(mapping.items())


def _pair(entry: str, origin: Origin) -> tuple[str, str]:
    """Split ``NAME=PATH`` (a URL name may hold '=' itself: the last one splits it)."""
    name, sep, path = entry.rpartition("=") if "://" in entry else entry.partition("=")
    if not sep or not name.strip() or not path.strip():
        raise origin.error(f"expected owner/name=/path/to/clone, got {entry!r}")
    return name.strip(), path.strip()
