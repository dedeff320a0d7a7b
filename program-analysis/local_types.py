"""The program, rewritten for pyright to tell the types of its locals (program-analysis/types.ts).

Reads the program's text on stdin (never runs or imports it) and answers one JSON object:
`{"kind": "ok", "text": ..., "reveals": {INSTRUMENTED_LINE: [SCOPE, LINE]}, "classes": [...]}`
or `{"kind": "error"}` where it does not parse.

The copy differs from the program in three ways, and only for pyright:
- before each statement that starts a line of a function's (or the module's) body, one line of
  `reveal_type(name)` calls for the scope's locals whose every binding is `name = V` with V of a
  type no run-time value changes (trusted_names): what pyright infers there is what the frame
  shows on that line's event. Not before a loop's header (it runs again from the body's end, a
  path the point before it does not see), a decorated definition, or a statement sharing its line;
- every parameter is annotated `Any`, and every return and variable annotation is `Any`: a type
  comes only from what the code itself computes (a literal, a builtin's or the standard library's
  stub), never from a declaration that a caller or the program may break at run time
  (`def f(x: int)` called with a str, `x=0` as a default given a list);
- `from typing import Any as __ndb_Any` after the `__future__` imports.

`classes`: the module's classes whose every instance prints as `<__main__.K object at 0x…>`: a
class statement binding its name once, with no decorator, metaclass or `__repr__`, whose bases
are `object` or such classes, and no class of the program derives from it otherwise.
"""

import ast
import json
import symtable
import sys

ANY = "__ndb_Any"


def main() -> None:
    source = sys.stdin.read()
    try:
        tree = ast.parse(source)
        table = symtable.symtable(source, "<program>", "exec")
    except (SyntaxError, ValueError):
        print(json.dumps({"kind": "error"}))
        return
    lines = source.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    encoded = [line.encode("utf-8") for line in lines]

    # Annotations: (line index, start byte, end byte, replacement), applied right to left.
    edits: list[tuple[int, int, int, str]] = []

    def replace(node: ast.AST) -> None:
        if node.lineno == node.end_lineno:
            edits.append((node.lineno - 1, node.col_offset, node.end_col_offset, ANY))
        else:  # an annotation over lines: the first line holds Any, the rest nothing but its own brackets' text is dropped
            edits.append((node.lineno - 1, node.col_offset, len(encoded[node.lineno - 1].rstrip(b"\r\n")), ANY + " \\"))
            for i in range(node.lineno, node.end_lineno - 1):
                edits.append((i, 0, len(encoded[i].rstrip(b"\r\n")), "\\"))
            edits.append((node.end_lineno - 1, 0, node.end_col_offset, ""))

    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            for arg in [*a.posonlyargs, *a.args, *([a.vararg] if a.vararg else []), *a.kwonlyargs, *([a.kwarg] if a.kwarg else [])]:
                if arg.annotation is not None:
                    replace(arg.annotation)
                else:
                    edits.append((arg.end_lineno - 1, arg.end_col_offset, arg.end_col_offset, ": " + ANY))
            if node.returns is not None:
                replace(node.returns)
        elif isinstance(node, ast.AnnAssign):
            # `x: T = v` is `x = v` (a declared Any would hide what v is); a bare `x: T` declares Any.
            t, v = node.target, node.value
            if v is not None and t.end_lineno == v.lineno:
                edits.append((t.end_lineno - 1, t.end_col_offset, v.col_offset, " = "))
            else:
                replace(node.annotation)
    for i, start, end, text in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        b = encoded[i]
        encoded[i] = b[:start] + text.encode("utf-8") + b[end:]

    # The names each scope's frame shows: its locals (parameters included), less any that code elsewhere rebinds (global, nonlocal).
    shared: set[str] = set()

    def collect_shared(t: symtable.SymbolTable) -> None:
        for s in t.get_symbols():
            if s.is_declared_global() or (hasattr(s, "is_nonlocal") and s.is_nonlocal()):
                shared.add(s.get_name())
        for child in t.get_children():
            collect_shared(child)

    collect_shared(table)

    classes = plain_classes(tree)

    def names_of(t: symtable.SymbolTable, scope: ast.AST) -> list[str]:
        trusted = trusted_names(scope, set(classes))
        out = []
        for s in t.get_symbols():
            n = s.get_name()
            if n in shared or n not in trusted or s.is_parameter() or s.is_imported():
                continue
            if s.is_assigned() if t.get_type() == "module" else s.is_local():
                out.append(n)
        return sorted(out)

    reveals_at: dict[int, tuple[str, list[str]]] = {}  # original line (1-based) -> (scope, names)

    def visit(body: list[ast.stmt], scope: str, names: list[str], text_lines: list[str]) -> None:
        for st in body:
            mark(st, scope, names, text_lines)
            for field in ("body", "orelse", "finalbody"):
                sub = getattr(st, field, None)
                if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt) and not isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    visit(sub, scope, names, text_lines)
            for h in getattr(st, "handlers", []) or []:
                visit(h.body, scope, names, text_lines)
            for c in getattr(st, "cases", []) or []:
                visit(c.body, scope, names, text_lines)

    def mark(st: ast.stmt, scope: str, names: list[str], text_lines: list[str]) -> None:
        if isinstance(st, (ast.For, ast.AsyncFor, ast.While)) or not names or (isinstance(st, ast.ImportFrom) and st.module == "__future__"):
            return
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and st.decorator_list:
            return
        line = text_lines[st.lineno - 1]
        head = line.encode("utf-8")[: st.col_offset]
        rest = line.encode("utf-8")[st.col_offset :].decode("utf-8", "replace")
        if head.strip() or rest.startswith("elif") or st.lineno in reveals_at:
            return
        reveals_at[st.lineno] = (scope, names)

    text_lines = source.splitlines() + [""]

    def scope_tables(t: symtable.SymbolTable, out: dict[tuple[str, int], symtable.SymbolTable]) -> None:
        out[(t.get_name(), t.get_lineno())] = t
        for child in t.get_children():
            scope_tables(child, out)

    tables: dict[tuple[str, int], symtable.SymbolTable] = {}
    scope_tables(table, tables)

    visit(tree.body, "<module>", names_of(table, tree), text_lines)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            t = tables.get((node.name, node.decorator_list[0].lineno if node.decorator_list else node.lineno)) or tables.get((node.name, node.lineno))
            if t is not None and t.get_type() == "function":
                visit(node.body, node.name, names_of(t, node), text_lines)

    # The rewritten text, with the reveal lines and where they came from.
    after_future = 0
    for st in tree.body:
        if isinstance(st, ast.ImportFrom) and st.module == "__future__":
            after_future = st.end_lineno
        elif not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant) and isinstance(st.value.value, str)):
            break
    out: list[str] = []
    reveals: dict[int, list] = {}
    for i, b in enumerate(encoded):
        n = i + 1
        if n - 1 == after_future:
            out.append(f"from typing import Any as {ANY}\n")
        if n in reveals_at:
            scope, names = reveals_at[n]
            line = text_lines[i]
            indent = line[: len(line) - len(line.lstrip())]
            out.append(indent + "; ".join(f"reveal_type({name})" for name in names) + "\n")
            reveals[len(out)] = [scope, n]
        out.append(b.decode("utf-8"))
    if after_future >= len(encoded):
        out.append(f"from typing import Any as {ANY}\n")

    print(json.dumps({"kind": "ok", "text": "".join(out), "reveals": reveals, "classes": classes}))


