#!/usr/bin/env python3
"""ndb's ground-truth tracer: runs a Python program under sys.settrace and records every event.

    python3 tracer/tracer.py FILE [--entry NAME] [--args 'PY LITERALS'] [--max-events N]
                                  [--timeout SECONDS] [--max-repr N] [--memory-mb N] [--sandbox]

Output (stdout): one JSON object per line, as described by tracer/events.ts. Either `event`
records followed by exactly one `exit` record (exit status 0), or a single `error` record when
the run cannot start (exit status 2). A `memory` error may also follow some events.

With --entry, the module's top level runs untraced (under `__name__ = '__ndb_main__'`) and then
`NAME(*args, **kwargs)` is traced. Without it, the module's top level itself is traced (under
`__name__ = '__main__'`, like `python3 FILE`).

Only frames of FILE are recorded. `depth` counts only those frames, so a callback reached
through library code (sorted(key=...), map, re.sub) sits one level below its traced caller.

--sandbox (verify mode, tracer/run-tracer.ts) adds hard limits on processes (16), file size
(16 MiB), open files (256) and core dumps; the memory and CPU limits are hard in every mode.
Verify mode runs this script only inside the bubblewrap sandbox of tracer/sandbox.ts (no
network, no capabilities, a seccomp filter, nothing of the host's files but read-only system
files, limits on the whole process tree); these limits are its inner wall.

Standard library only; written for CPython 3.11.
"""

import argparse
import ast
import io
import itertools
import json
import math
import os
import reprlib
import resource
import signal
import sys
import time
import types

# A code object of one of these kinds returns to its caller at every yield/await, so its
# `return` event is not the end of the frame.
_RESUMABLE = 0x20 | 0x80 | 0x100 | 0x200  # CO_GENERATOR | CO_COROUTINE | CO_ITERABLE_COROUTINE | CO_ASYNC_GENERATOR
_CO_OPTIMIZED = 0x1  # function frames; module and class bodies are "namespace" frames

# Containers other than list/tuple/dict/set/frozenset longer than this go through reprlib,
# not the built-in repr, whose cost is linear in their size.
_BIG_LEN = 10_000
# Sets at most this long, holding only small scalars, are repr'd by the built-in repr.
_SMALL_LEN = 64
_EMPTY = {list: '[]', tuple: '()', dict: '{}', set: 'set()', frozenset: 'frozenset()'}
_RECURSIVE = {list: '[...]', tuple: '(...)', dict: '{...}', set: 'set(...)', frozenset: 'frozenset(...)'}


# --------------------------------------------------------------------------------------------
# Output

class _Output:
    """The JSON-lines record stream, on a private copy of the original stdout descriptor.

    fd 1 itself is pointed at /dev/null, so nothing the program does (print, os.write(1, ...),
    a subprocess) can reach the record stream.
    """

    def __init__(self):
        sys.stdout.flush()
        self._fd = os.dup(1)
        self._file = os.fdopen(self._fd, 'wb', buffering=1 << 20)
        self.pid = os.getpid()
        self.writing = False      # a record is being written (see Tracer.on_alarm)
        self.muted = False        # in a child forked by the program: write nothing

    def write(self, record):
        if self.muted:
            return
        # ensure_ascii: reprs may hold lone surrogates, which UTF-8 cannot encode.
        line = json.dumps(record, ensure_ascii=True, separators=(',', ':')) + '\n'
        self.writing = True
        try:
            self._file.write(line.encode('ascii'))
        finally:
            self.writing = False

    def close(self):
        if self.muted:
            return
        try:
            self._file.flush()
        except OSError:
            pass  # the reader is gone; nothing left to tell it


class _NullRaw(io.RawIOBase):
    """A byte sink: the program's stdout and stderr go nowhere."""

    def writable(self):
        return True

    def write(self, b):
        return len(memoryview(b))


def _isolate_program_io():
    """Gives the program an empty stdin and discarding stdout/stderr, at both the Python and fd level."""
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.close(devnull)
    sys.stdin = io.StringIO('')
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(_NullRaw()), encoding='utf-8', line_buffering=True)
    sys.stderr = io.TextIOWrapper(io.BufferedWriter(_NullRaw()), encoding='utf-8', errors='backslashreplace',
                                  line_buffering=True)


# --------------------------------------------------------------------------------------------
# Reprs

