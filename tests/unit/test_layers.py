"""The house's layering, measured from the code's own imports (every `import`, lazy ones included).

- `verifiers/` and `episodes/` import nothing of `factory/` (a benchmark bundle ships them alone), and
  `verifiers/` nothing of `episodes/`;
- no import cycle between modules;
- rooms are layered: a room imports only rooms beneath it (the list below, top to bottom);
- stage two reaches stage one (`prove/`, `verify/`) only through its hand-over API (`tasks/handover.py`);
- the graph files only wire: nothing but the graph's builder and its runner, nodes taken from `nodes`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# top to bottom; rooms on one line are peers and import neither each other's upward rooms nor each other
LAYERS: list[tuple[str, ...]] = [
    ("__main__",),
    ("cli",),
    ("publish_commands",),  # the command line's bundle, export and review commands
    ("adversarial_commands",),  # the command line's fault-injection and red-team commands
    ("display",),
    ("bench",),
    ("export",),  # the world in other harnesses' formats: Echoverse, Harbor, Hugging Face datasets
    # benchmark bundles: a world with its tasks, the episode server and the grader, checksummed; the review
    # site: a world read, photographed and rendered as static HTML
    ("bundle", "review"),
    ("mutate", "redteam"),
    ("rollouts",),  # rollout triage: classes failed episodes, hands defects to the repairers
    ("agents",),  # reference agents (the oracle, the flawed agent)
    ("tasks",),
    ("prove",),
    ("verify",),
    ("claims",),
    ("world",),  # assembly: seed → a built world directory
    ("author",),  # a free-form seed → a YAML seed, drafted by a model (the only room before the seed file)
    ("compiler",),
    ("builder",),
    ("seed",),
    ("predict",),
    ("runtime",),
    ("llm",),  # the one seam to an OpenAI-compatible endpoint (the agents' model policies use it)
    ("world.history", "checkpoint"),
    ("world.layout",),
    ("world.manifest", "progress"),
    ("spec", "expr"),
    ("errors", "factory", "schemas"),
    ("episodes",),  # the episode server: standalone, beneath every room of the factory
    ("verifiers",),
]
HANDOVER = "factory.tasks.handover"  # the one door from stage two to stage one


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for top in ("factory", "verifiers", "episodes"):
        for path in sorted((REPO / top).rglob("*.py")):
            rel = path.relative_to(REPO).with_suffix("")
            parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """The project modules `name` imports (a name imported from a package counts as its module if it is one)."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                out.add(full if full in MODULES else base)
    return {m for m in out if m in MODULES}


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def room(module: str) -> str:
    parts = module.split(".")
    if parts[0] in ("verifiers", "episodes"):
        return parts[0]
    if len(parts) == 1:
        return "factory"
    if parts[1] == "world" and len(parts) > 2 and parts[2] in ("layout", "manifest", "history"):
        return f"world.{parts[2]}"
    return parts[1]


LEVEL = {r: i for i, rooms in enumerate(LAYERS) for r in rooms}


def test_every_room_has_a_layer() -> None:
    missing = sorted({room(m) for m in MODULES} - LEVEL.keys())
    assert missing == [], f"rooms with no place in LAYERS: {missing}"


def test_verifiers_import_nothing_of_the_factory() -> None:
    crossing = sorted(f"{a} -> {b}" for a, targets in GRAPH.items() if a.startswith("verifiers")
                      for b in targets if b.startswith(("factory", "episodes")))
    assert crossing == []


def test_the_episode_server_imports_nothing_of_the_factory() -> None:
    crossing = sorted(f"{a} -> {b}" for a, targets in GRAPH.items() if a.startswith("episodes")
                      for b in targets if b.startswith("factory"))
    assert crossing == []


def test_no_import_cycles() -> None:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(GRAPH[v]):
            if w == v:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    # a package's __init__ re-exporting its own modules is not a cycle of the house
    cycles = [c for c in cycles if not all(m.startswith(c[0] + ".") or m == c[0] for m in c)]
    assert cycles == []


def test_rooms_import_only_rooms_beneath_them() -> None:
    upward = sorted(f"{a} ({room(a)}) -> {b} ({room(b)})" for a, targets in GRAPH.items() for b in targets
                    if room(a) != room(b) and LEVEL[room(b)] <= LEVEL[room(a)])
    assert upward == []


def test_stage_two_reaches_stage_one_only_through_its_handover() -> None:
    crossing = sorted(f"{a} -> {b}" for a, targets in GRAPH.items() if a.startswith("factory.tasks.") and a != HANDOVER
                      for b in targets if room(b) in ("prove", "verify"))
    assert crossing == []


@pytest.mark.parametrize("module", ["factory.prove.graph", "factory.tasks.graph"])
def test_graph_files_only_wire(module: str) -> None:
    tree = ast.parse(MODULES[module].read_text())
    defined = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))]
    assert all(isinstance(n, ast.FunctionDef) and (n.name.endswith("_graph") or n.name.startswith("run_"))
               for n in defined), [n.name for n in defined]
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        if isinstance(call.func, ast.Attribute) and call.func.attr == "add_node":
            target = call.args[1]
            assert isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "nodes", \
                ast.unparse(call)
