"""Reproduce three papers' localization tables through the plugin, each under its scoring profile.

For each paper this script runs pytest over SWE-bench Lite instances (offline, through
``--codesearch-repo-map`` to local mirrors), replaying the paper's public outputs, and prints our figure
beside the published one (or the one the paper's own evaluator gives for the same files) and the
difference in points:

- **LocAgent** (``gersteinlab/LocAgent``): Claude-3.5 outputs over the 274 instances its
  ``evaluation/eval_metric.py`` keeps, ``--codesearch-profile=locagent``, truth derived from each patch;
  published figures from ``evaluation/run_evaluation.ipynb``.
- **CoSIL** (``ZhonghaoJiang/CoSIL``): its ``loc_to_patch/*_func.jsonl`` outputs over all 300 instances,
  ``--codesearch-profile=cosil --codesearch-truth evaluation/gt.json``; the evaluator figures come from
  running CoSIL's own ``evaluation/FLEvalNew.py`` (``evaluate_accuracy``) on the same files.
- **OrcaLoca** (``fishmingyu/OrcaLoca``): SWE-Fixer's submitted patches
  (``InternLM/SWE-Fixer`` ``result/lite_no_p2p_result.jsonl``) over all 300 instances,
  ``--codesearch-profile=orcaloca``; published ``% File`` / ``% Function`` from
  ``artifact/lite_results_paper.csv``.

The instances (``instance_id``, ``repo``, ``base_commit``, ``problem_statement``, ``patch``) are taken from
the ``meta_data`` of LocAgent's outputs (all 300 Lite instances). Nothing is fetched; run from the
repository root::

    python benchmarks/published_tables.py [--mirror-root /work/.mirror] [--mirrors mirrors.json]
        [--papers locagent,cosil,orcaloca] [--cosil-files all] [--edit-functions FILE]

``--edit-functions`` (JSON ``{instance_id: [path.py:Name, ...]}``, or JSONL instances carrying
``edit_functions``) scores LocAgent's row against the dataset's own function lists, as its table was
(``--codesearch-entity-truth=dataset``), and lists the instances whose patch-derived truth differs from
them, level by level. LocAgent's table divides by every evaluated instance (a case without module or
function truth counts 0); ``results.json`` averages over the cases with truth at that level: both are
printed.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

LOCAGENT_OUTPUTS = "evaluation/loc_output/locagent/claude_3-5/loc_outputs.jsonl"
LOCAGENT_PUBLISHED = {  # evaluation/run_evaluation.ipynb, evaluate_results(..., metrics=['acc']), in %
    "acc@1": 77.74, "acc@3": 91.97, "acc@5": 94.16, "module_acc@5": 86.50, "module_acc@10": 87.59,
    "function_acc@5": 73.36, "function_acc@10": 77.37,
}  # fmt: skip
COSIL_FILES = {
    "afl 32b (CoSIL)": "loc_to_patch/afl/loc_qwen_coder_32b_func.jsonl",
    "afl 14b (CoSIL)": "loc_to_patch/afl/loc_qwen_coder_14b_func.jsonl",
    "afl 7b (CoSIL)": "loc_to_patch/afl/loc_qwen_coder_7b_func.jsonl",
    "locagent 32b": "loc_to_patch/locagent/locagent_qwen_coder_32b_func.jsonl",
    "locagent 14b": "loc_to_patch/locagent/locagent_qwen_coder_14b_func.jsonl",
    "locagent 7b": "loc_to_patch/locagent/locagent_qwen_coder_7b_func.jsonl",
    "orcaloca 32b": "loc_to_patch/orcaloca/orca_qwen_coder_32b_func.jsonl",
    "orcaloca 14b": "loc_to_patch/orcaloca/orca_qwen_coder_14b_func.jsonl",
    "orcaloca 7b": "loc_to_patch/orcaloca/orca_qwen_coder_7b_func.jsonl",
}
COSIL_CELLS = {  # FLEvalNew's (level, name) -> our metric
    ("file_level", "TOP 1"): "top@1", ("file_level", "TOP 3"): "top@3", ("file_level", "TOP 5"): "top@5",
    ("file_level", "MAP"): "map", ("file_level", "MRR"): "mrr",
    ("function_level", "TOP 1"): "function_top@1", ("function_level", "TOP 3"): "function_top@3",
    ("function_level", "TOP 5"): "function_top@5", ("function_level", "MAP"): "function_map",
    ("function_level", "MRR"): "function_mrr",
}  # fmt: skip
COSIL_ABSTRACT = 43.3  # arXiv 2503.22424: function Top-1 of CoSIL with Qwen2.5-Coder-32B on Lite
SWE_FIXER = "result/lite_no_p2p_result.jsonl"
ORCALOCA_ROW = "SWE-Fixer (Qwen2.5-7b retriever + Qwen2.5-72b editor) 20241128 (lite 20241128)"
MIRRORS = {  # owner/name -> mirror under --mirror-root
    "django/django": "swe-bench+django__django", "matplotlib/matplotlib": "swe-bench+matplotlib__matplotlib",
    "scikit-learn/scikit-learn": "swe-bench+scikit-learn__scikit-learn", "sympy/sympy": "sympy+sympy",
    "astropy/astropy": "astropy+astropy", "psf/requests": "psf+requests", "pydata/xarray": "pydata+xarray",
    "pylint-dev/pylint": "pylint-dev+pylint", "pytest-dev/pytest": "pytest-dev+pytest",
    "sphinx-doc/sphinx": "sphinx-doc+sphinx", "mwaskom/seaborn": "mwaskom+seaborn", "pallets/flask": "pallets+flask",
}  # fmt: skip


def show(git_dir: Path, path: str) -> str:
    """Return the text of ``path`` at HEAD of the bare repository ``git_dir``."""
    return subprocess.run(["git", "--git-dir", str(git_dir), "show", f"HEAD:{path}"],
                          check=True, capture_output=True, text=True).stdout  # fmt: skip


def jsonl(text: str) -> list[dict[str, Any]]:
    """Return the records of a JSONL text."""
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def write_instances(
    locagent: Path, target: Path, keep: set[str] | None = None, given: dict[str, list[str]] | None = None
) -> list[str]:
    """Write the Lite instances found in LocAgent's outputs to ``target`` (only ``keep`` when given; with
    ``given[instance_id]`` as ``edit_functions``); return ids."""
    fields = ("repo", "base_commit", "problem_statement", "patch")
    lines, ids = [], []
    for record in jsonl(show(locagent, LOCAGENT_OUTPUTS)):
        if keep is None or record["instance_id"] in keep:
            meta = record["meta_data"]
            instance = {"instance_id": record["instance_id"], **{f: meta[f] for f in fields}}
            if given and record["instance_id"] in given:
                instance["edit_functions"] = given[record["instance_id"]]
            lines.append(json.dumps(instance))
            ids.append(record["instance_id"])
    target.write_text("\n".join(lines) + "\n")
    return ids


def locagent_kept(locagent: Path) -> set[str]:
    """Return the Lite instances LocAgent evaluates: all but its ``filtered_instances``."""
    source = show(locagent, "evaluation/eval_metric.py")  # not parsed whole: it needs Python 3.12's f-strings
    start = source.index("filtered_instances=")
    filtered = ast.literal_eval(source[start + len("filtered_instances="):source.index("]", start) + 1])
    return {r["instance_id"] for r in jsonl(show(locagent, LOCAGENT_OUTPUTS))} - set(filtered)


def run_plugin(work: Path, name: str, instances: Path, options: list[str], args: argparse.Namespace) -> dict[str, Any]:
    """Run pytest over ``instances`` with the replay agent and ``options``; return results.json and wall time."""
    repo_map = [f"--codesearch-repo-map={repo}={path}" for repo, path in args.repo_map.items()]
    report = work / f"report-{name}"
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-p", "no:warnings", str(instances),
               "--codesearch-agent=replay", "--codesearch-runs=1", f"--codesearch-report-dir={report}",
               "--codesearch-no-save", f"--codesearch-cache-dir={work / 'cache'}", *repo_map, *options]  # fmt: skip
    start = time.perf_counter()
    subprocess.run(command, cwd=work, capture_output=True, check=False)
    results: dict[str, Any] = json.loads((report / "results.json").read_text())
    results["wall_s"] = time.perf_counter() - start
    return results


def mean_pct(records: list[dict[str, Any]], name: str, total: int | None = None) -> float:
    """Return 100 x the sum of ``name`` over ``records`` divided by ``total`` (default: the records)."""
    return 100 * sum(r["metrics"].get(name, 0.0) for r in records) / (total or len(records))


def not_ok(results: dict[str, Any]) -> list[str]:
    """Return one line per case that did not run cleanly."""
    return [f"    not ok: {r['id']}: {r['status']}: {str(r.get('error'))[:140]}" for r in results["cases"]
            if r["status"] != "ok"]  # fmt: skip


def table(title: str, rows: list[tuple[str, float, float]], source: str) -> None:
    """Print one paper's rows: metric, theirs, ours, difference in points."""
    print(f"\n{title}")
    print(f"  {'metric':<20}{source:>12}{'ours':>10}{'diff (pts)':>12}")
    for name, theirs, ours in rows:
        difference = round(ours - theirs, 2) or 0.0  # no "-0.00"
        print(f"  {name:<20}{theirs:>12.2f}{ours:>10.2f}{difference:>+12.2f}")