class Reprs:
    """repr() capped at max_repr characters, without paying for the whole repr of huge values.

    The five built-in container types are rendered element by element and stop once past the
    cap (the kept prefix is exactly the built-in repr's prefix); other containers longer than
    10,000 go through reprlib; long str/bytes are repr'd from a prefix.
    """

    def __init__(self, max_repr):
        self.max = max(1, max_repr)
        limit = self.max + 1
        self._reprlib = reprlib.Repr()
        self._reprlib.maxlevel = 6
        for attr in ('maxtuple', 'maxlist', 'maxarray', 'maxdict', 'maxset', 'maxfrozenset', 'maxdeque',
                     'maxstring', 'maxlong', 'maxother'):
            setattr(self._reprlib, attr, limit)

    def __call__(self, obj):
        try:
            text = self._render(obj, self.max, set())
        except BaseException as e:  # noqa: B036 - a __repr__ may raise anything, SystemExit included
            if isinstance(e, MemoryError):
                raise
            return f'<repr failed: {type(e).__name__}>'
        if not isinstance(text, str):
            return '<repr failed: TypeError>'
        if len(text) > self.max:
            text = text[:self.max - 1] + '…'
        return text

    def _render(self, obj, budget, active):
        t = type(obj)
        if t in _EMPTY:
            return self._container(obj, t, budget, active)
        if t is str or t is bytes:
            return self._text(obj)
        if _sized_over(obj, _BIG_LEN):
            return self._reprlib.repr(obj)
        return repr(obj)

    def _text(self, s):
        if len(s) <= 4 * self.max + 16:
            return repr(s)
        head = s[:self.max + 1]
        # repr picks its quote from the whole string; only reuse the head's repr if it agrees.
        sq, dq = ("'", '"') if isinstance(s, str) else (b"'", b'"')
        if (sq in s and dq not in s) == (sq in head and dq not in head):
            return repr(head)
        return repr(s)

    def _container(self, obj, t, budget, active):
        n = len(obj)
        if n == 0:
            return _EMPTY[t]
        # Fast path, the C repr of a head of the container: every element adds at least 3
        # characters (every item 6), so the head's repr is past the cap or is the whole repr.
        # Only for heads of small scalars, whose repr costs little.
        if t is list or t is tuple:
            head = obj[:budget // 3 + 2]
            if _all_small(head):
                return repr(head)
        elif t is dict:
            head = obj if n <= budget // 6 + 2 else dict(itertools.islice(obj.items(), budget // 6 + 2))
            if _all_small(head.keys()) and _all_small(head.values()):
                return repr(head)
        elif n <= _SMALL_LEN and _all_small(obj):  # a set's order is its own: no head
            return repr(obj)
        if id(obj) in active:
            return _RECURSIVE[t]
        active.add(id(obj))
        try:
            opening = 'frozenset({' if t is frozenset else '{' if t is dict or t is set else '(' if t is tuple else '['
            parts = []
            used = len(opening) - 2  # the length of opening + ', '.join(parts), once parts is not empty
            for item in (obj.items() if t is dict else obj):
                used += 2
                if t is dict:
                    key = self._render(item[0], budget - used, active)
                    part = key + ': ' + self._render(item[1], budget - used - len(key) - 2, active)
                else:
                    part = self._render(item, budget - used, active)
                parts.append(part)
                used += len(part)
                if used > budget:
                    # Past the cap: the rest would be cut anyway.
                    return opening + ', '.join(parts)
        finally:
            active.discard(id(obj))
        body = ', '.join(parts)
        if t is tuple:
            return '(' + body + (',)' if n == 1 else ')')
        if t is list:
            return '[' + body + ']'
        return opening + body + ('})' if t is frozenset else '}')


_SCALARS = frozenset({int, float, bool, type(None)})
_TEXTS_AND_SCALARS = _SCALARS | {str, bytes}


def _all_small(values):
    """Only numbers, None and short strings: the built-in repr is cheap and cannot run user code."""
    kinds = set(map(type, values))
    if kinds <= _SCALARS:
        return True
    return kinds <= _TEXTS_AND_SCALARS and all(len(x) <= 256 for x in values if type(x) in (str, bytes))


def _sized_over(obj, n):
    try:
        return hasattr(type(obj), '__len__') and len(obj) > n
    except BaseException:  # noqa: B036 - a broken __len__ is the repr's problem, not ours
        return False


# --------------------------------------------------------------------------------------------
# Scope: which function definitions a run touched

class Scope:
    """Maps source lines to the innermost enclosing `def` (decorators included), as line ranges."""

    def __init__(self, tree):
        self._defs = []   # (start, end) of every function definition
        self._stmts = []  # (start, end) of every statement, for lines outside any def
        for node in ast.walk(tree):
            if isinstance(node, ast.stmt) and node.end_lineno is not None:
                start = min([node.lineno] + [d.lineno for d in getattr(node, 'decorator_list', ())])
                (self._defs if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else self._stmts).append(
                    (start, node.end_lineno))

    def ranges(self, lines):
        found = set()
        for line in lines:
            span = _innermost(self._defs, line) or _innermost(self._stmts, line)
            if span:
                found.add(span)
        merged = []
        for start, end in sorted(found):
            if merged and start <= merged[-1][1] + 1:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        return merged


def _innermost(spans, line):
    best = None
    for start, end in spans:
        if start <= line <= end and (best is None or end - start < best[1] - best[0]):
            best = (start, end)
    return best


# --------------------------------------------------------------------------------------------
# Setup: source, arguments, module

class StartError(Exception):
    """The run cannot start: becomes a single `error` record."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


def _read_source(path):
    try:
        with open(path, 'rb') as f:
            data = f.read()
    except OSError as e:
        raise StartError('internal', f'cannot read {path}: {e.strerror or e}')
    try:
        tree = ast.parse(data, filename=path)
        code = compile(tree, path, 'exec', dont_inherit=True)
    except SyntaxError as e:
        where = f' at line {e.lineno}' if e.lineno else ''
        raise StartError('syntax', f'{type(e).__name__}{where}: {e.msg}')
    except ValueError as e:  # e.g. "source code string cannot contain null bytes"
        raise StartError('syntax', f'SyntaxError: {e}')
    except (RecursionError, MemoryError):
        raise StartError('syntax', 'SyntaxError: the program is too deeply nested to compile')
    return tree, code


def parse_args(text):
    """`'a', [1], k=2` -> (args, kwargs). Only Python literals are accepted: nothing is executed."""
    if not text.strip():
        return (), {}
    try:
        call = ast.parse(f'f({text}\n)', mode='eval').body
    except SyntaxError as e:
        raise StartError('bad_args', f'the arguments are not valid Python call arguments: {e.msg}')
    except (ValueError, RecursionError, MemoryError) as e:
        raise StartError('bad_args', f'the arguments cannot be parsed: {type(e).__name__}')
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == 'f'):
        raise StartError('bad_args', 'the arguments are not a plain argument list')

    def literal(node, what):
        if isinstance(node, ast.Starred):
            raise StartError('bad_args', f'{what} uses * unpacking; give plain literals')
        try:
            return ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise StartError('bad_args', f'{what} is not a Python literal: {_source_of(node)}')

    args = tuple(literal(a, f'argument {i + 1}') for i, a in enumerate(call.args))
    kwargs = {}
    for kw in call.keywords:
        if kw.arg is None:
            raise StartError('bad_args', 'the arguments use ** unpacking; give plain literals')
        kwargs[kw.arg] = literal(kw.value, f'argument {kw.arg}=')
    return args, kwargs


def _source_of(node):
    try:
        text = ast.unparse(node)
    except Exception:  # noqa: BLE001
        return '?'
    return text if len(text) <= 80 else text[:79] + '…'


def _package_of(path):
    """(package name, import root) when FILE sits in a package (directories with __init__.py)."""
    directory = os.path.dirname(path)
    parts = []
    while os.path.isfile(os.path.join(directory, '__init__.py')) and os.path.basename(directory).isidentifier():
        parts.insert(0, os.path.basename(directory))
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return ('.'.join(parts), directory) if parts else (None, None)


_replaced = []


def make_module(path, name):
    """A fresh module for FILE, registered in sys.modules, with sys.path set up for its imports.

    The file is always executed afresh rather than imported with importlib: importlib would
    return an already loaded copy when there is one (the tracer itself loads json, re, ...),
    skipping the top level and sharing state. Relative imports still work because
    `__package__` names the enclosing package, whose root is put on sys.path.
    """
    package, root = _package_of(path)
    # For a package module, the package root goes on sys.path, not the package directory,
    # whose modules could shadow the standard library (asyncio/subprocess.py, ...).
    search_dir = root if package else os.path.dirname(path)
    if search_dir not in sys.path:
        sys.path.insert(0, search_dir)
    module = types.ModuleType(name)
    _replaced.append(sys.modules.get(name))  # e.g. the tracer's own __main__: keep it alive
    module.__file__ = path
    module.__package__ = package or ''
    module.__spec__ = None
    module.__loader__ = None
    module.__builtins__ = __builtins__
    sys.modules[name] = module
    sys.argv = [path]
    return module


# --------------------------------------------------------------------------------------------
# Tracing

class Tracer:
    def __init__(self, opts, out, path, scope):
        self.out = out
        self.path = path
        self.scope = scope
        self.max_events = max(0, opts.max_events)
        self.deadline = time.monotonic() + opts.timeout
        self.timeout = opts.timeout
        self.memory_mb = opts.memory_mb
        self.repr = Reprs(opts.max_repr)
        self.events = 0
        self.lines = set()        # every line that appeared in an event (for scope)
        self.phase = 'setup'      # setup -> import -> trace
        self.done = False         # the entry frame has returned: ignore the rest
        self.lost = False         # tracing broke down before the end (see local_trace)
        self.hook = self.global_trace  # one bound method, so sys.gettrace() can be compared with `is`
        self.pending_timeout = False
        self.finishing = False
        # Freed on MemoryError, so that there is room left to report it.
        self.ballast = bytearray(1 << 20)
        self.forked = False
        self._is_target = {}      # co_filename -> is it FILE?
        self._real = os.path.realpath(path)

    # -- ending ----------------------------------------------------------------------------------

    def finish(self, record, status=0):
        """Writes the last record and leaves at once: the program gets no chance to intervene."""
        sys.settrace(None)
        if self.finishing:
            return  # the alarm went off while the last record was being flushed
        self.finishing = True
        signal.setitimer(signal.ITIMER_REAL, 0)
        if self.forked:
            os._exit(0)
        if record.get('type') == 'exit' and self.scope is not None:
            record['scope'] = self.scope.ranges(self.lines)
        try:
            self.out.write(record)
        finally:
            self.out.close()
            os._exit(status)

    def finish_exit(self, kind, value=None, reason=None):
        record = {'type': 'exit', 'exit': kind}
        if value is not None:
            record['value'] = value
        if reason is not None:
            record['reason'] = reason
        self.finish(record)

    def finish_error(self, kind, message):
        self.finish({'type': 'error', 'kind': kind, 'message': _one_line(message)}, 2)

    def memory_error(self):
        self.ballast = None
        self.finish_error('memory', f'the program exceeded the memory limit of {self.memory_mb} MB')

    def forget(self):
        """In a child process forked by the program: the parent alone traces and reports."""
        sys.settrace(None)
        self.done = True
        self.forked = True
        self.out.muted = True
        # Let go of the parent's pipes (the record stream and stderr): a child left running
        # must not keep the reader waiting for their end.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self.out._fd)
            os.dup2(devnull, 2)
            os.close(devnull)
        except OSError:
            pass

    def on_alarm(self, signum, frame):
        # Reached when the program blocks (time.sleep, input on a pipe, a lock): no events come.
        if self.out.writing:
            self.pending_timeout = True  # finish right after the record being written
            return
        self.timed_out()

    def timed_out(self):
        if self.phase == 'import':
            self.finish_error('import', f"the module's top level did not finish within {self.timeout:g} s")
        self.finish_exit('never', reason='timeout')

    # -- the trace functions ---------------------------------------------------------------------

    def is_target(self, filename):
        hit = self._is_target.get(filename)
        if hit is None:
            hit = filename == self.path or (
                not filename.startswith('<') and os.path.realpath(filename) == self._real)
            self._is_target[filename] = hit
        return hit

    def global_trace(self, frame, event, arg):
        """Installed with sys.settrace: sees the `call` of every new frame, keeps FILE's."""
        if self.done or not self.is_target(frame.f_code.co_filename):
            return None
        self.local_trace(frame, event, arg)
        return self.local_trace

    def local_trace(self, frame, event, arg):
        if self.done:
            return None
        # A trace function that raises is removed by CPython (tracing stops for good), so
        # nothing may escape from here.
        try:
            self.record(frame, event, arg)
        except MemoryError:
            self.memory_error()
        except RecursionError:
            # The program is a few frames from the recursion limit and the tracer's own frames
            # went over it. Stop here rather than leave a hole in the trace: the events so far
            # are a consistent prefix. (Entering this function can fail the same way; CPython
            # then removes the trace function itself: see _call_traced.)
            self.lost = True
            self.done = True
            return None
        except BaseException as e:  # noqa: B036
            self.finish_error('internal', f'the tracer failed: {e!r}')
        return self.local_trace

    def record(self, frame, event, arg):
        if self.events >= self.max_events:
            self.finish_exit('never', reason='max_events')
        if time.monotonic() > self.deadline:
            self.finish_exit('never', reason='timeout')

        # The traced frames on the stack, innermost first. Untraced frames in between (library
        # code calling back into FILE) are skipped, so they add no depth.
        chain = []
        f = frame
        while f is not None:
            if self.is_target(f.f_code.co_filename):
                chain.append(f)
            f = f.f_back
        stack = []
        for f in reversed(chain):
            line = _line_of(f)
            stack.append({'function': f.f_code.co_name, 'line': line})
            self.lines.add(line)
        line = stack[-1]['line']

        rec = {
            'type': 'event',
            'event': event,
            'depth': len(chain) - 1,
            'function': frame.f_code.co_name,
            'line': line,
            'stack': stack,
            'locals': self.locals_of(frame),
        }
        if event == 'return':
            rec['value'] = self.repr(arg)
        elif event == 'exception':
            rec['value'] = self.repr(arg[1])
        self.out.write(rec)
        self.events += 1
        if self.pending_timeout:
            self.timed_out()
        if event == 'return' and len(chain) == 1 and not frame.f_code.co_flags & _RESUMABLE:
            # The entry frame (or the module) is done. What runs next is teardown: finalizers
            # of its locals (e.g. closing an unfinished generator) would otherwise show up as
            # depth-0 calls after the entry's return.
            self.done = True

    def locals_of(self, frame):
        namespace = not frame.f_code.co_flags & _CO_OPTIMIZED
        result = {}
        # A copy: a __repr__ may assign globals while the module's namespace is being walked.
        for name, value in list(frame.f_locals.items()):
            # `__x` are internals; `.0` is a comprehension's hidden iterator argument.
            if not isinstance(name, str) or name.startswith('__') or not name.isidentifier():
                continue
            if isinstance(value, types.ModuleType):
                continue
            # Module and class bodies: keep the data, not the definitions and imports.
            if namespace and isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType)):
                continue
            result[name] = self.repr(value)
        return result


