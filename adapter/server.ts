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
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, isIP, type AddressInfo, type Server, type Socket } from 'node:net';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { Response } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { NeuralDebugSession, type DebugSessionOptions } from './debug-session.js';
import { Evaluator, withEvaluator } from './evaluate.js';
import { loadPredictor } from './load-predictor.js';
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

export interface TransportHooks {
  /** Each parsed message, before the session sees it (the TCP server watches for the token). */
  onMessage?: (value: unknown) => void;
  /** Each chunk of input, before it is read (the TCP server counts what an unauthenticated client sends); false: drop it. */
  onChunk?: (chunk: Buffer) => boolean;
}

/**
 * Runs `session` on `input`/`output` through DapReader. The session's own reader gets a stream
 * that never carries data; it only reports the end of the input (the session then shuts down).
 * Every message is handled with `evaluator` as the session's (adapter/evaluate.ts): its
 * expressions, however many come at once, queue for that one Python process.
 */
export function attachTransport(session: NeuralDebugSession, input: Readable, output: Writable, mode: FramingMode, onFatal: (problem: string) => void, evaluator = new Evaluator(), hooks: TransportHooks = {}): DapReader {
  const inert = new PassThrough();
  const budget = answerWithinBudget(session);
  const reader = new DapReader(mode, {
    message: (value) => {
      hooks.onMessage?.(value);
      budget.started(value);
      withEvaluator(evaluator, () => session.receive(value));
    },
    malformed: (problem, hint) => withEvaluator(evaluator, () => session.malformed(problem, hint)),
    fatal: onFatal,
  });
  input.on('data', (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (hooks.onChunk?.(bytes) === false) return;
    reader.push(bytes);
  });
  input.on('end', () => inert.destroy());
  input.on('close', () => inert.destroy());
  input.on('close', () => budget.stop());
  session.start(inert, output);
  return reader;
}

/**
 * Requests that only read (the views, hovers, the Debug Console) and the longest any of them
 * goes unanswered: past it the client gets an error answer (its view shows the message) and the
 * late answer, if one comes, is dropped. One expression waiting behind a queue of others, say,
 * does not leave a hover hanging. Commands that move the run (continue, next, launch…) have no
 * budget: their answer comes with the stop they predict, however long the run.
 */
export const READ_REQUESTS = new Set(['evaluate', 'variables', 'scopes', 'stackTrace', 'threads', 'source', 'exceptionInfo', 'completions', 'loadedSources', 'breakpointLocations']);
export const REQUEST_BUDGET_MS = 30_000;

export function answerWithinBudget(session: NeuralDebugSession, budgetMs = REQUEST_BUDGET_MS): { started(value: unknown): void; stop(): void } {
  const waiting = new Map<number, NodeJS.Timeout>();
  const answeredLate = new Set<number>();
  const send = session.sendResponse.bind(session);
  session.sendResponse = (response: DebugProtocol.Response) => {
    if (answeredLate.delete(response.request_seq)) return;
    clearTimeout(waiting.get(response.request_seq));
    waiting.delete(response.request_seq);
    send(response);
  };
  return {
    started(value) {
      const m = value as { type?: unknown; seq?: unknown; command?: unknown } | null;
      if (typeof m !== 'object' || m === null || m.type !== 'request' || typeof m.seq !== 'number' || typeof m.command !== 'string' || !READ_REQUESTS.has(m.command)) return;
      const { seq, command } = m as { seq: number; command: string };
      if (waiting.has(seq)) return;
      const timer = setTimeout(() => {
        waiting.delete(seq);
        answeredLate.add(seq);
        const response: DebugProtocol.Response = new Response({ seq, type: 'request', command } as DebugProtocol.Request);
        response.success = false;
        response.message = `ndb did not answer ${command} within ${budgetMs / 1000} s (it is busy with this session's earlier requests); try again`;
        send(response);
      }, budgetMs);
      timer.unref();
      waiting.set(seq, timer);
    },
    stop() {
      for (const timer of waiting.values()) clearTimeout(timer);
      waiting.clear();
      answeredLate.clear();
    },
  };
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
  /** Connections open at once at most (default MAX_CONNECTIONS); one more is closed at once. */
  maxConnections?: number;
  /** Bytes a connection may send before its launch gives the token (default MAX_UNAUTHENTICATED_BYTES). */
  maxUnauthenticatedBytes?: number;
  /** How long a connection may stay without giving the token, ms (default AUTH_TIMEOUT_MS). */
  authTimeoutMs?: number;
  /** Where the server says why it closed a connection (default: stderr). */
  log?: (line: string) => void;
}

