#!/usr/bin/env python3
"""Real Python for ndb's evaluation rows (CruxEval format: `code` defines `f`, `input` is the
argument list, `output` a Python expression). One JSON request a line on stdin, one JSON
answer a line on stdout, in the same order:

    {"op": "run", "code": C, "input": I}
        -> {"ok": true, "output": repr(f(I))}
    {"op": "check", "code": C, "input": I, "output": O}
        -> {"ok": true, "passed": f(I) == O}        CruxEval's assertion, O evaluated as Python
    {"op": "inspect", "code": C, "input": I}
        -> {"ok": true, "params": [[name, kind], ...], "returns": [line, ...], "last": line,
            "args": [source, ...]}
           f's parameters (kind: positional, var_positional, keyword, var_keyword), the lines
           of its own return statements, its last line, and the source of each positional
           argument in I. Nothing runs: this reads the syntax trees.
    any op that fails -> {"ok": false, "error": "TypeName: message"}

`run` and `check` execute each row in a child forked from this process before it has run
any row: every row sees a fresh interpreter state (no module, global or cache left over from
another row) without paying a Python start-up per row. The child's output goes to
/dev/null, its memory is capped, and it is killed after --timeout seconds.
"""
import argparse
import ast
import json
import os
import resource
import select
import signal
import sys
import time

MEMORY_BYTES = 512 * 1024 * 1024  # the tracer's default limit


def _error(e):
    text = f'{type(e).__name__}: {e}' if str(e) else type(e).__name__
    return {'ok': False, 'error': text.splitlines()[0][:300]}


def _namespace(code):
    ns = {'__name__': '__ndb_eval__'}
    exec(compile(code, '<row>', 'exec'), ns)
    return ns


def _run(req):
    ns = _namespace(req['code'])
    return {'output': repr(eval(f"f({req['input']})", ns))}


def _check(req):
    ns = _namespace(req['code'])
    actual = eval(f"f({req['input']})", ns)
    return {'passed': bool(actual == eval(req['output'], ns))}


def _in_child(work, req, timeout):
    """work(req) in a forked child: its answer, or an error for a crash, a timeout or memory."""
    sys.stdout.flush()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
            answer = {'ok': True, **work(req)}
        except BaseException as e:  # the row's own exceptions, SystemExit and MemoryError included
            answer = _error(e)
        data = json.dumps(answer).encode()
        while data:
            data = data[os.write(w, data):]
        os._exit(0)
    os.close(w)
    chunks = []
    deadline = time.monotonic() + timeout
    timed_out = False
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([r], [], [], left)[0]:
            timed_out = True
            break
        chunk = os.read(r, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(r)
    if timed_out:
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    if timed_out:
        return {'ok': False, 'error': f'timeout after {timeout:g} s'}
    try:
        return json.loads(b''.join(chunks))
    except ValueError:
        return {'ok': False, 'error': 'the row ended without an answer (killed?)'}


def _own_nodes(fn):
    """The nodes of fn's body, not those of nested functions, lambdas or classes."""
    stack = list(fn.body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))


def _inspect(req):
    tree = ast.parse(req['code'])
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == 'f'), None)
    if fn is None:
        raise ValueError('no top-level function f')
    a = fn.args
    params = [[p.arg, 'positional'] for p in a.posonlyargs + a.args]
    if a.vararg:
        params.append([a.vararg.arg, 'var_positional'])
    params += [[p.arg, 'keyword'] for p in a.kwonlyargs]
    if a.kwarg:
        params.append([a.kwarg.arg, 'var_keyword'])
    returns = sorted({n.lineno for n in _own_nodes(fn) if isinstance(n, ast.Return)})
    call_text = f"f({req['input']})"
    call = ast.parse(call_text, mode='eval').body
    args = [ast.get_source_segment(call_text, arg) for arg in call.args]
    return {'params': params, 'returns': returns, 'last': fn.end_lineno, 'args': args}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--timeout', type=float, default=5.0, help='seconds per executed row')
    opts = ap.parse_args()
    for line in sys.stdin:
        req = json.loads(line)
        op = req.get('op')
        if op == 'run':
            answer = _in_child(_run, req, opts.timeout)
        elif op == 'check':
            answer = _in_child(_check, req, opts.timeout)
        elif op == 'inspect':
            try:
                answer = {'ok': True, **_inspect(req)}
            except Exception as e:
                answer = _error(e)
        else:
            answer = {'ok': False, 'error': f'unknown op {op!r}'}
        sys.stdout.write(json.dumps(answer) + '\n')
        sys.stdout.flush()


if __name__ == '__main__':
    main()
