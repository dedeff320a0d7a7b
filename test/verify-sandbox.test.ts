/**
 * Verify mode runs the user's program for real: what contains it, measured with real Python
 * (tracer/tracer.py in the bubblewrap sandbox of tracer/sandbox.ts), and how `ndb debug
 * --verify` and a DAP launch with `verify: true` say so, or say that they refuse.
 *
 * Hostile programs: one that raises its limits and then allocates 1 GiB, one that switches its
 * alarm off and sleeps, one that leaves a detached (setsid, double-forked) child behind, one
 * that writes files in its working directory and elsewhere, one that opens a connection.
 * test/verify-escape.test.ts has the escape suite (mounts, sockets, fork bombs, memory).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { afterAll, describe, expect, it } from 'vitest';
import { sandboxProtections, TraceFailure, traceSource, verifySandbox } from '../tracer/run-tracer.js';
import { SANDBOX_WORK } from '../tracer/sandbox.js';
import { HAS_EMBEDDED_MODEL, ROOT } from './fixtures.js';

const NDB = join(ROOT, 'bin', 'ndb.js');
const dir = mkdtempSync(join(tmpdir(), 'ndb-verify-sandbox-'));
const OUTSIDE = join(dir, 'outside.txt');

async function sandboxed(source: string, timeoutSeconds = 2) {
  return traceSource(source, { entry: 'f', args: '', sandbox: true, limits: { timeoutSeconds } });
}

/** Processes whose command line is exactly `argv` (a unique marker), by /proc. */
function processesRunning(argv: string[]): number[] {
  const want = argv.join('\0') + '\0';
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8') === want) pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** A program that leaves a detached grandchild (new session, double fork) running `sleep MARK`. */
function daemonProgram(mark: string): string {
  return [
    'import os',
    'def f():',
    '    pid = os.fork()',
    '    if pid == 0:',
    '        os.setsid()',
    '        if os.fork() == 0:',
    `            os.execvp('sleep', ['sleep', '${mark}'])`,
    '        os._exit(0)',
    '    os.waitpid(pid, 0)',
    "    return 'forked'",
    '',
  ].join('\n');
}

const clients: DebugClient[] = [];
afterAll(async () => {
  await Promise.all(clients.splice(0).map((dc) => dc.stop()));
}, 60_000);

describe.skipIf(!verifySandbox().ok)('the verify sandbox (real Python)', () => {
  it('keeps hard memory, CPU, process and file-size limits the program cannot raise', async () => {
    const t = await sandboxed(
      [
        'import resource',
        'def f():',
        '    out = []',
        '    for r in (resource.RLIMIT_AS, resource.RLIMIT_CPU, resource.RLIMIT_NPROC, resource.RLIMIT_FSIZE):',
        '        soft, hard = resource.getrlimit(r)',
        '        try:',
        '            resource.setrlimit(r, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))',
        "            out.append('raised')",
        '        except (ValueError, OSError):',
        "            out.append('refused' if hard != resource.RLIM_INFINITY else 'no limit')",
        '    return out',
        '',
      ].join('\n'),
    );
    expect(t.exit).toMatchObject({ exit: 'normal', value: "['refused', 'refused', 'refused', 'refused']" });

    // Raising the soft memory limit to the hard one gains nothing: 1 GiB still fails.
    const err = await sandboxed(
      [
        'import resource',
        'def f():',
        '    soft, hard = resource.getrlimit(resource.RLIMIT_AS)',
        '    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))',
        '    return len(bytearray(1 << 30))',
        '',
      ].join('\n'),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TraceFailure);
    expect((err as TraceFailure).kind).toBe('memory');
  });

  it('kills a program that switches its alarm off, within the timeout and a 2 s margin', async () => {
    const t0 = Date.now();
    const err = await sandboxed(
      ['import signal, time', 'def f():', '    signal.signal(signal.SIGALRM, signal.SIG_IGN)', '    signal.setitimer(signal.ITIMER_REAL, 0)', '    time.sleep(60)', ''].join('\n'),
      1,
    ).catch((e: unknown) => e);
    const took = Date.now() - t0;
    expect(err).toBeInstanceOf(TraceFailure);
    expect((err as Error).message).toMatch(/did not finish within 3 s and was killed/);
    expect(took).toBeLessThan(8_000);
  }, 30_000);

  it('kills a detached child at the end of the run (without the sandbox it outlives the run)', async () => {
    const mark = `7.${process.pid}${Date.now() % 100000}1`;
    const t = await sandboxed(daemonProgram(mark));
    expect(t.exit).toMatchObject({ exit: 'normal', value: "'forked'" });
    await new Promise((r) => setTimeout(r, 300));
    expect(processesRunning(['sleep', mark])).toEqual([]);

    // The control: the tracer without the sandbox (training data, evaluation) leaves it, and
    // this test can see it; it no longer holds the tracer's pipes, so the run still ends at once.
    const plain = `7.${process.pid}${Date.now() % 100000}2`;
    const t0 = Date.now();
    const u = await traceSource(daemonProgram(plain), { entry: 'f', args: '' });
    expect(u.exit).toMatchObject({ exit: 'normal', value: "'forked'" });
    expect(Date.now() - t0).toBeLessThan(5_000);
    // The detached child execs `sleep` on its own time: on a loaded machine it may not be there yet.
    let left = processesRunning(['sleep', plain]);
    for (let tries = 0; left.length === 0 && tries < 20; tries++) {
      await new Promise((r) => setTimeout(r, 100));
      left = processesRunning(['sleep', plain]);
    }
    expect(left.length).toBe(1);
    for (const pid of left) process.kill(pid, 'SIGKILL');
  }, 30_000);

  it('runs in a private scratch directory the host never sees, with file sizes capped', async () => {
    const t = await sandboxed(
      [
        'import os',
        'def f():',
        "    with open('left_behind.txt', 'w') as fh:",
        "        fh.write('x')",
        '    try:',
        "        with open('big.bin', 'wb') as fh:",
        "            fh.write(b'x' * (20 << 20))",
        "        big = 'wrote'",
        '    except OSError as e:',
        '        big = e.errno',
        "    return os.getcwd(), os.path.exists('left_behind.txt'), big",
        '',
      ].join('\n'),
    );
    expect(t.exit).toMatchObject({ exit: 'normal', value: `('${SANDBOX_WORK}', True, 27)` }); // EFBIG: RLIMIT_FSIZE (16 MiB)
    expect(existsSync(join(process.cwd(), 'left_behind.txt'))).toBe(false);
  });

  it('has no network and writes nothing outside, and says so at launch', async () => {
    const t = await sandboxed(
      [
        'import socket',
        'def f():',
        '    try:',
        "        socket.create_connection(('127.0.0.1', 22), timeout=1).close()",
        "        net = 'connected'",
        '    except OSError as e:',
        '        net = type(e).__name__',
        '    try:',
        `        open(${JSON.stringify(OUTSIDE)}, 'w').write('x')`,
        "        fs = 'wrote'",
        '    except OSError as e:',
        '        fs = e.errno',
        '    return net, fs',
        '',
      ].join('\n'),
    );
    // ECONNREFUSED on the sandbox's own loopback, never the host's port 22; ENOENT: the host's
    // temporary directory is not there.
    expect((t.exit as { value: string }).value).toBe("('ConnectionRefusedError', 2)");
    expect(existsSync(OUTSIDE)).toBe(false);
    expect(sandboxProtections()).toMatch(/^in a bubblewrap sandbox: no network, no capabilities.*its own PID namespace; at most 16 processes and threads/);
  });
});

describe.skipIf(!HAS_EMBEDDED_MODEL)('verify says that it runs the program', () => {
  const hostile = join(dir, 'hostile.py');
  writeFileSync(hostile, ['def f(n):', "    open('written_by_verify.txt', 'w').write(str(n))", '    return n + 1', ''].join('\n'));

  it('ndb debug --verify prints it at launch, and the file the program writes is not left in the cwd', () => {
    const r = spawnSync(process.execPath, [NDB, 'debug', hostile, '--entry', 'f', '--args', '1', '--verify'], {
      input: 'c\nq\n',
      encoding: 'utf8',
      cwd: dir,
      timeout: 150_000,
    });
    expect(r.status).toBe(0);
    expect(r.stdout.split('(ndb) ')[0]).toMatch(
      verifySandbox().ok ? /^verify: running the program for real to compare \(in a bubblewrap sandbox: /m : /^verify: refused: verify mode runs the program only inside a sandbox/m,
    );
    expect(existsSync(join(dir, 'written_by_verify.txt'))).toBe(false);
  }, 160_000);

  it('ndb debug --verify refuses where no sandbox can be made, says what to install, and runs nothing', () => {
    const r = spawnSync(process.execPath, [NDB, 'debug', hostile, '--entry', 'f', '--args', '1', '--verify'], {
      input: 'c\nq\n',
      encoding: 'utf8',
      cwd: dir,
      timeout: 150_000,
      env: { ...process.env, NDB_BWRAP: join(dir, 'no-such-bwrap') },
    });
    expect(r.status).toBe(0);
    const head = r.stdout.split('(ndb) ')[0]!;
    expect(head).toMatch(/^verify: refused: verify mode runs the program only inside a sandbox, and bubblewrap is not installed here .*apt-get install bubblewrap.*The program was not run\.$/m);
    expect(head).not.toMatch(/running the program for real/);
    expect(existsSync(join(dir, 'written_by_verify.txt'))).toBe(false);
  }, 160_000);

  it('a DAP launch with verify: true says it (or that it refuses) in an output event', async () => {
    const wrapper = join(dir, 'ndb-dap.mjs');
    writeFileSync(wrapper, `process.argv.splice(2, 0, 'dap');\nawait import(${JSON.stringify(NDB)});\n`);
    const dc = new DebugClient('node', wrapper, 'neural-python', { cwd: dir });
    clients.push(dc);
    await dc.start();
    const said = new Promise<string>((resolve) =>
      dc.on('output', (e: { body: { output: string } }) => {
        if (/^verify: (running|refused)/.test(e.body.output)) resolve(e.body.output);
      }),
    );
    await dc.initializeRequest();
    const stopped = dc.waitForEvent('stopped', 120_000);
    const launched = dc.launchRequest({ program: hostile, entry: 'f', args: '1', verify: true } as DebugProtocol.LaunchRequestArguments);
    await dc.configurationDoneRequest();
    await Promise.all([launched, stopped]);
    expect(await said).toMatch(
      verifySandbox().ok ? /^verify: running the program for real to compare \(in a bubblewrap sandbox: .*a wall clock\)/ : /^verify: refused: .*The program was not run\./,
    );
    expect(existsSync(join(dir, 'written_by_verify.txt'))).toBe(false);
  }, 160_000);
});
