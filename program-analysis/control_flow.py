#!/usr/bin/env python3
"""Where a frame of the program can stop, and where it can go next, from compile() alone: no
line of the program runs.

    python3 program-analysis/control_flow.py < PROGRAM

For every code object compiled from the program (the module, each function, class body,
lambda, comprehension), grouped by co_name (the name the tracer gives its frames):

  lines    every line the frame can report: the lines its bytecode carries (co_lines) and its
           first line (a call event; the tracer reports line 0/None as co_firstlineno)
  first    the co_firstlineno of each code object of that name
  next     line -> the lines whose line event can come next in the same frame, from the
           bytecode's control-flow graph: fall-through, jumps, and the exception table's
           handlers from every instruction they cover. CPython 3.11 fires a line event when
           the line changes, after an instruction without a line, and on a backward jump to
           the same line (and, to stay on the safe side, after a yield or a handler edge).
  returns  lines a return event can report with any value: lines holding RETURN_VALUE,
           RETURN_CONST or YIELD_VALUE (a generator's yield is a return event), and the first
           line when such an instruction has no line. Any other line returns only None
           (an exception leaving the frame).
  valued   the lines of `returns` where a return can carry a value other than None (not only
           `return` or a body's end, which return the constant None)
  resumes  lines a resumed generator's call event reports (its yields, and the line after)
  starts   lines the first line event after a call or resumption can report
  codes    each code object of that name apart (two classes' `__init__`): its first line, its
           lines and its starts, so that a frame's lines are its own code object's
  stores   line -> the names the line's instructions bind or unbind (STORE_*/DELETE_*: an
           assignment, a `for` or `with` target, augmented assignment, walrus, except-as,
           import), with the stores of an instruction without a line on the lines it runs
           after (lined_owners: an except-as handler's clean-up belongs to its body's lines)
  loads    line -> the names the line's instructions load (and the comprehensions' on it)
  shared   names another frame can rebind: cell and free variables
  lineless whether any instruction after the frame's RESUME has no line (exception handlers'
           clean-up, `with` exits): only then can the frame run code reported as its first line
  quiet    first lines that carry only the frame's preamble (up to its first RESUME: a
           generator's start, cell set-up): a call event reports them, a line event never
           does (`def f(n):` above a body that starts on the next line)
  params   the parameters, bound from the call on (null for a frame that is not a function's:
           a module or class body, whose names live in a namespace anything can fill)
  shown    for a module or class body (null for a function's frame): the names its locals can
           show. The tracer keeps a namespace's data, not its definitions: a name only ever bound
           by a `def` or `class` without decorators, or by `import M`, holds a function, a class
           or a module and is never shown. The others the body stores (and, for the module, the
           names a function declares `global`)
  raises   lines an exception event can report: lines with an instruction that can raise (or
           that runs a callee, whose exception passes through the line), and the first line
           (instructions without a line). Lines made only of constants, stores to locals,
           loads of parameters the code never deletes, list and tuple displays, jumps and
           returns cannot raise (`acc = []`, `total = 0`, `return n`, `pass`, `break`).

and, for the whole program:

  literals       line -> {name: repr} for a line that is one assignment of a literal to names
                 (`acc = []`, `n = 0`, `a, b = 1, 'x'`, `seen = set()` where nothing rebinds
                 `set`): ast.literal_eval builds the value, nothing of the program runs, and
                 after the line each name holds exactly that repr. Not a set with elements
                 (its order can change from run to run), not a dunder name, not a line that
                 holds another statement too. And a `def` without decorators (or a lambda
                 assigned to a name) binds its name to `<function QUALNAME at 0x0>` (the
                 address is masked in every state)

  loops          line -> what each target of a `for` on that line (kind "for", the frame
                 holding the loop) or of a one-line comprehension's only `for` (kind
                 "<listcomp>", "<setcomp>", "<dictcomp>": the comprehension's own frame) is
                 bound to next, from where (`sources`): the elements of a local (`seq`, also
                 `reversed(N)`, `N.keys()`; a dict's keys; a str's characters), a dict's values
                 (`values`, `N.values()`, the second target of `N.items()`), a count (`range`
                 with a start (a literal, a local, a local plus or minus a literal) and a
                 literal step, and its stop where a literal, a local or `len(N)` shows it;
                 `enumerate`'s index). For a `for`, `body` is its body's first line: a step
                 from the header that lands there has run one iteration (`body_end`: its
                 body's last line); `fresh`: a bound target on the header means the loop is
                 going on (not entered again: it is in no other loop, and nothing else binds
                 its targets). Only where nothing in the loop (or the comprehension's
                 statement) can rebind or change what it iterates: the iterated names are
                 never stored in it and are only read there (subscripts, comparisons,
                 arithmetic, builtins and methods that do not mutate), so each element comes
                 in the order the repr before shows it; and only where the body never rebinds
                 a target, so the target's value on the header is the element it was bound to.
                 A comprehension's `settled`: what it iterates is read only from parameters of
                 the function it sits in that nothing there rebinds or changes, so any state of
                 that call shows the values it walks (semantics/rules/loop.ts uses the
                 run's entry state after a jump that hides the caller's state on the line).
                 A list comprehension's `value`: the comprehension as an expression (as
                 `branches`' tests), which the caller's locals on its line decide: what the
                 comprehension's frame returns. Its `free`: the names it reads from the
                 function around it (its code's free variables), which its frame shows

  branches       line -> {test, body} for an `if`, `elif` or `while` header whose test only reads
                 values a state shows: locals, literals, comparisons, `and`/`or`/`not`,
                 arithmetic, list and tuple displays, conditional expressions, indexing and
                 slicing, builtins that only read (TEST_BUILTINS: `len`, `int`, `sorted`...) and
                 reading methods of str, list and dict (TEST_METHODS: `lower`, `split`, `get`...),
                 where nothing rebinds the builtin. `test` is the expression as a JSON tree (see
                 test_expr), `body` the body's first line: where the test holds, the header's
                 next line event is there; where it does not, elsewhere. None in a program with
                 classes (a subclass of int, str or list prints as one and may compare its own
                 way) or a star import (which may rebind `len`)

  assigned       line -> {name, value} for a line that is only `NAME = EXPR` or `NAME OP= EXPR`
                 where EXPR is one a branch test may be (and not a literal): the value, a JSON
                 tree as a branch's test, is what NAME holds after the line where the state
                 before shows every value it reads. A tuple assignment `A, B = EXPR1, EXPR2`
                 (names only, no star) gives its first name there and the others in `also`:
                 each value is read from the state before, as Python evaluates the right side
                 whole before binding any name. An `if` with such a line as its body, all on
                 one line (`if n < 0: n = -n`), gives its test in `when`: the names are bound
                 only where it holds. Not in the programs `branches` leaves out

  class_lines    class name -> the lines of its `class` statements (and their decorators): the
                 only lines whose step into can enter its body

  changes        line -> the names a line with one call of the program's may change in place
                 besides through that call (see changed_in_place)

  vanishes       whether the program names what ends a process without an event (os._exit,
                 os.abort, os.kill, os.exec*: VANISHING)

  own_reprs      whether the program may print a value as anything (see own_reprs)

  hides_calls    whether a line can run the program's code besides through its visible calls
                 (see hides_calls)

  class_state    whether a class body binds a name to anything but a constant (see class_state)

  pure_lines     the lines that change no object (see pure_lines): a name they do not bind
                 holds the same value after them

  literal_spans  line -> its statement's last line, for a literal of `literals` written over lines
                 that report events of their own: it binds on a step that lands past them

  constants      name -> {read_only, literal?} for the module-level names bound once (see
                 module_constants): a function reads the value the module's frame showed

  classes        line -> the class body's frame name for a `class` statement whose body a step
                 into from its line enters next (see class_entries)

  calls          line -> {callee, params} for a line whose one call of the program's binds its
                 parameters to expressions of the caller's values (see call_lines)

  received       line -> {name?, callee} for a line that is only `NAME = CALLEE(ARGS)` or `return
                 CALLEE(ARGS)` (or assigns or returns a comprehension): after CALLEE's frame
                 returns into it, NAME holds (the line returns) its return value (see
                 received_lines)

  returned       line -> the value of a line that is only `return EXPR`, EXPR as `assigned`'s: what a
                 return event there carries after the line event whose state shows every value
                 it reads

  mutated        line -> {name, op, args} for a line that only changes a local list or dict in place
                 with values of such expressions: `xs.append(x)`, `xs.extend(ys)`,
                 `xs.insert(i, x)`, `xs.pop()`, `xs[i] = x`, `d[k] = v` (see mutated_lines)

  pure           name -> {params, body} for the functions a call in such an expression may stand
                 for (`if is_match(c, t):` over `def is_match(c, t): return c == t`): plain
                 module-level functions only called by name, with positional parameters and no
                 defaults, whose body is only `return EXPR` of their parameters (see
                 pure_functions); the call is evaluated by binding the arguments' values

  returns_literal  line -> the repr a return event on a line that is only `return LITERAL` (or a
                 bare `return`) carries when the function returns there (an exception
                 passing through carries None)

  frames_by_code  false where the program can change a frame's locals, or what a repr shows, by
                 other means than its bytecode's stores: it names locals, exec, eval, vars,
                 globals or breakpoint, reads a frame's or an object's internals (f_locals,
                 __class__, __dict__, _getframe...), or imports ctypes, gc or inspect
  unstable       names declared global or nonlocal anywhere
  direct_only    plain functions the program only ever calls by name (`f(...)`), never uses as
                 a value, rebinds, decorates, or defines in a class: such a function is called
                 only from a line that loads its name (empty where the program reaches names
                 dynamically: globals, getattr, eval, exec, vars, locals, __import__...)

The analysis over-approximates: an edge too many only allows more, never refuses a stop a
run can make. Prints one JSON object {"kind": "ok", "frames": {NAME: {...}}} or
{"kind": "error", "message": ...}.
"""
import ast
import builtins
import dis
import json
import sys
import types

NO_FALLTHROUGH = {'RETURN_VALUE', 'RETURN_CONST', 'RAISE_VARARGS', 'RERAISE', 'JUMP_FORWARD',
                  'JUMP_BACKWARD', 'JUMP_BACKWARD_NO_INTERRUPT', 'JUMP_ABSOLUTE', 'JUMP'}
RETURNS = {'RETURN_VALUE', 'RETURN_CONST', 'YIELD_VALUE', 'RETURN_GENERATOR'}
BINDS = {'STORE_FAST', 'STORE_NAME', 'STORE_DEREF', 'STORE_GLOBAL', 'DELETE_FAST', 'DELETE_NAME',
         'DELETE_DEREF', 'DELETE_GLOBAL'}
CO_OPTIMIZED = 0x01  # a function's code: fast locals, bound only by its own instructions
COMPREHENSIONS = {'<listcomp>', '<setcomp>', '<dictcomp>', '<genexpr>'}
LOADS = {'LOAD_GLOBAL', 'LOAD_NAME', 'LOAD_FAST', 'LOAD_DEREF', 'LOAD_CLOSURE', 'LOAD_CLASSDEREF'}
# Words by which a program can reach a function without loading its name on the calling line.
# Instructions that cannot raise (leaving aside signals and memory exhaustion). LOAD_FAST can
# (UnboundLocalError), except for a parameter nothing deletes: see raising_lines().
CANNOT_RAISE = {'NOP', 'RESUME', 'CACHE', 'EXTENDED_ARG', 'LOAD_CONST', 'STORE_FAST', 'STORE_NAME', 'STORE_GLOBAL',
                'POP_TOP', 'PUSH_NULL', 'COPY', 'SWAP', 'JUMP_FORWARD', 'JUMP_BACKWARD', 'JUMP_BACKWARD_NO_INTERRUPT',
                'JUMP_ABSOLUTE', 'JUMP', 'RETURN_VALUE', 'RETURN_CONST', 'BUILD_LIST', 'BUILD_TUPLE', 'LIST_APPEND',
                'MAKE_FUNCTION', 'MAKE_CELL', 'COPY_FREE_VARS', 'LOAD_CLOSURE', 'POP_EXCEPT', 'KW_NAMES',
                'POP_JUMP_FORWARD_IF_NONE', 'POP_JUMP_FORWARD_IF_NOT_NONE', 'POP_JUMP_BACKWARD_IF_NONE',
                'POP_JUMP_BACKWARD_IF_NOT_NONE', 'POP_JUMP_IF_NONE', 'POP_JUMP_IF_NOT_NONE'}
