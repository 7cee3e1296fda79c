"""Gold-set models: benchmark cases, their ground truth and the metadata of their file."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from datetime import datetime
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    GetJsonSchemaHandler,
    JsonValue,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import PydanticCustomError, core_schema

EXTENSION_PREFIXES = ("x-", "x_")
"""Case keys starting with one of these are free extension data, kept as they are."""

_DRIVE = re.compile(r"^[A-Za-z]:")
_PATH_DESCRIPTION = "POSIX path relative to the repository root, without '..', '.' or empty segments."
PATH_PATTERN = r"^(?![A-Za-z]:)(?!/)(?!.*\\)(?!(.*/)?\.{1,2}(/|$))(?!.*//)(?!.*/$).+$"
"""The rule of ``path_problem`` as a JSON Schema pattern, for editors."""


def _invalid(message: str) -> PydanticCustomError:
    """Return a validation error whose text is ``message`` exactly."""
    return PydanticCustomError("invalid", message)


def unknown_field_message(key: str, known: Iterable[str], extensions: bool) -> str:
    """Return the message for an unknown key, suggesting the closest known field name."""
    names = sorted(known)
    close = difflib.get_close_matches(key, names, n=1, cutoff=0.6)
    if close:
        return f"unknown field (did you mean {close[0]!r}?)"
    hint = "; extension keys start with 'x-'" if extensions else ""
    return f"unknown field (known fields: {', '.join(names)}{hint})"


def case_id_problem(value: str) -> str | None:
    """Return why ``value`` cannot be a case id (it becomes part of a pytest node id), or None."""
    if not value:
        return "must not be empty"
    if "::" in value:
        return "must not contain '::' (it separates the parts of a pytest node id)"
    for char in value:
        if char in "[]":
            return "must not contain '[' or ']' (pytest uses them for parameters)"
        if char.isspace() or not char.isprintable():
            return f"must not contain whitespace or control characters (found {char!r})"
    return None


def path_problem(value: str) -> str | None:
    """Return why ``value`` is not a normalized relative POSIX path, or None."""
    if not value:
        return "must not be empty"
    if "\\" in value:
        return f"must use '/' as the separator, got {value!r}"
    if value.startswith("/") or _DRIVE.match(value):
        return f"must be relative to the repository root, got {value!r}"
    segments = value.split("/")
    if ".." in segments:
        return f"must not contain a '..' segment, got {value!r}"
    if "" in segments or "." in segments:
        normal = "/".join(part for part in segments if part not in ("", "."))
        return f"must be a normalized path like {normal!r}, got {value!r}"
    return None


def _check_case_id(value: str) -> str:
    problem = case_id_problem(value)
    if problem:
        raise _invalid(problem)
    return value


def _check_path(value: str) -> str:
    problem = path_problem(value)
    if problem:
        raise _invalid(problem)
    return value


def _check_not_blank(value: str) -> str:
    if not value.strip():
        raise _invalid("must not be empty")
    return value


def _check_timestamp(value: str) -> str:
    # Python 3.10's fromisoformat does not accept a trailing "Z" for UTC.
    text = value[:-1] + "+00:00" if value.endswith(("Z", "z")) else value
    try:
        datetime.fromisoformat(text)
    except ValueError:
        raise _invalid(f"must be an ISO 8601 date and time, got {value!r}") from None
    return value


def _check_pair_shape(value: Any) -> Any:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise _invalid(f"must be a [start, end] pair of line numbers, got {value!r}")
    return value


def _check_line_range(value: tuple[int, int]) -> tuple[int, int]:
    start, end = value
    if start < 1:
        raise _invalid(f"line numbers start at 1, got [{start}, {end}]")
    if start > end:
        raise _invalid(f"start must be <= end, got [{start}, {end}]")
    return value


def _only_extension_keys(schema: dict[str, Any]) -> None:
    """Say in the JSON Schema that unknown keys are refused unless they start with 'x-' or 'x_'."""
    schema["additionalProperties"] = False
    schema["patternProperties"] = {"^x[-_]": {}}


def _case_extension_key(key: str) -> str:
    if not key.startswith(EXTENSION_PREFIXES):
        raise PydanticCustomError("unknown_field", unknown_field_message(key, TestCase.model_fields, True))
    return key


def _document_extension_key(key: str) -> str:
    if not key.startswith(EXTENSION_PREFIXES):
        raise PydanticCustomError("unknown_field", unknown_field_message(key, GoldSet.model_fields, True))
    return key


CaseId = Annotated[
    StrictStr,
    AfterValidator(_check_case_id),
    Field(
        description="Unique in the file; no '::', '[', ']', whitespace or control characters.",
        json_schema_extra={"pattern": r"^(?!.*::)[^\s\[\]\x00-\x1f\x7f-\x9f]+$"},
    ),
]
RepoPath = Annotated[
    StrictStr,
    AfterValidator(_check_path),
    Field(
        description=_PATH_DESCRIPTION,
        json_schema_extra={"pattern": PATH_PATTERN},
    ),
]
NonBlank = Annotated[StrictStr, AfterValidator(_check_not_blank), Field(min_length=1)]
LineRange = Annotated[
    tuple[StrictInt, StrictInt],
    BeforeValidator(_check_pair_shape),
    AfterValidator(_check_line_range),
    WithJsonSchema(
        {
            "type": "array",
            "prefixItems": [{"type": "integer", "minimum": 1}, {"type": "integer", "minimum": 1}],
            "minItems": 2,
            "maxItems": 2,
            "description": "[start, end]: 1-based, both ends inclusive, start <= end.",
        }
    ),
]
Timestamp = Annotated[
    StrictStr,
    AfterValidator(_check_timestamp),
    Field(description="ISO 8601 date and time, e.g. 2024-03-15T10:30:00Z."),
]
_CaseKey = Annotated[str, AfterValidator(_case_extension_key)]
_DocumentKey = Annotated[str, AfterValidator(_document_extension_key)]


class GroundTruthFile(BaseModel):
    """One file a case expects the agent to find; a plain path string is accepted as input."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: RepoPath
    lines: list[LineRange] = Field(default_factory=list, description="Line ranges that matter in this file.")
    symbols: list[NonBlank] = Field(
        default_factory=list,
        description="Fully qualified names of the functions, classes or methods that matter, spelt as agents return them.",
    )
    relevance: StrictInt = Field(default=1, ge=1, description="Graded relevance; a plain path means 1.")

    @model_validator(mode="before")
    @classmethod
    def _accept_plain_path(cls, data: Any) -> Any:
        if isinstance(data, str):
            return {"path": data}
        if not isinstance(data, (dict, GroundTruthFile)):
            raise _invalid(f"must be a path string or an object with a 'path', got {data!r}")
        return data

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        """Describe both accepted forms: a path string, or the object."""
        path_schema = {"type": "string", "pattern": PATH_PATTERN, "description": _PATH_DESCRIPTION}
        return {"anyOf": [path_schema, handler(schema)]}

    @property
    def is_plain(self) -> bool:
        """Return True when only the path is set, so the entry can be written as a plain string."""
        return not self.lines and not self.symbols and self.relevance == 1


