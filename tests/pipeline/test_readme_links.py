"""README works from a fresh clone: every relative link and image resolves to a file or folder
inside the repository, and every repository path its commands use exists."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
README = (ROOT / "README.md").read_text()
LINKS = re.findall(r"!?\[[^\]]*\]\(([^)\s]+)\)", README)
CODE = (
    "\n".join(re.findall(r"```(?:sh|bash)?\n(.*?)```", README, flags=re.S))
    + "\n"
    + " ".join(re.findall(r"`([^`\n]+)`", README))
)
TRACKED = set(subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split())
"""Files in the repository: what a fresh clone has (build output and data do not count)."""


def _in_clone(path: str) -> bool:
    """Whether ``path`` (relative to the root) is a tracked file or a folder holding one."""
    clean = path.strip("/").removeprefix("./")
    return clean in TRACKED or any(f.startswith(clean + "/") for f in TRACKED)


RELATIVE = [link.split("#", 1)[0] for link in LINKS if not re.match(r"[a-z]+:|#", link)]


@pytest.mark.parametrize("link", RELATIVE)
def test_relative_links_resolve_inside_the_repository(link: str) -> None:
    target = (ROOT / link).resolve()
    assert target.is_relative_to(ROOT.resolve()), f"README links outside the repository: {link}"
    assert _in_clone(str(target.relative_to(ROOT.resolve()))), f"README links to a missing file: {link}"


TOP = {name.split("/", 1)[0] for name in TRACKED}
PATHS = sorted(
    {
        token.rstrip(".,;:")
        for token in re.findall(r"[\w.-]+/[\w./-]*", CODE)
        if token.split("/", 1)[0] in TOP - {"data"} and "*" not in token and "<" not in token
    }
)


def test_the_readme_names_repository_paths() -> None:
    assert "tests/importers/fixtures/njupt-excerpt" in PATHS


@pytest.mark.parametrize("path", PATHS)
def test_paths_in_commands_exist_in_a_clone(path: str) -> None:
    assert _in_clone(path), f"README uses {path}, which a fresh clone does not have"


def test_commands_use_no_path_outside_the_repository() -> None:
    outside = sorted(set(re.findall(r"\.\./[\w./-]+", CODE)))
    assert not outside, f"README commands use paths outside a clone: {outside}"
