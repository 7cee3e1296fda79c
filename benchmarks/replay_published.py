"""Replay LocAgent's published predictions through the plugin and compare with its published table.

LocAgent (gersteinlab/LocAgent) publishes ``evaluation/loc_output/locagent/claude_3-5/loc_outputs.jsonl``
(300 SWE-bench Lite predictions: ``found_files``, ``found_modules``, ``found_entities``) and, in
``evaluation/run_evaluation.ipynb``, the table ``eval_metric.evaluate_results`` printed for it over the 274
instances it evaluates. This script runs the plugin as a user would::

    pytest lite.jsonl --codesearch-agent=replay --codesearch-predictions loc_outputs.jsonl \\
        --codesearch-repo-map django/django=/mirrors/django ... [--codesearch-entity-truth=dataset]

and prints ours beside the published figures. Run it from the repository root (no network; the
mirrors and the LocAgent repository must be local)::

    python benchmarks/replay_published.py [--locagent GIT_DIR] [--instances lite.jsonl]
        [--mirrors mirrors.json] [--edit-functions FILE]

``--edit-functions`` (JSON ``{instance_id: [path.py:Name, ...]}``, or instances carrying
``edit_functions``) takes the entity truth from the dataset's own lists, as LocAgent's table does
(``docs/reproduce-a-published-table.md``); without it the truth is derived from each patch. With it,
the instances whose derived truth differs from the given one are listed too, level by level.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PREDICTIONS = "evaluation/loc_output/locagent/claude_3-5/loc_outputs.jsonl"
PUBLISHED = {  # evaluation/run_evaluation.ipynb, the output of evaluate_results(..., metrics=['acc'])
    "acc@1": 0.7774, "acc@3": 0.9197, "acc@5": 0.9416,
    "module_acc@5": 0.865, "module_acc@10": 0.8759,
    "function_acc@5": 0.7336, "function_acc@10": 0.7737,
}  # fmt: skip
LEVELS = {"": ("ground_truth", "found_files"), "module_": ("ground_truth_modules", "found_modules"),
          "function_": ("ground_truth_functions", "found_entities")}  # fmt: skip


def _instances(source: Path, edit_functions: Path | None, target: Path) -> None:
    """Copy the instances to ``target``, with ``edit_functions`` attached when a file of them is given."""
    given: dict[str, Any] = {}
    if edit_functions is not None:
        text = edit_functions.read_text()
        if edit_functions.suffix == ".jsonl":
            given = {r["instance_id"]: r["edit_functions"] for r in map(json.loads, text.splitlines()) if r.strip()}
        else:
            given = json.loads(text)
    lines = []
    for line in source.read_text().splitlines():
        if line.strip():
            record = json.loads(line)
            if record["instance_id"] in given:
                record["edit_functions"] = given[record["instance_id"]]
            lines.append(json.dumps(record))
    target.write_text("\n".join(lines) + "\n")


def _repo_map(instances: Path, mirrors: Path) -> list[str]:
    """Return ``--codesearch-repo-map owner/name=PATH`` for each repository, from ``{name: path}``."""
    by_name = json.loads(mirrors.read_text())
    repos = sorted({json.loads(line)["repo"] for line in instances.read_text().splitlines() if line.strip()})
    return [f"--codesearch-repo-map={repo}={by_name[repo.split('/')[1]]}" for repo in repos]


def _run(work: Path, args: argparse.Namespace) -> tuple[list[dict[str, Any]], float, float]:
    """Run pytest over the instances with the replay agent; return the case records, wall and CPU seconds."""
    predictions = work / "loc_outputs.jsonl"
    shown = subprocess.run(["git", "--git-dir", str(args.locagent), "show", f"HEAD:{PREDICTIONS}"],
                           check=True, capture_output=True, cwd=work)  # fmt: skip
    predictions.write_bytes(shown.stdout)
    instances = work / "instances" / "lite.jsonl"
    instances.parent.mkdir()
    _instances(args.instances, args.edit_functions, instances)
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-p", "no:warnings", str(instances),
               "--codesearch-agent=replay", f"--codesearch-predictions={predictions}", "--codesearch-runs=1",
               "--codesearch-ks=1,3,5,10", f"--codesearch-report-dir={work / 'report'}", "--codesearch-no-save",
               f"--codesearch-cache-dir={work / 'cache'}", *_repo_map(instances, args.mirrors)]  # fmt: skip
    if args.edit_functions is not None:
        command.append("--codesearch-entity-truth=dataset")
    start, cpu = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, cwd=work, capture_output=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    elapsed = time.perf_counter() - start
    cpu_s = after.ru_utime - cpu.ru_utime + after.ru_stime - cpu.ru_stime
    records = json.loads((work / "report" / "results.json").read_text())["cases"]
    return records, elapsed, cpu_s


def _acc(ranked: list[str], truth: list[str], k: int) -> float:
    """LocAgent's Acc@k: 1 when the first k distinct answers hold min(k, |truth|) of the truth, else 0."""
    canon = [e.removesuffix(".__init__") for e in truth] if truth and ":" in truth[0] else truth
    answer = list(dict.fromkeys(e.removesuffix(".__init__") if ":" in e else e for e in ranked))[:k]
    found = sum(1 for e in answer if e in set(canon))
    return float(bool(canon) and found == min(k, len(set(canon))))


