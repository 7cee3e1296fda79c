"""The option table: every setting once, as command-line flag, ini key and YAML key, with type and default.

The plugin registers the flags and ini keys from it, the YAML loader checks the file against it, the merge
(command line > YAML file > ini file > default) reads it, and the options tables in ``docs/`` are generated
from it (``python -m pytest_codesearch.settings.options`` rewrites them). Adding an option is one row here, one
field of ``Settings`` and its test.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pytest_codesearch.settings.types import (
    Boolean,
    ByteSize,
    Choice,
    Cutoffs,
    Integer,
    Names,
    Number,
    PathList,
    PathValue,
    RepoMap,
    Shard,
    Text,
    ValueType,
    recorded,
)
from pytest_codesearch.report.render.formats import REPORT_DIR_FORMATS

PROFILE_NAMES = ("native", "locagent", "cosil", "orcaloca")
"""The scoring profiles' names (``scoring/profiles/``' ``PROFILES``, kept equal by a test; not imported from
there, so that a run with no agent loads no scoring library)."""
DEFAULT_RUNS = 3
DEFAULT_KS = (1, 5, 10)
DEFAULT_REPORT_DIR = "codesearch-report"
DEFAULT_CACHE_DIR = ".codesearch"
DEFAULT_CACHE_BYTES = 2 << 30
DEFAULT_CACHE_SIZE = f"{DEFAULT_CACHE_BYTES >> 30}GB"
DEFAULT_BOOTSTRAP = 1000
DEFAULT_HISTORY_KEEP = 100
DEFAULT_ALPHA = 0.05
DEFAULT_INDEX_TIMEOUT = 600.0
REPORT_FORMATS = REPORT_DIR_FORMATS
"""The report files' format names, from the report-format registry."""

Action = Literal["store", "append", "store_true"]


@dataclass(frozen=True)
class Option:
    """One setting: the ``Settings`` field it fills and the places a user can give it."""

    field: str
    """The ``Settings`` attribute."""
    type: ValueType
    default: object
    """The value when no source gives one (text for paths: relative to ``default_base``)."""
    help: str
    flag: str | None = None
    ini: str | None = None
    yaml: str | None = None
    """``section.key`` in the YAML benchmark file."""
    shown_default: str | None = None
    """The default as the docs and ``--help`` show it, when ``default`` itself does not say it well."""
    action: Action = "store"
    nargs: Literal["+"] | None = None
    """``"+"``: the flag takes one or more values (``--codesearch-merge a b``)."""
    default_base: Literal["invocation", "rootdir"] = "invocation"
    """For paths: the folder a relative default is taken from."""
    identity: bool = False
    """The option changes a run's results (its cases, answers, scores or statistics): the run records it
    (``RunInfo``), and ``--codesearch-merge`` and ``--codesearch-resume`` refuse runs that differ in it."""

    @property
    def dest(self) -> str:
        """Return the attribute name pytest stores the flag under (``--codesearch-f-beta``: ``codesearch_f_beta``)."""
        return (self.flag or "").lstrip("-").replace("-", "_")

    @property
    def default_text(self) -> str:
        """Return the default as the docs show it (Markdown: literal values in backticks)."""
        if self.shown_default is not None:
            return self.shown_default
        value = self.default
        if value is None or value == ():
            return "none"
        if isinstance(value, bool):
            return f"`{str(value).lower()}`"
        if isinstance(value, tuple):
            return f"`{','.join(map(str, value))}`"
        return f"`{value:g}`" if isinstance(value, float) else f"`{value}`"


