"""Build a synthetic git history with pygit2, for the benchmarks: many commits over many files.

``build_synthetic_repo(path, commits, files, seed)`` writes (once) a repository whose first commit adds
``files`` files of pseudo-Python in nested directories (``src/<pkg>/<module>/<name>.py``, about 20 files a
directory) and whose later commits each change a little: most edit one to three files, some add, delete or
rename one, a few touch docs only, a few come from a bot. Messages read like real ones (conventional
prefixes, issue references, trailers) so a miner has something to strip and filter.

The repository is not checked out (its working tree is empty); read it through the object database. It is
cached: a second call with the same arguments returns at once, reading ``<path>/.git/synthetic.json``. When
``git`` is installed the objects are packed (``git repack -adq``) as in a real clone. The
history is built in a temporary directory beside ``path`` and renamed into place, so an interrupted build
leaves nothing half-made. Same arguments, same commit ids.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import tempfile
from pathlib import Path

import pygit2

BUILDER_VERSION = 1
EPOCH = 1_600_000_000
_SYLLABLES = "ba ce di fo gu ka le mi no pu ra se ti vo zu xan qel vor tim nup".split()
_HUMANS = [
    ("Ada Lovelace", "ada@example.com"),
    ("Alan Turing", "alan@example.com"),
    ("Grace Hopper", "grace@example.com"),
]
_BOT = ("dependabot[bot]", "49699333+dependabot[bot]@users.noreply.github.com")
_REGULAR = pygit2.enums.FileMode.BLOB


def build_synthetic_repo(path: Path, commits: int, files: int, seed: int = 0) -> Path:
    """Return ``path``, a repository of ``commits`` commits over about ``files`` files, built if needed."""
    path = Path(path)
    params = {"version": BUILDER_VERSION, "commits": commits, "files": files, "seed": seed}
    marker = path / ".git" / "synthetic.json"
    if marker.is_file() and json.loads(marker.read_text()) == params:
        return path
    if path.exists():
        shutil.rmtree(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{path.name}-", dir=path.parent))
    try:
        _History(pygit2.init_repository(str(scratch), initial_head="main"), seed).build(commits, files)
        if shutil.which("git"):  # pack it, as a real clone is: reads then resolve deltas, as they would
            subprocess.run(["git", "-C", str(scratch), "repack", "-adq"], check=True)
        (scratch / ".git" / "synthetic.json").write_text(json.dumps(params))
        scratch.rename(path)
    finally:
        if scratch.exists():
            shutil.rmtree(scratch, ignore_errors=True)
    return path


class _History:
    """The state of the synthetic project while its history is written, one commit at a time."""

    def __init__(self, repo: pygit2.Repository, seed: int) -> None:
        self.repo = repo
        self.rng = random.Random(seed)
        self.words = _make_words(self.rng, 2500)
        self.index = pygit2.Index()
        self.contents: dict[str, list[str]] = {}
        self.parents: list[pygit2.Oid] = []
        self.time = EPOCH
        self.serial = 0

    def build(self, commits: int, files: int) -> None:
        """Write the first commit with ``files`` files, then ``commits - 1`` small changes."""
        for _ in range(files):
            self._put(self._new_path(), self._new_body())
        self._commit("Initial import of the project", _HUMANS[0])
        for _ in range(commits - 1):
            message, author = self._change()
            self._commit(message, author)

    def _change(self) -> tuple[str, tuple[str, str]]:
        """Apply one random change to the files; return its commit message and author."""
        roll = self.rng.random()
        author = self.rng.choice(_HUMANS)
        if roll < 0.03:
            self._put("docs/changelog.md", self._prose(self.rng.randint(3, 12)))
            return "docs: update the changelog", author
        if roll < 0.05:
            self._put("requirements.txt", f"numpy=={self.rng.randint(1, 2)}.{self.rng.randint(0, 30)}\n")
            return "Bump numpy in requirements", _BOT
        if roll < 0.12:
            path = self._new_path()
            self._put(path, self._new_body())
            return f"feat: add {Path(path).stem.replace('_', ' ')} module (#{self.rng.randint(1, 999)})", author
        if roll < 0.16 and len(self.contents) > 10:
            path = self._existing_path()
            self.index.remove(path)
            del self.contents[path]
            return f"Remove unused {Path(path).stem} module", author
        if roll < 0.20:
            old = self._existing_path()
            lines = self.contents.pop(old)
            self.index.remove(old)
            new = str(Path(old).parent / f"{self.rng.choice(self.words)}_{self._next_serial()}.py")
            self._put(new, "".join(lines))
            return f"refactor: move {Path(old).stem} to {Path(new).stem}", author
        return self._edit(author)

    def _edit(self, author: tuple[str, str]) -> tuple[str, tuple[str, str]]:
        """Edit one to three existing files; return a message naming what changed."""
        touched = [self._existing_path() for _ in range(self.rng.choice((1, 1, 1, 2, 2, 3)))]
        for path in dict.fromkeys(touched):
            lines = self.contents[path]
            for _ in range(self.rng.randint(1, 4)):
                lines.insert(self.rng.randrange(len(lines) + 1), self._line())
            self._put(path, "".join(lines))
        verb = self.rng.choice(("Fix", "Handle", "Speed up", "Validate", "fix:", "Support"))
        a, b = self.rng.choice(self.words), self.rng.choice(self.words)
        paragraphs = [f"{verb} {a} {b} in {Path(touched[0]).stem}"]
        if self.rng.random() < 0.4:
            paragraphs += [f"The {a} was wrong when {b} was empty.", f"Fixes #{self.rng.randint(1, 999)}"]
        if self.rng.random() < 0.2:
            paragraphs.append(f"Signed-off-by: {author[0]} <{author[1]}>")
        return "\n\n".join(paragraphs) + "\n", author

    def _commit(self, message: str, who: tuple[str, str]) -> None:
        self.time += self.rng.randint(60, 7200)
        signature = pygit2.Signature(who[0], who[1], self.time, 0)
        tree = self.index.write_tree(self.repo)
        commit = self.repo.create_commit("refs/heads/main", signature, signature, message, tree, self.parents)
        self.parents = [commit]

    def _put(self, path: str, text: str) -> None:
        self.contents[path] = text.splitlines(keepends=True)
        self.index.add(pygit2.IndexEntry(path, self.repo.create_blob(text.encode()), _REGULAR))

    def _new_path(self) -> str:
        n = self._next_serial()
        return f"src/{self.words[n // 400 % 60]}/{self.words[60 + n // 20 % 400]}/{self.rng.choice(self.words)}_{n}.py"

    def _existing_path(self) -> str:
        keys = list(self.contents)  # insertion order: deterministic for a seed
        return keys[self.rng.randrange(len(keys))]

    def _next_serial(self) -> int:
        self.serial += 1
        return self.serial - 1

    def _new_body(self) -> str:
        return "".join(self._line() for _ in range(self.rng.randint(40, 120)))

    def _prose(self, count: int) -> str:
        return "".join(f"- {' '.join(self.rng.sample(self.words, 6))}\n" for _ in range(count))

    def _line(self) -> str:
        """Return one line of pseudo-Python."""
        rng, words = self.rng, self.words
        a, b, c = rng.choice(words), rng.choice(words), rng.choice(words)
        shapes = (
            f"def {a}_{b}(self, {c}):\n",
            f"    {a} = self.{b}{c.capitalize()}({c}, limit={rng.randint(0, 999)})\n",
            f"    return {a}.{b}_{c}()\n",
            f"class {a.capitalize()}{b.capitalize()}Error(Exception):\n",
            f"    # {a} the {b} when {c} is missing\n",
            f"    if {a} is not None and {b} > {c}:\n",
        )
        return rng.choice(shapes)


def _make_words(rng: random.Random, count: int) -> list[str]:
    """Return ``count`` distinct pseudo-words of two or three syllables, sorted."""
    words: set[str] = set()
    while len(words) < count:
        words.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.choice((2, 3)))))
    return sorted(words)
