"""The Python layout stays as the README's Layout section draws it: contract (shared
formats) <- easan (run folders -> metrics -> report) <- easlab (sweeps, labs, benches),
no import cycle, nothing under analysis/ importing the tests, no path hacks."""
import ast
import glob
import os
import subprocess

import pytest

from contract.paths import TOP

PACKAGES = ("contract", "easan", "easlab")
# Who may import whom: a package imports itself and the ones listed.
ALLOWED = {"contract": set(), "easan": {"contract"}, "easlab": {"contract", "easan"}}
SCRIPTS = ("analysis/report", "analysis/sweep")


def modules():
    """{module name: path} of analysis/'s packages and the two scripts."""
    out = {}
    for pkg in PACKAGES:
        for path in glob.glob(os.path.join(TOP, "analysis", pkg, "*.py")):
            name = os.path.basename(path)[:-3]
            out[pkg if name == "__init__" else f"{pkg}.{name}"] = path
    for script in SCRIPTS:
        out[script] = os.path.join(TOP, script)
    return out


def imports(name, path, mods):
    """The project modules a file imports, at any depth (lazy imports count): for
    `from P import x`, the module P.x when there is one, else P."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    pkg = name.split(".")[0] if name not in SCRIPTS else None
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = f"{pkg}{'.' + node.module if node.module else ''}" if node.level else node.module
            found |= {f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names}
    return found


def graph():
    mods = modules()
    return {name: {m for m in imports(name, path, mods) if m in mods and m != name}
            for name, path in mods.items()}


def test_no_import_cycle():
    g = graph()
    state = {}

    def visit(node, stack):
        state[node] = "open"
        for nxt in sorted(g[node]):
            if state.get(nxt) == "open":
                pytest.fail("import cycle: " + " -> ".join(stack[stack.index(nxt):] + [nxt]))
            if nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = "done"
    for node in sorted(g):
        if node not in state:
            visit(node, [node])


@pytest.mark.parametrize("pkg", PACKAGES)
def test_packages_depend_downwards_only(pkg):
    g = graph()
    for name, deps in g.items():
        if name.split(".")[0] != pkg:
            continue
        wrong = {d for d in deps if d.split(".")[0] not in ALLOWED[pkg] | {pkg}}
        assert not wrong, f"{name} imports {sorted(wrong)}"


def test_tooling_does_not_import_tests_or_hack_the_path():
    for name, path in modules().items():
        with open(path, encoding="utf-8") as f:
            text = f.read()
        found = imports(name, path, {})
        assert not {"conftest", "inprocess"} & found, f"{name} imports a test helper"
        assert "sys.path.insert" not in text and "spec_from_file_location" not in text, name


def test_no_module_names_differ_by_one_letter():
    names = sorted({os.path.basename(p)[:-3] for p in modules().values() if p.endswith(".py")})
    close = [(a, b) for a in names for b in names if a < b and (a + "s" == b or b + "s" == a)]
    assert not close, close


def readme_layout():
    """The paths the README's Layout section lists (first word of each line of its
    indented block)."""
    with open(os.path.join(TOP, "README.md"), encoding="utf-8") as f:
        text = f.read()
    section = text.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    return [line.split()[0] for line in section.splitlines() if line.startswith("    ") and line.strip()]


def tracked_folders():
    """Top-level folders, and those one level into guest/, analysis/ and tests/, of the
    files git tracks."""
    files = subprocess.run(["git", "ls-files"], cwd=TOP, capture_output=True, text=True,
                           check=True).stdout.split()
    out = set()
    for f in files:
        parts = f.split("/")
        if len(parts) > 1:
            out.add(parts[0] + "/")
        if len(parts) > 2 and parts[0] in ("guest", "analysis", "tests"):
            out.add(f"{parts[0]}/{parts[1]}/")
    return out


def test_readme_layout_matches_the_tree():
    listed = readme_layout()
    missing = [p for p in listed if not os.path.exists(os.path.join(TOP, p))]
    assert not missing, f"the README's Layout lists paths that do not exist: {missing}"
    # A folder is covered by its own line or by a line for a folder inside it.
    unlisted = sorted(d for d in tracked_folders() if not any(p.startswith(d) for p in listed))
    assert not unlisted, f"folders missing from the README's Layout: {unlisted}"
