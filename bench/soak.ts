/**
 * The TCP server under load and abuse (issue 48), against a real `ndb dap --port 0` process,
 * measuring its RSS from /proc:
 *
 *   slow       unauthenticated connections that never give the token: half send an unfinished
 *              8 MB body a chunk at a time, half send nothing (the server closes them: past
 *              64 KiB, past --auth-timeout, or past --max-connections at once);
 *   abandoned  sessions that give the token, launch examples/count.py on the shipped model and
 *              go away without `disconnect`: half mid-launch, half after the first stop;
 *   evaluates  one session's pipelined `evaluate` requests (all sent at once), while the Python
 *              processes of its evaluator (NDB_HELPER=evaluator in their environment) are
 *              counted every few ms.
 *
 * Reported: RSS at the start (after the server printed its port), after the slow connections,
 * after the abandoned sessions, and at the end (after a pause for the sessions' background work
 * and a GC-friendly idle moment); the most evaluator processes seen at once; the evaluates
 * answered. test/dap-soak.test.ts runs a short form; the full form (100, 100, 1,000):
 *
 *     node dist/bench/soak.js [--slow 100] [--abandoned 100] [--evaluates 1000]
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { DapReader } from '../adapter/transport.js';

/** The repository (the folder with package.json above this module, in the sources or in dist/). */
function repository(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'examples', 'count.py'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the repository above bench/soak');
    dir = up;
  }
  return dir;
}

const ROOT = repository();
const COUNT_PY = join(ROOT, 'examples', 'count.py');

interface DapMessage {
  type: string;
  seq: number;
  request_seq?: number;
  event?: string;
  success?: boolean;
  message?: string;
  body?: Record<string, unknown>;
}

/** A bare DAP client on a TCP connection: requests by seq, events waited for. */
class Dap {
  private seq = 1;
  private readonly messages: DapMessage[] = [];
  private waiters: { match: (m: DapMessage) => boolean; resolve: (m: DapMessage | null) => void }[] = [];

  constructor(readonly socket: Socket) {
    const reader = new DapReader('lenient', { message: (m) => this.receive(m as DapMessage), malformed: () => undefined, fatal: () => undefined });
    socket.on('data', (chunk: Buffer) => reader.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      for (const w of this.waiters.splice(0)) w.resolve(null);
    });
  }

  private receive(m: DapMessage): void {
    // Events are kept for waitFor; answers are handed to their waiter only.
    if (m.type === 'event') this.messages.push(m);
    const i = this.waiters.findIndex((w) => w.match(m));
    if (i >= 0) this.waiters.splice(i, 1)[0]!.resolve(m);
  }

  waitFor(match: (m: DapMessage) => boolean, timeoutMs: number): Promise<DapMessage | null> {
    const seen = this.messages.find(match);
    if (seen) return Promise.resolve(seen);
    if (this.socket.destroyed) return Promise.resolve(null);
    return new Promise((resolve) => {
      const waiter = { match, resolve: (m: DapMessage | null) => (clearTimeout(timer), resolve(m)) };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        resolve(null);
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  request(command: string, args?: unknown, timeoutMs = 30_000): Promise<DapMessage | null> {
    const seq = this.seq++;
    const answer = this.waitFor((m) => m.type === 'response' && m.request_seq === seq, timeoutMs);
    const json = JSON.stringify({ seq, type: 'request', command, ...(args === undefined ? {} : { arguments: args }) });
    if (!this.socket.destroyed) this.socket.write(`Content-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`);
    return answer;
  }
}

async function connectTcp(port: number): Promise<{ socket: Socket; dap: Dap }> {
  const socket = connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  return { socket, dap: new Dap(socket) };
}

/** `ndb dap --port 0 [extra]`, once it printed its port and token. */
async function spawnServer(extra: string[]) {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'ndb.js'), 'dap', '--port', '0', ...extra], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr!.resume();
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`ndb dap exited with ${code}`)));
  });
  const m = /listening on [^:]+:(\d+), token (\S+) /.exec(line);
  if (!m) throw new Error(`unexpected first line: ${line}`);
  return { child, port: Number(m[1]), token: m[2]! };
}

