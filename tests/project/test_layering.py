"""The layers keep apart (DESIGN.md, "Where things live"): the HTTP interface (`payments/api/`,
`wallets/api/`) sits on top; domain modules and the wire layer (`payments/wire/`) never import it;
no import cycle mixes the two, and what cycles remain are small and inside one app.

Read from the source with `ast`, so imports inside functions count too (a lazy import still ties
the modules together); imports under `if TYPE_CHECKING:` do not (they never run).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APPS = ("payments", "wallets")
API_PACKAGES = ("payments.api", "wallets.api")
MAX_CYCLE = 10


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES: dict[str, Path] = {
    _module_name(path): path
    for app in APPS
    for path in sorted((ROOT / app).rglob("*.py"))
    if "migrations" not in path.parts
}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_nodes(node: ast.AST) -> Iterator[ast.AST]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child):
            for other in child.orelse:
                yield other
                yield from _runtime_nodes(other)
            continue
        yield child
        yield from _runtime_nodes(child)


def _imported_names(module: str, tree: ast.AST) -> Iterator[str]:
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    for node in _runtime_nodes(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def _known(name: str) -> str | None:
    """The payments/wallets module an imported name lives in (`payments.api.x.render` → `payments.api.x`)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str) -> set[str]:
    tree = ast.parse(MODULES[module].read_text(), filename=str(MODULES[module]))
    found = {_known(name) for name in _imported_names(module, tree)}
    return {name for name in found if name and name != module}


GRAPH: dict[str, set[str]] = {module: _imports(module) for module in MODULES}


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _is_api(module: str) -> bool:
    return any(_in(module, package) for package in API_PACKAGES)


def _is_wiring(module: str) -> bool:
    """URL and app-config modules: they plug the API into the project."""
    return module.rpartition(".")[2] in ("urls", "apps")


def _cycles() -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in GRAPH:
        if root in index:
            continue
        work = [(root, iter(sorted(GRAPH[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(GRAPH[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def _report(pairs: dict[str, list[str]]) -> str:
    return "\n".join(f"  {module} imports {', '.join(names)}" for module, names in sorted(pairs.items()))


def test_only_the_interface_and_its_wiring_import_the_api():
    offenders = {
        module: sorted(name for name in names if _is_api(name))
        for module, names in GRAPH.items()
        if not _is_api(module) and not _is_wiring(module)
    }
    offenders = {module: names for module, names in offenders.items() if names}
    assert not offenders, "outside payments/api and wallets/api (use payments.wire):\n" + _report(offenders)


def test_the_wire_layer_imports_no_api():
    offenders = {
        module: sorted(name for name in names if _is_api(name))
        for module, names in GRAPH.items()
        if _in(module, "payments.wire")
    }
    offenders = {module: names for module, names in offenders.items() if names}
    assert not offenders, "payments/wire must not import an api package:\n" + _report(offenders)


def test_no_import_cycle_crosses_domain_and_api():
    mixed = [cycle for cycle in _cycles() if any(map(_is_api, cycle)) and not all(map(_is_api, cycle))]
    assert not mixed, "import cycles mixing api and domain modules:\n" + "\n".join(
        f"  {len(cycle)}: {', '.join(cycle)}" for cycle in mixed
    )


def test_remaining_cycles_are_small_and_inside_one_app():
    bad = [
        cycle
        for cycle in _cycles()
        if len(cycle) >= MAX_CYCLE or len({module.partition(".")[0] for module in cycle}) > 1
    ]
    assert not bad, f"import cycles spanning apps or of {MAX_CYCLE}+ modules:\n" + "\n".join(
        f"  {len(cycle)}: {', '.join(cycle)}" for cycle in bad
    )