def _line_of(frame):
    # 3.11 reports line 0 for a module's `call` event (its RESUME instruction has no line).
    line = frame.f_lineno
    return line if isinstance(line, int) and line > 0 else frame.f_code.co_firstlineno


def _one_line(text):
    return ' '.join(str(text).split())


def _where_in(tb, path):
    """' at line N' for the deepest traceback entry in FILE."""
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == path:
            line = tb.tb_lineno
        tb = tb.tb_next
    return f' at line {line}' if line else ''


# --------------------------------------------------------------------------------------------
# Main

class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise StartError('internal', f'bad tracer command line: {message}')


def _options(argv):
    p = _Parser(prog='tracer.py', description=__doc__.split('\n\n')[0])
    p.add_argument('file')
    p.add_argument('--entry')
    p.add_argument('--args', default='')
    p.add_argument('--max-events', type=int, default=10_000)
    p.add_argument('--timeout', type=float, default=5.0)
    p.add_argument('--max-repr', type=int, default=1000)
    p.add_argument('--memory-mb', type=int, default=512)
    p.add_argument('--sandbox', action='store_true')
    return p.parse_args(argv)


def _limit_resources(opts):
    # Hard limits (soft and hard alike where the soft one is the limit): the program cannot
    # raise them again, and only a process with CAP_SYS_RESOURCE could.
    # CPU time backstop for code stuck in C (sum(range(10**12)), a huge regex) where neither
    # events nor the SIGALRM handler run: the kernel then ends the process with SIGXCPU, and
    # with SIGKILL a second later if the program ignores that.
    cpu = int(math.ceil(opts.timeout)) + 2
    _cap(resource.RLIMIT_CPU, cpu, cpu + 1)
    if opts.memory_mb > 0:
        limit = opts.memory_mb * 1024 * 1024
        _cap(resource.RLIMIT_AS, limit, limit)
    if opts.sandbox:
        # Verify mode: few processes, small files, no core dumps, a bounded number of files.
        _cap(resource.RLIMIT_NPROC, _SANDBOX_NPROC, _SANDBOX_NPROC)
        _cap(resource.RLIMIT_FSIZE, _SANDBOX_FSIZE, _SANDBOX_FSIZE)
        _cap(resource.RLIMIT_CORE, 0, 0)
        _cap(resource.RLIMIT_NOFILE, _SANDBOX_NOFILE, _SANDBOX_NOFILE)