OPTIONS: tuple[Option, ...] = (
    Option("agents", Names(metavar="NAME"), (), "agents to benchmark (repeatable; space or comma lists; 'all'); "
           "without one the plugin does nothing", flag="--codesearch-agent", ini="codesearch_agent",
           action="append", identity=True),
    Option("seed", Integer(minimum=0, metavar="INT"), None, "seed of the run order and of the random agent; "
           "printed in the header and saved in the report", flag="--codesearch-seed", yaml="evaluation.seed",
           shown_default="random", identity=True),
    Option("runs", Integer(), DEFAULT_RUNS, "timed runs of each retrieval; latency is their median",
           flag="--codesearch-runs", ini="codesearch_runs", yaml="evaluation.runs", identity=True),
    Option("k", Integer(metavar="K"), None, "score precision, recall, f1 and f1_partial over the top K only",
           flag="--codesearch-k", yaml="evaluation.k", shown_default="whole answer", identity=True),
    Option("ks", Cutoffs(), DEFAULT_KS, "cut-offs of the @k metrics (precision@k, recall@k, hit@k, ndcg@k)",
           flag="--codesearch-ks", ini="codesearch_ks", yaml="evaluation.ks", identity=True),
    Option("randomize", Boolean(), True, "shuffle the run order; false keeps the gold-set order",
           yaml="evaluation.randomize", identity=True),
    Option("timeout", Number(metavar="SECONDS"), None, "budget of one `retrieve()` call: a slower answer is "
           "status `timeout`, scored 0", flag="--codesearch-timeout", ini="codesearch_timeout",
           yaml="evaluation.timeout", identity=True),
    Option("index_timeout", Number(metavar="SECONDS"), DEFAULT_INDEX_TIMEOUT, "budget of one `initialize()` call "
           "(indexing a snapshot); over it, every case of that snapshot is `timeout` for that agent",
           flag="--codesearch-index-timeout", ini="codesearch_index_timeout", yaml="evaluation.index_timeout", identity=True),
    Option("isolate", Choice(("auto", "none", "process"), metavar="LEVEL"), "auto", "where agents run: none (this "
           "process), process (a child process per agent: hard budgets, crashes contained), auto (process when "
           "--codesearch-timeout is set)", flag="--codesearch-isolate", identity=True),
    Option("retries", Integer(minimum=0), 0, "ask again, with backoff, up to N times when an agent raises",
           flag="--codesearch-retries", identity=True),
    Option("max_answer", Integer(), 1000, "entries of an answer that are scored; longer answers are cut",
           flag="--codesearch-max-answer", identity=True),
    Option("warmup", Integer(minimum=0), 0, "untimed runs of each query before the timed ones",
           flag="--codesearch-warmup", identity=True),
    Option("shard", Shard(), None, "run the I-th of N deterministic, snapshot-balanced shards of the items "
           "(CI matrices; see docs/sharding.md)", flag="--codesearch-shard", shown_default="all items", identity=True),
    Option("merge", PathList(metavar="DIR"), (), "merge the journals of these report directories (shards) into "
           "one report; runs no case", flag="--codesearch-merge", nargs="+", shown_default="off"),
    Option("validate", Boolean(), False, "check every case of the gold sets among the paths against its snapshot "
           "(files, lines, symbols, ids, leaky queries), print the problems and exit 1 on an error; runs no case "
           "(see docs/validation.md)", flag="--codesearch-validate", action="store_true", shown_default="off"),
    Option("resume", Boolean(), False, "reuse the completed cases of the last run (its journal), run only the "
           "rest", flag="--codesearch-resume", action="store_true", shown_default="off"),
    Option("f_beta", Number(metavar="BETA"), None, "also score f_beta with this beta; 2 weighs recall higher",
           flag="--codesearch-f-beta", yaml="evaluation.f_beta", shown_default="off", identity=True),
    Option("bootstrap", Integer(minimum=100), DEFAULT_BOOTSTRAP, "bootstrap resamples of the 95% intervals",
           flag="--codesearch-bootstrap", ini="codesearch_bootstrap", yaml="evaluation.bootstrap", identity=True),
    Option("alpha", Number(0.0, 1.0, metavar="A"), DEFAULT_ALPHA, "significance level of the paired tests "
           "between agents (Holm-corrected)", flag="--codesearch-alpha", ini="codesearch_alpha",
           yaml="evaluation.alpha", identity=True),
    Option("report_dir", PathValue(metavar="DIR"), DEFAULT_REPORT_DIR, "where the report files go",
           flag="--codesearch-report-dir", ini="codesearch_report_dir", yaml="output.directory"),
    Option("formats", Names(REPORT_FORMATS), REPORT_FORMATS, "report files to write",
           yaml="output.formats"),
    Option("headline", Names(metavar="METRICS"), (), "metrics shown as the headline of the summary (names of "
           "this run's metrics)",
           flag="--codesearch-headline", ini="codesearch_headline", yaml="output.headline",
           shown_default="automatic"),
    Option("cache_dir", PathValue(metavar="DIR"), DEFAULT_CACHE_DIR, "where repository snapshots are kept",
           flag="--codesearch-cache-dir", ini="codesearch_cache_dir", default_base="rootdir",
           shown_default=f"`<rootdir>/{DEFAULT_CACHE_DIR}`"),
    Option("cache_size", ByteSize(), DEFAULT_CACHE_SIZE, "bound on the snapshot directories and blob files "
           "under the cache dir (e.g. 500MB, 2GB, unlimited; K/M/G are powers of 1024): the least recently used "
           "go first, never one in use (docs/cache.md)", flag="--codesearch-cache-size", ini="codesearch_cache_size",
           yaml="evaluation.cache_size"),
    Option("config_path", PathValue(metavar="FILE"), None, "the YAML benchmark file (see docs/config.md)",
           flag="--codesearch-config", ini="codesearch_config"),
    Option("generate", Boolean(), False, "mine a git history into a gold set instead of running tests",
           flag="--codesearch-generate", action="store_true", shown_default="off"),
    Option("repo", PathValue(), None, "with --codesearch-generate: the repository to mine",
           flag="--codesearch-repo", yaml="dataset.repository", shown_default="the current directory"),
    Option("rev", Text(metavar="REV"), "HEAD", "with --codesearch-generate: mine the history reachable from REV",
           flag="--codesearch-rev", yaml="dataset.rev"),
    Option("output", PathValue(metavar="FILE"), None, "with --codesearch-generate or --codesearch-convert: the "
           "gold set to write", flag="--codesearch-output", yaml="dataset.output",
           shown_default="`goldsets/<name>.jsonl`"),
    Option("convert", PathValue(metavar="IN"), None, "write the gold set IN (any supported shape; a file or a "
           "directory) as native JSONL to --codesearch-output; runs no case", flag="--codesearch-convert",
           shown_default="off"),
    Option("repo_map", RepoMap(), (), "use the local clone PATH for the repository gold sets call NAME "
           "(owner/name or a URL), so nothing is cloned (repeatable; docs/remote-repositories.md)",
           flag="--codesearch-repo-map", ini="codesearch_repo_map", yaml="evaluation.repo_map", action="append"),
    Option("allow_any_repo", Boolean(), False, "let gold sets search a `repo` that is neither a git repository "
           "nor inside the project (rootdir), e.g. /etc (docs/isolation.md)", flag="--codesearch-allow-any-repo",
           ini="codesearch_allow_any_repo", yaml="evaluation.allow_any_repo", action="store_true",
           shown_default="off"),
    Option("predictions", PathValue(metavar="FILE"), None, "the published predictions the `replay` agent answers "
           "with (JSON or JSONL by instance id, or a folder of INSTANCE_ID/patch.diff; "
           "docs/reproduce-a-published-table.md)", flag="--codesearch-predictions",
           ini="codesearch_predictions", yaml="evaluation.predictions", shown_default="none", identity=True),
    Option("entity_truth", Choice(("patch", "dataset"), metavar="FROM"), "patch", "SWE-bench instances: derive "
           "function- and module-level truth from the patch, or take the dataset's own `edit_functions` (as "
           "LocAgent's published tables do)", flag="--codesearch-entity-truth", ini="codesearch_entity_truth",
           yaml="evaluation.entity_truth", identity=True),
    Option("profile", Choice(PROFILE_NAMES, metavar="NAME"), "native", "score as a paper's evaluator does: "
           "native, locagent (= SweRank), cosil or orcaloca (truth convention, cut-offs, denominator, metric "
           "names; docs/profiles.md)", flag="--codesearch-profile", ini="codesearch_profile",
           yaml="evaluation.profile", identity=True),
    Option("truth", PathValue(metavar="FILE"), None, "ground truth that replaces the derived truth of the cases "
           "it names (CoSIL's gt.json, or JSONL with instance_id, files, modules, functions; docs/profiles.md)",
           flag="--codesearch-truth", ini="codesearch_truth", yaml="evaluation.truth", shown_default="none",
           identity=True),
    Option("blind", Boolean(), False, "memorization control: each agent also answers every case with an empty "
           "repository, as agent NAME-blind beside NAME (docs/blind.md)", flag="--codesearch-blind",
           yaml="evaluation.blind", action="store_true", shown_default="off", identity=True),
    Option("limit", Integer(metavar="N"), None, "run only N cases: the first N of the seeded order, or a sample "
           "(--codesearch-sample)", flag="--codesearch-limit", yaml="evaluation.limit", shown_default="all cases", identity=True),
    Option("sample", Choice(("first", "stratified"), metavar="HOW"), "first", "with --codesearch-limit: the "
           "first N cases, or N taken in turn from each (repository, complexity) group, seeded",
           flag="--codesearch-sample", yaml="evaluation.sample", identity=True),
    Option("name", Text(metavar="NAME"), None,
           "with --codesearch-generate: the gold set's name, which mined case ids start with",
           flag="--codesearch-name", yaml="dataset.name",
           shown_default="the repository's own name (its origin remote, else its folder)"),
    Option("generate_lines", Boolean(), True, "with --codesearch-generate: record the line ranges, functions and "
           "modules each mined commit changes (false: files only, for about half the mining time on large histories)",
           flag="--codesearch-generate-lines", yaml="dataset.lines"),
    Option("progress", Choice(("auto", "on", "off"), metavar="WHEN"), "auto", "progress lines while gold sets are "
           "collected, cases run and histories are mined (done of total, rate, time left, each agent's indexing): "
           "auto = on a terminal, not under -q and not in CI ($CI set)", flag="--codesearch-progress", ini="codesearch_progress", yaml="output.progress"),
    Option("no_save", Boolean(), False, "do not save this run under <cache_dir>/history/ (see docs/ci.md)",
           flag="--codesearch-no-save", action="store_true", shown_default="off (every run is saved)"),
    Option("history_keep", Integer(), DEFAULT_HISTORY_KEEP, "saved runs kept under <cache_dir>/history/: saving "
           "one more removes the oldest (see docs/ci.md)", flag="--codesearch-history-keep",
           ini="codesearch_history_keep", yaml="output.history_keep"),
    Option("history", Boolean(), False, "list the saved runs and run no case", flag="--codesearch-history",
           action="store_true", shown_default="off"),
    Option("compare", Names(metavar="RUN"), (), "compare saved runs (paths, ids, latest, previous, "
           "latest:GOLDSET; the first is the base) on their shared gold sets, write comparison.md and run no "
           "case; give it last", flag="--codesearch-compare",
           nargs="+", shown_default="off"),
    Option("fail_under", Text(metavar="SPEC"), None, "fail the session when an agent's mean is below a floor, "
           "e.g. ndcg@10=0.40,recall@10=0.60", flag="--codesearch-fail-under", ini="codesearch_fail_under",
           yaml="evaluation.fail_under"),
    Option("baseline", Text(metavar="RUN"), None, "the saved run --codesearch-fail-on compares against (a path, "
           "an id, latest)", flag="--codesearch-baseline", ini="codesearch_baseline", yaml="evaluation.baseline"),
    Option("fail_on", Text(metavar="SPEC"), None, "fail on a significant regression against the baseline, e.g. "
           "ndcg@10:-0.02,latency_p90:+20%", flag="--codesearch-fail-on", ini="codesearch_fail_on",
           yaml="evaluation.fail_on"),
    Option("gate_any", Boolean(), False, "with --codesearch-fail-on: fail on any regression past the tolerance, "
           "significant or not", flag="--codesearch-gate-any", action="store_true", yaml="evaluation.gate_any",
           shown_default="off"),
    Option("trec", PathValue(metavar="DIR"), None, "also write TREC qrels and one run file per agent into DIR",
           flag="--codesearch-trec", yaml="output.trec", shown_default="off"),
)  # fmt: skip