# Names and attributes by which a program reaches names dynamically (direct_only), and those by
# which it can change a frame's locals or what a repr shows behind the bytecode's back
# (frames_by_code): read from the syntax tree, not the text, so that a function named
# `evaluate` or a comment saying "retrieval" switches nothing off.
DYNAMIC_NAMES = {'globals', 'getattr', 'eval', 'exec', 'vars', 'locals', '__import__'}
DYNAMIC_ATTRIBUTES = {'modules', '__dict__', '__globals__', '_getframe', 'f_locals', '__main__'}
DYNAMIC_MODULES = {'importlib', 'inspect', '__main__'}
FRAME_NAMES = {'locals', 'exec', 'eval', 'vars', 'globals', 'breakpoint'}
FRAME_ATTRIBUTES = {'_getframe', 'f_locals', 'f_back', 'f_globals', '__class__', '__qualname__', '__dict__', 'settrace',
                    'setprofile', 'get_referrers', 'currentframe'}
FRAME_MODULES = {'ctypes', 'gc', 'inspect'}


def reaches(tree, names, attributes, modules):
    """Whether the program names one of `names`, reads one of `attributes`, or imports one of `modules`."""
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and n.id in names or isinstance(n, ast.Attribute) and n.attr in attributes:
            return True
        if isinstance(n, ast.Import) and any(a.name.split('.')[0] in modules for a in n.names):
            return True
        if isinstance(n, ast.ImportFrom) and (n.module or '').split('.')[0] in modules:
            return True
        if isinstance(n, ast.ImportFrom) and any(a.name in names | attributes for a in n.names):
            return True
    return False


def exception_table(co):
    parse = getattr(dis, '_parse_exception_table', None)
    if parse is None:
        return []
    try:
        return [(e.start, e.end, e.target) for e in parse(co)]
    except Exception:  # noqa: BLE001 - an unknown layout: no handler edges, see below
        return None


def analyse(co, plain_attributes=False):
    ins = list(dis.get_instructions(co))
    first = co.co_firstlineno
    at = {i.offset: k for k, i in enumerate(ins)}
    line = [i.positions.lineno if i.positions and i.positions.lineno else None for i in ins]
    handlers = exception_table(co)
    edges = [[] for _ in ins]  # (target index, kind)
    for k, i in enumerate(ins):
        if i.opname not in NO_FALLTHROUGH and k + 1 < len(ins):
            edges[k].append((k + 1, 'fall'))
        if i.opcode in dis.hasjrel or i.opcode in dis.hasjabs:
            if isinstance(i.argval, int) and i.argval in at:
                edges[k].append((at[i.argval], 'jump'))
        if handlers is None:
            # Without the table, any instruction may go to any instruction: sound, if loose.
            edges[k].extend((j, 'exc') for j in range(len(ins)))
        else:
            for start, end, target in handlers:
                if start <= i.offset < end and target in at:
                    edges[k].append((at[target], 'exc'))
        if i.opname == 'YIELD_VALUE' and k + 1 < len(ins):
            edges[k].append((k + 1, 'resume'))
    lines = {first} | {n for n in line if n}
    nxt = {}
    for L in sorted(n for n in set(line) if n):
        out = set()
        seen = set()
        stack = [(k, False) for k in range(len(ins)) if line[k] == L]
        while stack:
            k, via_none = stack.pop()
            for j, kind in edges[k]:
                lj = line[j]
                if lj is None:
                    if (j, True) not in seen:
                        seen.add((j, True))
                        stack.append((j, True))
                elif lj != L:
                    out.add(lj)
                elif via_none or kind in ('exc', 'resume') or ins[j].offset <= ins[k].offset:
                    out.add(L)
        nxt[L] = out
    # The call event's line (co_firstlineno) goes where the first line's instructions go.
    if first not in nxt:
        nxt[first] = set()
        for k in range(len(ins)):
            if line[k] is not None:
                nxt[first].add(line[k])
                break
    # The first line event after a call (or a generator's resumption) fires even on the call's
    # own line: the line of the first instruction with a line after each RESUME.
    starts = set()
    for k, i in enumerate(ins):
        if i.opname == 'RESUME':
            for j in range(k, len(ins)):
                if line[j] is not None and ins[j].opname != 'RESUME':
                    starts.add(line[j])
                    # A resumption after a yield goes on with its own line's instructions without
                    # a line event (`yield x` as a loop body's last line: the next event is the
                    # loop's header): the lines after it may come first too.
                    if i.arg:
                        starts |= nxt.get(line[j], set())
                    break
    returns = {(line[k] or first) for k, i in enumerate(ins) if i.opname in RETURNS}
    # A return of the constant None (`return`, a body's end) shows None: not where a jump lands
    # on it with another value pushed.
    targets = {i.argval for i in ins if (i.opcode in dis.hasjrel or i.opcode in dis.hasjabs) and isinstance(i.argval, int)}

    def returns_none(k):
        return ins[k].opname == 'RETURN_VALUE' and k > 0 and ins[k - 1].opname == 'LOAD_CONST' \
            and ins[k - 1].argval is None and ins[k].offset not in targets
    valued = {(line[k] or first) for k, i in enumerate(ins) if i.opname in RETURNS and not returns_none(k)}
    resumes = set()
    for k, i in enumerate(ins):
        if i.opname == 'YIELD_VALUE':
            resumes.add(line[k] or first)
            if k + 1 < len(ins):
                resumes.add(line[k + 1] or first)
    stores = by_line(ins, line, BINDS, lined_owners(line, edges, first))
    loads = by_line(ins, line, LOADS)
    # A comprehension runs in a frame of its own, made on its line: its loads count there too.
    for k, i in enumerate(ins):
        if isinstance(i.argval, types.CodeType) and i.argval.co_name in COMPREHENSIONS and line[k] is not None:
            names = {j.argval for j in dis.get_instructions(i.argval) if j.opname in LOADS and isinstance(j.argval, str)}
            loads.setdefault(line[k], set()).update(names)
    shared = set(co.co_cellvars) | set(co.co_freevars)
    raises = raising_lines(co, ins, line, plain_attributes)
    params = set(co.co_varnames[:param_count(co)]) if co.co_flags & CO_OPTIMIZED else None
    resume = next((k for k, i in enumerate(ins) if i.opname == 'RESUME'), -1)
    quiet = {first} - {line[k] for k in range(resume + 1, len(ins)) if line[k]}
    lineless = any(line[k] is None for k in range(resume + 1, len(ins)))
    return {'lines': lines, 'first': {first}, 'next': nxt, 'returns': returns, 'resumes': resumes, 'starts': starts,
            'stores': stores, 'loads': loads, 'shared': shared, 'raises': raises, 'params': params, 'quiet': quiet,
            'lineless': lineless, 'valued': valued, 'codes': [(first, frozenset(lines), frozenset(starts))]}


def param_count(co):
    """How many of co_varnames are parameters (positional, keyword-only, *args, **kwargs)."""
    return co.co_argcount + co.co_kwonlyargcount + bool(co.co_flags & 0x04) + bool(co.co_flags & 0x08)


def raising_lines(co, ins, line, plain_attributes=False):
    """The lines an exception event can report: see the module's docstring. Where `plain_attributes`
    (a method of a class of the program's, in a program whose classes hook no attribute store:
    no __setattr__, __slots__, descriptor or property), storing an attribute of its first
    parameter, never rebound, cannot raise (`self.seen = 0`)."""
    n_params = param_count(co)
    deleted = {i.argval for i in ins if i.opname == 'DELETE_FAST'}
    safe_loads = set(co.co_varnames[:n_params]) - deleted - set(co.co_cellvars)
    stored = {i.argval for i in ins if i.opname in ('STORE_FAST', 'DELETE_FAST')}
    self_name = co.co_varnames[0] if plain_attributes and co.co_argcount > 0 and co.co_varnames[0] not in stored | set(co.co_cellvars) else None
    out = {co.co_firstlineno}
    for k, i in enumerate(ins):
        if i.opname in CANNOT_RAISE or (i.opname == 'LOAD_FAST' and i.argval in safe_loads):
            continue
        if self_name and i.opname == 'STORE_ATTR' and k > 0 and ins[k - 1].opname == 'LOAD_FAST' and ins[k - 1].argval == self_name:
            continue
        # `[1, 2, 3]` compiles to an empty list extended by a constant tuple.
        if i.opname == 'LIST_EXTEND' and k and ins[k - 1].opname == 'LOAD_CONST' and isinstance(ins[k - 1].argval, tuple):
            continue
        out.add(line[k] or co.co_firstlineno)
    return out


def by_line(ins, line, opnames, owners=None):
    """line -> the names of `opnames` instructions on it. One without a line counts on the lines it
    runs after (`owners`: instruction index -> those lines, lined_owners), or on every line."""
    out = {}
    anywhere = set()
    for k, i in enumerate(ins):
        if i.opname in opnames and isinstance(i.argval, str):
            if line[k] is not None:
                out.setdefault(line[k], set()).add(i.argval)
            elif owners is not None and owners.get(k):
                for L in owners[k]:
                    out.setdefault(L, set()).add(i.argval)
            else:
                anywhere.add(i.argval)
    return {n: out.get(n, set()) | anywhere for n in {n for n in line if n} | set(out)}


def lined_owners(line, edges, first):
    """Instruction index -> the lines it runs after, for each instruction without a line: the lines
    of the instructions with one that reach it through instructions without one (an `except E as
    e:` handler's clean-up, `e = None; del e`, runs after its body's last line). The first line
    where none reaches it (the frame's preamble)."""
    preds = [[] for _ in line]
    for k, out in enumerate(edges):
        for j, _ in out:
            preds[j].append(k)
    owners = {}
    for k in range(len(line)):
        if line[k] is not None:
            continue
        found, seen, stack = set(), {k}, [k]
        while stack:
            for p in preds[stack.pop()]:
                if line[p] is not None:
                    found.add(line[p])
                elif p not in seen:
                    seen.add(p)
                    stack.append(p)
        owners[k] = found or {first}
    return owners


def merge(a, b):
    # Two code objects of one name: a first line is quiet only if neither carries code on it.
    a['quiet'] = (a['quiet'] | b['quiet']) - ((a['lines'] - a['quiet']) | (b['lines'] - b['quiet']))
    a['lineless'] = a['lineless'] or b['lineless']
    a['codes'] = a['codes'] + b['codes']
    for key in ('lines', 'first', 'returns', 'valued', 'resumes', 'starts', 'shared', 'raises'):
        a[key] |= b[key]
    # A name is a parameter if it is one of either.
    a['params'] = None if a['params'] is None or b['params'] is None else a['params'] | b['params']
    # A function's frame and a namespace's of one name: any name.
    a['shown'] = None if a.get('shown') is None or b.get('shown') is None else a['shown'] | b['shown']
    for key in ('next', 'stores', 'loads'):
        for L, s in b[key].items():
            a[key][L] = a[key].get(L, set()) | s
    return a


