"""Samples real calls of pure-Python functions, with literal arguments: the standard library's
(the `stdlib` corpus) and Debian's Python packages' (the `packages` corpus).

stdlib: for each target module, run its unit tests from the standard test suite (Debian:
libpython3.11-testsuite) under sys.setprofile and record the calls of the module's top-level
functions whose every argument is a Python literal (its repr reads back through
ast.literal_eval to an equal value). packages: the same, with the examples of the module's
own docstrings (doctest) as its tests, since Debian ships packages without their test suites.
Then replay each sampled call standalone, twice, in fresh processes (another hash seed,
another working folder, the reverse order) and keep only the calls that return, within a
second, the same result both times.

Regenerate the committed samples (each about half a minute on two cores) with, from the
repository root:
    /usr/bin/python3 data-pipeline/corpora/sample_stdlib_calls.py > data-pipeline/corpora/stdlib-calls.jsonl
    /usr/bin/python3 data-pipeline/corpora/sample_stdlib_calls.py --corpus packages > data-pipeline/corpora/packages-calls.jsonl
(packages needs the Debian packages named in PACKAGE_TARGETS installed). The `heldout` corpus
(HELDOUT_TARGETS) samples the evaluation's library calls, which no build trains on:
    /usr/bin/python3 data-pipeline/corpora/sample_stdlib_calls.py --corpus heldout > evaluation/heldout-modules-calls.jsonl
(the Debian packages named in HELDOUT_TARGETS installed). It writes JSON Lines {module, path,
function, args}; progress and totals go to stderr.
"""

import argparse
import ast
import doctest
import gc
import hashlib
import importlib
import inspect
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from concurrent.futures import ThreadPoolExecutor

# Test module -> the modules whose functions it exercises -> functions to leave out, mostly
# because their results depend on the file system, the environment or the working folder.
TARGETS = {
    'test.test_ast': {'ast': set()},
    'test.test_base64': {'base64': set()},
    'test.test_calendar': {'calendar': set()},
    'test.test_codecs': {'encodings.idna': set(), 'encodings.punycode': set()},
    'test.test_colorsys': {'colorsys': set()},
    # The deep copiers' `memo` argument maps id()s of the test's objects: not replayable data.
    'test.test_copy': {'copy': {'deepcopy', '_deepcopy_atomic', '_deepcopy_list', '_deepcopy_tuple',
                                '_deepcopy_dict', '_deepcopy_method', '_keep_alive', '_reconstruct'}},
    'test.test_difflib': {'difflib': set()},
    'test.test_email': {
        'email.utils': {'localtime', 'make_msgid', 'formatdate'},
        'email._parseaddr': set(),
        'email._header_value_parser': set(),
        'email.quoprimime': set(),
        'email.base64mime': set(),
        'email.header': set(),
        'email._encoded_words': set(),
    },
    'test.test_fnmatch': {'fnmatch': set()},
    'test.test_genericpath': {
        'genericpath': {'exists', 'isfile', 'isdir', 'getsize', 'getmtime', 'getatime',
                        'getctime', 'samefile', 'sameopenfile', 'samestat'},
    },
    'test.test_gettext': {'gettext': {'find', 'translation', 'install', 'bindtextdomain',
                                      'textdomain', 'dgettext', 'dngettext', 'dpgettext',
                                      'dnpgettext', 'gettext', 'ngettext', 'pgettext',
                                      'npgettext'}},
    'test.test_heapq': {'heapq': set()},
    'test.test_html': {'html': set()},
    'test.test_http_cookies': {'http.cookies': set()},
    'test.test_ipaddress': {'ipaddress': set()},
    'test.test_json': {'json': {'load', 'dump'}, 'json.encoder': set(), 'json.decoder': set()},
    'test.test_ntpath': {
        'ntpath': {'abspath', 'realpath', 'relpath', 'expanduser', 'expandvars', 'exists',
                   'lexists', 'isdir', 'isfile', 'islink', 'isjunction', 'ismount',
                   'samefile', 'sameopenfile', 'samestat', '_abspath_fallback',
                   '_getfinalpathname_nonstrict'},
    },
    'test.test_plistlib': {'plistlib': {'load', 'dump'}},
    'test.test_posixpath': {
        'posixpath': {'abspath', 'realpath', 'relpath', 'expanduser', 'expandvars', 'exists',
                      'lexists', 'isdir', 'isfile', 'islink', 'ismount', 'samefile',
                      'sameopenfile', 'samestat', '_joinrealpath'},
    },
    'test.test_pprint': {'pprint': {'pprint', 'pp'}},
    'test.test_quopri': {'quopri': {'encode', 'decode'}},
    'test.test_re': {'re': {'purge'}, 're._parser': set()},
    'test.test_shlex': {'shlex': set()},
    'test.test_statistics': {'statistics': set()},
    'test.test_string': {'string': set()},
    'test.test_stringprep': {'stringprep': set()},
    'test.test_textwrap': {'textwrap': set()},
    'test.test_urlparse': {'urllib.parse': set()},
}