_SANDBOX_NPROC = 16
_SANDBOX_FSIZE = 16 << 20
_SANDBOX_NOFILE = 256


def _cap(which, soft, hard):
    """Lowers a limit to (soft, hard), never above what is already there."""
    old_soft, old_hard = resource.getrlimit(which)
    if old_hard != resource.RLIM_INFINITY:
        hard = min(hard, old_hard)
    soft = min(soft, hard)
    resource.setrlimit(which, (soft, hard))


def main(argv):
    out = _Output()
    tracer = None
    try:
        opts = _options(argv)
        path = os.path.abspath(opts.file)
        tree, code = _read_source(path)
        args, kwargs = parse_args(opts.args)
        tracer = Tracer(opts, out, path, Scope(tree) if opts.entry else None)
    except StartError as e:
        out.write({'type': 'error', 'kind': e.kind, 'message': _one_line(e)})
        out.close()
        return 2
    except Exception as e:  # noqa: BLE001 - a tracer bug: still answer with a record
        out.write({'type': 'error', 'kind': 'internal', 'message': _one_line(f'the tracer failed: {e!r}')})
        out.close()
        return 2

    os.register_at_fork(after_in_child=tracer.forget)
    _isolate_program_io()
    signal.signal(signal.SIGALRM, tracer.on_alarm)
    signal.setitimer(signal.ITIMER_REAL, max(0.001, opts.timeout))
    _limit_resources(opts)
    try:
        if opts.entry:
            run_entry(tracer, path, code, opts.entry, args, kwargs)
        else:
            run_module(tracer, path, code)
    except MemoryError:
        tracer.memory_error()
    except BaseException as e:  # noqa: B036
        tracer.finish_error('internal', f'the tracer failed: {e!r}')
    return 0  # not reached: finish() leaves the process