MAX_LITERAL_REPR = 1000


def parent_map(tree):
    """node -> the node it is a child of."""
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def rebound_names(tree):
    """The names the program binds anywhere (stores, defs, classes, imports; '*' for a star import)."""
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)} | {
        n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))} | {
        (a.asname or a.name).split('.')[0] for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}


def statements_per_line(tree):
    """line -> how many statements start on it."""
    statements = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            statements[node.lineno] = statements.get(node.lineno, 0) + 1
    return statements


def literal_lines(tree, statements, rebinds_set, reported=frozenset(), spans=None):
    """line -> {name: repr} for the lines that assign literals: see the module's docstring. A literal
    written over several lines whose other lines report events too (`reported`: every line some
    code object carries; a list of dicts, one per line) binds only on the step from its first
    line's last event, which lands past them: `spans` gets line -> its last line."""
    out = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign) or statements[node.lineno] != 1:
            continue
        if any(line in reported for line in range(node.lineno + 1, node.end_lineno + 1)):
            if spans is None:
                continue
            spans[node.lineno] = node.end_lineno
        pairs = []
        for target in node.targets:
            if isinstance(target, ast.Name):
                pairs.append((target.id, node.value))
            elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple) and len(target.elts) == len(node.value.elts) \
                    and all(isinstance(t, ast.Name) for t in target.elts) and not any(isinstance(v, ast.Starred) for v in node.value.elts):
                pairs.extend((t.id, v) for t, v in zip(target.elts, node.value.elts))
            else:
                pairs = None
                break
        values = {}
        for name, value in pairs or []:
            text = literal_repr(value, rebinds_set)
            if text is None or name.startswith('__'):
                values = None
                break
            values[name] = text
        if values:
            out[node.lineno] = values
    return out


def return_literals(tree, statements, rebinds_set):
    """line -> the repr a line that is only `return LITERAL` (or a bare `return`) returns."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Return) and node.lineno == node.end_lineno and statements[node.lineno] == 1:
            text = 'None' if node.value is None else literal_repr(node.value, rebinds_set)
            if text is not None:
                out[node.lineno] = text
    return out


def literal_repr(node, rebinds_set):
    """The repr of a literal expression, or None: not a literal, or one whose repr a run may change."""
    if any(isinstance(n, ast.Set) or (isinstance(n, ast.Call) and rebinds_set) for n in ast.walk(node)):
        return None
    try:
        text = repr(ast.literal_eval(node))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return text if len(text) <= MAX_LITERAL_REPR else None


# Builtins and methods that read their argument or object and never change it.
READING_BUILTINS = {'len', 'sum', 'min', 'max', 'sorted', 'list', 'tuple', 'set', 'frozenset', 'str', 'repr', 'any', 'all',
                    'enumerate', 'zip', 'reversed', 'range', 'print', 'abs', 'int', 'float', 'bool', 'dict', 'isinstance',
                    'type', 'hash', 'id', 'iter', 'map', 'filter', 'format', 'round', 'ord', 'chr'}
READING_METHODS = {'count', 'index', 'copy', 'get', 'keys', 'values', 'items', 'startswith', 'endswith', 'find', 'rfind',
                   'upper', 'lower', 'strip', 'lstrip', 'rstrip', 'split', 'rsplit', 'join', 'replace', 'isdigit', 'isalpha',
                   'isalnum', 'isspace', 'isupper', 'islower', 'isnumeric', 'isdecimal', 'format', 'encode', 'title',
                   'capitalize', 'swapcase', 'zfill', 'center', 'ljust', 'rjust', 'partition', 'rpartition', 'splitlines',
                   'casefold', 'issubset', 'issuperset', 'union', 'intersection', 'difference', 'symmetric_difference',
                   'isdisjoint'}
COMPREHENSION_FRAMES = {ast.ListComp: '<listcomp>', ast.SetComp: '<setcomp>', ast.DictComp: '<dictcomp>'}


def int_literal(node):
    """The int a literal (`3`, `-1`) writes, or None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = int_literal(node.operand)
        return None if value is None else -value
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def range_stop(node, call_of):
    """Where a range's stop is shown: a literal, a local, the length of a local; {} if elsewhere."""
    if int_literal(node) is not None:
        return {'stop': int_literal(node)}
    if isinstance(node, ast.Name):
        return {'stop_name': node.id}
    if call_of(node, 'len') and len(node.args) == 1 and isinstance(node.args[0], ast.Name):
        return {'stop_len': node.args[0].id}
    return {}


def iteration_sources(target, it, rebound):
    """{target name: source} for `for TARGET in IT`, or None where IT is not one of the known shapes."""
    def call_of(node, name):
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name and name not in rebound \
            and not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args)

    def method_of(node, name):
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name \
            and isinstance(node.func.value, ast.Name) and not node.args and not node.keywords

    def names(node, n):
        if n == 1:
            return [node.id] if isinstance(node, ast.Name) else None
        ok = isinstance(node, ast.Tuple) and len(node.elts) == n and all(isinstance(e, ast.Name) for e in node.elts)
        return [e.id for e in node.elts] if ok else None

    if isinstance(it, ast.Name):
        t = names(target, 1)
        if not t and isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts) \
                and len({e.id for e in target.elts}) == len(target.elts) > 1:
            # `for k, v in pairs:` each element unpacks into the targets, item by item.
            return {e.id: {'seq': it.id, 'item': i, 'of': len(target.elts)} for i, e in enumerate(target.elts)}
        return t and {t[0]: {'seq': it.id}}
    if call_of(it, 'reversed') and len(it.args) == 1 and isinstance(it.args[0], ast.Name):
        t = names(target, 1)
        return t and {t[0]: {'seq': it.args[0].id, 'reversed': True}}
    if call_of(it, 'range') and 1 <= len(it.args) <= 3:
        t = names(target, 1)
        step = 1 if len(it.args) < 3 else int_literal(it.args[2])
        if not t or not step:
            return None
        stop = range_stop(it.args[0] if len(it.args) == 1 else it.args[1], call_of)
        if len(it.args) == 1:
            return {t[0]: {'count': 0, 'step': step, **stop}}
        start = it.args[0]
        if int_literal(start) is not None:
            return {t[0]: {'count': int_literal(start), 'step': step, **stop}}
        if isinstance(start, ast.Name):
            return {t[0]: {'count_from': start.id, 'step': step, **stop}}
        # `range(j + 1, n)`: a local plus or minus a literal.
        if isinstance(start, ast.BinOp) and isinstance(start.left, ast.Name) and isinstance(start.op, (ast.Add, ast.Sub)) \
                and int_literal(start.right) is not None:
            offset = int_literal(start.right) * (1 if isinstance(start.op, ast.Add) else -1)
            return {t[0]: {'count_from': start.left.id, 'offset': offset, 'step': step, **stop}}
        return None
    if call_of(it, 'enumerate') and 1 <= len(it.args) <= 2 and isinstance(it.args[0], ast.Name):
        t = names(target, 2)
        start = 0 if len(it.args) == 1 else int_literal(it.args[1])
        return t and start is not None and {t[0]: {'count': start, 'step': 1}, t[1]: {'seq': it.args[0].id}}
    if call_of(it, 'zip') and len(it.args) >= 2 and all(isinstance(a, ast.Name) for a in it.args):
        t = names(target, len(it.args))
        return t and {name: {'seq': a.id} for name, a in zip(t, it.args)}
    if method_of(it, 'items'):
        t = names(target, 2)
        return t and {t[0]: {'seq': it.func.value.id}, t[1]: {'values': it.func.value.id}}
    if method_of(it, 'keys') or method_of(it, 'values'):
        t = names(target, 1)
        return t and {t[0]: {'seq' if it.func.attr == 'keys' else 'values': it.func.value.id}}
    return None


def only_read(name, nodes, parents, rebound, read_only_args=frozenset()):
    """Whether every use of `name` in `nodes` (and below) only reads the object it is bound to
    (`read_only_args`: (function, position) of the program's calls that only read what they get)."""
    for root in nodes:
        for node in ast.walk(root):
            if not (isinstance(node, ast.Name) and node.id == name):
                continue
            if not isinstance(node.ctx, ast.Load):
                return False
            parent = parents.get(node)
            if isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.ctx, ast.Load):
                continue
            if isinstance(parent, (ast.Compare, ast.BinOp, ast.FormattedValue, ast.comprehension, ast.For)):
                continue
            if isinstance(parent, ast.Call) and node in parent.args and isinstance(parent.func, ast.Name) \
                    and parent.func.id in READING_BUILTINS and parent.func.id not in rebound:
                continue
            if isinstance(parent, ast.Call) and node in parent.args and isinstance(parent.func, ast.Name) \
                    and (parent.func.id, parent.args.index(node)) in read_only_args:
                continue
            if isinstance(parent, ast.Attribute) and parent.attr in READING_METHODS and isinstance(parents.get(parent), ast.Call):
                continue
            return False
    return True


def pure_lines(tree, statements, rebound, pure):
    """The lines that change no object (`pure_lines`): a simple statement on its own line (or an `if` /
    `while` header's test) whose every call is a builtin or a method that only reads
    (READING_BUILTINS, READING_METHODS) or a pure function of the program's, and that stores only
    into names (no subscript, attribute or starred target). After such a line, a name it does not
    bind holds the same value, not only the same object. None in a program whose classes could
    run their own code from a builtin (hides_calls, or a `__repr__` of theirs)."""
    if hides_calls(tree) or prints_its_own(tree):
        return set()
    # Not augmented assignment: `xs += ys` changes a list in place, under every name it has.
    simple = (ast.Assign, ast.AnnAssign, ast.Expr, ast.Return, ast.Pass, ast.Delete, ast.Assert)
    out = set()
    for node in ast.walk(tree):
        # A plain `def` makes a function of constant defaults and binds it: nothing else changes.
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.decorator_list and statements.get(node.lineno) == 1 \
                and not node.returns and all(literal_repr(d, True) is not None for d in [*node.args.defaults, *(d for d in node.args.kw_defaults if d)]) \
                and not any(a.annotation for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs, node.args.vararg, node.args.kwarg] if a):
            out.add(node.lineno)
            continue
        if isinstance(node, (ast.If, ast.While)):
            part = node.test
        elif isinstance(node, simple) and node.lineno == node.end_lineno:
            part = node
        else:
            continue
        if statements.get(node.lineno) != 1 or part.end_lineno != node.lineno:
            continue
        ok = True
        for n in ast.walk(part):
            if isinstance(n, (ast.Subscript, ast.Attribute, ast.Starred)) and not isinstance(n.ctx, ast.Load):
                ok = False
            elif isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await)):
                ok = False
            elif isinstance(n, ast.Call):
                f = n.func
                ok = ok and ((isinstance(f, ast.Name) and ((f.id in READING_BUILTINS and f.id not in rebound) or f.id in pure))
                             or (isinstance(f, ast.Attribute) and f.attr in READING_METHODS))
        if ok:
            out.add(node.lineno)
    return out