_LEGACY_ENTITY_KEYS = {
    "x-ground_truth_functions": "ground_truth_functions",
    "x-ground_truth_modules": "ground_truth_modules",
}
"""Extension keys that carried the entity-level truth before it had fields (SWE-bench conversions)."""


class TestCase(BaseModel):
    """One benchmark case: a query and the files that answer it."""

    __test__: ClassVar[bool] = False  # not a pytest test class, despite the name
    model_config = ConfigDict(extra="allow", frozen=True, json_schema_extra=_only_extension_keys)
    __pydantic_extra__: dict[_CaseKey, JsonValue] = Field(init=False)

    id: CaseId
    query: NonBlank = Field(description="What the agent is asked to find.")
    ground_truth_files: list[GroundTruthFile] = Field(min_length=1, description="Files that answer the query.")
    repo: NonBlank | None = Field(
        default=None, description="Repository or directory, relative to the gold-set file."
    )
    base_commit: NonBlank | None = Field(default=None, description="Revision whose tree is searched.")
    commit_hash: NonBlank | None = Field(default=None, description="Commit the case was mined from.")
    complexity: NonBlank | None = Field(default=None, description="Free label, e.g. low, medium, high.")
    category: NonBlank | None = Field(default=None, description="Free label for grouping results.")
    timestamp: Timestamp | None = None
    added_files: list[RepoPath] = Field(
        default_factory=list, description="Mined: files the commit added (absent from base_commit, so not scored)."
    )
    query_source: NonBlank | None = Field(
        default=None, description="Mined: who wrote the query: 'rules', 'hook', or 'rules (hook failed: ...)'."
    )
    leaky: StrictBool | None = Field(
        default=None, description="Mined: true when the query names a ground-truth file (dropped by default)."
    )
    rule: NonBlank | None = Field(default=None, description="Mined: the rule that classified the commit's category.")
    commit_message: StrictStr | None = Field(default=None, description="Mined: the commit's message, as written.")
    tags: list[NonBlank] = Field(default_factory=list, description="Free labels for selecting cases.")
    hard_negatives: list[NonBlank] = Field(
        default_factory=list,
        description="Fully qualified names of symbols that look relevant but are not; needs ground-truth symbols.",
    )
    ground_truth_functions: list[NonBlank] = Field(
        default_factory=list,
        description="Function-level entities that answer the query, 'path.py:Class.method' (function_* metrics).",
    )
    ground_truth_modules: list[NonBlank] = Field(
        default_factory=list,
        description="Module-level entities that answer the query, 'path.py:Name' (module_* metrics).",
    )

    @model_validator(mode="before")
    @classmethod
    def _lift_entity_extensions(cls, data: Any) -> Any:
        """Read the ``x-ground_truth_functions``/``x-ground_truth_modules`` keys of older files as the fields."""
        if not isinstance(data, dict) or not any(key in data for key in _LEGACY_ENTITY_KEYS):
            return data
        data = dict(data)
        for legacy, name in _LEGACY_ENTITY_KEYS.items():
            value = data.pop(legacy, None)
            if value is not None:
                data.setdefault(name, value)
        return data

    @field_validator("ground_truth_files")
    @classmethod
    def _unique_paths(cls, files: list[GroundTruthFile]) -> list[GroundTruthFile]:
        first: dict[str, int] = {}
        for index, entry in enumerate(files):
            if entry.path in first:
                raise _invalid(f"duplicate path {entry.path!r} (entries {first[entry.path]} and {index})")
            first[entry.path] = index
        return files

    @field_validator("hard_negatives")
    @classmethod
    def _negatives_against_symbols(cls, negatives: list[str], info: ValidationInfo) -> list[str]:
        files: list[GroundTruthFile] | None = info.data.get("ground_truth_files")
        if not negatives or files is None:  # an invalid ground_truth_files is reported on its own
            return negatives
        symbols = {symbol for entry in files for symbol in entry.symbols}
        if not symbols:
            raise _invalid("needs symbols in ground_truth_files to rank the hard negatives against")
        for negative in negatives:
            if negative in symbols:
                raise _invalid(f"{negative!r} is also a ground-truth symbol")
        return negatives

    @property
    def extensions(self) -> dict[str, JsonValue]:
        """Return the free extension data: the keys starting with 'x-' or 'x_'."""
        return dict(self.model_extra or {})

    def has_extension(self, key: str) -> bool:
        """Return whether the case carries the extension ``key`` (no copy of them: called once a case)."""
        return key in (self.model_extra or {})

    def relevance_map(self) -> dict[str, int]:
        """Return the graded relevance of each ground-truth path."""
        return {entry.path: entry.relevance for entry in self.ground_truth_files}


