"""Our Textual subclasses must not reuse a name Textual's own classes already use.

An attribute our ``App`` or widget sets on ``self`` under a name Textual uses
(``_log`` was one: ``App._log`` is Textual's logging method) silently replaces
Textual's, and breaks whatever in Textual calls it. The check reads the names each
class of ours assigns on ``self`` from its source, and looks each one up on the
Textual class it stands on: the class itself (methods, properties, class
attributes, annotations) and a fresh instance (attributes set in ``__init__``).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import textwrap
from functools import cache

import pytest
from textual.app import App
from textual.dom import DOMNode

from dungeon_of_doom.clients import terminal


def assigned_on_self(cls: type) -> set[str]:
    """The attribute names ``cls``'s own methods assign on ``self``."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    names: set[str] = set()
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            targets = [node.optional_vars]
        for target in targets:
            for part in ast.walk(target):
                if (
                    isinstance(part, ast.Attribute)
                    and isinstance(part.value, ast.Name)
                    and part.value.id == "self"
                ):
                    names.add(part.attr)
    return names


def textual_base(cls: type) -> type:
    """The nearest class in ``cls``'s MRO that is Textual's own."""
    return next(base for base in cls.__mro__ if base.__module__.startswith("textual."))


@cache
def textual_names(base: type) -> frozenset[str]:
    """Every attribute name ``base`` defines, on the class or on a fresh instance."""
    names = set(dir(base))
    for klass in base.__mro__:
        names.update(getattr(klass, "__annotations__", {}))
    names.update(vars(base()))
    return frozenset(names)


def shadowed(cls: type) -> set[str]:
    """The names ``cls`` assigns on ``self`` that its Textual base already defines."""
    return assigned_on_self(cls) & textual_names(textual_base(cls))


def our_textual_classes() -> list[type]:
    found: dict[str, type] = {}
    for module_info in pkgutil.walk_packages(terminal.__path__, terminal.__name__ + "."):
        if module_info.name.endswith("__main__"):
            continue
        module = importlib.import_module(module_info.name)
        for cls in vars(module).values():
            if (
                inspect.isclass(cls)
                and issubclass(cls, DOMNode)
                and cls.__module__ == module.__name__
            ):
                found[cls.__qualname__] = cls
    return sorted(found.values(), key=lambda cls: cls.__qualname__)


def test_the_terminal_client_has_textual_classes_to_check() -> None:
    names = {cls.__name__ for cls in our_textual_classes()}
    assert {"PlayApp", "MapView"} <= names


@pytest.mark.parametrize("cls", our_textual_classes(), ids=lambda cls: cls.__qualname__)
def test_no_attribute_of_ours_shadows_textuals(cls: type) -> None:
    assert shadowed(cls) == set()


def test_the_check_catches_a_shadowing_attribute() -> None:
    class Shadowing(App[None]):
        def __init__(self) -> None:
            super().__init__()
            # Textual's App._log is its logging method: the shadowing the check must catch.
            self._log = "mine"  # type: ignore[method-assign, assignment]
            self._fine = 1

    assert shadowed(Shadowing) == {"_log"}