def changed_in_place(tree, lines, rebound, pure):
    """line -> the names a line may change in place besides through its call of the program's
    (`changes`), for the lines `lines` (those with one such call): the bases of subscript and
    attribute targets, the receivers of methods that do not only read, and the names passed to
    calls that are neither builtins that only read nor the program's. None (no entry) for a line
    whose changes cannot be told by name (a target that is not a name's subscript or attribute)."""
    own = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    out = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt) or node.lineno not in lines or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        names, ok = set(), True
        for n in ast.walk(node):
            if isinstance(n, (ast.Subscript, ast.Attribute)) and not isinstance(n.ctx, ast.Load):
                base = n.value
                while isinstance(base, (ast.Subscript, ast.Attribute)):
                    base = base.value
                if isinstance(base, ast.Name):
                    names.add(base.id)
                else:
                    ok = False
            elif isinstance(n, ast.Call):
                f = n.func
                # The program's own call: what it may change, its arguments tell (semantics/rules/kept.ts).
                if (isinstance(f, ast.Name) and f.id in own) or (isinstance(f, ast.Attribute) and f.attr in own):
                    continue
                if isinstance(f, ast.Attribute) and f.attr not in READING_METHODS and isinstance(f.value, ast.Name):
                    names.add(f.value.id)
                reading = (isinstance(f, ast.Name) and f.id in READING_BUILTINS and f.id not in rebound) or f.id in pure if isinstance(f, ast.Name) \
                    else isinstance(f, ast.Attribute) and f.attr in READING_METHODS
                if not reading:
                    names.update(a.id for a in [*n.args, *(k.value for k in n.keywords)] if isinstance(a, ast.Name))
        if ok:
            out[node.lineno] = sorted(names)
    return out


# What ends a process without an event: no frame returns, no exception passes.
VANISHING = {'_exit', 'abort', 'kill', 'killpg', 'execv', 'execve', 'execl', 'execle', 'execlp', 'execlpe', 'execvp', 'execvpe'}


def own_reprs(tree, source):
    """Whether the program may print a value as anything (`own_reprs`): it names `__repr__` other
    than as a class's method of the shape repr_looks_like_object reads (`f"Node({self.key})"`)."""
    safe = [item for c in ast.walk(tree) if isinstance(c, ast.ClassDef) for item in c.body
            if isinstance(item, ast.FunctionDef) and item.name == '__repr__' and repr_looks_like_object(item, c.name)]
    return source.count('__repr__') != len(safe)


def class_state(tree):
    """Whether a class body binds a name to anything but a constant: a class attribute any function
    can reach, which a local may be another name of."""
    return any(isinstance(item, (ast.Assign, ast.AnnAssign)) and not isinstance(item.value, ast.Constant)
               for c in ast.walk(tree) if isinstance(c, ast.ClassDef) for item in c.body)


def read_only_params(tree, rebound, parents):
    """{(function, position)} for the positional parameters of the module's plain functions (defined
    once, no decorator) that the function only reads, passing them on only to such parameters: a
    value given there comes back unchanged (a fixed point, from all of them down)."""
    counts = {}
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            counts[n.name] = counts.get(n.name, 0) + 1
    assigned = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef) and counts[n.name] == 1 and not n.decorator_list
             and n.name not in assigned}
    found = {(name, i) for name, fn in funcs.items() for i in range(len(fn.args.args))}
    while True:
        kept = {(name, i) for name, i in found if only_read(funcs[name].args.args[i].arg, funcs[name].body, parents, rebound, found)}
        if kept == found:
            return found
        found = kept


def module_constants(tree, rebound):
    """name -> {read_only, literal?} for the module-level names bound once, by a plain `NAME = EXPR` at
    the top level, that nothing declares global (`constants`): a function reads the object the
    module's frame shows once that line ran, and its value where nothing changes it (every use
    only reads it, `read_only`, or the object is immutable: a str, a number); `literal`: EXPR's
    repr where it is a literal (whole, where the frame shows it cut); `line`, and `straight`:
    the line is in the top level's straight start, so a module frame past it has run it."""
    bindings = binding_counts(tree)
    parents = parent_map(tree)
    passed = read_only_params(tree, rebound, parents)
    # The top level's straight start: its statements before the first that can branch or loop.
    compound = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.With, ast.AsyncWith, ast.Match)
    straight_end = next((n.lineno for n in tree.body if isinstance(n, compound)), None)
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            others = [n for n in tree.body if n is not node]
            if bindings.get(name) == 1 and not name.startswith('__') and '*' not in rebound:
                literal = literal_repr(node.value, 'set' in rebound)
                out[name] = {'read_only': only_read(name, others, parents, rebound, passed), 'line': node.lineno,
                             'straight': straight_end is None or node.lineno < straight_end, **({'literal': literal} if literal else {})}
    return out


def params_of(fn):
    """The names a function's parameters bind."""
    a = fn.args
    return {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs} | {p.arg for p in (a.vararg, a.kwarg) if p}


def fresh_targets(loop, targets, parents):
    """Whether a bound target on the loop's header always means the loop is going on: the loop is
    in a function, inside no other loop of it, and nothing else there binds its targets."""
    scope = parents.get(loop)
    while scope is not None and not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.Module)):
        if isinstance(scope, (ast.For, ast.AsyncFor, ast.While)):
            return False
        scope = parents.get(scope)
    if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    params = params_of(scope)
    # A comprehension's targets are its own frame's (Python 3), not the function's.
    own_target = set(ast.walk(loop.target)) | {t for n in walk_own(scope) if isinstance(n, ast.comprehension) for t in ast.walk(n.target)}
    bound_elsewhere = {n.id for n in walk_own(scope) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) and n not in own_target}
    return not (targets & (params | bound_elsewhere))


