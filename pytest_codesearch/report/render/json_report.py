"""``results.json``: the ``RunReport`` itself, for machines."""

from __future__ import annotations


from pytest_codesearch.report.model import RunReport


def render_json(report: RunReport) -> bytes:
    """Return the report as UTF-8 JSON: indent 2, keys in model order, trailing newline.

    The bytes of ``model_dump_json(indent=2)`` plus a newline, without decoding them to ``str``:
    at 100,000 case records the decoding and the copy that appends the newline cost as much as
    half the serialisation itself (a single non-ASCII character makes the ``str`` 2 or 4 bytes a
    character).
    """
    return report.__pydantic_serializer__.to_json(report, indent=2) + b"\n"

