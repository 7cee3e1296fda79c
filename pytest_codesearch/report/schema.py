"""The JSON Schema of ``results.json``, generated from ``RunReport``.

Regenerate the committed copy after changing a report model::

    python -m pytest_codesearch.report.schema docs/results.schema.json
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from pytest_codesearch.atomic import write_atomic
from pytest_codesearch.report.model import RunReport

def results_schema() -> dict[str, object]:
    """Return the JSON Schema (draft 2020-12) that ``results.json`` conforms to."""
    schema: dict[str, object] = {"$schema": "https://json-schema.org/draft/2020-12/schema"}
    schema.update(RunReport.model_json_schema(mode="serialization"))
    return schema


def render_schema() -> str:
    """Return the schema as the text kept in ``docs/results.schema.json``."""
    return json.dumps(results_schema(), indent=2, ensure_ascii=False) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Write the schema to the path given as the only argument; return the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m pytest_codesearch.report.schema PATH", file=sys.stderr)
        return 2
    write_atomic(Path(args[0]), render_schema())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