export interface SoakOptions {
  slow: number;
  abandoned: number;
  evaluates: number;
  /** The server's --auth-timeout, seconds. */
  authTimeoutS?: number;
  log?: (line: string) => void;
}

export interface SoakReport {
  /** The fresh server's RSS: no model loaded yet. */
  rssStartMiB: number;
  /**
   * After a first wave of WAVE sessions (launched, stopped, disconnected): the model runtime's
   * library and the allocators' arenas are in, as in any server that has served a session. What
   * comes after is measured against this.
   */
  rssWarmMiB: number;
  rssAfterSlowMiB: number;
  rssAfterAbandonedMiB: number;
  rssEndMiB: number;
  /** Slow connections the server closed (all of them, by the end). */
  slowClosed: number;
  abandonedLaunched: number;
  evaluatesSent: number;
  evaluatesAnswered: number;
  evaluatesRefusedBusy: number;
  /** The most evaluator processes of the server seen at once. */
  maxEvaluatorProcesses: number;
  evaluatorProcessesAtEnd: number;
  serverAlive: boolean;
  seconds: number;
}

/** Sessions at once. */
const WAVE = 4;
const INIT = { adapterID: 'neural-python', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function rssMiB(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return kb / 1024;
}

/** The server's child processes that are evaluators (their environment says NDB_HELPER=evaluator). */
export function evaluatorProcesses(serverPid: number): number {
  let n = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1]);
      if (ppid !== serverPid) continue;
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0').includes('NDB_HELPER=evaluator')) n++;
    } catch {
      // Gone meanwhile.
    }
  }
  return n;
}

/** A connection that never gives the token; resolves when the server closes it. */
function slowConnection(port: number, sendsBody: boolean): Promise<void> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port, '127.0.0.1');
    let timer: NodeJS.Timeout | undefined;
    const done = () => {
      clearInterval(timer);
      resolve();
    };
    socket.on('error', () => undefined);
    socket.on('close', done);
    socket.on('connect', () => {
      if (!sendsBody) return;
      socket.write('Content-Length: 8000000\r\n\r\n{"seq":1,"type":"request","command":"launch","arguments":{"program":"');
      const chunk = Buffer.alloc(16 * 1024, 'x');
      timer = setInterval(() => {
        if (!socket.destroyed) socket.write(chunk);
      }, 50);
    });
  });
}

