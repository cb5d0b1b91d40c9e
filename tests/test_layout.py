"""The shape of the package, read from its syntax trees: one job per module (≤ 500 lines, no
function over 80), imports at the top of modules, no import circle, no private name imported
across modules, and each module importing only from its own floor or below."""
from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "tracedb"
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 80
MAX_API_LINES = 350

# the floors, lowest first: a module imports only from its own floor or below
FLOORS = [
    {"tracedb", "tracedb.errors", "tracedb.engine", "tracedb.resources", "tracedb.timeconv", "tracedb.progress",
     "tracedb.lazy"},
    {"tracedb.store", "tracedb.render"},
    {"tracedb.ingestion", "tracedb.query", "tracedb.runs"},
    {"tracedb.compare", "tracedb.findings", "tracedb.export", "tracedb.spark"},
    {"tracedb.api"},
    {"tracedb.cli", "tracedb.docs"},
]


def _modules() -> dict[str, tuple[Path, ast.Module]]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = (path, ast.parse(path.read_text()))
    return out


MODULES = _modules()


def _is_package(name: str) -> bool:
    return MODULES[name][0].name == "__init__.py"


def _resolve(importer: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = importer.split(".")
    base = base if _is_package(importer) else base[:-1]
    base = base[:len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(name: str) -> list[tuple[str, str | None, int]]:
    """(imported tracedb module, imported name or None, line) of every import statement."""
    out = []
    for node in ast.walk(MODULES[name][1]):
        if isinstance(node, ast.Import):
            out += [(a.name, None, node.lineno) for a in node.names if a.name.split(".")[0] == "tracedb"]
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(name, node)
            if target.split(".")[0] != "tracedb":
                continue
            for a in node.names:
                sub = f"{target}.{a.name}"
                out.append((sub, None, node.lineno) if sub in MODULES else (target, a.name, node.lineno))
    return out


def _floor(module: str) -> int:
    for i, floor in reversed(list(enumerate(FLOORS))):
        if any(module == room or module.startswith(room + ".") for room in floor if room != "tracedb"):
            return i
    assert module == "tracedb" or module in FLOORS[0], f"{module} is on no floor: add it to FLOORS"
    return 0


def _room(module: str) -> str:
    return ".".join(module.split(".")[:2])


def test_no_module_over_500_lines():
    long = {n: len(p.read_text().splitlines()) for n, (p, _) in MODULES.items()}
    assert {n: k for n, k in long.items() if k > MAX_MODULE_LINES} == {}
    assert long["tracedb.api"] <= MAX_API_LINES


def test_no_function_over_80_lines():
    long = [f"{n}:{f.lineno} {f.name} ({f.end_lineno - f.lineno + 1})" for n, (_, tree) in MODULES.items()
            for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
            and f.end_lineno - f.lineno + 1 > MAX_FUNCTION_LINES]
    assert long == []


def test_imports_at_the_top_of_modules():
    """Laziness, where start-up needs it, lives in one table (tracedb.lazy)."""
    inner = []
    for name, (_, tree) in MODULES.items():
        top = {id(n) for stmt in tree.body if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                    ast.ClassDef))
               for n in ast.walk(stmt)}
        inner += [f"{name}:{n.lineno}" for n in ast.walk(tree)
                  if isinstance(n, (ast.Import, ast.ImportFrom)) and id(n) not in top]
    assert inner == []


def test_no_private_name_imported_across_modules():
    private = [f"{name}:{line} {target}.{what}" for name in MODULES for target, what, line in _imports(name)
               if what is not None and what.startswith("_") and not what.startswith("__")]
    assert private == []


def test_no_import_circle():
    graph = {name: {t for t, _, _ in _imports(name) if t in MODULES and t != name} for name in MODULES}
    # a package imports its own modules to re-export them; the modules may import each other
    graph = {n: {t for t in ts if not (_is_package(n) and t.startswith(n + "."))} for n, ts in graph.items()}
    seen, stack, cycles = set(), [], []

    def visit(n):
        if n in stack:
            cycles.append(stack[stack.index(n):] + [n])
            return
        if n in seen:
            return
        seen.add(n)
        stack.append(n)
        for t in sorted(graph[n]):
            visit(t)
        stack.pop()

    for n in sorted(graph):
        visit(n)
    assert cycles == []


def test_each_module_imports_only_from_its_floor_or_below():
    up = []
    for name in MODULES:
        for target, _, line in _imports(name):
            if target != "tracedb" and _floor(target) > _floor(name):
                up.append(f"{name}:{line} imports {target} (floor {_floor(target)} above {_floor(name)})")
    assert up == []