def _answered(record: dict[str, Any], predictions: dict[str, Any], name: str) -> float:
    """Return the metric of a case that errored, scored from its record's truth and its prediction."""
    level, k = name.rsplit("acc@", 1)
    truth_key, answer_key = LEVELS[level]
    return _acc(predictions.get(record["id"], {}).get(answer_key) or [], record[truth_key], int(k))


def _truth_differences(instances: Path, mirrors: Path) -> list[str]:
    """Return, per instance and level, the entities only the patch gives and only ``edit_functions`` gives."""
    from pytest_codesearch.goldset.formats import ReadOptions, load
    from pytest_codesearch.scoring.levels import constructor_as_class

    by_name = json.loads(mirrors.read_text())
    repos = {json.loads(line)["repo"] for line in instances.read_text().splitlines() if line.strip()}
    mapped = {repo: Path(by_name[repo.split("/")[1]]) for repo in repos}
    derived = {c.id: c for c in load(instances, ReadOptions(repos=mapped)).cases}
    given = {c.id: c for c in load(instances, ReadOptions(repos=mapped, entity_truth="dataset")).cases}
    lines = []
    for case_id in sorted(derived.keys() & given.keys()):
        for level in ("functions", "modules"):
            ours = {constructor_as_class(e) for e in getattr(derived[case_id], f"ground_truth_{level}")}
            theirs = {constructor_as_class(e) for e in getattr(given[case_id], f"ground_truth_{level}")}
            if ours != theirs:
                only = f"patch only {sorted(ours - theirs)}, dataset only {sorted(theirs - ours)}"
                lines.append(f"  {case_id} {level}: {only}")
    return lines


def main() -> None:
    """Print the published table, ours, and the difference in points."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locagent", type=Path, default=Path("/work/.mirror/gersteinlab+LocAgent/repo"))
    parser.add_argument("--instances", type=Path, default=Path("/work/data/baselines/swe_lite.jsonl"))
    parser.add_argument("--mirrors", type=Path, default=Path("/work/data/baselines/mirrors.json"))
    parser.add_argument("--edit-functions", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        records, elapsed, cpu_s = _run(Path(scratch), args)
        lines = (Path(scratch) / "loc_outputs.jsonl").read_text().splitlines()
        predictions = {json.loads(line)["instance_id"]: json.loads(line) for line in lines if line.strip()}
        differences = [] if args.edit_functions is None else _truth_differences(
            Path(scratch) / "instances" / "lite.jsonl", args.mirrors
        )
    if not records:
        sys.exit("the run scored no case: see its output above (instances, mirrors or predictions not found?)")
    failed = [r for r in records if r["status"] != "ok"]
    truth = "edit_functions (--codesearch-entity-truth=dataset)" if args.edit_functions else "derived from each patch"
    print(f"LocAgent claude-3.5 predictions replayed over {len(records)} SWE-bench Lite instances")
    print(f"entity truth: {truth}")
    print(f"run: {elapsed:.1f} s wall, {cpu_s:.1f} s CPU (pytest subprocess); {len(failed)} case(s) not ok")
    print(f"ours: over all {len(records)} instances, a case without truth at a level counting 0, as LocAgent's "
          "table divides; results.json: over the n cases with truth at that level (its metrics.<name>.n)")
    print(f"{'metric':<17}{'published':>10}{'ours':>9}{'diff (pts)':>12}{'ours, errors answered':>24}"
          f"{'results.json':>14}{'n':>6}")
    for name, published in PUBLISHED.items():
        ours = sum(r["metrics"].get(name, 0.0) for r in records) / len(records)
        answered = sum(_answered(r, predictions, name) if r["status"] != "ok" else r["metrics"].get(name, 0.0)
                       for r in records) / len(records)  # fmt: skip
        carried = [r["metrics"][name] for r in records if name in r["metrics"]]
        mean = sum(carried) / len(carried) if carried else 0.0
        print(f"{name:<17}{published:>10.4f}{ours:>9.4f}{(ours - published) * 100:>+12.2f}{answered:>24.4f}"
              f"{mean:>14.4f}{len(carried):>6}")
    for record in failed:
        print(f"  not ok: {record['id']}: {record['status']}: {record.get('error', '')[:150]}")
    if args.edit_functions is not None:
        print(f"instances whose truth derived from the patch differs from edit_functions: {len(differences)}")
        print("\n".join(differences))


if __name__ == "__main__":
    main()
