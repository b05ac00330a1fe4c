#!/usr/bin/env python3
"""Check that src/ keeps cdc_kafka's layout rules (README: Layout).

The checker reads the source tree (src/, sql/) and the objects that `make`
built (src/*/*.o), and the dynamic symbol table of the postgres executable
of the PostgreSQL it builds against.  A module is X.c and X.h in one room;
it depends on another module when its files include that module's header or
its object uses a symbol that module's object defines.

Rules:
  a  src/ holds only the rooms src/common, src/plugin and src/worker, each
     flat (files directly in src/, other directories: violations).
  b  Project headers are included room-qualified ("plugin/relinfo.h"), never
     by bare name or path; files in common include only <system> headers and
     "common/<x>.h" of src/common (nothing of PostgreSQL); files in plugin
     include no "worker/..." header.
  c  No header in src/common has the name of one in PostgreSQL's
     $(pg_config --includedir-server)/common/ (both are "common/x.h").
  d  Modules depend downward only: common on common, plugin on plugin and
     common, worker on anything; and no cycle between modules.
  e  Objects in src/common call nothing the postgres executable defines.
  f  Every exported symbol starts with its module's name and "_", except
     the entry points: _PG_init, _PG_output_plugin_init, Pg_magic_func,
     pg_finfo_*, and the cdc_kafka_* functions sql/*.sql names as C
     functions or the sources name as a bgw_function_name.
  g  No exported symbol is also exported by the postgres executable (the
     server's definition would interpose on ours).
  h  One header per module: a module that exports more than entry points
     has a header named after it; a header declares (extern) only its own
     module's symbols; every exported symbol other than an entry point is
     used by another module (or, in common, by the unit tests).

Prints one line per violation, then "layout: N rules checked, M violations".
Exit status: 0 without violations, 1 with some, 2 when the check cannot run
(no objects: run make first).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOMS = ("common", "plugin", "worker")
RANK = {"common": 0, "plugin": 1, "worker": 2}
MAY_USE = {
    "common": "common",
    "plugin": "plugin and common",
    "worker": "any room",
}
RULES = {
    "a": "src/ holds only the rooms common, plugin, worker",
    "b": "room-qualified includes; common includes no PostgreSQL, plugin no worker",
    "c": "no src/common header shadows one of PostgreSQL's common/",
    "d": "modules depend downward only, without cycles",
    "e": "common calls nothing the postgres executable defines",
    "f": "exported names start with the module's name and _",
    "g": "no exported name is also exported by postgres",
    "h": "one header per module, declaring its own exports, each used elsewhere",
}
FIXED_ENTRY_POINTS = {"_PG_init", "_PG_output_plugin_init", "Pg_magic_func"}
INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^">]+)[">]', re.MULTILINE)
SQL_C_FUNCTION_RE = re.compile(r"\bAS\s+'[^']*'\s*,\s*'(\w+)'", re.IGNORECASE)
BGW_FUNCTION_RE = re.compile(r'bgw_function_name\b[^;]*?"(\w+)"')
COMMENT_RE = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)


class LayoutError(Exception):
    """The check cannot run (missing objects, tools or PostgreSQL)."""


class Module:
    """X.c and/or X.h in one room, with what its object exports and uses."""

    def __init__(self, room: str, name: str):
        self.room = room
        self.name = name
        self.exports: set[str] = set()
        self.undefined: set[str] = set()

    @property
    def key(self) -> str:
        return f"{self.room}/{self.name}"


class Checker:
    def __init__(self, root: Path, pg_config: str):
        self.root = root
        self.src = root / "src"
        self.pg_config = pg_config
        self.violations: list[str] = []
        self.modules: dict[str, Module] = {}
        # module -> module, for the direction of dependencies
        self.edges: dict[tuple[str, str], list[str]] = defaultdict(list)
        # code or header -> code or header, for cycles (see node())
        self.links: dict[tuple[str, str], list[str]] = defaultdict(list)
        self.includes: list[tuple[Path, str, str, str | None]] = []
        self.entry_points: set[str] = set()
        self.definer: dict[str, str] = {}
        self.pg_exports: set[str] = set()
        self.pg_include_dirs: list[Path] = []

    # ---- helpers ------------------------------------------------------

    def report(self, rule: str, message: str) -> None:
        self.violations.append(f"rule {rule}: {message} ({RULES[rule]})")

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def pg(self, option: str) -> str:
        try:
            out = subprocess.run(
                [self.pg_config, option], capture_output=True, text=True, check=True
            )
        except (OSError, subprocess.CalledProcessError) as err:
            raise LayoutError(f"cannot run {self.pg_config} {option}: {err}") from err
        return out.stdout.strip()

    @staticmethod
    def nm(*args: str) -> list[tuple[str, str]]:
        """(name, type) pairs of nm's POSIX output."""
        try:
            out = subprocess.run(
                ["nm", "-P", *args], capture_output=True, text=True, check=True
            )
        except (OSError, subprocess.CalledProcessError) as err:
            raise LayoutError(f"nm {' '.join(args)} failed: {err}") from err
        pairs = []
        for line in out.stdout.splitlines():
            fields = line.split()
            if len(fields) >= 2:
                pairs.append((fields[0].split("@")[0], fields[1]))
        return pairs

    def is_entry_point(self, symbol: str) -> bool:
        return (
            symbol in FIXED_ENTRY_POINTS
            or symbol.startswith("pg_finfo_")
            or symbol in self.entry_points
        )

    def sources(self) -> list[Path]:
        return sorted(p for room in ROOMS for p in (self.src / room).glob("*.[ch]"))

    def module_of(self, path: Path) -> str:
        return f"{path.parent.name}/{path.stem}"

    @staticmethod
    def node(path: Path) -> str:
        """A module's code (room/x: x.c, x.o) or its header (room/x.h).

        Cycles are looked for between these: an include depends on a
        header (its types, macros and declarations), a symbol on the code
        that defines it.  Code that includes a header of constants whose
        module calls back into that code is no cycle; code that calls code
        that calls it is one.
        """
        key = f"{path.parent.name}/{path.stem}"
        return key + ".h" if path.suffix == ".h" else key

    def add_edge(self, a: str, b: str, why: str) -> None:
        ma, mb = a.removesuffix(".h"), b.removesuffix(".h")
        if ma != mb and why not in self.edges[(ma, mb)]:
            self.edges[(ma, mb)].append(why)
        if a != b and why not in self.links[(a, b)]:
            self.links[(a, b)].append(why)

    # ---- loading ------------------------------------------------------

    def load(self) -> None:
        if not self.src.is_dir():
            raise LayoutError(f"no src/ directory in {self.root}")
        for path in self.sources():
            key = self.module_of(path)
            if key not in self.modules:
                self.modules[key] = Module(path.parent.name, path.stem)
        for module in self.modules.values():
            self.load_object(module)
        postgres = Path(self.pg("--bindir")) / "postgres"
        if not postgres.exists():
            raise LayoutError(f"no postgres executable at {postgres}")
        self.pg_exports = {n for n, _ in self.nm("-D", "--defined-only", str(postgres))}
        self.load_entry_points()
        self.load_edges()

    def load_object(self, module: Module) -> None:
        c_file = self.src / module.room / f"{module.name}.c"
        if not c_file.exists():
            return
        obj = c_file.with_suffix(".o")
        if not obj.exists():
            raise LayoutError(f"no object {self.rel(obj)}: run make first")
        if obj.stat().st_mtime < c_file.stat().st_mtime:
            raise LayoutError(f"{self.rel(obj)} is older than its source: run make")
        for name, _ in self.nm("-g", "--defined-only", str(obj)):
            module.exports.add(name)
            self.definer.setdefault(name, module.key)
        module.undefined = {n for n, _ in self.nm("-u", str(obj))}

    def load_entry_points(self) -> None:
        """cdc_kafka_* functions SQL or a background worker calls by name."""
        named: set[str] = set()
        for sql in sorted((self.root / "sql").glob("*.sql")):
            named |= set(SQL_C_FUNCTION_RE.findall(sql.read_text()))
        for path in self.sources():
            named |= set(BGW_FUNCTION_RE.findall(path.read_text()))
        self.entry_points = {s for s in named if s.startswith("cdc_kafka_")}

    def load_edges(self) -> None:
        for module in self.modules.values():
            for symbol in sorted(module.undefined):
                other = self.definer.get(symbol)
                if other:
                    self.add_edge(module.key, other, f"calls {symbol}")
        for path in self.sources():
            text = COMMENT_RE.sub(" ", path.read_text())
            for quote, target in INCLUDE_RE.findall(text):
                header = self.project_header(path, target)
                self.includes.append((path, quote, target, header))
                if header:
                    self.add_edge(
                        self.node(path), header + ".h", f'includes "{header}.h"'
                    )

    # ---- rules --------------------------------------------------------

    def rule_a(self) -> None:
        for entry in sorted(self.src.iterdir()):
            if entry.is_dir() and entry.name in ROOMS:
                for inner in sorted(entry.iterdir()):
                    if inner.is_dir():
                        self.report(
                            "a", f"{self.rel(inner)}: a directory inside a room"
                        )
            else:
                kind = "directory" if entry.is_dir() else "file"
                self.report("a", f"{self.rel(entry)}: a {kind} outside the rooms")

    def project_header(self, path: Path, target: str) -> str | None:
        """The module a quoted include names, however it is spelled."""
        parts = target.split("/")
        if len(parts) == 2 and parts[0] in ROOMS and (self.src / target).is_file():
            return target[:-2] if target.endswith(".h") else None
        for spelled in (path.parent / target, self.root / target):
            candidate = Path(os.path.normpath(spelled))
            if (
                candidate.is_file()
                and candidate.suffix == ".h"
                and candidate.parent.parent == self.src
                and candidate.parent.name in ROOMS
            ):
                return self.module_of(candidate)
        if "/" not in target:
            # a bare name that would be found with another -I
            rooms = [r for r in ROOMS if (self.src / r / target).is_file()]
            if rooms and target.endswith(".h"):
                return f"{rooms[0]}/{target[:-2]}"
        return None

    def pg_header(self, target: str) -> bool:
        if not self.pg_include_dirs:
            self.pg_include_dirs = [
                Path(self.pg("--includedir-server")),
                Path(self.pg("--includedir")),
            ]
        return any((base / target).is_file() for base in self.pg_include_dirs)

    def rule_b(self) -> None:
        for path, quote, target, header in self.includes:
            room = path.parent.name
            close = ">" if quote == "<" else quote
            where = f"{self.rel(path)}: #include {quote}{target}{close}"
            if header is None:
                if room == "common" and (quote == '"' or self.pg_header(target)):
                    self.report("b", f"{where}: common includes nothing of PostgreSQL")
                continue
            if quote == "<" or target != f"{header}.h":
                wanted = f'"{header}.h"'
                self.report("b", f"{where}: include project headers as {wanted}")
            target_room = header.split("/")[0]
            if RANK[target_room] > RANK[room]:
                self.report(
                    "b", f"{where}: {room} may include headers of {MAY_USE[room]} only"
                )

    def rule_c(self) -> None:
        theirs = Path(self.pg("--includedir-server")) / "common"
        for header in sorted((self.src / "common").glob("*.h")):
            if (theirs / header.name).exists():
                self.report(
                    "c",
                    f"{self.rel(header)} has the name of PostgreSQL's "
                    f'"common/{header.name}" ({theirs / header.name}): rename it',
                )

    def rule_d(self) -> None:
        for (a, b), why in sorted(self.edges.items()):
            ra, rb = a.split("/")[0], b.split("/")[0]
            if RANK[rb] > RANK[ra]:
                rule = f"{ra} may use {MAY_USE[ra]} only"
                self.report("d", f"{a} -> {b}: {rule} ({self.reasons(why)})")
        for cycle in self.cycles():
            steps = " -> ".join([*cycle, cycle[0]])
            detail = "; ".join(
                f"{a} {self.reasons(self.links[(a, b)])}"
                for a, b in zip(cycle, cycle[1:] + cycle[:1], strict=True)
            )
            self.report("d", f"cycle {steps} ({detail})")

    @staticmethod
    def reasons(why: list[str], limit: int = 3) -> str:
        shown = ", ".join(why[:limit])
        return shown + (f" and {len(why) - limit} more" if len(why) > limit else "")

    def successors(self) -> dict[str, list[str]]:
        succ: dict[str, list[str]] = defaultdict(list)
        for a, b in sorted(self.links):
            succ[a].append(b)
        return succ

    def components(self) -> list[list[str]]:
        """Strongly connected components of more than one module (Tarjan)."""
        succ = self.successors()
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        stack: list[str] = []
        on_stack: set[str] = set()
        found: list[list[str]] = []

        def visit(v: str) -> None:
            index[v] = low[v] = len(index)
            stack.append(v)
            on_stack.add(v)
            for w in succ[v]:
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
                    found.append(sorted(component))

        for v in sorted({v for link in self.links for v in link}):
            if v not in index:
                visit(v)
        return sorted(found)

    def cycles(self) -> list[list[str]]:
        """The shortest cycle through each module of each component."""
        succ = self.successors()
        cycles: list[list[str]] = []
        for component in self.components():
            members = set(component)
            for start in component:
                cycle = self.shortest_cycle(start, succ, members)
                i = cycle.index(min(cycle))
                cycle = cycle[i:] + cycle[:i]
                if cycle not in cycles:
                    cycles.append(cycle)
        return cycles

    @staticmethod
    def shortest_cycle(
        start: str, succ: dict[str, list[str]], members: set[str]
    ) -> list[str]:
        parent: dict[str, str] = {}
        frontier = [start]
        while frontier:
            following = []
            for v in frontier:
                for w in succ[v]:
                    if w not in members:
                        continue
                    if w == start:
                        path = [v]
                        while path[-1] != start:
                            path.append(parent[path[-1]])
                        return path[::-1]
                    if w not in parent:
                        parent[w] = v
                        following.append(w)
            frontier = following
        return [start]

    def rule_e(self) -> None:
        for key, module in sorted(self.modules.items()):
            if module.room != "common":
                continue
            for symbol in sorted(module.undefined & self.pg_exports):
                what = "which the postgres executable defines"
                self.report("e", f"src/{key}.o calls {symbol}, {what}")

    def rule_f(self) -> None:
        for key, module in sorted(self.modules.items()):
            prefix = module.name + "_"
            for symbol in sorted(module.exports):
                if not symbol.startswith(prefix) and not self.is_entry_point(symbol):
                    fix = f"name it {prefix}... or make it static"
                    self.report("f", f"src/{key}.o exports {symbol}: {fix}")

    def rule_g(self) -> None:
        for key, module in sorted(self.modules.items()):
            for symbol in sorted(module.exports & self.pg_exports):
                what = "which the postgres executable exports too"
                self.report("g", f"src/{key}.o exports {symbol}, {what}")

    def declarations(self, header: Path) -> list[str]:
        """Names a header declares extern (functions, variables, pointers)."""
        text = COMMENT_RE.sub(" ", header.read_text())
        text = re.sub(r"^[ \t]*#.*(?:\\\n.*)*$", " ", text, flags=re.MULTILINE)
        names = []
        for raw in re.findall(r"\bextern\b([^;{]*);", text):
            decl = re.sub(r"\s+", " ", raw)
            pointer = re.match(r"[^(]*\(\s*\*\s*(\w+)", decl)
            call = re.match(r"[^(]*?(\w+)\s*\(", decl)
            if pointer:
                names.append(pointer.group(1))
            elif call:
                names.append(call.group(1))
            else:
                variable = re.findall(
                    r"(\w+)\s*(?:\[[^\]]*\]\s*)*(?:=|$)", decl.strip()
                )
                if variable:
                    names.append(variable[0])
        return names

    def unit_test_words(self) -> set[str]:
        words: set[str] = set()
        for test in sorted((self.root / "test" / "unit").glob("*.c")):
            words |= set(re.findall(r"\w+", COMMENT_RE.sub(" ", test.read_text())))
        return words

    def rule_h(self) -> None:
        used: dict[str, set[str]] = defaultdict(set)
        for key, module in self.modules.items():
            for symbol in module.undefined:
                used[symbol].add(key)
        tested = self.unit_test_words()
        for key, module in sorted(self.modules.items()):
            own = sorted(s for s in module.exports if not self.is_entry_point(s))
            header = self.src / f"{key}.h"
            if own and not header.exists():
                self.report(
                    "h",
                    f"{key} exports {self.reasons(own)} but has no header src/{key}.h",
                )
            for symbol in own:
                if used[symbol] - {key}:
                    continue
                if module.room == "common" and symbol in tested:
                    continue
                what = "which no other module uses: make it static"
                self.report("h", f"src/{key}.o exports {symbol}, {what}")
            if not header.exists():
                continue
            for name in self.declarations(header):
                if name in module.exports:
                    continue
                other = self.definer.get(name)
                owner = (
                    f"which {other} defines"
                    if other
                    else f"which {key} does not define"
                )
                self.report("h", f"src/{key}.h declares {name}, {owner}")

    def run(self) -> int:
        self.load()
        for rule in RULES:
            getattr(self, f"rule_{rule}")()
        return len(self.violations)

    def graph(self) -> list[str]:
        lines = []
        for key in sorted(self.modules):
            deps = sorted({b for (a, b) in self.edges if a == key})
            lines.append(f"{key} -> {' '.join(deps)}".rstrip())
        return lines


def default_pg_config() -> str:
    if os.environ.get("PG_CONFIG"):
        return os.environ["PG_CONFIG"]
    return os.path.join(
        os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin"), "pg_config"
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n", 1)[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=Path(__file__).resolve().parent.parent,
        help="the source tree to check, built (default: the one holding this script)",
    )
    parser.add_argument(
        "--pg-config",
        default=default_pg_config(),
        help="pg_config of the PostgreSQL built against (default: $PG_CONFIG, "
        "else $PG_BIN/pg_config, PG_BIN defaulting to /usr/lib/postgresql/15/bin)",
    )
    parser.add_argument(
        "--graph",
        action="store_true",
        help="also print each module and the modules it depends on",
    )
    args = parser.parse_args()
    checker = Checker(args.root.resolve(), args.pg_config)
    try:
        count = checker.run()
    except LayoutError as err:
        print(f"layout: {err}", file=sys.stderr)
        return 2
    if args.graph:
        print("\n".join(checker.graph()))
    for line in checker.violations:
        print(line)
    print(f"layout: {len(RULES)} rules checked, {count} violations")
    return 1 if count else 0


if __name__ == "__main__":
    sys.exit(main())
