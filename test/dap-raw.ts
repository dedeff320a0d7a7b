/**
 * A raw DAP connection for the transport and fuzz tests: writes any bytes (well-formed or not)
 * to a real `ndb dap` over stdio or TCP, and reads its answers by seq. The adapter's own output
 * is read with adapter/transport.ts's reader.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DapReader } from '../adapter/transport.js';
import { ROOT } from './fixtures.js';

export { ROOT };
export const NDB = join(ROOT, 'bin', 'ndb.js');

export interface DapMessage {
  type: string;
  seq: number;
  request_seq?: number;
  command?: string;
  event?: string;
  success?: boolean;
  message?: string;
  body?: Record<string, unknown>;
}

/** Text that gives away a JS stack trace or the adapter's own files. */
export const STACK_LIKE = /\n\s+at |\bat [\w.<>]+ \(|\.[cm]?js:\d+|\.ts:\d+|node:internal|\/(dist|node_modules)\//;

export function frame(json: string, header = `Content-Length: ${Buffer.byteLength(json)}\r\n\r\n`): Buffer {
  return Buffer.from(header + json, 'utf8');
}

export class RawDap {
  readonly messages: DapMessage[] = [];
  private waiters: { match: (m: DapMessage) => boolean; resolve: (m: DapMessage | null) => void }[] = [];
  private closedFlag = false;
  private closeWaiters: (() => void)[] = [];
  seq = 1;

  constructor(
    private readonly out: { write(b: Buffer): unknown },
    input: NodeJS.ReadableStream,
  ) {
    const reader = new DapReader('lenient', {
      message: (value) => this.onMessage(value as DapMessage),
      malformed: (problem) => {
        throw new Error(`ndb dap wrote a malformed frame: ${problem}`);
      },
      fatal: () => undefined,
    });
    input.on('data', (chunk: Buffer) => reader.push(chunk));
    input.on('close', () => {
      this.closedFlag = true;
      for (const w of this.closeWaiters.splice(0)) w();
      // Nothing more will come: a request still waiting gets null at once.
      for (const w of this.waiters.splice(0)) w.resolve(null);
    });
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  whenClosed(timeoutMs: number): Promise<boolean> {
    if (this.closedFlag) return Promise.resolve(true);
    return new Promise((res) => {
      const timer = setTimeout(() => res(false), timeoutMs);
      this.closeWaiters.push(() => {
        clearTimeout(timer);
        res(true);
      });
    });
  }

  private onMessage(m: DapMessage): void {
    this.messages.push(m);
    for (const w of [...this.waiters]) {
      if (w.match(m)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  }

  write(bytes: Buffer | string): void {
    this.out.write(typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes);
  }

  /** Sends a well-formed request; resolves with its response (null after timeoutMs). */
  request(command: string, args?: unknown, timeoutMs = 15_000): Promise<DapMessage | null> {
    const seq = this.seq++;
    const response = this.waitFor((m) => m.type === 'response' && m.request_seq === seq, timeoutMs);
    this.write(frame(JSON.stringify({ seq, type: 'request', command, ...(args === undefined ? {} : { arguments: args }) })));
    return response;
  }

  waitFor(match: (m: DapMessage) => boolean, timeoutMs: number): Promise<DapMessage | null> {
    const seen = this.messages.find(match);
    if (seen) return Promise.resolve(seen);
    if (this.closedFlag) return Promise.resolve(null);
    return new Promise((res) => {
      const waiter = { match, resolve: (m: DapMessage | null) => (clearTimeout(timer), res(m)) };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        res(null);
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }
}

/** `ndb dap` on stdio. */
export function spawnStdio(): { child: ChildProcess; dap: RawDap; stderr: () => string } {
  const child = spawn(process.execPath, [NDB, 'dap'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  // A write after the adapter is gone fails with EPIPE; the test sees the exit instead.
  child.stdin!.on('error', () => undefined);
  return { child, dap: new RawDap(child.stdin!, child.stdout!), stderr: () => err };
}

/** `ndb dap --port 0 [extra]`, resolved once it prints its port and token. */
export async function spawnTcp(extra: string[] = [], env: NodeJS.ProcessEnv = process.env): Promise<{ child: ChildProcess; port: number; token: string | undefined; line: string; stderr: () => string }> {
  const child = spawn(process.execPath, [NDB, 'dap', '--port', '0', ...extra], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env });
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const line = await new Promise<string>((res, rej) => {
    createInterface({ input: child.stdout! }).once('line', res);
    child.once('exit', (code) => rej(new Error(`ndb dap exited with ${code}: ${err}`)));
  });
  const m = /listening on [^:]+:(\d+), (?:token (\S+)|token from \S+) /.exec(line);
  if (!m) throw new Error(`unexpected first line: ${line}`);
  return { child, port: Number(m[1]), token: m[2], line, stderr: () => err };
}

export async function connectTcp(port: number): Promise<{ socket: Socket; dap: RawDap }> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((res, rej) => {
    socket.once('connect', () => res());
    socket.once('error', rej);
  });
  socket.on('error', () => undefined);
  return { socket, dap: new RawDap(socket, socket) };
}

/** Every text a message carries to the client: its message, error format and output. */
export function clientText(m: DapMessage): string {
  const body = m.body as { error?: { format?: string }; output?: string } | undefined;
  return [m.message, body?.error?.format, body?.output].filter((t) => typeof t === 'string').join('\n');
}
