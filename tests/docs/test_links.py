"""Every link between the README and ``docs/`` leads somewhere: the file, and the heading
an anchor names (``#turns-in-2015`` named none)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ..helpers import REPO

DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")
FENCED = re.compile(r"^```.*?^```", re.M | re.S)


def anchors(document: Path) -> set[str]:
    """The anchors of ``document``'s headings, as GitHub makes them."""
    found: set[str] = set()
    for line in FENCED.sub("", document.read_text()).splitlines():
        if heading := re.match(r"#{1,6} (.*)", line):
            slug = re.sub(r"[^\w\- ]", "", heading[1].strip().lower()).replace(" ", "-")
            found.add(slug)
    return found


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(REPO)))
def test_every_link_leads_somewhere(document: Path) -> None:
    broken = []
    for match in LINK.finditer(FENCED.sub("", document.read_text())):
        target = match["target"]
        if re.match(r"[a-z]+:", target):  # http:, mailto: ...
            continue
        path, _, anchor = target.partition("#")
        linked = (document.parent / path).resolve() if path else document
        headed = not anchor or linked.suffix != ".md" or anchor in anchors(linked)
        if not linked.exists() or not headed:
            broken.append(target)
    assert not broken, f"links that lead nowhere: {broken}"
