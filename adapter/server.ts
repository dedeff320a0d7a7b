/**
 * Serving the debug adapter (`ndb dap`): on stdin/stdout, the way VS Code starts an adapter
 * executable, or on a TCP port, one session per connection (for clients that connect to a
 * running adapter, and for debugging the adapter itself).
 *
 * Both read the protocol through adapter/transport.ts, not @vscode/debugadapter's reader: on
 * stdio a malformed frame is reported and skipped (the editor's session goes on); on TCP,
 * which any process on the machine (and a web page's POST) can reach, anything that is not
 * DAP framing closes the connection, and a session needs the server's token (debug-session.ts)
 * before anything but `initialize` is answered.
 */
import { randomBytes } from 'node:crypto';
import { createServer, isIP, type AddressInfo, type Server, type Socket } from 'node:net';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { NeuralDebugSession, type DebugSessionOptions } from './debug-session.js';
import { DapReader, type FramingMode } from './transport.js';

/**
 * Every request handles its own errors (debug-session.ts); should one slip through anyway, it is
 * logged rather than allowed to end the process and with it the user's debugging session.
 */
let strayHandlerInstalled = false;
function keepRunningOnStrayRejections(): void {
  if (strayHandlerInstalled) return;
  strayHandlerInstalled = true;
  process.on('unhandledRejection', (reason) => {
    process.stderr.write(`ndb dap: unexpected error (a bug in ndb): ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}\n`);
  });
}

/**
 * Runs `session` on `input`/`output` through DapReader. The session's own reader gets a stream
 * that never carries data; it only reports the end of the input (the session then shuts down).
 */
export function attachTransport(session: NeuralDebugSession, input: Readable, output: Writable, mode: FramingMode, onFatal: (problem: string) => void): DapReader {
  const inert = new PassThrough();
  const reader = new DapReader(mode, {
    message: (value) => session.receive(value),
    malformed: (problem, hint) => session.malformed(problem, hint),
    fatal: onFatal,
  });
  input.on('data', (chunk: Buffer | string) => reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
  input.on('end', () => inert.destroy());
  input.on('close', () => inert.destroy());
  session.start(inert, output);
  return reader;
}

/** One session on stdin/stdout; the process ends with it. */
export function serveStdio(): void {
  keepRunningOnStrayRejections();
  // stdout carries the protocol: anything a library logs goes to stderr instead.
  console.log = console.error;
  console.info = console.error;
  const session = new NeuralDebugSession();
  process.on('SIGTERM', () => session.shutdown());
  // Lenient: nothing a client sends ends the process; only the end of stdin does.
  attachTransport(session, process.stdin, process.stdout, 'lenient', () => undefined);
}

export interface TcpOptions {
  /** The secret each connection's launch (or attach) must give. */
  token: string;
  /** Called with each connection's end, for tests and logs. */
  onSessionClosed?: () => void;
}

/** A fresh token: 24 random bytes, URL-safe base64 (32 characters). */
export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/** Whether `host` only listens on this machine. */
export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || /^::ffff:127\./i.test(host);
  return false;
}

/** Listens on `port` (0: any free one) and resolves with the server once it listens. */
export function serveTcp(port: number, host: string, options: TcpOptions): Promise<Server> {
  keepRunningOnStrayRejections();
  const server = createServer((socket: Socket) => {
    // Small messages both ways: Nagle's algorithm would hold each step's answer back by tens of ms.
    socket.setNoDelay(true);
    // After disconnect nothing more is answered on this connection: it ends (the response is sent first).
    const session = new NeuralDebugSession({ token: options.token, onShutdown: () => setImmediate(() => socket.end()) } satisfies DebugSessionOptions);
    session.setRunAsServer(true);
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      // Frees the session's model, runtime and listeners: a client that goes without
      // `disconnect` leaves nothing behind.
      session.shutdown();
      session.removeAllListeners();
      options.onSessionClosed?.();
    };
    // A client that goes away mid-answer must not take the server (and its other sessions) down.
    socket.on('error', () => socket.destroy());
    socket.on('close', close);
    attachTransport(session, socket, socket, 'strict', (problem) => {
      process.stderr.write(`ndb dap: closed a connection from ${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}: ${problem}\n`);
      socket.destroy();
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

export function listeningPort(server: Server): number {
  return (server.address() as AddressInfo).port;
}