export async function soak(options: SoakOptions): Promise<SoakReport> {
  const log = options.log ?? (() => undefined);
  const started = Date.now();
  const server = await spawnServer(['--auth-timeout', String(options.authTimeoutS ?? 5)]);
  const pid = server.child.pid!;
  try {
    await sleep(500);
    const rssStartMiB = rssMiB(pid);
    log(`start: RSS ${rssStartMiB.toFixed(1)} MiB`);

    // A first wave of ordinary sessions: launched, stopped, disconnected.
    await Promise.all(
      Array.from({ length: WAVE }, async () => {
        const { socket, dap } = await connectTcp(server.port);
        await dap.request('initialize', INIT);
        const stopped = dap.waitFor((m) => m.event === 'stopped', 60_000);
        void dap.request('launch', { program: COUNT_PY, entry: 'count', args: "'berry', 'r'", token: server.token }, 60_000);
        await dap.request('configurationDone', {});
        await stopped;
        await dap.request('disconnect', {});
        socket.destroy();
      }),
    );
    await sleep(2_000);
    const rssWarmMiB = rssMiB(pid);
    log(`after a first wave of ${WAVE} sessions: RSS ${rssWarmMiB.toFixed(1)} MiB`);

    // Unauthenticated slow connections, all at once.
    const slow = Array.from({ length: options.slow }, (_, i) => slowConnection(server.port, i % 2 === 0));
    await Promise.all(slow);
    await sleep(500);
    const rssAfterSlowMiB = rssMiB(pid);
    log(`after ${options.slow} slow connections (all closed by the server): RSS ${rssAfterSlowMiB.toFixed(1)} MiB`);

    // Abandoned sessions, a few at a time (under the connection cap).
    let abandonedLaunched = 0;
    for (let i = 0; i < options.abandoned; i += WAVE) {
      await Promise.all(
        Array.from({ length: Math.min(WAVE, options.abandoned - i) }, async (_, k) => {
          const { socket, dap } = await connectTcp(server.port);
          await dap.request('initialize', INIT);
          const stopped = dap.waitFor((m) => m.event === 'stopped', 60_000);
          void dap.request('launch', { program: COUNT_PY, entry: 'count', args: "'berry', 'r'", token: server.token }, 60_000);
          await dap.request('configurationDone', {});
          abandonedLaunched++;
          // Half go mid-launch, half after the first stop; none says disconnect.
          if ((i + k) % 2 === 1) await stopped;
          socket.destroy();
        }),
      );
      log(`  ${i + WAVE} abandoned: RSS ${rssMiB(pid).toFixed(1)} MiB`);
    }
    await sleep(2_000);
    const rssAfterAbandonedMiB = rssMiB(pid);
    log(`after ${options.abandoned} abandoned sessions: RSS ${rssAfterAbandonedMiB.toFixed(1)} MiB`);

    // One session's pipelined evaluates.
    let maxEvaluatorProcesses = 0;
    let evaluatesAnswered = 0;
    let evaluatesRefusedBusy = 0;
    if (options.evaluates > 0) {
      const { socket, dap } = await connectTcp(server.port);
      await dap.request('initialize', INIT);
      const stopped = dap.waitFor((m) => m.event === 'stopped', 60_000);
      const launched = dap.request('launch', { program: COUNT_PY, entry: 'count', args: "'berry', 'r'", token: server.token }, 60_000);
      await dap.request('configurationDone', {});
      await launched;
      await stopped;
      const frames = await dap.request('stackTrace', { threadId: 1 });
      const frameId = (frames?.body?.stackFrames as { id: number }[] | undefined)?.[0]?.id ?? 0;
      const sampler = setInterval(() => {
        maxEvaluatorProcesses = Math.max(maxEvaluatorProcesses, evaluatorProcesses(pid));
      }, 5);
      const answers = await Promise.all(
        Array.from({ length: options.evaluates }, (_, i) => dap.request('evaluate', { expression: `s.count(t) + ${i}`, frameId, context: 'repl' }, 600_000)),
      );
      clearInterval(sampler);
      maxEvaluatorProcesses = Math.max(maxEvaluatorProcesses, evaluatorProcesses(pid));
      for (const a of answers) {
        if (!a) continue;
        evaluatesAnswered++;
        if (!a.success && /ndb is busy/.test(a.message ?? '')) evaluatesRefusedBusy++;
      }
      log(`${options.evaluates} pipelined evaluates: ${evaluatesAnswered} answered (${evaluatesRefusedBusy} refused as busy), at most ${maxEvaluatorProcesses} evaluator process(es) at once`);
      await dap.request('disconnect', {});
      socket.destroy();
    }

    await sleep(3_000);
    const rssEndMiB = rssMiB(pid);
    const evaluatorProcessesAtEnd = evaluatorProcesses(pid);
    log(`end: RSS ${rssEndMiB.toFixed(1)} MiB (${(rssEndMiB - rssWarmMiB).toFixed(1)} MiB over the first wave's, ${(rssEndMiB - rssStartMiB).toFixed(1)} over the fresh server's), ${evaluatorProcessesAtEnd} evaluator process(es) left`);
    return {
      rssStartMiB,
      rssWarmMiB,
      rssAfterSlowMiB,
      rssAfterAbandonedMiB,
      rssEndMiB,
      slowClosed: options.slow,
      abandonedLaunched,
      evaluatesSent: options.evaluates,
      evaluatesAnswered,
      evaluatesRefusedBusy,
      maxEvaluatorProcesses,
      evaluatorProcessesAtEnd,
      serverAlive: server.child.exitCode === null,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    server.child.kill();
  }
}

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}

if (process.argv[1] && /soak\.[jt]s$/.test(process.argv[1])) {
  const report = await soak({ slow: flag('slow', 100), abandoned: flag('abandoned', 100), evaluates: flag('evaluates', 1000), log: (line) => console.log(line) });
  console.log(JSON.stringify(report, null, 2));
}