def loop_lines(tree, rebound, pure=frozenset(), free=None, imports=None):
    """line -> [{kind, sources, body?, body_end?, fresh?}] for the loops whose next element a state tells: see the module's docstring."""
    parents = parent_map(tree)

    def stable(sources, scope, statement):
        # A range read its start and stop once: what shows them must not change after.
        iterated = {s.get('seq') or s.get('values') or s.get('stop_len') for s in sources.values()} - {None}
        starts = {s.get(key) for s in sources.values() for key in ('count_from', 'stop_name')} - {None}
        stored = {n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        return not ((iterated | starts) & stored) and all(only_read(name, scope, parents, rebound) for name in iterated)

    def settled(node, sources):
        # What a comprehension right in a function's body iterates is settled when every name
        # it reads is a parameter of that function that nothing there rebinds or changes: any
        # state of the same call shows the values the comprehension walks.
        scope = parents.get(node)
        while scope is not None and not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.Module,
                                                           *COMPREHENSION_FRAMES)):
            scope = parents.get(scope)
        if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        params = params_of(scope)
        read = {s.get(key) for s in sources.values() for key in ('seq', 'values', 'stop_len', 'count_from', 'stop_name')} - {None}
        stored = {n.id for n in ast.walk(scope) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        declared = {name for n in ast.walk(scope) if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names}
        return read <= params and not (read & (stored | declared)) and all(only_read(name, scope.body, parents, rebound) for name in read)

    # A class of the program may iterate its own way behind a repr like a list's; a star import
    # may rebind `range`, `len` or `zip`.
    if '*' in rebound or any(isinstance(n, ast.FunctionDef) and n.name in ('__iter__', '__getitem__') for n in ast.walk(tree)):
        return {}
    out = {}
    comprehensions = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.For):
            if not node.body or node.body[0].lineno == node.lineno or node.iter.end_lineno != node.lineno:
                continue
            sources = iteration_sources(node.target, node.iter, rebound) \
                or walked_expression(node.target, node.iter, node, node.body, rebound, pure, imports, parents)
            # A target the body rebinds holds, back on the header, a value no element tells: only
            # the count of iterations does (`rebound`).
            in_body = {n.id for stmt in node.body for n in ast.walk(stmt) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
            if sources and stable(sources, node.body, node):
                out.setdefault(node.lineno, []).append({'kind': 'for', 'sources': sources, 'body': node.body[0].lineno,
                                                        'body_end': node.body[-1].end_lineno,
                                                        'fresh': fresh_targets(node, set(sources), parents),
                                                        **({'rebound': True} if set(sources) & in_body else {})})
        elif type(node) in COMPREHENSION_FRAMES:
            kind = COMPREHENSION_FRAMES[type(node)]
            key = (node.lineno, kind)
            comprehensions[key] = comprehensions.get(key, 0) + 1
            statement = node
            while not isinstance(statement, ast.stmt):
                statement = parents[statement]
            gen = node.generators
            if len(gen) != 1 or gen[0].is_async or node.lineno != node.end_lineno:
                continue
            sources = iteration_sources(gen[0].target, gen[0].iter, rebound) \
                or walked_expression(gen[0].target, gen[0].iter, statement, [statement], rebound, pure, imports, parents)
            if sources and stable(sources, [statement], statement):
                loop = {'kind': kind, 'sources': sources}
                if settled(node, sources):
                    loop['settled'] = True
                # Its value from the caller's state on the line: only where nothing on the line can
                # change a value the comprehension reads before it runs.
                value = ast.unparse(node) if kind == '<listcomp>' and reads_only(statement, node, rebound) \
                    and decidable(node, rebound, pure, imports) else None
                if value:
                    loop['value'] = value
                if (free or {}).get((node.lineno, kind)) is not None:
                    loop['free'] = free[(node.lineno, kind)]
                out.setdefault(node.lineno, []).append(loop)
    # Two loops of one kind on a line: which frame is which is not known.
    return {line: kept for line, loops in out.items()
            if (kept := [l for l in loops if sum(m['kind'] == l['kind'] for m in loops) == 1
                         and (l['kind'] == 'for' or comprehensions[(line, l['kind'])] == 1)])}


def walked_expression(target, it, region, reader, rebound, pure, imports, parents):
    """{target: {seq: '<iter LINE>', expr}} for `for NAME in EXPR` (a loop's header, or a one-line
    comprehension's only `for`) where EXPR is an expression the walker decides (`lines[1:]`,
    `sorted(d)`, `text.split(',')`) of names that `region` (the loop, the comprehension's
    statement) never rebinds and `reader` (the loop's body, the statement) only reads: the
    elements are those of `list(EXPR)` on any state of the loop, or the comprehension's caller's
    on its line (semantics/rules/loop.ts asks the walker, and reads them as a `seq` source's)."""
    unpacked = isinstance(target, ast.Tuple) and len(target.elts) > 1 and all(isinstance(e, ast.Name) for e in target.elts) \
        and len({e.id for e in target.elts}) == len(target.elts)
    if not (isinstance(target, ast.Name) or unpacked) or isinstance(it, (ast.Name, ast.Constant)) or not decidable(it, rebound, pure, imports):
        return None
    # Entering the loop evaluates it: a pure function of the program's would be a frame to step into.
    if opens_frame(it, set(pure)):
        return None
    read = {n.id for n in ast.walk(it) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    stored = {n.id for n in ast.walk(region) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    if read & stored or not all(only_read(name, reader, parents, rebound) for name in read):
        return None
    key, expr = f'<iter {it.lineno}>', ast.unparse(it)
    if unpacked:
        return {e.id: {'seq': key, 'expr': expr, 'item': i, 'of': len(target.elts)} for i, e in enumerate(target.elts)}
    return {target.id: {'seq': key, 'expr': expr}}


# What received_lines lets a line evaluate before its call: reads of shown values that call no
# function of the program's and take no callback (so no frame but the callee's returns into it).
COMPARE_OPS = {ast.Eq: '==', ast.NotEq: '!=', ast.Lt: '<', ast.LtE: '<=', ast.Gt: '>', ast.GtE: '>=', ast.In: 'in',
               ast.NotIn: 'not in', ast.Is: 'is', ast.IsNot: 'is not'}
BINARY_OPS = {ast.Add: '+', ast.Sub: '-', ast.Mult: '*', ast.FloorDiv: '//', ast.Mod: '%', ast.Div: '/', ast.Pow: '**',
              ast.BitAnd: '&', ast.BitOr: '|', ast.BitXor: '^', ast.LShift: '<<', ast.RShift: '>>'}
UNARY_OPS = {ast.Not: 'not', ast.USub: 'neg', ast.Invert: 'invert'}
# Builtins that read their arguments and return a new value, by the numbers of arguments taken.
TEST_BUILTINS = {'len': {1}, 'abs': {1}, 'int': {1}, 'str': {1}, 'float': {1}, 'list': {1}, 'tuple': {1}, 'sum': {1},
                 'sorted': {1}, 'min': {1, 2, 3, 4}, 'max': {1, 2, 3, 4}, 'ord': {1}, 'chr': {1}, 'bool': {1}, 'any': {1},
                 'all': {1}, 'set': {0, 1}}
# Builtins that walk their one argument whole, and the iterators they may walk (no value of these
# is ever shown: `range(3)` prints as itself, not as its elements).
ITERATING_BUILTINS = {'list', 'tuple', 'sum', 'sorted', 'min', 'max', 'any', 'all', 'set'}
ITERATORS = {'range': {1, 2, 3}, 'enumerate': {1, 2}, 'zip': {1, 2, 3}, 'reversed': {1}}
ITERATOR_METHODS = {'items', 'values', 'keys'}
# Methods of str, list, tuple and dict that read their object, by the numbers of arguments taken.
TEST_METHODS = {'isdigit': {0}, 'isalpha': {0}, 'isalnum': {0}, 'isspace': {0}, 'isupper': {0}, 'islower': {0},
                'startswith': {1}, 'endswith': {1}, 'lower': {0}, 'upper': {0}, 'strip': {0, 1}, 'lstrip': {0, 1},
                'rstrip': {0, 1}, 'split': {0, 1}, 'join': {1}, 'replace': {2}, 'count': {1}, 'find': {1},
                'index': {1}, 'get': {1, 2}}


def test_expr(node, rebound, walked=False, pure=frozenset()):
    """The expression as a JSON tree, or None where it does more than read shown values. `walked`: the node is iterated whole (a comprehension's iterable, the argument of `sum`,
    `sorted`, `''.join`...), where an iterator (`range`, `enumerate`, `zip`, `reversed`, `d.items()`)
    and a generator expression may stand too. `pure`: the program's functions a call may evaluate
    (pure_functions)."""
    def sub(n, walked=False):
        return test_expr(n, rebound, walked, pure)

    def all_of(nodes):
        out = [sub(n) for n in nodes]
        return None if any(o is None for o in out) else out

    if isinstance(node, ast.Constant) and (node.value is None or type(node.value) in (int, float, str, bool)):
        return {'const': repr(node.value)}
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        return {'name': node.id}
    if isinstance(node, ast.Compare) and all(type(op) in COMPARE_OPS for op in node.ops):
        # `is` only against None: identity of anything else is not in a repr.
        sides = [node.left, *node.comparators]
        if any(isinstance(op, (ast.Is, ast.IsNot)) and not any(isinstance(s, ast.Constant) and s.value is None for s in sides[i:i + 2])
               for i, op in enumerate(node.ops)):
            return None
        operands = all_of(sides)
        return operands and {'compare': [COMPARE_OPS[type(op)] for op in node.ops], 'operands': operands}
    if isinstance(node, ast.BoolOp):
        values = all_of(node.values)
        return values and {'bool': 'and' if isinstance(node.op, ast.And) else 'or', 'values': values}
    if isinstance(node, ast.UnaryOp) and type(node.op) in UNARY_OPS:
        operand = sub(node.operand)
        return operand and {UNARY_OPS[type(node.op)]: operand}
    if isinstance(node, ast.BinOp) and type(node.op) in BINARY_OPS:
        operands = all_of([node.left, node.right])
        return operands and {'binary': BINARY_OPS[type(node.op)], 'operands': operands}
    if isinstance(node, ast.IfExp):
        parts = all_of([node.test, node.body, node.orelse])
        return parts and {'ifexp': parts}
    if isinstance(node, (ast.List, ast.Tuple)) and isinstance(node.ctx, ast.Load) and not any(isinstance(e, ast.Starred) for e in node.elts):
        items = all_of(node.elts)
        return items is not None and {'list' if isinstance(node, ast.List) else 'tuple': items} or None
    if isinstance(node, ast.ListComp) or (walked and isinstance(node, ast.GeneratorExp)):
        return comprehension(node, rebound, pure)
    if isinstance(node, ast.Call) and not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args):
        f = node.func
        n = len(node.args)
        if isinstance(f, ast.Name) and f.id in pure:
            args = all_of(node.args)
            return args is not None and {'calls': f.id, 'args': args} or None
        if isinstance(f, ast.Name) and f.id not in rebound and n in TEST_BUILTINS.get(f.id, ()):
            args = [sub(node.args[0], True)] if f.id in ITERATING_BUILTINS and n == 1 else all_of(node.args)
            return None if args is None or None in args else {'call': f.id, 'args': args}
        if walked and isinstance(f, ast.Name) and f.id not in rebound and n in ITERATORS.get(f.id, ()):
            # zip and enumerate walk any iterable; reversed wants a sequence, range ints.
            args = [sub(a, f.id == 'zip' or (f.id == 'enumerate' and i == 0)) for i, a in enumerate(node.args)]
            return None if None in args else {'call': f.id, 'args': args}
        if walked and isinstance(f, ast.Attribute) and f.attr in ITERATOR_METHODS and n == 0:
            of = sub(f.value)
            return of and {'method': f.attr, 'object': of, 'args': []}
        if isinstance(f, ast.Attribute) and n in TEST_METHODS.get(f.attr, ()):
            parts = [sub(f.value)] + [sub(a, f.attr == 'join') for a in node.args]
            return None if None in parts else {'method': f.attr, 'object': parts[0], 'args': parts[1:]}
        return None
    if isinstance(node, ast.Subscript):
        of = sub(node.value)
        s = node.slice
        if isinstance(s, ast.Slice):
            parts = (s.lower, s.upper, s.step)
            bounds = [None if b is None else sub(b) for b in parts]
            return None if of is None or any(b is None for b, n in zip(bounds, parts) if n is not None) \
                else {'slice': bounds, 'of': of}
        index = sub(s)
        return of and index and {'index': index, 'of': of}
    return None


# The node types of an expression the walker (semantics/evaluate.py) may decide; it refuses what
# it cannot (a callable or an attribute outside its whitelist, a local it cannot rebuild), so this
# only keeps out what would run the program's own code or read a name the program rebinds.
DECIDABLE = (ast.Constant, ast.Name, ast.expr_context, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp,
             ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Subscript, ast.Slice, ast.Call, ast.keyword, ast.Attribute,
             ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.comprehension, ast.JoinedStr,
             ast.FormattedValue, ast.Lambda, ast.arguments, ast.arg, ast.Starred,
             ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
BUILTIN_NAMES = frozenset(dir(builtins))


def decidable(node, rebound, pure, imports):
    """Whether the walker's value of `node`, on a state's locals, is the program's: no attribute or
    name of Python's internals, no builtin the program rebinds somewhere (`len` may be its own), no
    call of a function of the program's but a pure one (whose body the walker evaluates), and
    modules only through the program's imports (`imports`: alias -> module, module_imports)."""
    imports = imports or {}
    for n in ast.walk(node):
        if not isinstance(n, DECIDABLE):
            return False
        if isinstance(n, ast.Attribute) and n.attr.startswith('_'):
            return False
        if isinstance(n, ast.Name):
            if n.id.startswith('__') or (n.id in BUILTIN_NAMES and n.id in rebound and n.id not in imports):
                return False
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in rebound \
                and n.func.id not in pure and n.func.id not in imports:
            # A function or class of the program: its frame runs code.
            return False
    return True


def opens_frame(node, functions):
    """Whether evaluating `node` opens a frame of the program's (step_into stops there first): a
    comprehension, a generator expression, a lambda, or a function of the program, called or passed."""
    return any(isinstance(n, FRAME_OPENERS) or (isinstance(n, ast.Name) and n.id in functions) for n in ast.walk(node))


def calls_a_method(node, pure_bodies, modules=()):
    """Whether evaluating `node` may call a method (`xs.pop()`), which can change the value it is
    called on, here or in a pure function it calls: then its value read on the state after the
    line (stepping back) is not the one it had on the state before."""
    seen = set()
    todo = [node]
    while todo:
        for n in ast.walk(todo.pop()):
            # (a function of an imported module, `math.sqrt(x)`, is not a method of a value)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                    and not (isinstance(n.func.value, ast.Name) and n.func.value.id in modules):
                return True
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in pure_bodies and n.func.id not in seen:
                seen.add(n.func.id)
                todo.append(pure_bodies[n.func.id])
    return False


def binding_counts(tree):
    """name -> how many places in the program bind it: stores, defs and classes, imports, except-as
    and match captures, parameters; a `global` or `nonlocal` counts twice (another scope binds it)."""
    counts = {}
    for n in ast.walk(tree):
        names = []
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            names = [n.id]
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [n.name]
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            names = [(a.asname or a.name).split('.')[0] for a in n.names]
        elif isinstance(n, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and n.name:
            names = [n.name]
        elif isinstance(n, ast.arg):
            names = [n.arg]
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            names = list(n.names) * 2
        for name in names:
            counts[name] = counts.get(name, 0) + 1
    return counts


def module_imports(tree):
    """The program's module-level imports the walker may bind, by the name each binds once and
    nothing else binds: {'modules': {alias: module}, 'names': {name: 'module.attr'}}."""
    bound = binding_counts(tree)
    modules, attrs = {}, {}
    for n in tree.body:
        if isinstance(n, ast.Import):
            for a in n.names:
                if a.asname or '.' not in a.name:
                    modules[a.asname or a.name] = a.name
        elif isinstance(n, ast.ImportFrom) and n.level == 0 and n.module:
            for a in n.names:
                if a.name != '*':
                    attrs[a.asname or a.name] = f'{n.module}.{a.name}'
    once = lambda found: {k: v for k, v in found.items() if bound.get(k) == 1}  # noqa: E731
    return {'modules': once(modules), 'names': once(attrs)}


def comprehension(node, rebound, pure=frozenset()):
    """A list comprehension or generator expression as {comp: {elt, generators: [{target, iter, ifs}]}}, or None."""
    def target(t):
        if isinstance(t, ast.Name):
            return {'name': t.id}
        if isinstance(t, ast.Tuple) and not any(isinstance(e, ast.Starred) for e in t.elts):
            parts = [target(e) for e in t.elts]
            return None if None in parts else {'tuple': parts}
        return None

    generators = []
    for g in node.generators:
        parts = [target(g.target), test_expr(g.iter, rebound, True, pure), *[test_expr(c, rebound, False, pure) for c in g.ifs]]
        if g.is_async or None in parts:
            return None
        generators.append({'target': parts[0], 'iter': parts[1], 'ifs': parts[2:]})
    elt = test_expr(node.elt, rebound, False, pure)
    return elt and {'comp': {'elt': elt, 'generators': generators}}


def pure_functions(tree, rebound, direct, imports):
    """name -> {params, body} for the program's functions a call of shown values may evaluate: a plain
    module-level function only ever called by name (`direct`), with positional parameters and no
    defaults, whose body is only `return EXPR` (after a docstring), EXPR an expression the walker
    may decide (decidable) calling only such functions. `body` is EXPR's source."""
    if not program_tests_values(tree, rebound):
        return {}
    shapes = {}
    defined = [n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for node in tree.body:
        # A name defined twice is whichever def ran last.
        if not isinstance(node, ast.FunctionDef) or node.name not in direct or defined.count(node.name) != 1:
            continue
        a = node.args
        body = node.body[1:] if len(node.body) == 2 and isinstance(node.body[0], ast.Expr) \
            and isinstance(node.body[0].value, ast.Constant) and isinstance(node.body[0].value.value, str) else node.body
        if a.posonlyargs or a.vararg or a.kwonlyargs or a.kwarg or a.defaults or len(body) != 1 \
                or not isinstance(body[0], ast.Return) or body[0].value is None:
            continue
        shapes[node.name] = ([p.arg for p in a.args], body[0].value)
    # Drop, until none is left to drop, the functions whose body calls something else.
    pure = set(shapes)
    while True:
        failed = {name for name in pure if not decidable(shapes[name][1], rebound, frozenset(pure), imports)}
        if not failed:
            return {name: {'params': shapes[name][0], 'body': ast.unparse(shapes[name][1])} for name in sorted(pure)}
        pure -= failed


# What a class of the program may derive from and keep its instances' reprs apart from values':
# `object`, the builtin exceptions (their reprs, `ConfigError('x')`, are calls the walker does
# not rebuild) and abc.ABC.
PLAIN_BASES = {'object', 'ABC', 'abc.ABC'} | {n for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException)}
# Decorators that leave a class's instances printing as `Name(...)`.
PLAIN_CLASS_DECORATORS = {'dataclass', 'dataclasses.dataclass', 'total_ordering', 'functools.total_ordering'}
# Names a class of the program must not take: the walker rebuilds reprs that start with them
# (`Counter({...})`, `deque([...])`, `datetime.date(...)`), and the builtins'.
REBUILT_NAMES = {'Counter', 'OrderedDict', 'defaultdict', 'deque', 'datetime', 'date', 'time', 'timedelta', 'timezone',
                 're', 'Decimal', 'Fraction', 'inf', 'nan'} | set(dir(builtins))


def dotted_name(node):
    """`a.b.c` for a name or a chain of attributes of a name; None otherwise."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = dotted_name(node.value)
        return head and f'{head}.{node.attr}'
    return None


def repr_looks_like_object(fn, class_name):
    """Whether a `__repr__` surely writes something no walker rebuilds as a value: it only returns an
    f-string or a string sum that starts with the literal text `<...` or `ClassName(...`."""
    body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        return False
    head = body[0].value
    while isinstance(head, ast.BinOp) and isinstance(head.op, ast.Add):
        head = head.left
    if isinstance(head, ast.JoinedStr) and head.values:
        head = head.values[0]
    if not (isinstance(head, ast.Constant) and isinstance(head.value, str)):
        return False
    text = head.value
    return text.startswith('<') or (text.startswith(class_name) and text[len(class_name):len(class_name) + 1] in ('(', '[', '<', ' ', ':'))


def classes_print_as_objects(tree):
    """Whether every class of the program prints its instances as reprs no walker mistakes for values
    (`<__main__.Stock object at 0x…>`, `Point(x=1)`, `ConfigError('x')`): no base but `object`, a
    builtin exception, abc.ABC or another such class of the program; no keyword (a metaclass); no
    decorator but dataclass / total_ordering; a `__repr__` only of the shape repr_looks_like_object
    reads; no name the walker rebuilds. A subclass of int, str, list or dict would print as one and
    compare or add its own way."""
    classes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    names = {c.name for c in classes}
    for c in classes:
        if c.keywords or c.name in REBUILT_NAMES:
            return False
        for d in c.decorator_list:
            if dotted_name(d.func if isinstance(d, ast.Call) else d) not in PLAIN_CLASS_DECORATORS:
                return False
        if any(dotted_name(b) not in PLAIN_BASES | names for b in c.bases):
            return False
        for item in c.body:
            targets = item.targets if isinstance(item, ast.Assign) else [item.target] if isinstance(item, (ast.AnnAssign, ast.AugAssign)) else []
            if any(isinstance(t, ast.Name) and t.id in ('__repr__', '__class__') for t in targets):
                return False
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == '__repr__' and not repr_looks_like_object(item, c.name):
                return False
    # `obj.__class__ = ...` anywhere makes an instance another class's.
    return not any(isinstance(n, ast.Attribute) and n.attr == '__class__' and isinstance(n.ctx, ast.Store) for n in ast.walk(tree))


def program_tests_values(tree, rebound):
    """Whether a state's reprs tell the program's values whole: its classes print their instances as
    objects, never as values (classes_print_as_objects), and no star import (which may rebind `len`)."""
    return '*' not in rebound and classes_print_as_objects(tree)


def statement_lines(tree, statements, rebound, pure, imports, pure_bodies=None):
    """line -> {source, binds, undo?} for the lines that are only a simple statement the walker can run
    on a state's values: see the module's docstring."""
    if not program_tests_values(tree, rebound):
        return {}

    def local(t):
        # A local the statement binds, or changes in place through a subscript: its name.
        if isinstance(t, ast.Name) and not t.id.startswith('__'):
            return [t.id]
        if isinstance(t, ast.Starred):
            return local(t.value)
        if isinstance(t, (ast.Tuple, ast.List)):
            names = [local(e) for e in t.elts]
            return None if None in names else [n for ns in names for n in ns]
        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and not t.value.id.startswith('__'):
            return [t.value.id]
        return None

    def shape(node):
        """(names it may bind or change, the expressions it evaluates) of a simple statement, or None."""
        if isinstance(node, ast.Assign):
            names = [local(t) for t in node.targets]
            return None if None in names else ([n for ns in names for n in ns], [node.value, *node.targets])
        if isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None and not isinstance(node.target, ast.Starred):
            names = local(node.target)
            return names and (names, [node.value, node.target])
        if isinstance(node, ast.Delete):
            names = [local(t) for t in node.targets]
            return None if None in names or not all(isinstance(t, ast.Subscript) for t in node.targets) \
                else ([n for ns in names for n in ns], node.targets)
        # `xs.append(x)`, `d.update(e)`, `groups[key].append(word)`: a method of a local (or of an
        # item of one), which may change it in place.
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute):
            root = node.value.func.value
            while isinstance(root, ast.Subscript):
                root = root.value
            if isinstance(root, ast.Name) and not root.id.startswith('__'):
                return [root.id], [node.value]
        return None

    def undo(node):
        """`x += part`, `x = x + part` (or -), `part` not reading x: what stepping back over it undoes."""
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            name, op, part = node.target.id, node.op, node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.BinOp) and isinstance(node.value.left, ast.Name) and node.value.left.id == node.targets[0].id:
            name, op, part = node.targets[0].id, node.value.op, node.value.right
        else:
            return None
        if type(op) not in (ast.Add, ast.Sub) or any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(part)) \
                or calls_a_method(part, pure_bodies or {}, imports or {}):
            return None
        return {'name': name, 'op': '+' if isinstance(op, ast.Add) else '-', 'part': ast.unparse(part)}

    functions = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    out = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt) or node.lineno != node.end_lineno:
            continue
        if isinstance(node, ast.If) and not node.orelse and len(node.body) == 1 and statements[node.lineno] == 2:
            # `if n < 0: n = -n`, all on one line: the statement runs where the test holds.
            found = shape(node.body[0])
            if found is None or not decidable(node.test, rebound, pure, imports):
                continue
            source = f'if {ast.unparse(node.test)}: {ast.unparse(node.body[0])}'
            entry = {}
        elif statements[node.lineno] == 1:
            found = shape(node)
            if found is None:
                continue
            source = ast.unparse(node)
            entry = {k: v for k, v in (('undo', undo(node)),) if v}
        else:
            continue
        names, parts = found
        # A method called on a local anywhere in it may change that local in place (`pending.pop(0)`).
        names = names + [n.func.value.id for p in parts for n in ast.walk(p)
                         if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
                         and not n.func.value.id.startswith('__') and n.func.value.id not in (imports or {})]
        if all(decidable(p, rebound, pure, imports) for p in parts):
            # A lambda, a comprehension or a pure function of the program: step_into stops in its frame first.
            opens = any(opens_frame(p, functions) for p in parts)
            out[node.lineno] = {'source': source, 'binds': sorted(set(names)), **entry, **({'opens': True} if opens else {})}
    return out


def reads_only(statement, inner, rebound):
    """Whether nothing in `statement` outside the node `inner` can run code of the program or change a
    value: no frame of its own (a comprehension, a lambda) and no call but of a builtin without keywords
    or a reading method (TEST_METHODS); in a program without classes none of these calls back."""
    skip = set(ast.walk(inner))
    for n in ast.walk(statement):
        if n in skip:
            continue
        if isinstance(n, FRAME_OPENERS):
            return False
        if isinstance(n, ast.Call):
            f = n.func
            builtin = isinstance(f, ast.Name) and f.id not in rebound and (f.id in TEST_BUILTINS or f.id in ITERATORS)
            reading = isinstance(f, ast.Attribute) and f.attr in TEST_METHODS
            if n.keywords or not (builtin or reading):
                return False
    return True


# Expressions that run in a frame of their own.
FRAME_OPENERS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda)


def program_classes(tree):
    """name -> ClassDef for the module-level classes defined once (the only ones a call site names surely)."""
    counts = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.ClassDef):
            counts[n.name] = counts.get(n.name, 0) + 1
    return {n.name: n for n in tree.body if isinstance(n, ast.ClassDef) and counts[n.name] == 1}


def resolve_method(classes, name, method):
    """The FunctionDef `method` that an instance of class `name` runs (its bases' too, depth first as
    the MRO of single inheritance); None where it is not the program's or not plain (decorated)."""
    c = classes.get(name)
    if c is None:
        return None
    for item in c.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == method:
            return item if isinstance(item, ast.FunctionDef) and not item.decorator_list else None
    bases = [b.id for b in c.bases if isinstance(b, ast.Name) and b.id in classes]
    return resolve_method(classes, bases[0], method) if len(bases) == 1 and len(c.bases) == 1 else None


def hides_calls(tree):
    """Whether evaluating a line can run the program's code other than through its visible calls:
    a method with a decorator (a property runs on an attribute read), or a dunder other than
    `__init__`, `__repr__` and `__str__` (an operator, a conversion, a comparison, an attribute
    hook). Those two run only where a line formats a value: formats_values."""
    for c in ast.walk(tree):
        if isinstance(c, ast.ClassDef):
            for item in c.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                        item.decorator_list or (item.name.startswith('__') and item.name not in ('__init__', '__repr__', '__str__'))):
                    return True
    return False


def prints_its_own(tree):
    """Whether a class of the program defines `__repr__` or `__str__`: a line that formats a value may run it."""
    return any(isinstance(item, ast.FunctionDef) and item.name in ('__repr__', '__str__')
               for c in ast.walk(tree) if isinstance(c, ast.ClassDef) for item in c.body)


def formats_values(node):
    """Whether a statement may turn a value into text (an f-string, %-formatting, print, str, repr,
    format, str.format): where the program prints its own, that runs its __repr__ or __str__."""
    for n in ast.walk(node):
        if isinstance(n, ast.JoinedStr) or (isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod)):
            return True
        if isinstance(n, ast.Call) and ((isinstance(n.func, ast.Name) and n.func.id in ('print', 'str', 'repr', 'format'))
                                        or (isinstance(n.func, ast.Attribute) and n.func.attr in ('format', 'format_map'))):
            return True
    return False


def object_repr_free(classes, name):
    """Whether instances of class `name` print as `<__main__.NAME object at 0x…>`: no `__repr__` of its
    own or its bases', no dataclass, no base but the program's classes and `object` (an exception
    prints its arguments)."""
    c = classes.get(name)
    while c is not None:
        if c.decorator_list or any(isinstance(i, ast.FunctionDef) and i.name == '__repr__' for i in c.body):
            return False
        bases = [dotted_name(b) for b in c.bases]
        if any(b != 'object' and b not in classes for b in bases):
            return False
        c = classes.get(bases[0]) if len(bases) == 1 and bases[0] != 'object' else None
    return True


def unconditional(call, statement):
    """Whether the statement surely evaluates `call` (not in a branch of `x if c else y`, past the
    first operand of `and` / `or`, or past the second operand of a chained comparison)."""
    parents = parent_map(statement)
    node = call
    while node is not statement:
        parent = parents[node]
        if isinstance(parent, ast.IfExp) and node is not parent.test:
            return False
        if isinstance(parent, ast.BoolOp) and node is not parent.values[0]:
            return False
        if isinstance(parent, ast.Compare) and node in parent.comparators[1:]:
            return False
        node = parent
    return True


def call_lines(tree, statements, rebound, pure, imports, direct):
    """line -> {callee, line, params, receiver?, instance?} for a line whose one call of the program's
    is one of

      `f(ARGS)`      f a plain function of the program only called by name (`direct`), defined once;
      `obj.m(ARGS)`  m a plain method that the classes in `receiver.classes` resolve to one def
                     (`receiver.name`: obj, a local; the rule checks obj's repr is an instance of
                     one of them, `<__main__.K object at 0x…>`, and binds `self` to it);
      `K(ARGS)`      K a class of the program whose `__init__` is the program's (`instance`: K, so
                     `self` is a new `<__main__.K object at 0x…>`; null where K prints its own repr);

    where nothing else on the line opens a frame (no other call of the program's, no comprehension
    or lambda, and no method or operator hook of the program's: hides_calls) and the arguments are
    decidable. `params` is each parameter's value (but `self`) as the source of an expression of
    the caller's values (an argument, or a literal default), in the order the call frame's locals
    hold them; `line` is the callee's first line. Where the arguments evaluate, step_into from the
    line lands on the callee's call with exactly those values. None where the callee takes *args
    or **kwargs, a default is not a literal, or the call passes a starred argument."""
    if not program_tests_values(tree, rebound):
        return {}
    counts = {}
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            counts[n.name] = counts.get(n.name, 0) + 1
    defs = {}
    for n in tree.body:
        if isinstance(n, ast.FunctionDef) and counts.get(n.name) == 1 and n.name in direct:
            defs[n.name] = n
    classes = program_classes(tree)
    class_names = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
    methods = {item.name for c in ast.walk(tree) if isinstance(c, ast.ClassDef) for item in c.body
               if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))}
    hidden = hides_calls(tree)
    own_text = prints_its_own(tree)
    functions = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}

    def plain(fn):
        a = fn.args
        generator = any(isinstance(x, (ast.Yield, ast.YieldFrom, ast.Await)) for x in walk_own(fn))
        return not (a.vararg or a.kwarg or a.posonlyargs or generator)

    def program_call(c):
        f = c.func
        return (isinstance(f, ast.Name) and (f.id in functions or f.id in class_names)) or (isinstance(f, ast.Attribute) and f.attr in methods)

    out = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt) or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For,
                                                                ast.While, ast.If, ast.With, ast.Try)) \
                or node.lineno != node.end_lineno or statements.get(node.lineno) != 1:
            continue
        calls = [c for c in ast.walk(node) if isinstance(c, ast.Call) and program_call(c)]
        openers = [x for x in ast.walk(node) if isinstance(x, FRAME_OPENERS)]
        if len(calls) != 1 or openers or (own_text and formats_values(node)):
            continue
        call, site = calls[0], {}
        if not unconditional(call, node):
            continue
        if isinstance(call.func, ast.Name) and call.func.id in defs:
            fn, skip = defs[call.func.id], 0
        elif hidden:
            continue
        elif isinstance(call.func, ast.Name) and call.func.id in classes:
            fn = resolve_method(classes, call.func.id, '__init__')
            if fn is None or any(resolve_method(classes, k, '__new__') for k in classes):
                continue
            site['instance'] = call.func.id if object_repr_free(classes, call.func.id) else None
            skip = 1
        elif isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name):
            # Every class whose instances run this method must run the same def, and print as objects.
            found = {k: resolve_method(classes, k, call.func.attr) for k in classes}
            runs = {k: fn for k, fn in found.items() if fn is not None}
            if len(set(map(id, runs.values()))) != 1 or not all(object_repr_free(classes, k) for k in runs) \
                    or len([c for c in ast.walk(tree) if isinstance(c, ast.FunctionDef) and c.name == call.func.attr]) != len(
                        {id(f) for f in runs.values()}):
                continue
            fn = next(iter(runs.values()))
            site['receiver'] = {'name': call.func.value.id, 'classes': sorted(runs)}
            skip = 1
        else:
            continue
        if not plain(fn) or len(fn.args.args) < skip:
            continue
        a = fn.args
        # Everything evaluated before the call reads only shown values: the call's own arguments
        # (a program function passed as a value could be called back first).
        names = [p.arg for p in a.args][skip:]
        kwonly = [p.arg for p in a.kwonlyargs]
        if any(isinstance(x, ast.Starred) for x in call.args) or any(k.arg is None for k in call.keywords) \
                or len(call.args) > len(names):
            continue
        bound = dict(zip(names, call.args))
        if any(k.arg in bound or k.arg not in names + kwonly for k in call.keywords):
            continue
        bound.update({k.arg: k.value for k in call.keywords})
        all_names = [p.arg for p in a.args]
        defaults = dict(zip(all_names[len(all_names) - len(a.defaults):], a.defaults))
        defaults.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
        params, ok = {}, True
        for name in names + kwonly:
            if name in bound:
                value = bound[name]
                ok = ok and decidable(value, rebound, pure, imports) and not opens_frame(value, functions)
                params[name] = ast.unparse(value)
            elif name in defaults:
                try:
                    ast.literal_eval(defaults[name])
                except ValueError:
                    ok = False
                    break
                params[name] = ast.unparse(defaults[name])
            else:
                ok = False  # TypeError: a missing argument
        if ok:
            # co_firstlineno: a decorated def's first decorator's line.
            first = fn.decorator_list[0].lineno if fn.decorator_list else fn.lineno
            out[node.lineno] = {'callee': fn.name, 'line': first, 'params': params, **site,
                                **({'self': a.args[0].arg} if skip else {})}
    return out


