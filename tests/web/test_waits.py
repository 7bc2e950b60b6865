"""The browser tests' waits hold on a loaded machine (issue 28 item 15): an element the
page draws late is waited for, not read while it does not exist."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .conftest import wait_for_text

LATE = """<body><script>
function drawLate() {
  setTimeout(() => {
    const shown = document.createElement("div");
    shown.id = "late";
    shown.textContent = "WIN step 3";
    document.body.append(shown);
  }, 300);
}
</script></body>"""
"""A page that draws its element a while after ``drawLate()``, as a busy page does. The
test calls it once it has seen the element absent: a timer started with the page ran out
before that look on a loaded machine."""


@pytest.mark.parametrize("text", ["step 3", re.compile(r"^WIN")])
def test_a_wait_outlasts_an_element_that_does_not_exist_yet(
    page: Any, text: str | re.Pattern[str]
) -> None:
    page.set_content(LATE)
    assert page.locator("#late").count() == 0
    page.evaluate("drawLate()")
    wait_for_text(page, "#late", text)
    assert page.inner_text("#late") == "WIN step 3"