def locagent_table(work: Path, args: argparse.Namespace) -> None:
    """LocAgent's Claude-3.5 row under the locagent profile, truth derived from each patch (or given by
    ``--edit-functions``)."""
    instances = work / "lite274" / "lite274.jsonl"
    instances.parent.mkdir()
    write_instances(args.locagent, instances, locagent_kept(args.locagent), edit_functions(args.edit_functions))
    predictions = work / "loc_outputs.jsonl"
    predictions.write_text(show(args.locagent, LOCAGENT_OUTPUTS))
    options = [f"--codesearch-predictions={predictions}", "--codesearch-ks=1,3,5,10", "--codesearch-profile=locagent"]
    if args.edit_functions is not None:
        options.append("--codesearch-entity-truth=dataset")
    results = run_plugin(work, "locagent", instances, options, args)
    records = results["cases"]
    rows = [(name, published, mean_pct(records, name)) for name, published in LOCAGENT_PUBLISHED.items()]
    truth = "the dataset's edit_functions" if args.edit_functions is not None else "the patches"
    table(f"LocAgent claude-3.5, {len(records)} Lite instances, truth from {truth} "
          f"(--codesearch-profile=locagent; {results['wall_s']:.0f} s)", rows, "published")  # fmt: skip
    print("\n".join(not_ok(results)))
    print(denominators(results))
    if args.edit_functions is not None:
        differences = truth_differences(instances, args.repo_map)
        print(f"  instances whose patch-derived truth differs from edit_functions: {len(differences)}")
        print("\n".join(differences))
        return
    theirs = locagent_truth(args.locagent)
    differ = {r["id"]: theirs[r["id"]] for r in records if canonical(r["ground_truth_functions"]) != theirs[r["id"]]}
    print(f"  instances whose derived function truth differs from LocAgent's own lists: {len(differ)}")
    for record in (r for r in records if r["id"] in differ):
        ours = canonical(record["ground_truth_functions"])
        print(f"    {record['id']}: ours only {sorted(ours - differ[record['id']])}, "
              f"LocAgent only {sorted(differ[record['id']] - ours)}")  # fmt: skip
    if differ:  # the check of that explanation: give LocAgent's lists for those instances alone
        truth = work / "locagent_truth.jsonl"
        truth.write_text("".join(json.dumps({"instance_id": i, "functions": sorted(f),
                                             "modules": sorted({top_level(e) for e in f})}) + "\n"
                                 for i, f in differ.items()))  # fmt: skip
        checked = run_plugin(work, "locagent-checked", instances, [f"--codesearch-predictions={predictions}",
                             "--codesearch-ks=1,3,5,10", "--codesearch-profile=locagent",
                             f"--codesearch-truth={truth}"], args)  # fmt: skip
        rows = [(name, published, mean_pct(checked["cases"], name)) for name, published in LOCAGENT_PUBLISHED.items()]
        table(f"the same with LocAgent's lists for those {len(differ)} instances (--codesearch-truth)", rows,
              "published")  # fmt: skip


