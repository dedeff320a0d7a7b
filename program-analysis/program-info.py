#!/usr/bin/env python3
"""What a debugger needs to know about a program before it runs, from compile() and ast alone:
no line of the program runs.

    python3 program-analysis/program-info.py < PROGRAM

The executable lines are where a breakpoint can hit: the lines that carry bytecode in the
module's code object or any code object nested in it (functions, classes, lambdas,
comprehensions), as co_lines() reports them. The functions are every def, with CPython's
qualname (`Class.method`, `outer.<locals>.inner`), for "debug the function under the cursor".
Prints one JSON object:

    {"kind": "ok", "executableLines": [N, ...],
     "functions": [{"name", "qualname", "line", "endLine", "params": [NAME, ...],
                    "callLine", "callLocals": [NAME, ...], "localNames": [NAME, ...]}, ...]}

localNames: every name a frame of the function can show as a local (the code object's
co_varnames, cells and free variables). Their order in a traced frame is not fixed: under a
trace function f_locals is one dict, updated in place, so names come in the order they were
first bound.
    {"kind": "error", "message": "SyntaxError at line 3: invalid syntax", "line": 3 or null}
"""
import ast
import json
import sys
import types


def executable_lines(code):
    lines = set()
    stack = [code]
    while stack:
        co = stack.pop()
        # Line 0 and None mark bytecode that belongs to no source line (3.11's module RESUME).
        lines.update(line for _, _, line in co.co_lines() if line)
        stack.extend(c for c in co.co_consts if isinstance(c, types.CodeType))
    return sorted(lines)


def code_objects(code):
    """(name, first line) -> the function code objects compiled from the program."""
    found = {}
    stack = [code]
    while stack:
        co = stack.pop()
        found.setdefault((co.co_name, co.co_firstlineno), co)
        stack.extend(c for c in co.co_consts if isinstance(c, types.CodeType))
    return found


def local_names(co):
    """Every name a frame of `co` can hold as a local."""
    if co is None:
        return None
    names = list(co.co_varnames)
    names += [c for c in co.co_cellvars if c not in names]
    names += [f for f in co.co_freevars if f not in names]
    return names


def params(args):
    """Parameter names in signature order: positional-only, positional, *args, keyword-only, **kwargs."""
    named = args.posonlyargs + args.args + ([args.vararg] if args.vararg else []) + args.kwonlyargs
    return [a.arg for a in named + ([args.kwarg] if args.kwarg else [])]


def binding_order(args):
    """The parameters in the order CPython binds them into a frame's locals (co_varnames):
    positional-only, positional, keyword-only, then *args and **kwargs."""
    named = args.posonlyargs + args.args + args.kwonlyargs
    named += [a for a in (args.vararg, args.kwarg) if a]
    return [a.arg for a in named]


class Functions(ast.NodeVisitor):
    def __init__(self, codes):
        self.codes = codes
        self.found = []
        self.prefix = []  # the qualname of the enclosing scope, CPython's way

    def visit_ClassDef(self, node):
        self.prefix.append(node.name)
        self.generic_visit(node)
        self.prefix.pop()

    def visit_FunctionDef(self, node):
        qualname = '.'.join(self.prefix + [node.name])
        call_line = min([d.lineno for d in node.decorator_list] + [node.lineno])
        self.found.append({
            'name': node.name,
            'qualname': qualname,
            'line': node.lineno,  # the def's own line, after any decorators
            'endLine': node.end_lineno,
            'params': params(node.args),
            # A call event sits on the function's first line: its first decorator's, if any.
            'callLine': call_line,
            'callLocals': binding_order(node.args),
            'localNames': local_names(self.codes.get((node.name, call_line))) or binding_order(node.args),
        })
        self.prefix.extend([node.name, '<locals>'])
        self.generic_visit(node)
        del self.prefix[-2:]

    visit_AsyncFunctionDef = visit_FunctionDef


def program_info(source):
    try:
        code = compile(source, '<program>', 'exec', dont_inherit=True)
        tree = ast.parse(source)
    except SyntaxError as e:  # compile() also catches what ast.parse lets through ('return' outside function)
        where = f' at line {e.lineno}' if e.lineno else ''
        return {'kind': 'error', 'message': f'{type(e).__name__}{where}: {e.msg}', 'line': e.lineno or None}
    except ValueError as e:  # e.g. "source code string cannot contain null bytes"
        return {'kind': 'error', 'message': f'SyntaxError: {e}', 'line': None}
    except (RecursionError, MemoryError):
        return {'kind': 'error', 'message': 'SyntaxError: the program is too deeply nested to compile', 'line': None}
    functions = Functions(code_objects(code))
    functions.visit(tree)
    return {'kind': 'ok', 'executableLines': executable_lines(code), 'functions': functions.found}


def main():
    # Bytes, decoded here: the caller writes UTF-8 whatever this process's locale says.
    source = sys.stdin.buffer.read().decode('utf-8', errors='replace')
    print(json.dumps(program_info(source)))


if __name__ == '__main__':
    main()
