/**
 * Without the Python ndb runs (Debian's python3, or $NDB_PYTHON), `ndb` says what is missing,
 * what to install and how to point it at another Python: one error, exit code 2, and no
 * "this is a bug in ndb" (a missing prerequisite is the machine's, not ndb's).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pythonMissingMessage, PythonMissingError, runPythonHelper } from '../python/python-helper.js';
import { COUNT_PY, ROOT } from './fixtures.js';

const NDB = join(ROOT, 'bin', 'ndb.js');
const MISSING = '/nonexistent/ndb-test/python3.11';

function ndb(args: string[]) {
  const r = spawnSync(process.execPath, [NDB, ...args], { input: 'q\n', encoding: 'utf8', timeout: 60_000, env: { ...process.env, NDB_PYTHON: MISSING } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function expectMissingPython(stderr: string) {
  expect(stderr).toContain(`ndb: error: cannot run Python: NDB_PYTHON is set to ${MISSING}, which could not be started`);
  expect(stderr).toContain('ndb needs CPython 3.11');
  expect(stderr).toContain('apt-get install python3');
  expect(stderr).toContain('set NDB_PYTHON to a Python 3.11 interpreter');
  expect(stderr).not.toContain('this is a bug in ndb');
  expect(stderr.trim().split('\n')).toHaveLength(1);
}

describe('a missing Python', () => {
  it('the message names the Python, the reason, what to install and NDB_PYTHON', () => {
    const message = pythonMissingMessage('python3', 'spawn python3 ENOENT');
    expect(message).toMatch(/^cannot run Python: .*python3.* could not be started \(spawn python3 ENOENT\)\. ndb needs CPython 3\.11/);
    expect(message).toContain('NDB_PYTHON');
  });

  it("a helper's run rejects with PythonMissingError", async () => {
    const previous = process.env.NDB_PYTHON;
    process.env.NDB_PYTHON = MISSING;
    try {
      await expect(runPythonHelper({ script: join(ROOT, 'program-analysis', 'program-info.py'), input: '', timeoutMs: 10_000 })).rejects.toBeInstanceOf(PythonMissingError);
    } finally {
      if (previous === undefined) delete process.env.NDB_PYTHON;
      else process.env.NDB_PYTHON = previous;
    }
  });

  it('ndb debug: one clear error, exit code 2, not a bug report', () => {
    const r = ndb(['debug', COUNT_PY, '--entry', 'count', '--args', "'berry', 'r'"]);
    expect(r.code).toBe(2);
    expectMissingPython(r.stderr);
  });

  it('ndb trace: the same', () => {
    const r = ndb(['trace', COUNT_PY, '--entry', 'count', '--args', "'berry', 'r'"]);
    expect(r.code).toBe(2);
    expectMissingPython(r.stderr);
  });
});