def edit_functions(path: Path | None) -> dict[str, list[str]]:
    """Return ``{instance_id: edit_functions}`` from a JSON map or JSONL instances; empty without a file."""
    if path is None:
        return {}
    text = path.read_text()
    if path.suffix == ".jsonl":
        return {r["instance_id"]: r["edit_functions"] for r in jsonl(text) if "edit_functions" in r}
    given: dict[str, list[str]] = json.loads(text)
    return given


def denominators(results: dict[str, Any]) -> str:
    """Return the line saying what each figure divides by: ours as LocAgent's table, and results.json's."""
    records, summary = results["cases"], results["agents"]["replay"]["metrics"]
    shown = ", ".join(f"{name} {summary[name]['mean'] * 100:.2f} (n={summary[name]['n']})"
                      for name in LOCAGENT_PUBLISHED if name in summary)  # fmt: skip
    return (f"  ours: over all {len(records)} instances, one without truth at a level counting 0, as LocAgent's "
            f"table divides; results.json: over the n cases with truth at that level: {shown}")


def truth_differences(instances: Path, repo_map: dict[str, str]) -> list[str]:
    """Return, per instance and level, the entities only the patch gives and only ``edit_functions`` gives."""
    from pytest_codesearch.goldset.formats import ReadOptions, load
    from pytest_codesearch.scoring.levels import constructor_as_class

    repos = {repo: Path(path) for repo, path in repo_map.items()}
    derived = {c.id: c for c in load(instances, ReadOptions(repos=repos, convention="locagent")).cases}
    given = {c.id: c for c in load(instances, ReadOptions(repos=repos, entity_truth="dataset")).cases}
    lines = []
    for case_id in sorted(derived.keys() & given.keys()):
        for level in ("functions", "modules"):
            ours = {constructor_as_class(e) for e in getattr(derived[case_id], f"ground_truth_{level}")}
            theirs = {constructor_as_class(e) for e in getattr(given[case_id], f"ground_truth_{level}")}
            if ours != theirs:
                lines.append(f"    {case_id} {level}: patch only {sorted(ours - theirs)}, "
                             f"dataset only {sorted(theirs - ours)}")  # fmt: skip
    return lines


