#!/usr/bin/env python3
"""The pieces of a program and what an entry can reach by name, from ast alone: no line of
the program runs. program-analysis/cut.ts assembles the cut the model sees from this answer.

    python3 program-analysis/cut.py --entry=NAME < PROGRAM     (NAME: `f` or `Class.method`)
    python3 program-analysis/cut.py < PROGRAM                  (the module's top level)

A unit is one top-level statement (a def, a class header, an import, an assignment, any
other statement) or one statement of a top-level class's body (a method, a class-level
assignment). From the entry, units are reached by name, breadth first: a unit's `depth` is
how many steps of "uses a name that this defines" it lies from the entry (the entry: 0).

- A function uses the names it loads (decorators, defaults and body, nested defs included)
  that are not its own locals; annotations are left out (they do not run in the body).
- A class reached is its header (decorators, bases) with its class-level statements, and
  its dunder methods one step further (`__init__`, `__repr__`, ...: Python calls them
  without naming them). Its other methods are reached by attribute name: a method `m` of a
  reached class is reached from every unit that reads `.m` (`self.m()`, `obj.m`).
- A method entry (`Class.method`) reaches its class at depth 0, so `__init__` comes next.
- `from __future__` imports are always kept (they change how the rest compiles).

Prints one JSON object:

    {"kind": "ok", "lines": N, "units": [{"name", "kind", "start", "end", "depth": N or null,
       "entry": bool, "parent": INDEX or null, "signatureEnd": N or null,
       "ellipsis": {"line": N, "indent": "    "} or null}, ...]}

kind: function, class, method, member (a class-level statement), import, future,
assignment, statement. start/end: the unit's first and last line, decorators included.
signatureEnd: where the unit cut to its signature ends (the def line(s) and the docstring);
null when the unit cannot be cut (not a def, the entry, a body that is only a docstring or
on the def's own line). ellipsis: the `...` line that stands for the cut body (`line`: the
body's first line in the file), null when the docstring alone stays as the body.

    {"kind": "error", "message": "..."}
"""
import ast
import json
import sys

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def first_line(node):
    return min([node.lineno] + [d.lineno for d in getattr(node, 'decorator_list', ())])


def loaded_names(nodes):
    names = set()
    for root in nodes:
        for n in ast.walk(root):
            if isinstance(n, ast.Name):
                names.add(n.id)
    return names


def stored_names(nodes):
    names = set()
    for root in nodes:
        for n in ast.walk(root):
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                names.add(n.id)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(n.name)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                names.update(alias_names(n))
    return names


def attributes(nodes):
    return {n.attr for root in nodes for n in ast.walk(root) if isinstance(n, ast.Attribute)}


def alias_names(node):
    return [(a.asname or a.name).split('.')[0] for a in node.names if a.name != '*']


def without_annotations(fn):
    """The parts of a def that run: decorators, defaults, body (annotations left out)."""
    args = fn.args
    return list(fn.decorator_list) + list(args.defaults) + [d for d in args.kw_defaults if d is not None] + list(fn.body)


def function_uses(fn):
    parts = without_annotations(fn)
    declared_global = {name for n in ast.walk(fn) if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names}
    a = fn.args
    params = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs + [v for v in (a.vararg, a.kwarg) if v]}
    own = (stored_names(fn.body) | params) - declared_global
    # Decorators and defaults run in the enclosing scope: their names are never the function's locals.
    outer = loaded_names(list(fn.decorator_list) + list(a.defaults) + [d for d in a.kw_defaults if d is not None])
    return (loaded_names(fn.body) - own) | outer | declared_global, attributes(parts)


def signature_cut(node, lines):
    """(signatureEnd, ellipsis) for a def cut to its signature and docstring, or (None, None)."""
    body = node.body
    doc = body[0] if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str) else None
    if doc is not None:
        if len(body) == 1 or body[1].lineno <= doc.end_lineno:
            return None, None
        rest = body[1]
        return doc.end_lineno, {'line': rest.lineno, 'indent': indent_of(lines[rest.lineno - 1])}
    first = body[0]
    if first.lineno <= node.lineno:
        return None, None  # `def f(): return 1`: nothing to cut
    end = first.lineno - 1
    while end > node.lineno and (lines[end - 1].strip() == '' or lines[end - 1].lstrip().startswith('#')):
        end -= 1
    return end, {'line': first.lineno, 'indent': indent_of(lines[first.lineno - 1])}


def indent_of(text):
    return text[: len(text) - len(text.lstrip())]


def header_end(cls, lines):
    """The last line of a class's header (decorators, `class X(...):`), before its body."""
    end = max(cls.lineno, cls.body[0].lineno - 1)
    while end > cls.lineno and (lines[end - 1].strip() == '' or lines[end - 1].lstrip().startswith('#')):
        end -= 1
    return end