def received_lines(tree, statements, rebound):
    """line -> {name? | names?, callee, instance?} for a line that is only `TARGET = CALL` or `return CALL`
    (TARGET a name, or a tuple of names the value unpacks into), or assigns or returns a
    comprehension (CALLEE its frame, `<listcomp>`...), where nothing the line evaluates before the
    call (ARGS, the comprehension's first iterable) can open a frame: only reads of shown values,
    builtins that take no function. CALL is `f(ARGS)`, f a function the program defines once with
    def, and not a generator (whose frames return a value by yielding it); `obj.m(ARGS)`, m a plain
    method defined once; or `K(ARGS)`, K a class whose `__init__` is the program's (`instance`:
    `__init__`'s first parameter, whose value is what the line receives, not `__init__`'s None).
    A line that is only `XS.append(CALL)` (CALL's arguments names or constants, not XS) gives
    `appends`: XS and `args`, the names CALL reads: the list gets the value at its end.
    Then the only frame that returns into the line is CALLEE's, and the value its return event
    shows is what TARGET holds after the line, or what the line returns. Method and class calls
    only where the program hides no call behind an attribute or an operator (hides_calls)."""
    if not program_tests_values(tree, rebound):
        return {}
    defs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    names = [n.name for n in defs]
    plain = {n.name for n in defs if isinstance(n, ast.FunctionDef) and names.count(n.name) == 1
             and not any(isinstance(x, (ast.Yield, ast.YieldFrom, ast.Await)) for x in walk_own(n))}
    classes = program_classes(tree)
    hidden = hides_calls(tree)
    own_text = prints_its_own(tree)
    out = {}
    for node in ast.walk(tree):
        if own_text and isinstance(node, ast.stmt) and formats_values(node):
            continue
        # `xs.append(CALL)`: the list gets the call's value (`appends`), where each argument is a name
        # or a constant (the rule checks no argument can be the list or hold it).
        appended = isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute) \
            and node.value.func.attr == 'append' and isinstance(node.value.func.value, ast.Name) and len(node.value.args) == 1 \
            and not node.value.keywords and isinstance(node.value.args[0], ast.Call) \
            and all(isinstance(a, (ast.Name, ast.Constant)) for a in [*node.value.args[0].args, *(k.value for k in node.value.args[0].keywords)])
        if appended and node.lineno == node.end_lineno and statements[node.lineno] == 1:
            target, inner = node.value.func.value.id, node.value.args[0]
            node = ast.Assign(targets=[ast.Name(id=target, ctx=ast.Store())], value=inner, lineno=node.lineno, end_lineno=node.end_lineno)
            entry_extra = {'appends': target, 'args': sorted({a.id for a in [*inner.args, *(k.value for k in inner.keywords)] if isinstance(a, ast.Name)})}
            if target in entry_extra['args']:
                continue
        else:
            entry_extra = {}
        if not isinstance(node, (ast.Assign, ast.Return)) or node.value is None or node.lineno != node.end_lineno \
                or statements[node.lineno] != 1:
            continue
        if entry_extra:
            entry = entry_extra
        elif isinstance(node, ast.Assign):
            target = node.targets[0] if len(node.targets) == 1 else None
            if isinstance(target, ast.Name) and not target.id.startswith('__'):
                entry = {'name': target.id}
            elif isinstance(target, (ast.Tuple, ast.List)) and target.elts and all(
                    isinstance(e, ast.Name) and not e.id.startswith('__') for e in target.elts) \
                    and len({e.id for e in target.elts}) == len(target.elts):
                entry = {'names': [e.id for e in target.elts]}
            else:
                continue
        else:
            entry = {}
        v = node.value
        call = isinstance(v, ast.Call) and not any(isinstance(a, ast.Starred) for a in v.args) and all(k.arg is not None for k in v.keywords)
        if call and isinstance(v.func, ast.Name) and v.func.id in plain:
            parts, walked, callee = [*v.args, *(k.value for k in v.keywords)], False, v.func.id
        elif call and not hidden and isinstance(v.func, ast.Attribute) and isinstance(v.func.value, ast.Name) and v.func.attr in plain:
            parts, walked, callee = [*v.args, *(k.value for k in v.keywords)], False, v.func.attr
        elif call and not hidden and isinstance(v.func, ast.Name) and v.func.id in classes \
                and not any(resolve_method(classes, k, '__new__') for k in classes):
            init = resolve_method(classes, v.func.id, '__init__')
            if init is None or not init.args.args:
                continue
            parts, walked, callee = [*v.args, *(k.value for k in v.keywords)], False, '__init__'
            entry['instance'] = init.args.args[0].arg
        elif type(v) in COMPREHENSION_FRAMES and 'names' not in entry and 'appends' not in entry:
            parts, walked, callee = [v.generators[0].iter], True, COMPREHENSION_FRAMES[type(v)]
        else:
            continue
        if 'instance' in entry and 'name' not in entry and 'appends' not in entry:
            continue
        if all(test_expr(p, rebound, walked) is not None and not any(isinstance(x, FRAME_OPENERS) for x in ast.walk(p)) for p in parts):
            out[node.lineno] = {**entry, 'callee': callee}
    return out