def canonical(functions: list[str]) -> set[str]:
    """Return function entities with ``Class.__init__`` read as ``Class``."""
    return {e.removesuffix(".__init__") for e in functions}


def top_level(entity: str) -> str:
    """Return ``path.py:Class`` for ``path.py:Class.method``."""
    path, _, name = entity.rpartition(":")
    return f"{path}:{name.split('.')[0]}"


def locagent_truth(locagent: Path) -> dict[str, set[str]]:
    """Return LocAgent's own function truth by instance (``gt_file_changes``'s ``edited_entities``)."""
    truth = {}
    for record in jsonl(show(locagent, LOCAGENT_OUTPUTS)):
        changes = record["meta_data"]["gt_file_changes"]
        changes = ast.literal_eval(changes) if isinstance(changes, str) else changes
        truth[record["instance_id"]] = canonical([e for c in changes for e in c["changes"].get("edited_entities", [])])
    return truth


def cosil_evaluator(cosil: Path, outputs: list[dict[str, Any]], gt: dict[str, Any]) -> dict[str, dict[str, float]]:
    """Return what CoSIL's own ``evaluation/FLEvalNew.py`` (``evaluate_accuracy``) gives for ``outputs``."""
    namespace: dict[str, Any] = {"__name__": "FLEvalNew"}
    exec(compile(show(cosil, "evaluation/FLEvalNew.py"), "FLEvalNew.py", "exec"), namespace)  # their code, as is
    with contextlib.redirect_stdout(io.StringIO()):  # it prints every instance
        result: dict[str, dict[str, float]] = namespace["evaluate_accuracy"](outputs, gt)
    return result


def lite300(work: Path, args: argparse.Namespace) -> Path:
    """Return the file of all 300 Lite instances under ``work``, written on first use."""
    instances = work / "lite300" / "lite300.jsonl"
    if not instances.exists():
        instances.parent.mkdir()
        write_instances(args.locagent, instances)
    return instances


