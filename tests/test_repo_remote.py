"""Remote repositories: cloned once into a shared cache, fetched when a commit is missing, mapped offline."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pygit2
import pytest
from gitrepo import commit, init_repo

from pytest_codesearch.repo.remote import RemoteCache, RemoteError, cache_name, is_remote, remote_url
from pytest_codesearch.repo.resolve import resolve_repo


def _origin(tmp_path: Path) -> tuple[str, pygit2.Repository, str]:
    """Return a file:// URL of a bare repository with one commit, the repository, and the commit."""
    origin = init_repo(tmp_path / "origin.git", bare=True)
    first = commit(origin, {"src/app.py": "def main():\n    pass\n"}, "Add the app")
    return (tmp_path / "origin.git").as_uri(), origin, first


def test_names_of_remote_repositories() -> None:
    assert is_remote("psf/requests")
    assert is_remote("https://example.com/a/b.git")
    assert is_remote("git@github.com:psf/requests.git")
    assert not is_remote("../requests")
    assert not is_remote("a/b/c")
    assert remote_url("psf/requests") == "https://github.com/psf/requests.git"
    assert cache_name("psf/requests").startswith("psf__requests-")
    assert cache_name("psf/requests") == cache_name("https://github.com/psf/requests.git")


def test_clones_once_and_reuses_the_clone(tmp_path: Path) -> None:
    url, _, first = _origin(tmp_path)
    cache = RemoteCache(tmp_path / "cache")
    path = cache.ensure(url, first)
    assert pygit2.Repository(str(path)).is_bare
    assert str(pygit2.Repository(str(path)).revparse_single(first).id) == first
    marker = path / "marker"
    marker.write_text("kept")
    assert cache.ensure(url, first) == path
    assert marker.read_text() == "kept"  # not cloned again
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == [path.name, path.name + ".lock"]


def test_fetches_a_commit_the_clone_lacks(tmp_path: Path) -> None:
    url, origin, first = _origin(tmp_path)
    cache = RemoteCache(tmp_path / "cache")
    path = cache.ensure(url, first)
    second = commit(origin, {"src/app.py": "def main():\n    return 1\n"}, "Return one")
    assert cache.ensure(url, second) == path
    assert str(pygit2.Repository(str(path))[second].id) == second


def test_a_commit_missing_upstream_is_named(tmp_path: Path) -> None:
    url, _, _ = _origin(tmp_path)
    with pytest.raises(RemoteError) as raised:
        RemoteCache(tmp_path / "cache").ensure(url, "1" * 40)
    assert str(raised.value) == f"base_commit: {'1' * 40!r} is not in {url!r} ({url}), even after a fetch; check the commit id"


def test_a_missing_repository_is_named_with_the_offline_fix(tmp_path: Path) -> None:
    url = (tmp_path / "nowhere.git").as_uri()
    with pytest.raises(RemoteError) as raised:
        RemoteCache(tmp_path / "cache").ensure(url)
    message = str(raised.value)
    assert message.startswith(f"repo: cannot clone {url!r} from {url}: ")
    assert message.endswith(f"or map it to a local clone with --codesearch-repo-map {url}=/path/to/clone")
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [cache_name(url) + ".lock"]  # no half clone


def _ensure_in_child(args: tuple[str, str, str]) -> str:
    root, url, wanted = args
    return str(RemoteCache(Path(root)).ensure(url, wanted))


def test_processes_cloning_at_once_share_one_clone(tmp_path: Path) -> None:
    url, _, first = _origin(tmp_path)
    root = tmp_path / "cache"
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        paths = pool.map(_ensure_in_child, [(str(root), url, first)] * 8)
    assert set(paths) == {str(root / cache_name(url))}
    assert sorted(p.name for p in root.iterdir()) == [cache_name(url), cache_name(url) + ".lock"]
    assert str(pygit2.Repository(paths[0])[first].id) == first


def test_resolve_prefers_the_map_then_a_directory_then_the_cache(tmp_path: Path) -> None:
    url, _, first = _origin(tmp_path)
    goldset = tmp_path / "sets" / "cases.jsonl"
    cache = RemoteCache(tmp_path / "cache")
    mapped = {url: tmp_path / "origin.git"}
    assert resolve_repo(url, goldset, mapped, remotes=cache) == ((tmp_path / "origin.git").resolve(), None)
    assert resolve_repo(url, goldset, remotes=cache, commit=first) == (cache.path_for(url), None)
    path, error = resolve_repo("owner/absent", goldset)
    assert path is None and error == f"repo: 'owner/absent' (resolved to {tmp_path / 'sets/owner/absent'}) is not a directory"