def units_of(tree, lines):
    units = []

    def add(**u):
        u.setdefault('parent', None)
        u.setdefault('signatureEnd', None)
        u.setdefault('ellipsis', None)
        u.setdefault('attrs', set())
        u.setdefault('defines', set())
        u.setdefault('uses', set())
        units.append(u)
        return len(units) - 1

    for node in tree.body:
        start, end = first_line(node), node.end_lineno
        if isinstance(node, FUNCTIONS):
            uses, attrs = function_uses(node)
            sig, ell = signature_cut(node, lines)
            add(name=node.name, kind='function', start=start, end=end, defines={node.name}, uses=uses, attrs=attrs, node=node, signatureEnd=sig, ellipsis=ell)
        elif isinstance(node, ast.ClassDef):
            head = header_end(node, lines)
            parts = list(node.decorator_list) + list(node.bases) + [k.value for k in node.keywords]
            cls = add(name=node.name, kind='class', start=start, end=head, defines={node.name}, uses=loaded_names(parts), attrs=attributes(parts), node=node)
            for member in node.body:
                m_start, m_end = first_line(member), member.end_lineno
                if isinstance(member, FUNCTIONS):
                    uses, attrs = function_uses(member)
                    sig, ell = signature_cut(member, lines)
                    add(name=f'{node.name}.{member.name}', kind='method', start=m_start, end=m_end, parent=cls, uses=uses, attrs=attrs, node=member, method=member.name, signatureEnd=sig, ellipsis=ell)
                else:
                    add(name=f'{node.name}.<body>', kind='member', start=m_start, end=m_end, parent=cls, uses=loaded_names([member]) - stored_names([member]), attrs=attributes([member]), node=member)
        elif isinstance(node, ast.ImportFrom) and node.module == '__future__':
            add(name='__future__', kind='future', start=start, end=end, node=node)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = alias_names(node)
            add(name=', '.join(names) or node.module or 'import', kind='import', start=start, end=end, defines=set(names), node=node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defines = stored_names(targets)
            value = [node.value] if node.value is not None else []
            add(name=', '.join(sorted(defines)) or 'assignment', kind='assignment', start=start, end=end, defines=defines, uses=loaded_names(value + targets) - defines | (defines if isinstance(node, ast.AugAssign) else set()), attrs=attributes(value), node=node)
        else:
            defines = stored_names([node])
            add(name=type(node).__name__.lower(), kind='statement', start=start, end=end, defines=defines, uses=loaded_names([node]), attrs=attributes([node]), node=node)
    return units


def find_entry(units, entry):
    parts = entry.split('.')
    if len(parts) == 1:
        found = [i for i, u in enumerate(units) if u['kind'] == 'function' and u['name'] == entry]
    elif len(parts) == 2:
        found = [i for i, u in enumerate(units) if u['kind'] == 'method' and u['name'] == entry]
    else:
        found = []
    return found[0] if found else None


def reach(units, entry_index):
    """Breadth-first depths from the entry (None: not reached)."""
    definers = {}
    for i, u in enumerate(units):
        for name in u['defines']:
            definers.setdefault(name, []).append(i)
    members = {}
    for i, u in enumerate(units):
        if u['parent'] is not None:
            members.setdefault(u['parent'], []).append(i)
    depth = [None] * len(units)
    seen_attrs = set()
    reached_classes = []
    frontier = []

    def visit(i, d, into):
        if depth[i] is None:
            depth[i] = d
            into.append(i)

    for i, u in enumerate(units):
        if u['kind'] == 'future':
            depth[i] = 0
    first = [entry_index]
    depth[entry_index] = 0
    if units[entry_index]['parent'] is not None:
        depth[units[entry_index]['parent']] = 0
        first.append(units[entry_index]['parent'])
    frontier = first
    d = 0
    while frontier:
        nxt = []
        # A class reached at this depth brings its class-level statements at the same depth.
        for i in list(frontier):
            if units[i]['kind'] == 'class':
                reached_classes.append(i)
                for m in members.get(i, []):
                    if units[m]['kind'] == 'member':
                        visit(m, d, frontier)
        for i in frontier:
            u = units[i]
            for name in u['uses']:
                for j in definers.get(name, []):
                    visit(j, d + 1, nxt)
            seen_attrs |= u['attrs']
            if u['kind'] == 'class':
                for m in members.get(i, []):
                    mu = units[m]
                    if mu['kind'] == 'method' and mu['method'].startswith('__') and mu['method'].endswith('__'):
                        visit(m, d + 1, nxt)
        for c in reached_classes:
            for m in members.get(c, []):
                mu = units[m]
                if mu['kind'] == 'method' and mu['method'] in seen_attrs:
                    visit(m, d + 1, nxt)
        frontier = nxt
        d += 1
    return depth


def cut_info(source, entry):
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        where = f' at line {e.lineno}' if e.lineno else ''
        return {'kind': 'error', 'message': f'{type(e).__name__}{where}: {e.msg}'}
    except (ValueError, RecursionError, MemoryError) as e:
        return {'kind': 'error', 'message': f'SyntaxError: {e}'}
    lines = source.splitlines()
    units = units_of(tree, lines)
    if entry is None:
        depth = list(range(len(units)))
        entry_index = None
    else:
        entry_index = find_entry(units, entry)
        if entry_index is None:
            defined = [u['name'] for u in units if u['kind'] in ('function', 'method')]
            return {'kind': 'error', 'message': f"no function named '{entry}' to cut the program to; functions defined: {', '.join(defined) or 'none'}"}
        depth = reach(units, entry_index)
    out = []
    for i, u in enumerate(units):
        out.append({
            'name': u['name'],
            'kind': u['kind'],
            'start': u['start'],
            'end': u['end'],
            'depth': depth[i],
            'entry': i == entry_index,
            'parent': u['parent'],
            'signatureEnd': None if i == entry_index else u['signatureEnd'],
            'ellipsis': None if i == entry_index else u['ellipsis'],
        })
    return {'kind': 'ok', 'lines': len(lines), 'units': out}


def main():
    entry = None
    for arg in sys.argv[1:]:
        if arg.startswith('--entry='):
            entry = arg[len('--entry='):]
    source = sys.stdin.buffer.read().decode('utf-8', errors='replace')
    print(json.dumps(cut_info(source, entry)))


if __name__ == '__main__':
    main()