def cosil_table(work: Path, args: argparse.Namespace) -> None:
    """CoSIL's evaluator cells for each output file, against the plugin under the cosil profile."""
    instances = lite300(work, args)
    truth = work / "gt.json"
    truth.write_text(show(args.cosil, "evaluation/gt.json"))
    gt = json.loads(truth.read_text())
    chosen = COSIL_FILES if args.cosil_files == "all" else dict(list(COSIL_FILES.items())[:1])
    for label, path in chosen.items():
        predictions = work / Path(path).name
        predictions.write_text(show(args.cosil, path))
        theirs = cosil_evaluator(args.cosil, jsonl(predictions.read_text()), gt)
        results = run_plugin(work, f"cosil-{Path(path).stem}", instances, [
            f"--codesearch-predictions={predictions}", "--codesearch-ks=1,3,5", "--codesearch-profile=cosil",
            f"--codesearch-truth={truth}"], args)  # fmt: skip
        rows = [(f"{level.split('_')[0]} {cell}", theirs[level][cell], mean_pct(results["cases"], ours, len(gt)))
                for (level, cell), ours in COSIL_CELLS.items()]  # fmt: skip
        table(f"CoSIL evaluator vs ours, {label}: {path}, {len(gt)} instances ({results['wall_s']:.0f} s)",
              rows, "FLEvalNew")  # fmt: skip
        print("\n".join(not_ok(results)))
        if label.startswith("afl 32b"):
            print(f"  abstract (arXiv 2503.22424): function Top-1 {COSIL_ABSTRACT}")


def orcaloca_table(work: Path, args: argparse.Namespace) -> None:
    """OrcaLoca's File Match and Function Match of SWE-Fixer's Lite patches."""
    instances = lite300(work, args)
    predictions = work / "swe_fixer.jsonl"
    predictions.write_text(show(args.swe_fixer, SWE_FIXER))
    csv = show(args.orcaloca, "artifact/lite_results_paper.csv").splitlines()
    row = next(line for line in csv if line.startswith(ORCALOCA_ROW)).rsplit(",", 6)
    function, file = float(row[-3]), float(row[-1])  # "# Function", "# File"
    results = run_plugin(work, "orcaloca", instances, [
        f"--codesearch-predictions={predictions}", "--codesearch-ks=1", "--codesearch-profile=orcaloca"], args)
    records = results["cases"]
    rows = [("File Match", file / 3, mean_pct(records, "match", 300)),
            ("Function Match", function / 3, mean_pct(records, "function_match", 300))]  # fmt: skip
    table(f"OrcaLoca's match for SWE-Fixer's Lite patches, {len(records)} instances ({results['wall_s']:.0f} s)",
          rows, "published")  # fmt: skip
    print(f"  counts: file {sum(r['metrics'].get('match', 0) for r in records):.0f}/300 (published {file:.0f}), "
          f"function {sum(r['metrics'].get('function_match', 0) for r in records):.0f}/300 "
          f"(published {function:.0f})")  # fmt: skip
    problems = [f"    {r['id']}: {r['metadata']['patch_problem']}" for r in records
                if "patch_problem" in r.get("metadata", {})]  # fmt: skip
    print(f"  patches that answered nothing: {len(problems)}")
    print("\n".join(problems + not_ok(results)))


def main() -> None:
    """Print each chosen paper's table: theirs, ours, the difference."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror-root", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--mirrors", type=Path, default=None, help="JSON {owner/name: git dir} (overrides the root)")
    parser.add_argument("--papers", default="locagent,cosil,orcaloca")
    parser.add_argument("--cosil-files", choices=("32b", "all"), default="32b")
    parser.add_argument("--edit-functions", type=Path, default=None,
                        help="the dataset's function lists for LocAgent's row (JSON map or JSONL instances)")
    args = parser.parse_args()
    root = args.mirror_root
    args.locagent, args.cosil = root / "gersteinlab+LocAgent/repo", root / "ZhonghaoJiang+CoSIL/repo"
    args.orcaloca, args.swe_fixer = root / "fishmingyu+OrcaLoca/repo", root / "InternLM+SWE-Fixer/repo"
    args.repo_map = {repo: str(root / name / "repo") for repo, name in MIRRORS.items()}
    if args.mirrors is not None:
        args.repo_map.update(json.loads(args.mirrors.read_text()))
    papers = {"locagent": locagent_table, "cosil": cosil_table, "orcaloca": orcaloca_table}
    with tempfile.TemporaryDirectory() as scratch:
        for name in args.papers.split(","):
            papers[name](Path(scratch), args)


if __name__ == "__main__":
    main()