# Calls whose value has one type whatever their arguments are (a builtin's, where the program does not rebind it: pyright sees that).
SAFE_CALLS = {"int", "float", "str", "bool", "list", "dict", "set", "tuple", "len", "repr", "sorted", "ord", "chr", "hex", "bin", "oct", "ascii", "isinstance", "callable", "hasattr", "id", "hash", "format"}


def safe_value(e: ast.expr, classes: set) -> bool:
    """An expression whose type no run-time value can change: a literal, a display or comprehension, an f-string, `not x`, a call of a builtin constructor or a plain class of the program's."""
    if isinstance(e, (ast.Constant, ast.List, ast.Tuple, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp, ast.JoinedStr)):
        return True
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
        return True
    if isinstance(e, ast.IfExp):
        return safe_value(e.body, classes) and safe_value(e.orelse, classes)
    return isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and (e.func.id in SAFE_CALLS or e.func.id in classes)


def trusted_names(scope: ast.AST, classes: set) -> set:
    """The scope's names every binding of which is `name = SAFE` (or `name: T = SAFE`): their type is what pyright infers from those values, whatever the program's data."""
    safe: set = set()
    unsafe: set = set()

    def walk(node: ast.AST, top: bool) -> None:
        if not top and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            unsafe.add(node.name)
            for d in node.decorator_list:
                walk(d, False)
            return
        if not top and isinstance(node, ast.Lambda):
            return
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            ok = node.value is not None and safe_value(node.value, classes)
            for t in targets:
                if isinstance(t, ast.Name):
                    (safe if ok else unsafe).add(t.id)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            unsafe.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            unsafe.add(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            unsafe.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            unsafe.add(node.rest)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            unsafe.update((a.asname or a.name).split(".")[0] for a in node.names)
        for child in ast.iter_child_nodes(node):
            # An assignment's own target is counted above; its value and any nested target below.
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and child in (node.targets if isinstance(node, ast.Assign) else [node.target]) and isinstance(child, ast.Name):
                continue
            walk(child, False)

    for st in scope.body:
        walk(st, False)
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        a = scope.args
        unsafe.update(x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, *([a.vararg] if a.vararg else []), *([a.kwarg] if a.kwarg else [])])
    return safe - unsafe


def plain_classes(tree: ast.Module) -> list[str]:
    """The module's classes whose instances (and their subclasses') print as default reprs."""
    bound: dict[str, int] = {}
    for node in ast.walk(tree):
        for target in _bound_names(node):
            bound[target] = bound.get(target, 0) + 1
    defs = {st.name: st for st in tree.body if isinstance(st, ast.ClassDef)}
    plain: dict[str, bool] = {}

    def is_plain(name: str, seen: frozenset = frozenset()) -> bool:
        if name in plain:
            return plain[name]
        c = defs.get(name)
        ok = c is not None and name not in seen and bound.get(name) == 1 and not c.decorator_list and not c.keywords
        if ok:
            if any(n == "__repr__" for st in c.body for sub in ast.walk(st) for n in _bound_names(sub)):
                ok = False
            for base in c.bases:
                if not (isinstance(base, ast.Name) and (base.id == "object" or is_plain(base.id, seen | {name}))):
                    ok = False
        plain[name] = ok
        return ok

    for name in defs:
        is_plain(name)
    # A class is given only where every class of the program deriving from it is plain too (a subclass's instance passes for one).
    derived: dict[str, set[str]] = {n: set() for n in defs}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for base in node.bases:
                for n in ast.walk(base):
                    if isinstance(n, ast.Name) and n.id in derived:
                        derived[n.id].add(node.name)

    def all_plain(name: str, seen: frozenset = frozenset()) -> bool:
        if name in seen:
            return False
        return plain.get(name, False) and all(all_plain(d, seen | {name}) for d in derived.get(name, ()))

    return sorted(n for n in defs if all_plain(n))


def _bound_names(node: ast.AST) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        return [node.id]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in node.names]
    return []


if __name__ == "__main__":
    main()
