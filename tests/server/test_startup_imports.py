"""What starting a ``dod-*`` command loads: nothing its options have not asked for.

``--help`` of every command costs a fraction of a second (``python -m bench.startup``
measures it) because importing a console entry point loads no database library, no web
server and no ICU: they load when a command uses them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib

import pytest

from ..helpers import REPO
from ..limits import process_limit

HEAVY = ("sqlalchemy", "alembic", "psycopg", "hypercorn", "starlette", "icu")
"""Libraries no console entry point may import: the store and its migrations, the web
face, and ICU (name lookalikes), each loaded by what uses it."""

SCRIPTS = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]


def _loaded_by(target: str) -> list[str]:
    """The heavy libraries in ``sys.modules`` once ``module:function`` is imported, in a
    fresh interpreter."""
    module, _, function = target.partition(":")
    code = (
        "import json, sys\n"
        f"from {module} import {function}\n"
        f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r})))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=process_limit(),
        check=True,
        cwd=REPO,
    )
    loaded: list[str] = json.loads(result.stdout)
    return loaded


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_a_console_entry_point_imports_no_heavy_library(script: str) -> None:
    assert _loaded_by(SCRIPTS[script]) == [], f"{script} ({SCRIPTS[script]})"


def test_the_check_sees_a_heavy_import() -> None:
    # The check itself can fail: a module that does load the store is caught.
    assert _loaded_by("records.store:Store") == ["alembic", "sqlalchemy"]