def returned_lines(tree, statements, rebound, pure, imports):
    """line -> EXPR's source for a line that is only `return EXPR`, EXPR decidable and not a literal
    (`returns_literal` has those)."""
    if not program_tests_values(tree, rebound):
        return {}
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Return) and node.value is not None and node.lineno == node.end_lineno \
                and statements[node.lineno] == 1 and not isinstance(node.value, ast.Constant) \
                and decidable(node.value, rebound, pure, imports):
            out[node.lineno] = ast.unparse(node.value)
    return out


def main_guard(tree, rebound):
    """{line: {test: 'True', body}} for the module's `if __name__ == '__main__':`. A `<module>` frame is
    traced only where the file runs as a script (`python3 FILE`; with an entry the top level runs
    untraced), so there the test holds, unless the program rebinds `__name__`."""
    out = {}
    for node in tree.body:
        if not isinstance(node, ast.If) or '__name__' in rebound or '*' in rebound or node.body[0].lineno == node.lineno:
            continue
        t = node.test
        if isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], ast.Eq):
            sides = [t.left, t.comparators[0]]
            if any(isinstance(x, ast.Name) and x.id == '__name__' for x in sides) \
                    and any(isinstance(x, ast.Constant) and x.value == '__main__' for x in sides):
                out[node.lineno] = {'test': 'True', 'body': node.body[0].lineno}
    return out


