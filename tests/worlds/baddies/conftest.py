"""Fixtures for the baddies tests: C programs built with the machine's compiler.

Tests that use them are skipped when no C compiler is installed, or when the C
library is not glibc (whose ``rand()`` they compare with).
"""

from __future__ import annotations

import platform
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="session")
def compile_c(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, str], Path]:
    """Compile C source text into an executable and return its path."""
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        pytest.skip("no C compiler on this machine")
    if platform.libc_ver()[0] != "glibc":
        pytest.skip("the C library is not glibc")
    folder = tmp_path_factory.mktemp("c")

    def build(name: str, source: str) -> Path:
        source_path = folder / f"{name}.c"
        source_path.write_text(source)
        binary = folder / name
        subprocess.run(
            [compiler, "-O2", "-o", str(binary), str(source_path)], check=True, capture_output=True
        )
        return binary

    return build


@pytest.fixture(scope="session")
def reference_game(compile_c: Callable[[str, str], Path]) -> Path:
    """The original console game rebuilt in C (``reference.c``), on glibc's ``rand()``."""
    return compile_c("reference", (HERE / "reference.c").read_text())