# Debian packages (apt: python3-boltons python3-inflection python3-toolz python3-more-itertools
# python3-natsort python3-humanize): `doctest:MODULE` runs the module's docstring examples.
# Left out: functions whose results depend on the clock, the environment or the file system.
PACKAGE_TARGETS = {
    'doctest:boltons.strutils': {'boltons.strutils': set()},
    'doctest:boltons.iterutils': {'boltons.iterutils': set()},
    'doctest:boltons.mathutils': {'boltons.mathutils': set()},
    'doctest:boltons.statsutils': {'boltons.statsutils': set()},
    'doctest:boltons.formatutils': {'boltons.formatutils': set()},
    'doctest:boltons.urlutils': {'boltons.urlutils': set()},
    'doctest:boltons.timeutils': {'boltons.timeutils': {'isoparse', 'total_seconds', 'dt_to_timestamp'}},
    'doctest:inflection': {'inflection': set()},
    'doctest:toolz.itertoolz': {'toolz.itertoolz': set()},
    'doctest:toolz.dicttoolz': {'toolz.dicttoolz': set()},
    'doctest:more_itertools.more': {'more_itertools.more': set()},
    'doctest:more_itertools.recipes': {'more_itertools.recipes': set()},
    'doctest:natsort.natsort': {'natsort.natsort': set()},
    'doctest:humanize.number': {'humanize.number': set()},
}
# The `heldout` calls (evaluation/heldout-modules-calls.jsonl) are for evaluation only: no
# corpus loads them, so no build trains on them. Modules that neither corpus above samples:
# Debian's python3-semver, python3-parse, python3-tabulate, python3-validators, and two
# pure-Python modules of the standard library with their own tests.
HELDOUT_TARGETS = {
    'doctest:semver': {'semver': set()},
    'doctest:parse': {'parse': set()},
    'doctest:tabulate': {'tabulate': set()},
    'doctest:validators.ip_address': {'validators.ip_address': set()},
    'doctest:validators.domain': {'validators.domain': set()},
    'doctest:validators.email': {'validators.email': set()},
    'doctest:validators.url': {'validators.url': set()},
    'test.test_getopt': {'getopt': set()},
    # getlocale and setlocale read or change the process's locale.
    'test.test_locale': {'locale': {'getlocale', 'setlocale', 'getdefaultlocale', 'getpreferredencoding', 'getencoding', 'resetlocale'}},
}
CORPORA = {'stdlib': TARGETS, 'packages': PACKAGE_TARGETS, 'heldout': HELDOUT_TARGETS}
ALL_TARGETS = {**TARGETS, **PACKAGE_TARGETS, **HELDOUT_TARGETS}

