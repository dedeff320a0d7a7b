/**
 * The escape suite: programs that try to leave verify mode's sandbox (tracer/sandbox.ts), run
 * with real Python the way verify runs them. Each attempt must fail, and the host side checks
 * that nothing reached it (its listening sockets saw no connection, its files are unchanged, no
 * process was left behind). Where this machine cannot make the sandbox, verify must refuse
 * with a message that says what to install, and run nothing: that path is tested everywhere
 * by pointing NDB_BWRAP at a missing file.
 */
import { createSocket } from 'node:dgram';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxProtections, TraceFailure, traceSource, verifySandbox } from '../tracer/run-tracer.js';
import { deniedSyscalls, SANDBOX_TASKS } from '../tracer/sandbox.js';

const dir = mkdtempSync(join(tmpdir(), 'ndb-escape-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SECRET = join(dir, 'secret.txt');
writeFileSync(SECRET, 'host secret\n');
const OUTSIDE = join(dir, 'outside.txt');
const HOST_SOCKET = join(dir, 'host.sock');
const ABSTRACT = `\0ndb-escape-${process.pid}`;

const status = verifySandbox();

async function run(source: string, timeoutSeconds = 4) {
  return traceSource(source, { entry: 'f', args: '', sandbox: true, limits: { timeoutSeconds } });
}

/** The value f returned, or the failure's kind and message. */
async function outcome(source: string, timeoutSeconds = 4): Promise<string> {
  try {
    const t = await run(source, timeoutSeconds);
    const value = (t.exit as { value?: string }).value ?? '';
    return t.exit.exit === 'normal' ? value : `${t.exit.exit}: ${value}`;
  } catch (err) {
    if (err instanceof TraceFailure) return `failure ${err.kind}: ${err.message}`;
    throw err;
  }
}

function py(...lines: string[]): string {
  return lines.join('\n') + '\n';
}

/** A Python expression: the errno name of running `stmt`, or 'ok' when it succeeded. */
function attempt(stmt: string): string {
  return `_try(lambda: ${stmt})`;
}
const TRY = py(
  'import errno, os, socket, ctypes',
  'def _try(fn):',
  '    try:',
  '        fn()',
  "        return 'ok'",
  '    except OSError as e:',
  "        return errno.errorcode.get(e.errno, str(e.errno)) if e.errno else type(e).__name__",
);

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

describe.skipIf(!status.ok)(`the verify sandbox holds (${status.ok ? status.limits : 'none here'})`, () => {
  const reached: string[] = [];
  const servers: Server[] = [];
  const udp = createSocket('udp4');
  let tcpPort = 0;
  let udpPort = 0;

  beforeAll(async () => {
    const listen = (server: Server, ...where: unknown[]) =>
      new Promise<void>((resolve) => {
        server.on('connection', (s) => {
          reached.push(`connection on ${JSON.stringify(where)}`);
          s.destroy();
        });
        (server.listen as (...a: unknown[]) => void)(...where, () => resolve());
        servers.push(server);
      });
    const tcp = createServer();
    await listen(tcp, 0, '127.0.0.1');
    tcpPort = (tcp.address() as { port: number }).port;
    await listen(createServer(), HOST_SOCKET);
    await listen(createServer(), ABSTRACT);
    udp.on('message', () => reached.push('udp datagram'));
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', () => resolve()));
    udpPort = udp.address().port;
  });

  afterAll(async () => {
    udp.close();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  });

  it('has no capabilities, no new privileges, not uid 0 of the host, and no nested user namespace', async () => {
    const v = await outcome(
      TRY +
        py(
          'def f():',
          "    st = dict(l.split(':\\t', 1) for l in open('/proc/self/status').read().splitlines() if ':\\t' in l)",
          "    libc = ctypes.CDLL(None, use_errno=True)",
          "    def unshare(flags):",
          "        if libc.unshare(flags) != 0:",
          "            raise OSError(ctypes.get_errno(), 'unshare')",
          "    return (st['CapEff'], st['CapPrm'], st['CapBnd'], st['NoNewPrivs'], " +
            [attempt('os.setuid(0)'), attempt('unshare(0x10000000)'), attempt('unshare(0x00020000)')].join(', ') +
            ')',
        ),
    );
    // setuid(0): EINVAL (uid 0 is not mapped) or EPERM; unshare(CLONE_NEWUSER): ENOSPC (--disable-userns) or EPERM; CLONE_NEWNS: EPERM.
    expect(v).toMatch(/^\('0000000000000000', '0000000000000000', '0000000000000000', '1', '(EPERM|EINVAL)', '(ENOSPC|EPERM|EUSERS)', 'EPERM'\)$/);
  });

  it.skipIf(Object.keys(deniedSyscalls()).length === 0)('is refused the kernel interfaces a seccomp filter keeps from it (io_uring, bpf, userfaultfd, perf, keyrings, ptrace)', async () => {
    const nr = deniedSyscalls();
    // Arguments that would get as far as the kernel's checks (EFAULT, EINVAL, a keyring id) without the filter.
    const calls: [string, string][] = [
      ['io_uring_setup', '1, 0'],
      ['bpf', '0, 0, 0'],
      ['userfaultfd', '0'],
      ['perf_event_open', '0, 0, -1, -1, 0'],
      ['keyctl', '0, 0xfffffffd, 0'],
      ['ptrace', '16, 1, 0, 0'],
      ['process_vm_readv', '1, 0, 0, 0, 0, 0'],
    ];
    const v = await outcome(
      py(
        'import ctypes, errno',
        'def f():',
        '    libc = ctypes.CDLL(None, use_errno=True)',
        '    def call(nr, *args):',
        '        r = libc.syscall(nr, *args)',
        "        return errno.errorcode.get(ctypes.get_errno()) if r == -1 else r",
        `    return [${calls.map(([name, args]) => `call(${nr[name]}, ${args})`).join(', ')}], [l.split()[1] for l in open('/proc/self/status') if l.startswith('Seccomp:')]`,
      ),
    );
    expect(v).toBe(`([${calls.map(() => "'EPERM'").join(', ')}], ['2'])`);
  });

  it('cannot remount the file system read-write, by syscall or by mount(8)', async () => {
    const v = await outcome(
      TRY +
        py(
          'import subprocess',
          'def f():',
          '    libc = ctypes.CDLL(None, use_errno=True)',
          '    def mount(target, flags):',
          '        if libc.mount(None, target.encode(), None, flags, None) != 0:',
          "            raise OSError(ctypes.get_errno(), 'mount')",
          '    MS_REMOUNT, MS_BIND = 32, 4096',
          "    r = subprocess.run(['mount', '-o', 'remount,bind,rw', '/'], capture_output=True)",
          `    return (${attempt("mount('/', MS_REMOUNT | MS_BIND)")}, ${attempt("mount('/usr', MS_REMOUNT | MS_BIND)")}, ${attempt("mount('/', MS_REMOUNT)")}, r.returncode != 0, ${attempt("open('/usr/ndb-escape', 'w')")})`,
        ),
    );
    expect(v).toBe("('EPERM', 'EPERM', 'EPERM', True, 'EROFS')");
    expect(existsSync('/usr/ndb-escape')).toBe(false);
  });

  it('reaches no socket of the host: TCP, UDP, a Unix socket by path, an abstract one', async () => {
    const v = await outcome(
      TRY +
        py(
          'def f():',
          '    def tcp(host, port):',
          '        s = socket.socket()',
          '        s.settimeout(1)',
          '        try:',
          '            s.connect((host, port))',
          '        finally:',
          '            s.close()',
          '    def unix(path):',
          '        s = socket.socket(socket.AF_UNIX)',
          '        try:',
          '            s.connect(path)',
          '        finally:',
          '            s.close()',
          '    def udp(port):',
          '        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)',
          `        s.sendto(b'escape', ('127.0.0.1', port))`,
          '        s.close()',
          `    out = [${attempt(`tcp('127.0.0.1', ${tcpPort})`)}, ${attempt("tcp('1.1.1.1', 80)")}, ${attempt(`unix(${JSON.stringify(HOST_SOCKET)})`)}, ${attempt(`unix(${JSON.stringify(ABSTRACT)})`)}]`,
          `    udp(${udpPort})`,
          "    host_sockets = [p for p in ('/run/systemd/private', '/var/run/docker.sock', '/run/dbus/system_bus_socket', '/tmp/.X11-unix') if os.path.exists(p)]",
          "    ifaces = sorted(name for _, name in socket.if_nameindex())",
          '    return out, host_sockets, ifaces',
        ),
    );
    // Its own loopback refuses (nothing listens there); no route anywhere else; no host path.
    expect(v).toBe("(['ECONNREFUSED', 'ENETUNREACH', 'ENOENT', 'ECONNREFUSED'], [], ['lo'])");
    await new Promise((r) => setTimeout(r, 200));
    expect(reached).toEqual([]);
  });

  it('writes nowhere but its scratch directory, which the host never sees', async () => {
    const v = await outcome(
      TRY +
        py(
          'def f():',
          "    def write(path):",
          "        with open(path, 'w') as fh:",
          "            fh.write('escaped')",
          "    def sysctl():",
          "        path = '/proc/sys/vm/overcommit_ratio'",
          "        value = open(path).read()",
          "        with open(path, 'w') as fh:",
          "            fh.write(value)",
          '    outside = [' +
            [JSON.stringify(OUTSIDE), JSON.stringify(SECRET), "'/x'", "'/etc/ndb-escape'", "'/dev/ndb-escape'", "'/proc/ndb-escape'", "globals().get('__file__', '/nonexistent')"].map((p) => attempt(`write(${p})`)).join(', ') +
            ']',
          `    write('scratch.txt')`,
          '    return outside, ' + attempt('sysctl()') + ", os.getcwd(), open('scratch.txt').read()",
        ),
    );
    const m = /^\(\[(.*)\], '(\w+)', '\/tmp\/work', 'escaped'\)$/.exec(v);
    expect(m, v).not.toBeNull();
    for (const e of m![1]!.split(', ')) expect(['ENOENT', 'EROFS', 'EACCES', 'EPERM']).toContain(e.replace(/'/g, ''));
    expect(['EACCES', 'EPERM', 'EROFS']).toContain(m![2]);
    expect(existsSync(OUTSIDE)).toBe(false);
    expect(readFileSync(SECRET, 'utf8')).toBe('host secret\n');
    expect(existsSync(join(process.cwd(), 'scratch.txt'))).toBe(false);
  });

  it("reads nothing of the host's: not the user's home, not /etc's secrets, not the host's /tmp", async () => {
    const home = homedir();
    const v = await outcome(
      TRY +
        py(
          'def f():',
          '    return [' +
            [`os.listdir(${JSON.stringify(home)})`, "os.listdir('/root')", "open('/etc/shadow').read()", "open('/etc/passwd').read()", `open(${JSON.stringify(SECRET)}).read()`, `os.listdir(${JSON.stringify(tmpdir())})`, "os.listdir('/run')", "os.listdir('/home')", "os.listdir('/sys')"]
              .map((s) => attempt(s))
              .join(', ') +
            ']',
        ),
    );
    // The host's /tmp is not the sandbox's: listing it may succeed (its own tmpfs) but shows
    // nothing of the host's.
    const got = v.replace(/^\[|\]$/g, '').split(', ').map((s) => s.replace(/'/g, ''));
    expect(got.length, v).toBe(9);
    got.forEach((e, i) => {
      if (i === 5 && e === 'ok') return;
      expect(['ENOENT', 'EACCES', 'EPERM'], `attempt ${i}: ${v}`).toContain(e);
    });
    const tmp = await outcome(py('import os', 'def f():', `    return sorted(os.listdir(${JSON.stringify(tmpdir())}))`));
    expect(tmp).not.toContain('ndb-escape-');
  });

  it('sees no host process and cannot signal one', async () => {
    const v = await outcome(TRY + py('def f():', `    return ${attempt(`os.kill(${process.pid}, 0)`)}, sorted(int(p) for p in os.listdir('/proc') if p.isdigit())[:1]`));
    expect(v).toBe("('ESRCH', [1])");
  });

  it('still runs an ordinary program and records it', async () => {
    const t = await run(py('def f():', '    xs = [i * i for i in range(5)]', "    print('hello')", '    return sum(xs)'));
    expect(t.exit).toMatchObject({ exit: 'normal', value: '30' });
    expect(t.events.length).toBeGreaterThan(2);
    expect(sandboxProtections()).toMatch(/^in a bubblewrap sandbox: no network, no capabilities/);
  });
});

// The tree's limits, by the machine's means (a cgroup where it offers one) and by the watchdog
// that stands in for it elsewhere (forced here with NDB_SANDBOX_LIMITS=watchdog).
describe.skipIf(!status.ok).each(status.ok && status.limits !== 'watchdog' ? [status.limits, 'watchdog'] : ['watchdog'])('the sandbox limits the whole tree (%s)', (mode) => {
  let saved: string | undefined;
  beforeAll(() => {
    saved = process.env.NDB_SANDBOX_LIMITS;
    if (mode === 'watchdog') process.env.NDB_SANDBOX_LIMITS = 'watchdog';
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.NDB_SANDBOX_LIMITS;
    else process.env.NDB_SANDBOX_LIMITS = saved;
  });

  it(`stops a fork bomb: fewer than ${SANDBOX_TASKS} processes, none left after`, async () => {
    const mark = `9.${process.pid}${Date.now() % 100000}`;
    const v = await outcome(
      py(
        'import os',
        'def f():',
        '    made = failed = 0',
        '    for i in range(200):',
        '        try:',
        '            pid = os.fork()',
        '        except OSError:',
        '            failed += 1',
        '            continue',
        '        if pid == 0:',
        '            try:',
        '                os.fork()',
        '            except OSError:',
        '                pass',
        `            os.execvp('sleep', ['sleep', '${mark}'])`,
        '        made += 1',
        '    return made, failed',
      ),
    );
    const m = /^\((\d+), (\d+)\)$/.exec(v);
    if (m) {
      expect(Number(m[1])).toBeLessThan(SANDBOX_TASKS);
      expect(Number(m[2])).toBeGreaterThan(0);
    } else {
      expect(v).toMatch(/^failure limit: the sandbox stopped the program: it started more than/);
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(processesRunning(['sleep', mark])).toEqual([]);
  }, 30_000);

  it('limits memory across processes: 4 children × 400 MB do not all get it', async () => {
    const v = await outcome(
      py(
        'import os, time',
        'def f():',
        '    kids = []',
        '    for i in range(4):',
        '        pid = os.fork()',
        '        if pid == 0:',
        '            try:',
        "                held = b'x' * (400 << 20)",
        '                time.sleep(1.5)',
        '                os._exit(0)',
        '            except MemoryError:',
        '                os._exit(3)',
        '        kids.append(pid)',
        '    return [os.waitpid(pid, 0)[1] for pid in kids].count(0)',
      ),
      6,
    );
    if (/^\d+$/.test(v)) expect(Number(v)).toBeLessThan(2);
    else expect(v).toMatch(/^failure memory: the sandbox stopped the program: its processes together/);
  }, 30_000);
});

describe('where no sandbox can be made, verify refuses and runs nothing', () => {
  const marker = join(tmpdir(), `ndb-escape-refused-${process.pid}`);

  it('says what to install when bwrap is missing, and the program does not run', async () => {
    const saved = process.env.NDB_BWRAP;
    process.env.NDB_BWRAP = join(tmpdir(), 'no-such-dir', 'bwrap');
    try {
      expect(verifySandbox()).toMatchObject({ ok: false });
      expect(sandboxProtections()).toMatch(/^NOT run: verify mode runs the program only inside a sandbox, and bubblewrap is not installed here/);
      const err = await traceSource(py('def f():', `    open(${JSON.stringify(marker)}, 'w').write('ran')`, '    return 1'), { entry: 'f', args: '', sandbox: true }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TraceFailure);
      expect((err as TraceFailure).kind).toBe('sandbox');
      expect((err as Error).message).toMatch(/apt-get install bubblewrap/);
      expect((err as Error).message).toMatch(/NDB_BWRAP/);
      expect((err as Error).message).toMatch(/The program was not run\.$/);
      expect(existsSync(marker)).toBe(false);
    } finally {
      if (saved === undefined) delete process.env.NDB_BWRAP;
      else process.env.NDB_BWRAP = saved;
    }
  });

  it('says so when bwrap is there but cannot make the namespaces', async () => {
    // A stand-in that fails the way bwrap does where user namespaces are forbidden.
    // (Readable by the sandbox's uid: as root, bwrap runs as uid 65534.)
    const fakeDir = mkdtempSync(join(tmpdir(), 'ndb-escape-bin-'));
    chmodSync(fakeDir, 0o755);
    const fake = join(fakeDir, 'bwrap');
    writeFileSync(fake, '#!/bin/sh\necho "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n', { mode: 0o755 });
    const saved = process.env.NDB_BWRAP;
    process.env.NDB_BWRAP = fake;
    try {
      const s = verifySandbox();
      expect(s.ok).toBe(false);
      expect((s as { reason: string }).reason).toMatch(/bubblewrap cannot make one here \(bwrap: No permissions to create new namespace.*forbids unprivileged user namespaces.*The program was not run\.$/);
    } finally {
      if (saved === undefined) delete process.env.NDB_BWRAP;
      else process.env.NDB_BWRAP = saved;
      rmSync(fakeDir, { recursive: true, force: true });
    }
  });
});