BY_YAML = {option.yaml: option for option in OPTIONS if option.yaml}
IDENTITY: tuple[Option, ...] = tuple(option for option in OPTIONS if option.identity)
"""The options that change results, in table order: what a run records and merge and resume compare."""


def identity_values(settings: object) -> dict[str, object]:
    """Return the values ``RunInfo`` records for the options that change results, by field name.

    ``agents`` is left out: a run records its agents (resolved names and parameters) on its own.
    """
    return {o.field: recorded(o.type, getattr(settings, o.field)) for o in IDENTITY if o.field != "agents"}


def option_label(field: str) -> str:
    """Return how users give the option ``field``: its flag, else its YAML key, else its ini key."""
    option = next(o for o in OPTIONS if o.field == field)
    return option.flag or option.yaml or option.ini or field


def options_markdown() -> str:
    """Return the options table of ``docs/getting-started.md``: flag, ini key, YAML key, default, meaning."""
    rows = ["| option | ini key | YAML key | default | changes results | meaning |", "|---|---|---|---|---|---|"]
    for option in OPTIONS:
        flag = f"`{option.flag}`" if option.flag and option.action == "store_true" else (
            f"`{option.flag} {option.type.metavar}`" if option.flag else "")
        identity = "yes" if option.identity else ""
        cells = [flag, _code(option.ini), _code(option.yaml), option.default_text, identity, _cell(option.help)]
        rows.append(f"| {' | '.join(cells)} |")
    return "\n".join(rows)