MAX_ARGS_CHARS = 300            # an argument list, as source, is shorter
MAX_SEEN_PER_FUNCTION = 1000    # distinct argument lists remembered per function while sampling
CANDIDATES_PER_FUNCTION = 40    # replayed per function (some fail), of which ...
CALLS_PER_FUNCTION = 20         # ... this many are kept,
CALLS_PER_MODULE = 200          # and at most this many per module.
CALL_TIME_LIMIT_S = 1.0         # a replayed call that runs longer is dropped
TEST_BUDGET_S = 150             # per test module: no test starts after this ...
SAMPLE_TIMEOUT_S = 300          # ... and a test module stuck in one test is killed.

# The tests' scratch files are named by process id (test.support's TESTFN), temporary folders
# at random (the sampler's working folder is one too): calls that name them differ every run.
SCRATCH_NAME = re.compile(r'@test_\d+_tmp|tmp[a-z0-9_]{8}')

# Calling a generator or coroutine function runs none of its body.
NOT_PLAIN = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


def log(message):
    print(message, file=sys.stderr, flush=True)


def silence_output():
    """Points fds 1 and 2 (tests print, and start subprocesses) at /dev/null; returns the old stdout."""
    real_stdout = os.fdopen(os.dup(1), 'w')
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    return real_stdout


def literal_repr(value):
    """The value's repr when it reads back as an equal literal of the same repr, else None."""
    try:
        text = repr(value)
        if len(text) >= MAX_ARGS_CHARS:
            return None
        back = ast.literal_eval(text)
        return text if back == value and repr(back) == text else None
    except Exception:
        return None


def call_source(signature, values):
    """The argument list that makes this call, as literal source, or None.

    Arguments left at their default are dropped where the call allows it (keyword-only ones,
    and a trailing run of positional ones), so calls read like the ones people write."""
    positional, keywords = [], []
    for param in signature.parameters.values():
        if param.name not in values:
            return None
        value = values[param.name]
        if param.kind is param.VAR_POSITIONAL:
            positional.extend((None, item) for item in value)
        elif param.kind is param.VAR_KEYWORD:
            keywords.extend(value.items())
        elif param.kind is param.KEYWORD_ONLY:
            if value is not param.default:
                keywords.append((param.name, value))
        else:
            positional.append((param, value))
    while positional and positional[-1][0] is not None and positional[-1][1] is positional[-1][0].default:
        positional.pop()
    parts = [literal_repr(value) for _, value in positional]
    for name, value in keywords:
        text = literal_repr(value)
        parts.append(None if text is None or not name.isidentifier() else f'{name}={text}')
    if None in parts:
        return None
    source = ', '.join(parts)
    return source if source and len(source) < MAX_ARGS_CHARS else None


def sample(test_name, module_names):
    """Runs one test module under a profiler; returns {module: {path, functions: {name: [args]}}}."""
    real_stdout = silence_output()
    if not test_name.startswith('doctest:'):
        from test import support
        support.use_resources = []  # like regrtest's default: no network, no slow 'cpu' tests
    random.seed(0)  # tests that draw data from the shared generator then sample the same calls

    targets = {}  # file -> module
    for name in module_names:
        module = importlib.import_module(name)
        targets[module.__file__] = module
    skipped = ALL_TARGETS[test_name]
    entries = {}  # code object -> (module name, function name, signature), or None
    seen = {name: {} for name in module_names}  # module -> function -> {args: None}

    def entry_of(code, module):
        """(module, function name, signature) when this code is a module-level function."""
        name = code.co_name
        if name.startswith('__') or name in skipped[module.__name__] or code.co_flags & NOT_PLAIN:
            return None
        try:
            own = inspect.unwrap(getattr(module, name)).__code__
        except (AttributeError, ValueError):
            return None
        # Tests also run fresh copies of a module (the pure-Python json, heapq without
        # _heapq): match by place, and take the signature from the copy that runs, since
        # the defaults (`_m=STRINGCHUNK.match`) are that copy's objects.
        if (own.co_filename, own.co_firstlineno) != (code.co_filename, code.co_firstlineno):
            return None
        running = next(f for f in gc.get_referrers(code) if inspect.isfunction(f) and f.__code__ is code)
        return module.__name__, name, inspect.signature(running)

    def profile(frame, event, arg):
        if event != 'call':
            return
        code = frame.f_code
        module = targets.get(code.co_filename)
        if module is None:
            return
        if code not in entries:
            entries[code] = entry_of(code, module)
        entry = entries[code]
        if entry is None:
            return
        module_name, function, signature = entry
        calls = seen[module_name].setdefault(function, {})
        if len(calls) < MAX_SEEN_PER_FUNCTION:
            source = call_source(signature, frame.f_locals)
            if source is not None and not SCRATCH_NAME.search(source):
                calls[source] = None

    class BudgetResult(unittest.TestResult):
        def __init__(self):
            super().__init__()
            self.deadline = time.monotonic() + TEST_BUDGET_S

        def startTest(self, test):
            if time.monotonic() > self.deadline:
                self.stop()
            super().startTest(test)

    if test_name.startswith('doctest:'):
        suite = doctest.DocTestSuite(importlib.import_module(test_name[len('doctest:'):]))
    else:
        suite = unittest.defaultTestLoader.loadTestsFromName(test_name)
    result = BudgetResult()
    sys.setprofile(profile)
    try:
        suite.run(result)
    finally:
        sys.setprofile(None)
    report = {
        module.__name__: {'path': path, 'functions': {function: list(calls)
                                                      for function, calls in seen[module.__name__].items() if calls}}
        for path, module in targets.items()
    }
    json.dump({'tests_run': result.testsRun, 'modules': report}, real_stdout)
    real_stdout.flush()