class GoldSetMetadata(BaseModel):
    """What a gold-set file says about itself; unknown keys are kept."""

    model_config = ConfigDict(extra="allow", frozen=True)

    name: StrictStr | None = Field(default=None, description="Short name of the gold set.")
    description: StrictStr | None = Field(default=None, description="What the gold set measures.")
    repo: NonBlank | None = Field(
        default=None, description="Default repository or directory, relative to the gold-set file."
    )
    base_commit: NonBlank | None = Field(default=None, description="Default revision whose tree is searched.")
    version: StrictStr | None = Field(default=None, description="Version of the gold set, as a string.")
    match: Literal["exact", "substring"] | None = Field(
        default=None,
        description="How answers match ground truth: 'exact' (default) or 'substring' (see docs/yaml-queries.md).",
    )


class GoldSet(BaseModel):
    """A whole gold set in the JSON form: metadata and cases with unique ids."""

    model_config = ConfigDict(extra="allow", frozen=True, json_schema_extra=_only_extension_keys)
    __pydantic_extra__: dict[_DocumentKey, JsonValue] = Field(init=False)

    metadata: GoldSetMetadata = Field(default_factory=GoldSetMetadata)
    test_cases: list[TestCase]

    @field_validator("test_cases")
    @classmethod
    def _unique_ids(cls, cases: list[TestCase]) -> list[TestCase]:
        first: dict[str, int] = {}
        for index, case in enumerate(cases):
            if case.id in first:
                raise _invalid(f"duplicate id {case.id!r} (cases {first[case.id]} and {index})")
            first[case.id] = index
        return cases