def yaml_markdown() -> str:
    """Return the key table of ``docs/config.md``: YAML key, the same on the command line and ini, default."""
    rows = ["| YAML key | option | ini key | default | meaning |", "|---|---|---|---|---|"]
    for option in sorted((o for o in OPTIONS if o.yaml), key=lambda o: _SECTIONS.index(str(o.yaml).split(".")[0])):
        rows.append(f"| `{option.yaml}` | {_code(option.flag)} | {_code(option.ini)} | {option.default_text} | "
                    f"{_cell(option.help)} |")
    return "\n".join(rows)


_SECTIONS = ("dataset", "evaluation", "output")
_MARKED = re.compile(r"(<!-- (options|yaml-keys) table: generated[^\n]*-->\n)(?:.*?\n)??(<!-- end -->)", re.DOTALL)
DOCS = ("docs/getting-started.md", "docs/config.md")


def _code(text: str | None) -> str:
    return f"`{text}`" if text else ""


def _cell(text: str) -> str:
    """Return ``text`` safe in a Markdown table cell: pipes escaped, on one line."""
    return " ".join(text.replace("|", "\\|").split())


def render_docs(text: str) -> str:
    """Return ``text`` with every generated table (between its markers) rewritten from the option table."""
    tables = {"options": options_markdown(), "yaml-keys": yaml_markdown()}
    return _MARKED.sub(lambda m: m.group(1) + tables[m.group(2)] + "\n" + m.group(3), text)


def main(root: Path) -> int:
    """Rewrite the generated tables of the docs under ``root``; return 0."""
    for name in DOCS:
        path = root / name
        path.write_text(render_docs(path.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()))