class CallTimeout(BaseException):
    """Raised by the alarm; a BaseException so that the called code's `except Exception` lets it by."""


def parse_args(source):
    call = ast.parse(f'f({source})', mode='eval').body
    args = [ast.literal_eval(node) for node in call.args]
    kwargs = {keyword.arg: ast.literal_eval(keyword.value) for keyword in call.keywords}
    return args, kwargs


def verify():
    """Replays the calls on stdin in order; one line per call: its result's digest, or null."""
    calls = json.load(sys.stdin)
    real_stdout = silence_output()

    def on_alarm(signum, frame):
        raise CallTimeout()

    signal.signal(signal.SIGALRM, on_alarm)
    for call in calls:
        digest = None
        try:
            function = getattr(importlib.import_module(call['module']), call['function'])
            args, kwargs = parse_args(call['args'])
            start = time.perf_counter()
            signal.setitimer(signal.ITIMER_REAL, CALL_TIME_LIMIT_S)
            try:
                result = function(*args, **kwargs)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            if time.perf_counter() - start <= CALL_TIME_LIMIT_S:
                digest = hashlib.sha256(repr(result).encode('utf-8', 'backslashreplace')).hexdigest()
        except BaseException:
            pass
        print(json.dumps(digest), file=real_stdout, flush=True)


def run_self(mode_args, stdin_text, timeout, env, cwd):
    """Runs this script in a child mode, in `cwd` (tests leave files there); returns (stdout, finished)."""
    try:
        # posixpath, ntpath and genericpath are frozen into 3.11: without this their code
        # objects name `<frozen posixpath>` rather than the module's file.
        command = [sys.executable, '-X', 'frozen_modules=off', __file__, *mode_args]
        done = subprocess.run(command, input=stdin_text,
                              capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd)
        return done.stdout, done.returncode == 0
    except subprocess.TimeoutExpired as expired:
        output = expired.stdout or ''
        return output.decode() if isinstance(output, bytes) else output, False


def sample_all(targets, workers):
    def one(item):
        test_name, modules = item
        start = time.monotonic()
        with tempfile.TemporaryDirectory() as scratch:
            output, finished = run_self(['--sample', test_name], None, SAMPLE_TIMEOUT_S, None, scratch)
        if not finished or not output:
            log(f'  {test_name}: failed or timed out after {time.monotonic() - start:.0f}s')
            return {}
        report = json.loads(output)
        counts = ', '.join(f'{name} {len(info["functions"])}' for name, info in report['modules'].items())
        log(f'  {test_name}: {report["tests_run"]} tests, {time.monotonic() - start:.0f}s; functions: {counts}')
        return report['modules']

    with ThreadPoolExecutor(workers) as pool:
        reports = list(pool.map(one, targets.items()))
    return {name: info for report in reports for name, info in report.items()}


