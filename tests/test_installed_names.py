"""What the project installs: one top-level name, ``dungeon_of_doom``, that no other
distribution's packages can collide with (a generic ``records`` or ``server`` would
break whichever of two installed distributions came second)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from .helpers import REPO

PACKAGES = sorted(path.name for path in (REPO / "dungeon_of_doom").iterdir() if path.is_symlink())
"""The checkout's folders that the project installs, each under ``dungeon_of_doom``."""
PIP_WHEEL = (sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet")
"""Builds the wheel with the setuptools installed here, so the test needs no network."""
LEFTOVERS = (".git", ".venv", "build", "*.egg-info", "__pycache__", ".*_cache", "replays")
"""What a checkout holds that is not its sources."""


def _python_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "*.py"], cwd=REPO, capture_output=True, text=True, check=True
    )
    return [
        REPO / name for name in listed.stdout.split() if not name.startswith("dungeon_of_doom/")
    ]


def _bare_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found += [
            f"{path.relative_to(REPO)}:{node.lineno}: {name}"
            for name in names
            if name.partition(".")[0] in PACKAGES
        ]
    return found


def test_the_installed_folders_are_the_ones_the_project_keeps() -> None:
    kept = ["arena", "bots", "clients", "commandline", "conformance", "mapgen", "maps"]
    kept += ["protocol", "records", "server", "worlds"]
    assert sorted(kept) == PACKAGES
    for name in PACKAGES:
        assert (REPO / "dungeon_of_doom" / name).resolve() == REPO / name


def test_no_code_imports_a_package_by_its_bare_folder_name() -> None:
    # A bare `import server` would load a second copy of every module it reaches
    # (from the checkout's root), and fails once the project is installed.
    found = [line for path in _python_files() for line in _bare_imports(path)]
    assert found == []


def test_the_wheel_installs_one_top_level_name(tmp_path: Path) -> None:
    # Built from a copy of the checkout: setuptools builds in the source tree, and a
    # build/ left there from before would put modules since removed into the wheel.
    source = tmp_path / "source"
    shutil.copytree(REPO, source, symlinks=True, ignore=shutil.ignore_patterns(*LEFTOVERS))
    subprocess.run(
        [*PIP_WHEEL, "--wheel-dir", str(tmp_path), str(source)],
        check=True,
        capture_output=True,
    )
    [wheel] = tmp_path.glob("dungeon_of_doom-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        top_level = archive.read(
            next(name for name in names if name.endswith(".dist-info/top_level.txt"))
        )
    roots = {name.partition("/")[0] for name in names}
    assert {root for root in roots if not root.endswith(".dist-info")} == {"dungeon_of_doom"}
    assert top_level.decode().split() == ["dungeon_of_doom"]
    for name in PACKAGES:
        assert f"dungeon_of_doom/{name}/__init__.py" in names
    assert "dungeon_of_doom/server/web/static/favicon.ico" in names
    assert "dungeon_of_doom/records/migrations/script.py.mako" in names