def branch_lines(tree, statements, rebound, pure, imports, pure_bodies=None):
    """line -> {test, body, opens?} for the `if`, `elif` and `while` headers a state can decide: see the module's docstring."""
    if not program_tests_values(tree, rebound):
        return main_guard(tree, rebound)
    functions = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and hasattr(n, 'name')}
    out = {}
    for node in ast.walk(tree):
        if not isinstance(node, (ast.If, ast.While)) or statements[node.lineno] != 1 or node.test.end_lineno != node.lineno:
            continue
        first = node.body[0]
        # A decorated def runs its decorators' lines first.
        if first.lineno == node.lineno or getattr(first, 'decorator_list', None) or isinstance(node.test, ast.Constant):
            continue
        if decidable(node.test, rebound, pure, imports):
            out[node.lineno] = {'test': ast.unparse(node.test), 'body': first.lineno,
                                **({'opens': True} if opens_frame(node.test, functions) else {}),
                                **({'changes': True} if calls_a_method(node.test, pure_bodies or {}, imports or {}) else {})}
    return {**out, **main_guard(tree, rebound)}


FUNCTION_DEF = {'LOAD_CONST', 'MAKE_FUNCTION', 'LOAD_CLOSURE', 'BUILD_TUPLE', 'BUILD_MAP', 'STORE_FAST', 'STORE_NAME',
                'STORE_DEREF', 'STORE_GLOBAL', 'NOP'}


def function_defs(co):
    """line -> {name: repr} for the lines of `co` that only make a function and bind it to a name."""
    ins = list(dis.get_instructions(co))
    by_line = {}
    for i in ins:
        by_line.setdefault(i.positions.lineno, []).append(i)
    out = {}
    for k in range(1, len(ins) - 1):
        made, code, store = ins[k], ins[k - 1], ins[k + 1]
        if made.opname != 'MAKE_FUNCTION' or code.opname != 'LOAD_CONST' or not isinstance(code.argval, types.CodeType):
            continue
        line = store.positions.lineno
        if not store.opname.startswith('STORE_') or line is None or any(i.opname not in FUNCTION_DEF for i in by_line[line]):
            continue
        out.setdefault(line, {})[store.argval] = f'<function {code.argval.co_qualname} at 0x0>'
    return out


def unstable_names(tree):
    """Names declared global or nonlocal anywhere: another frame can rebind them."""
    return {n for node in ast.walk(tree) if isinstance(node, (ast.Global, ast.Nonlocal)) for n in node.names}


def direct_only(tree, source):
    """Plain functions only ever called by name: see the module's docstring."""
    if reaches(tree, DYNAMIC_NAMES, DYNAMIC_ATTRIBUTES, DYNAMIC_MODULES):
        return set()
    parents = parent_map(tree)
    plain, other = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            name = getattr(node, 'name', '<lambda>')
            generator = any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await)) for n in walk_own(node))
            ok = (isinstance(node, ast.FunctionDef) and not node.decorator_list and not generator
                  and not isinstance(parents.get(node), ast.ClassDef) and not name.startswith('__'))
            (plain if ok else other).add(name)
    candidates = plain - other
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in candidates:
            parent = parents.get(node)
            if not (isinstance(node.ctx, ast.Load) and isinstance(parent, ast.Call) and parent.func is node):
                candidates.discard(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                candidates.discard((alias.asname or alias.name).split('.')[0])
        elif isinstance(node, (ast.Attribute, ast.keyword, ast.alias)) and getattr(node, 'attr', getattr(node, 'arg', None)) in candidates:
            # `obj.f` or `f=` elsewhere: another object's attribute of the same name may be this code.
            candidates.discard(getattr(node, 'attr', getattr(node, 'arg', None)))
    return candidates


def walk_own(fn):
    """The nodes of a function's own body, not of the functions and classes nested in it."""
    stack = list(ast.iter_child_nodes(fn))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))


def class_entries(tree):
    """line -> the class body's frame name for a `class` statement whose body a step_into from its
    line enters next (`classes`): no decorator, no keyword, and bases that are names or dotted
    names (loading them runs nothing of the program), in a program where no class takes a
    keyword and none defines `__prepare__` (a program's metaclass runs before the body)."""
    classes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    if any(c.keywords for c in classes) or any(
            isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == '__prepare__' for n in ast.walk(tree)):
        return {}
    return {c.lineno: c.name for c in classes if not c.decorator_list and all(dotted_name(b) is not None for b in c.bases)}


def class_statement_lines(tree):
    """class name -> the lines of its `class` statements (decorators' too): the only lines that run its body."""
    out = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.ClassDef):
            out.setdefault(n.name, set()).update([n.lineno, *(d.lineno for d in n.decorator_list)])
    return {name: sorted(lines) for name, lines in out.items()}


def definition_only_names(tree):
    """The names only ever bound by a `def` or `class` without decorators, or by `import M`: they
    hold a function, a class or a module, which a namespace's locals never show."""
    defined, other = set(), set()
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            (other if n.decorator_list else defined).add(n.name)
        elif isinstance(n, ast.Import):
            defined.update(a.asname or a.name.split('.')[0] for a in n.names)
        elif isinstance(n, ast.ImportFrom):
            other.update(a.asname or a.name for a in n.names)
        elif isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            other.add(n.id)
        elif isinstance(n, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and n.name:
            other.add(n.name)
        elif isinstance(n, ast.MatchMapping) and n.rest:
            other.add(n.rest)
        elif isinstance(n, ast.arg):
            other.add(n.arg)
    return defined - other


def namespace_names(co, definitions, declared_global):
    """The names a module's or class body's locals can show (`shown`: see the module's docstring)."""
    stored = {i.argval for i in dis.get_instructions(co) if i.opname in ('STORE_NAME', 'STORE_GLOBAL')}
    if co.co_name == '<module>':
        stored |= declared_global
    return {n for n in stored if isinstance(n, str) and not n.startswith('__')} - definitions


def control_flow(source):
    try:
        code = compile(source, '<program>', 'exec', dont_inherit=True)
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
        return {'kind': 'error', 'message': f'{type(e).__name__}: {e}'}
    frames = {}
    defs = {}
    definitions = definition_only_names(tree)
    # A method's `self.x = v` raises nothing where no class hooks attribute stores.
    plain_classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    plain_attributes = not hides_calls(tree) and not any(
        isinstance(n, (ast.Name, ast.Attribute, ast.Constant)) and (getattr(n, 'id', None) or getattr(n, 'attr', None) or n.__dict__.get('value'))
        in ('__setattr__', '__slots__', '__get__', '__set__', '__delattr__', 'setattr', 'property') for n in ast.walk(tree))
    declared_global = {name for n in ast.walk(tree) if isinstance(n, ast.Global) for name in n.names}
    # (line, kind) -> a comprehension's free variables; None where two share the key.
    free = {}
    stack = [code]
    while stack:
        co = stack.pop()
        if co.co_name in COMPREHENSION_FRAMES.values():
            key = (co.co_firstlineno, co.co_name)
            free[key] = None if key in free else sorted(co.co_freevars)
        for line, names in function_defs(co).items():
            defs.setdefault(line, {}).update(names)
        info = analyse(co, plain_attributes and co.co_qualname.count('.') == 1 and co.co_qualname.split('.')[0] in plain_classes)
        info['shown'] = None if co.co_flags & CO_OPTIMIZED else namespace_names(co, definitions, declared_global)
        frames[co.co_name] = merge(frames[co.co_name], info) if co.co_name in frames else info
        stack.extend(c for c in co.co_consts if isinstance(c, types.CodeType))
    out = {}
    for name, f in frames.items():
        out[name] = {
            'lines': sorted(f['lines']),
            'first': sorted(f['first']),
            'next': {str(L): sorted(s) for L, s in sorted(f['next'].items())},
            'returns': sorted(f['returns']),
            'valued': sorted(f['valued']),
            'resumes': sorted(f['resumes']),
            'starts': sorted(f['starts']),
            'stores': {str(L): sorted(s) for L, s in sorted(f['stores'].items())},
            'loads': {str(L): sorted(s) for L, s in sorted(f['loads'].items())},
            'shared': sorted(f['shared']),
            'raises': sorted(f['raises']),
            'params': None if f['params'] is None else sorted(f['params']),
            'quiet': sorted(f['quiet']),
            'shown': None if f['shown'] is None else sorted(f['shown']),
            'lineless': f['lineless'],
            'codes': [{'first': first, 'lines': sorted(lines), 'starts': sorted(starts)} for first, lines, starts in f['codes']],
        }
    statements = statements_per_line(tree)
    rebound = rebound_names(tree)
    # `set()` is a literal only where nothing can rebind `set`.
    rebinds_set = 'set' in rebound or '*' in rebound
    spans = {}
    literals = literal_lines(tree, statements, rebinds_set, {line for f in frames.values() for line in f['lines']}, spans)
    for line, names in defs.items():
        literals[line] = {**literals.get(line, {}), **names}
    by_line = lambda found: {str(line): value for line, value in sorted(found.items())}  # noqa: E731
    direct = direct_only(tree, source)
    imported = module_imports(tree)
    imports = {**imported['modules'], **imported['names']}
    pure = pure_functions(tree, rebound, direct, imports)
    pure_names = frozenset(pure)
    pure_bodies = {name: ast.parse(f['body'], mode='eval').body for name, f in pure.items()}
    calls = call_lines(tree, statements, rebound, pure_names, imports, direct)
    received = received_lines(tree, statements, rebound)
    changes = changed_in_place(tree, {int(k) for k in [*calls, *received]}, rebound, pure_names)
    return {'kind': 'ok', 'frames': out, 'changes': by_line(changes), 'unstable': sorted(unstable_names(tree)), 'direct_only': sorted(direct),
            'literals': by_line(literals), 'returns_literal': by_line(return_literals(tree, statements, rebinds_set)),
            'loops': by_line(loop_lines(tree, rebound, pure_names, free, imports)),
            'branches': by_line(branch_lines(tree, statements, rebound, pure_names, imports, pure_bodies)),
            'statements': by_line(statement_lines(tree, statements, rebound, pure_names, imports, pure_bodies)),
            'returned': by_line(returned_lines(tree, statements, rebound, pure_names, imports)), 'pure': pure,
            'imports': imported, 'received': by_line(received), 'calls': by_line(calls),
            'classes': by_line(class_entries(tree)),
            'constants': module_constants(tree, rebound),
            'literal_spans': by_line(spans),
            'pure_lines': sorted(pure_lines(tree, statements, rebound, pure_names)),
            'class_state': class_state(tree),
            'hides_calls': hides_calls(tree),
            'own_reprs': own_reprs(tree, source),
            'vanishes': any(isinstance(n, ast.Attribute) and n.attr in VANISHING or isinstance(n, ast.Name) and n.id in VANISHING
                            for n in ast.walk(tree)),
            'class_lines': class_statement_lines(tree),
            'frames_by_code': not reaches(tree, FRAME_NAMES, FRAME_ATTRIBUTES, FRAME_MODULES)}


def main():
    source = sys.stdin.buffer.read().decode('utf-8', errors='replace')
    print(json.dumps(control_flow(source)))


if __name__ == '__main__':
    main()
