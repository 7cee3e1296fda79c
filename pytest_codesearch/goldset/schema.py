"""The JSON Schema of gold-set files, written to ``docs/goldset.schema.json``.

Regenerate it after changing the models::

    python -m pytest_codesearch.goldset.schema docs/goldset.schema.json
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .model import GoldSet

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def build_schema() -> dict[str, Any]:
    """Return the schema of the JSON form; ``$defs`` also describe each line of the JSONL form."""
    schema = GoldSet.model_json_schema()
    schema["$defs"]["MetadataLine"] = {
        "description": "The optional first line of a JSONL gold set.",
        "type": "object",
        "properties": {"metadata": {"$ref": "#/$defs/GoldSetMetadata"}},
        "required": ["metadata"],
        "additionalProperties": False,
    }
    header = {
        "$schema": SCHEMA_DIALECT,
        "title": "pytest-codesearch gold set",
        "description": (
            "A JSON gold set: {\"metadata\": {...}, \"test_cases\": [...]}. In a JSONL gold set each line "
            "is a #/$defs/TestCase, except an optional first line that is a #/$defs/MetadataLine."
        ),
    }
    schema.pop("title", None)
    schema.pop("description", None)
    return {**header, **schema}


def render_schema() -> str:
    """Return the schema as the text stored in ``docs/goldset.schema.json``."""
    return json.dumps(build_schema(), indent=2, ensure_ascii=False) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Write the schema to the path given as the only argument; return the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m pytest_codesearch.goldset.schema OUTPUT.json", file=sys.stderr)
        return 2
    Path(args[0]).write_text(render_schema(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