def run_module(tracer, path, code):
    # Traced as a script: `if __name__ == '__main__':` blocks run.
    module = make_module(path, '__main__')
    tracer.phase = 'trace'
    _call_traced(tracer, exec, (code, module.__dict__), {}, result_repr=False)


def run_entry(tracer, path, code, entry, args, kwargs):
    module = make_module(path, '__ndb_main__')
    tracer.phase = 'import'
    try:
        exec(code, module.__dict__)
    except MemoryError:
        raise
    except BaseException as e:  # noqa: B036 - SystemExit at import time is an import failure too
        tracer.finish_error('import', f"the module's top level raised {tracer.repr(e)}{_where_in(e.__traceback__, path)}")
    func = _lookup(module, entry)
    if func is None or not callable(func):
        defined = [name for name, value in vars(module).items()
                   if isinstance(value, types.FunctionType) and tracer.is_target(value.__code__.co_filename)]
        what = f"no function named '{entry}'" if func is None else f"'{entry}' is not a function"
        tracer.finish_error('missing_entry', f"{what} in {path}; functions defined: {', '.join(defined) or 'none'}")
    tracer.phase = 'trace'
    _call_traced(tracer, func, args, kwargs, result_repr=True)


def _lookup(module, dotted):
    obj = module
    for part in dotted.split('.'):
        obj = getattr(obj, part, None) if part.isidentifier() else None
        if obj is None:
            return None
    return obj


def _call_traced(tracer, func, args, kwargs, result_repr):
    error = None
    installed = None
    sys.settrace(tracer.hook)
    try:
        result = func(*args, **kwargs)
    except MemoryError:
        sys.settrace(None)
        tracer.memory_error()
    except BaseException as e:  # noqa: B036 - SystemExit, KeyboardInterrupt: the program's exit too
        error = e
    finally:
        installed = sys.gettrace()
        sys.settrace(None)
    # The trace function is gone when the program called sys.settrace itself or when CPython
    # removed it (it raised RecursionError at the recursion limit): the exit is right but
    # events are missing from some point on.
    reason = 'trace_lost' if tracer.lost or installed is not tracer.hook else None
    if error is not None:
        tracer.finish_exit('error', value=tracer.repr(error), reason=reason)
    tracer.finish_exit('normal', value=tracer.repr(result) if result_repr else 'None', reason=reason)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