def verify_pass(calls, env, cwd):
    """The result digest of each call (None: failed, slow or killed), replaying in batches;
    a batch that dies is resumed after the call it died in."""
    digests = [None] * len(calls)
    start = 0
    while start < len(calls):
        batch = calls[start:]
        output, _ = run_self(['--verify'], json.dumps(batch), 10 + 2 * len(batch), env, cwd)
        lines = output.splitlines()
        for offset, line in enumerate(lines):
            digests[start + offset] = json.loads(line)
        start += len(lines) + (len(lines) < len(batch))  # skip the call it died in
    return digests


def verify_module(calls):
    """The calls that return the same result with another hash seed, working folder and order."""
    with tempfile.TemporaryDirectory() as first, tempfile.TemporaryDirectory() as second:
        forward = verify_pass(calls, {**os.environ, 'PYTHONHASHSEED': '0'}, first)
        backward = verify_pass(calls[::-1], {**os.environ, 'PYTHONHASHSEED': '1'}, second)[::-1]
    return [call for call, a, b in zip(calls, forward, backward) if a is not None and a == b]


def rank(args):
    """A fixed pseudo-random order of argument lists, so picks don't depend on test order."""
    return hashlib.sha256(args.encode()).hexdigest()


def select(calls):
    """Per function the first CALLS_PER_FUNCTION by hash, then per module round-robin over
    its functions: deterministic, and spread over the functions when a module is capped."""
    by_function = {}
    for call in sorted(calls, key=lambda call: rank(call['args'])):
        by_function.setdefault(call['function'], []).append(call)
    ranked = [(position, call) for group in by_function.values()
              for position, call in enumerate(group[:CALLS_PER_FUNCTION])]
    ranked.sort(key=lambda item: (item[0], item[1]['function']))
    kept = [call for _, call in ranked[:CALLS_PER_MODULE]]
    return sorted(kept, key=lambda call: (call['function'], rank(call['args'])))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--sample', metavar='TEST_MODULE', help=argparse.SUPPRESS)
    parser.add_argument('--verify', action='store_true', help=argparse.SUPPRESS)
    parser.add_argument('--workers', type=int, default=os.cpu_count() or 1)
    parser.add_argument('--corpus', choices=sorted(CORPORA), default='stdlib',
                        help="whose functions: the standard library's (its unit tests), Debian packages' (their doctests), or the evaluation's held-out modules'")
    options = parser.parse_args()
    if options.sample:
        sample(options.sample, list(ALL_TARGETS[options.sample]))
        return
    if options.verify:
        verify()
        return

    started = time.monotonic()
    log(f'sampling calls from the {options.corpus} tests:')
    modules = sample_all(CORPORA[options.corpus], options.workers)
    candidates = {
        name: [{'module': name, 'path': info['path'], 'function': function, 'args': args}
               for function, all_args in sorted(info['functions'].items())
               for args in sorted(all_args, key=rank)[:CANDIDATES_PER_FUNCTION]]
        for name, info in sorted(modules.items())
    }
    log(f'replaying {sum(map(len, candidates.values()))} calls:')
    with ThreadPoolExecutor(options.workers) as pool:
        verified = dict(zip(candidates, pool.map(verify_module, candidates.values())))
    total_modules = total_functions = total_calls = 0
    for name, calls in verified.items():
        kept = select(calls)
        functions = len({call['function'] for call in kept})
        total_modules += functions > 0
        total_functions += functions
        total_calls += len(kept)
        log(f'  {name}: {len(calls)} of {len(candidates[name])} replay; kept {len(kept)} calls of {functions} functions')
        for call in kept:
            print(json.dumps(call))
    log(f'{total_modules} modules, {total_functions} functions, {total_calls} calls in {time.monotonic() - started:.0f}s')


if __name__ == '__main__':
    main()
