"""No import cycle inside ``flowpath/``.

The graph is built from the source with `ast` (nothing is imported): one node per module, one
edge per import of another flowpath module, and `networkx.simple_cycles` must find none.

Imports inside functions are counted as well. flowpath keeps heavy and optional packages (torch,
transformers, smolagents, pycocotools...) lazy inside functions, but those are not flowpath
modules and never make an edge. A lazy import *between flowpath modules* that only dodges an
import-time error is still a cycle in the design, and the two cycles found in review
(``graph.core`` -> ``mermaid``, ``transcribe.source`` -> ``evaluation``) both hid inside
functions. A registry's ``"flowpath.pkg.mod:Class"`` string (loaded with `importlib`) is an
import too. Excluded: imports under ``if TYPE_CHECKING:`` (never run). An import of
``flowpath.pkg.mod`` is an edge to that module, not to ``pkg/__init__``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import networkx as nx

from tests.markers import REPO_ROOT

PACKAGE = REPO_ROOT / "flowpath"
#: a module path given to importlib by name, as the lazy registries hold them ("pkg.mod:Class")
_BY_NAME = re.compile(r"([A-Za-z_][\w.]*):\w+")


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement in ``body``, at any depth, except under ``if TYPE_CHECKING:``."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _imports(node.orelse)
        else:
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                for child in getattr(node, field, None) or []:
                    yield from _imports(child.body if isinstance(child, (ast.ExceptHandler, ast.match_case))
                                        else [child])


def _resolve(name: str, modules: set[str]) -> str | None:
    """The most specific known module ``name`` refers to (``a.b.c`` may be attribute ``c`` of
    module ``a.b``)."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def import_graph(package: Path = PACKAGE) -> nx.DiGraph:
    """Module -> module edges of the imports between the modules of ``package``."""
    root = package.parent
    files = {_module_name(p, root): p for p in package.rglob("*.py")}
    modules = set(files)
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for mod, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in _imports(tree.body):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [f"{base}.{alias.name}" for alias in node.names]
            for target in targets:
                dep = _resolve(target, modules)
                if dep is not None and dep != mod:
                    graph.add_edge(mod, dep)
        for const in ast.walk(tree):
            if isinstance(const, ast.Constant) and isinstance(const.value, str):
                named = _BY_NAME.fullmatch(const.value)
                dep = named.group(1) if named and named.group(1) in modules else None
                if dep is not None and dep != mod:
                    graph.add_edge(mod, dep)
    return graph


def test_a_cycle_through_a_lazy_import_is_found(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from typing import TYPE_CHECKING\nfrom pkg.sub import b\n"
                              "if TYPE_CHECKING:\n    from pkg import c\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from ..a import g\n")
    (pkg / "c.py").write_text("from pkg.a import x\n")
    (pkg / "d.py").write_text("REGISTRY = {'e': 'pkg.e:E'}\n")
    (pkg / "e.py").write_text("def f():\n    import pkg.d\n")
    graph = import_graph(pkg)
    assert graph.has_edge("pkg.sub.b", "pkg.a")  # relative, inside a function
    assert not graph.has_edge("pkg.a", "pkg.c")  # TYPE_CHECKING only
    assert graph.has_edge("pkg.d", "pkg.e")  # a registry entry loaded by name
    assert sorted(map(sorted, nx.simple_cycles(graph))) == [["pkg.a", "pkg.sub.b"], ["pkg.d", "pkg.e"]]


def test_the_import_graph_sees_the_package():
    graph = import_graph()
    # sanity: the walk found the modules and real edges (a broken walk would pass vacuously)
    assert {"flowpath.metrics.attribution", "flowpath.evaluation.attribution"} <= set(graph)
    assert graph.has_edge("flowpath.evaluation.attribution", "flowpath.metrics.attribution")


def test_no_import_cycle_in_flowpath():
    cycles = sorted(" -> ".join([*c, c[0]]) for c in nx.simple_cycles(import_graph()))
    assert not cycles, "import cycles in flowpath/:\n" + "\n".join(cycles)