def test_repo_map_values_from_every_source(tmp_path: Path) -> None:
    from pytest_codesearch.settings.types import Origin, RepoMap, SettingsError

    cli = Origin("--codesearch-repo-map", tmp_path)
    got = RepoMap().parse(["psf/requests=clones/requests", "https://h/x.git?a=b=/abs/x"], cli)
    assert got == (("psf/requests", tmp_path / "clones/requests"), ("https://h/x.git?a=b", Path("/abs/x")))
    assert RepoMap().parse("a/b=one\n  c/d=two", Origin("tox.ini: codesearch_repo_map", tmp_path)) == (
        ("a/b", tmp_path / "one"), ("c/d", tmp_path / "two"),
    )
    assert RepoMap().parse({"a/b": "../m"}, Origin("b.yaml:3: evaluation.repo_map", tmp_path / "d", typed=True)) == (
        ("a/b", tmp_path / "m"),
    )
    with pytest.raises(SettingsError, match=r"^--codesearch-repo-map: expected owner/name=/path/to/clone, got 'psf'$"):
        RepoMap().parse(["psf"], cli)


PATCH = """\
diff --git a/src/app.py b/src/app.py
--- a/src/app.py
+++ b/src/app.py
@@ -1,2 +1,2 @@
 def main():
-    pass
+    return 2
"""


def test_swebench_instances_clone_and_fetch_their_repository(tmp_path: Path) -> None:
    import json

    from pytest_codesearch.goldset.formats import ReadOptions, load

    url, origin, first = _origin(tmp_path)
    options = ReadOptions(remotes=RemoteCache(tmp_path / "cache"))
    instance = {"instance_id": "one", "repo": url, "base_commit": first, "problem_statement": "q", "patch": PATCH}
    path = tmp_path / "instances.jsonl"
    path.write_text(json.dumps(instance) + "\n")
    assert [(e.error, e.case and e.case.ground_truth_files[0].path) for e in load(path, options).entries] == [
        (None, "src/app.py")
    ]
    second = commit(origin, {"src/app.py": "def main():\n    pass\n\n\nX = 1\n"}, "Add X")
    later = {**instance, "instance_id": "two", "base_commit": second}
    path.write_text(json.dumps(instance) + "\n" + json.dumps(later) + "\n")
    assert [e.error for e in load(path, options).entries] == [None, None]
    missing = {**instance, "instance_id": "three", "base_commit": "2" * 40}
    path.write_text(json.dumps(missing) + "\n")
    assert [e.error for e in load(path, options).entries] == [
        f"base_commit: {'2' * 40!r} is not in {url!r} ({url}), even after a fetch; check the commit id"
    ]


def test_the_yaml_config_maps_repositories_relative_to_itself(tmp_path: Path) -> None:
    from pytest_codesearch.settings.yamlfile import load_benchfile
    from pytest_codesearch.settings.model import build_settings

    path = tmp_path / "conf" / "benchmark.yaml"
    path.parent.mkdir()
    path.write_text("evaluation:\n  limit: 3\n  sample: stratified\n  repo_map:\n    psf/requests: ../clones/requests\n")
    settings = build_settings([load_benchfile(path).layer()], tmp_path, tmp_path)
    assert settings.repo_map == (("psf/requests", (tmp_path / "clones" / "requests").resolve()),)
    assert (settings.limit, settings.sample) == (3, "stratified")


def test_converted_instances_keep_naming_their_remote_repository(tmp_path: Path) -> None:
    import json

    from pytest_codesearch.goldset.convert import convert_goldset
    from pytest_codesearch.goldset.formats import ReadOptions, load

    url, _, first = _origin(tmp_path)
    options = ReadOptions(remotes=RemoteCache(tmp_path / "cache"))
    instance = {"instance_id": "one", "repo": url, "base_commit": first, "problem_statement": "q", "patch": PATCH}
    (tmp_path / "instances.jsonl").write_text(json.dumps(instance) + "\n")
    result = convert_goldset(tmp_path / "instances.jsonl", tmp_path / "out" / "native.jsonl", options)
    assert (result.written, result.errors) == (1, [])
    (case,) = load(tmp_path / "out" / "native.jsonl", options).cases
    assert (case.repo, case.base_commit) == (url, first)