/** Sessions at once: each holds a model (tens of MB) and may hold a Python evaluator. */
export const MAX_CONNECTIONS = 16;
/** An initialize and a launch with the token are a few KiB; nothing larger comes before the token. */
export const MAX_UNAUTHENTICATED_BYTES = 64 * 1024;
/** A client that has not given the token by then is closed. */
export const AUTH_TIMEOUT_MS = 30_000;

/** Whether `value` is a launch or attach request that gives `token` (the session checks it again). */
function givesToken(value: unknown, token: string): boolean {
  const m = value as { type?: unknown; command?: unknown; arguments?: { token?: unknown } } | null;
  if (typeof m !== 'object' || m === null || m.type !== 'request' || (m.command !== 'launch' && m.command !== 'attach')) return false;
  const given = m.arguments?.token;
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
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
  const maxConnections = options.maxConnections ?? MAX_CONNECTIONS;
  const maxUnauthenticated = options.maxUnauthenticatedBytes ?? MAX_UNAUTHENTICATED_BYTES;
  const authTimeoutMs = options.authTimeoutMs ?? AUTH_TIMEOUT_MS;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const open = new Set<Socket>();
  const server = createServer((socket: Socket) => {
    const peer = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    socket.on('error', () => socket.destroy());
    if (open.size >= maxConnections) {
      // Nothing is read from it and no session is made: a flood of connections costs a socket each, briefly.
      log(`ndb dap: closed a connection from ${peer}: ${open.size} connections are open already (at most ${maxConnections})`);
      socket.destroy();
      return;
    }
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    // Small messages both ways: Nagle's algorithm would hold each step's answer back by tens of ms.
    socket.setNoDelay(true);
    // After disconnect nothing more is answered on this connection: it ends (the response is sent first).
    let closed = false;
    const session = new NeuralDebugSession({
      token: options.token,
      onShutdown: () => setImmediate(() => socket.end()),
      // A launch still queued when the connection closed must not load a model then: nothing
      // would release it (the session released what it held when it shut down).
      loadPredictor: (choice) => (closed ? Promise.reject(new Error('the connection closed before the model was loaded')) : loadPredictor(choice)),
    } satisfies DebugSessionOptions);
    session.setRunAsServer(true);
    const evaluator = new Evaluator();
    let authenticated = false;
    let unauthenticatedBytes = 0;
    const refuse = (problem: string) => {
      log(`ndb dap: closed a connection from ${peer}: ${problem}`);
      socket.destroy();
    };
    // Until the token, a connection is a stranger's: it gets a few seconds and a few KiB.
    const authTimer = setTimeout(() => {
      if (!authenticated) refuse(`no launch with the token within ${authTimeoutMs / 1000} s`);
    }, authTimeoutMs);
    const close = () => {
      if (closed) return;
      closed = true;
      clearTimeout(authTimer);
      // Frees the session's model, runtime, Python evaluator and listeners: a client that goes
      // without `disconnect` leaves nothing behind.
      session.shutdown();
      session.removeAllListeners();
      evaluator.dispose();
      options.onSessionClosed?.();
    };
    // A client that goes away mid-answer must not take the server (and its other sessions) down.
    socket.on('close', close);
    attachTransport(
      session,
      socket,
      socket,
      'strict',
      (problem) => refuse(problem),
      evaluator,
      {
        onChunk: (chunk) => {
          if (authenticated) return true;
          unauthenticatedBytes += chunk.length;
          if (unauthenticatedBytes <= maxUnauthenticated) return true;
          // Nothing more of it is read or buffered.
          if (!socket.destroyed) refuse(`${unauthenticatedBytes} bytes without the token (at most ${maxUnauthenticated} before a launch gives it)`);
          return false;
        },
        onMessage: (value) => {
          if (!authenticated && givesToken(value, options.token)) {
            authenticated = true;
            clearTimeout(authTimer);
          }
        },
      },
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

export function listeningPort(server: Server): number {
  return (server.address() as AddressInfo).port;
}
