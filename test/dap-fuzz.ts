/**
 * A seeded, bounded fuzz of `ndb dap` over stdio and TCP (test/dap-fuzz.test.ts runs a short
 * form; README "Security" gives the command for a longer one). It sends random requests
 * (every DAP command, ndb's own, unknown ones; arguments of random shapes, with the field names
 * the adapter reads) mixed with malformed frames (bad JSON, JSON null and other non-objects, a
 * Content-Length too short, too long or over the cap, LF-only headers, stray bytes, an HTTP
 * request, a message split into pieces), and checks:
 *
 * - the adapter never exits (stdio) and the server never dies (TCP);
 * - it never hangs: a probe (`threads`) after every batch is answered within PROBE_TIMEOUT_MS;
 * - no message it sends holds a JS stack trace or names its own files, and none is an
 *   "ndb internal error".
 *
 * On TCP a connection that sent non-DAP framing is closed by the server (as it should be);
 * the fuzz then opens a new one.
 */
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { Rng } from '../util/rng.js';
import { COUNT_PY } from './fixtures.js';
import { clientText, connectTcp, type DapMessage, frame, type RawDap, spawnStdio, spawnTcp, STACK_LIKE } from './dap-raw.js';

const PROBE_TIMEOUT_MS = 20_000;
const BATCH = 50;

const COMMANDS = [
  'initialize', 'launch', 'attach', 'disconnect', 'terminate', 'restart', 'setBreakpoints', 'setFunctionBreakpoints',
  'setExceptionBreakpoints', 'configurationDone', 'continue', 'next', 'stepIn', 'stepOut', 'stepBack', 'reverseContinue',
  'pause', 'threads', 'stackTrace', 'scopes', 'variables', 'evaluate', 'setVariable', 'exceptionInfo', 'cancel', 'source',
  'goto', 'gotoTargets', 'completions', 'restartFrame', 'loadedSources', 'readMemory', 'disassemble', 'setExpression',
  'breakpointLocations', 'dataBreakpointInfo', 'setDataBreakpoints', 'stepInTargets', 'modules', 'ndb/predictInputs', 'ndb/resample', 'ndb/trace', 'nonsense', '',
  '__proto__', 'constructor', 'toString', 'hasOwnProperty',
];
const FIELDS = [
  'threadId', 'frameId', 'variablesReference', 'expression', 'program', 'entry', 'args', 'source', 'path', 'breakpoints',
  'line', 'lines', 'value', 'name', 'token', 'levels', 'startFrame', 'context', 'filters', 'requestId', 'model', 'device',
  'samples', 'temperature', 'stopOnEntry', 'inferArgs', 'pathFormat', 'linesStartAt1', 'start', 'count', 'filter',
  'condition', 'hitCondition', 'logMessage', 'targetId', 'dataId', 'accessType', 'text', 'column', 'endLine', 'format',
  'exceptionOptions', 'filterOptions', 'showReturnValue',
  '__proto__', 'constructor',
];
const COUNT = COUNT_PY;
const STRINGS = [
  '', ' ', 'x', 's', 'count', "'berry', 'r'", 'n + 1', 's[0]', 'len(s)', '__import__("os")', '().__class__', '{0.__class__}',
  COUNT, '/nonexistent.py', '/etc/passwd', '/dev/zero', '.', 'cpu', 'cuda', 'int8', 'path', 'uri', 'hover', 'repl', 'watch',
  'é🙂\u0000', '\r\n\r\n', 'Content-Length: 5\r\n\r\n', '<|frame_sep|>', '\\', '"', 'null',
];

export interface FuzzReport {
  sent: number;
  malformed: number;
  responses: number;
  probes: number;
  exits: number;
  hangs: number;
  stackTraces: string[];
  internalErrors: string[];
  reconnects: number;
  /** For each probe that got no answer: the inputs just before it. */
  hangDetails: string[];
}

function randomValue(rng: Rng, depth = 0): unknown {
  const kind = rng.int(0, depth > 2 ? 5 : 8);
  switch (kind) {
    case 0: return null;
    case 1: return rng.chance(0.5);
    case 2: return rng.pick([0, 1, -1, 2, 3, 1001, 2 ** 31, 2 ** 53 + 1, -(2 ** 40), 0.5, 1e300]);
    case 3: return rng.pick(STRINGS);
    case 4: return rng.chance(0.1) ? 'x'.repeat(rng.int(1000, 30_000)) : String.fromCharCode(...Array.from({ length: rng.int(0, 12) }, () => rng.int(0, 0x2fff)));
    case 5: return rng.int(-5, 50);
    case 6: return Array.from({ length: rng.int(0, 4) }, () => randomValue(rng, depth + 1));
    default: return randomObject(rng, depth + 1);
  }
}

function randomObject(rng: Rng, depth: number): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (let i = rng.int(0, 5); i > 0; i--) Object.defineProperty(o, rng.pick(FIELDS), { value: randomValue(rng, depth), enumerable: true, writable: true, configurable: true });
  return o;
}

/** A plausible request: the right field names with values of random types (the fields a handler reads are the interesting ones). */
function randomArguments(rng: Rng, command: string): unknown {
  if (rng.chance(0.1)) return randomValue(rng);
  const a = randomObject(rng, 1);
  if (command === 'launch' && rng.chance(0.5)) {
    a.program = rng.chance(0.1) ? COUNT : rng.pick(STRINGS);
    if (rng.chance(0.5)) a.entry = 'count';
    if (rng.chance(0.5)) a.args = rng.pick(["'berry', 'r'", '1, 2', '', 'os.getcwd()']);
  }
  if (command === 'evaluate' && rng.chance(0.7)) a.expression = rng.pick(STRINGS);
  if (command === 'setBreakpoints' && rng.chance(0.5)) a.source = { path: rng.chance(0.5) ? COUNT : rng.pick(STRINGS) };
  // Breakpoints with conditions, hit counts and log messages that may or may not parse, on lines that may or may not hold code.
  if (command === 'setBreakpoints' && rng.chance(0.5)) {
    a.breakpoints = Array.from({ length: rng.int(0, 4) }, () => ({
      line: rng.int(-1, 12),
      ...(rng.chance(0.5) ? { condition: rng.pick([...STRINGS, 'n >', 'c == "r"', 'n > 0']) } : {}),
      ...(rng.chance(0.3) ? { hitCondition: rng.pick(['1', '>=2', '%0', '%3', 'often', '']) } : {}),
      ...(rng.chance(0.3) ? { logMessage: rng.pick(['n={n}', '{', '}', '{{}}', '{n +}', '{__import__("os")}']) } : {}),
    }));
  }
  if ((command === 'setDataBreakpoints' || command === 'dataBreakpointInfo') && rng.chance(0.5)) {
    a.dataId = rng.pick(['{"name":"n","frame":["count"]}', '{"name":"constructor","frame":["count"]}', '{}', 'x']);
    a.name = rng.pick(['n', 's', 'constructor', '__proto__', '']);
    if (command === 'setDataBreakpoints') a.breakpoints = [{ dataId: a.dataId, accessType: rng.pick(['write', 'read', 'readWrite']) }];
  }
  return a;
}

/** One piece of input: a well-framed request, or one of the malformed kinds. */
export function randomInput(rng: Rng, seq: number, commands: readonly string[], tcp: boolean): { bytes: Buffer[]; malformed: boolean } {
  const input = randomInputBytes(rng, seq, commands, tcp);
  return input;
}

function randomInputBytes(rng: Rng, seq: number, commands: readonly string[], tcp: boolean): { bytes: Buffer[]; malformed: boolean } {
  const command = rng.pick(commands);
  const message: Record<string, unknown> = { seq, type: 'request', command };
  if (rng.chance(0.85)) message.arguments = randomArguments(rng, command);
  const json = JSON.stringify(message);
  const kind = rng.int(0, 19);
  const malformed = (bytes: Buffer[]) => ({ bytes, malformed: true });
  switch (kind) {
    case 0: return malformed([frame(json.slice(0, rng.int(1, json.length - 1)))]); // not JSON
    case 1: return malformed([frame(rng.pick(['null', '[]', '1', '"x"', 'true', '{}', '{"type":"event","seq":1}', '{"type":"response","request_seq":99,"success":true}']))]);
    case 2: return malformed([Buffer.from(`Content-Length: ${Math.max(0, Buffer.byteLength(json) - rng.int(1, 20))}\r\n\r\n${json}`)]); // too short
    case 3: return malformed([Buffer.from(`Content-Length: ${Buffer.byteLength(json) + rng.int(1, 5000)}\r\n\r\n${json}`)]); // too long
    case 4: return malformed([Buffer.from(`Content-Length: ${Buffer.byteLength(json)}\n\n${json}`)]); // LF only (answered)
    case 5: if (!tcp) return malformed([Buffer.from(`Content-Length: ${rng.int(9_000_000, 2 ** 40)}\r\n\r\n`)]); break; // over the cap
    case 6: if (!tcp) return malformed([Buffer.from(Array.from({ length: rng.int(1, 64) }, () => rng.int(0, 255)))]); break; // stray bytes
    case 7: if (!tcp || rng.chance(0.1)) return malformed([Buffer.from(`POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: ${json.length}\r\n\r\n${json}`)]); break;
    case 8: {
      // A frame in pieces.
      const whole = frame(json);
      const cut = rng.int(1, whole.length - 1);
      return { bytes: [whole.subarray(0, cut), whole.subarray(cut)], malformed: false };
    }
    default: break;
  }
  return { bytes: [frame(json)], malformed: false };
}

function inspect(messages: DapMessage[], report: FuzzReport, from: number): void {
  for (const m of messages.slice(from)) {
    if (m.type === 'response') report.responses++;
    const text = clientText(m);
    if (STACK_LIKE.test(text)) report.stackTraces.push(text.slice(0, 300));
    if (/ndb internal error/.test(text)) report.internalErrors.push(`${m.command}: ${text.slice(0, 300)}`);
  }
}

const INIT = { adapterID: 'neural-python', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path', supportsProgressReporting: true };

/** `count` inputs to `ndb dap` on stdio, from `seed`. */
export async function fuzzStdio(seed: number, count: number): Promise<FuzzReport & { stderr: string }> {
  const rng = new Rng(seed);
  const { child, dap, stderr } = spawnStdio();
  const report = emptyReport();
  let exited = false;
  child.once('exit', () => (exited = true));
  try {
    await dap.request('initialize', INIT, PROBE_TIMEOUT_MS);
    await launchCount(dap);
    // disconnect ends a stdio adapter by design: it is the one command left out here.
    const commands = COMMANDS.filter((c) => c !== 'disconnect');
    const recent: string[] = [];
    let inspected = 0;
    for (let i = 0; i < count && !exited; i++) {
      const input = randomInput(rng, 10_000 + i, commands, false);
      if (input.malformed) report.malformed++;
      for (const b of input.bytes) dap.write(b);
      recent.push(Buffer.concat(input.bytes).toString('utf8').slice(0, 200));
      if (recent.length > 8) recent.shift();
      report.sent++;
      if ((i + 1) % BATCH === 0 || i === count - 1) {
        const probeSeq = dap.seq;
        if (!(await probe(dap, report))) {
          const late = await dap.waitFor((m) => m.request_seq === probeSeq, 60_000);
          report.hangDetails.push(`probe ${i} ${late ? 'answered late' : 'never answered'}; before it: ${JSON.stringify(recent)}`);
        }
        inspect(dap.messages, report, inspected);
        inspected = dap.messages.length;
      }
    }
    if (exited || child.exitCode !== null) report.exits++;
  } finally {
    child.kill();
  }
  if (process.env.NDB_FUZZ_STDERR) writeFileSync(process.env.NDB_FUZZ_STDERR, stderr());
  return { ...report, stderr: stderr() };
}

/** `count` inputs to `ndb dap --port 0`, over connections that authenticate (attach with the token) or not. */
export async function fuzzTcp(seed: number, count: number): Promise<FuzzReport & { stderr: string }> {
  const rng = new Rng(seed);
  const server = await spawnTcp();
  const report = emptyReport();
  let serverExited = false;
  server.child.once('exit', () => (serverExited = true));
  let conn: { socket: Socket; dap: RawDap } | null = null;
  let inspected = 0;
  const open = async () => {
    if (conn) inspect(conn.dap.messages, report, inspected);
    conn?.socket.destroy();
    conn = await connectTcp(server.port);
    inspected = 0;
    report.reconnects++;
    await conn.dap.request('initialize', INIT, PROBE_TIMEOUT_MS);
    if (rng.chance(0.8)) {
      await conn.dap.request('attach', { token: server.token }, PROBE_TIMEOUT_MS);
      // Some sessions run on a real launch, so that steps, scopes and evaluate reach a runtime.
      if (rng.chance(0.3)) await launchCount(conn.dap);
    }
  };
  try {
    await open();
    for (let i = 0; i < count && !serverExited; i++) {
      if (conn!.dap.closed) await open();
      const input = randomInput(rng, 10_000 + i, COMMANDS, true);
      if (input.malformed) report.malformed++;
      for (const b of input.bytes) conn!.dap.write(b);
      report.sent++;
      // The server may close the connection for it: let that arrive before the next input.
      if (input.malformed) await new Promise((r) => setTimeout(r, 5));
      if ((i + 1) % BATCH === 0 || i === count - 1) {
        // A fresh connection for the probe when this one was closed (non-DAP framing, disconnect).
        await new Promise((r) => setTimeout(r, 20));
        if (conn!.dap.closed) await open();
        // Before the token only initialize is answered: the probe then is initialize.
        let r = await conn!.dap.request('initialize', INIT, PROBE_TIMEOUT_MS);
        // Closed meanwhile (a disconnect): the probe goes to a new connection.
        if (r === null && conn!.dap.closed) {
          await open();
          r = await conn!.dap.request('initialize', INIT, PROBE_TIMEOUT_MS);
        }
        report.probes++;
        if (r === null) report.hangs++;
        inspect(conn!.dap.messages, report, inspected);
        inspected = conn!.dap.messages.length;
        if (rng.chance(0.2)) await open();
      }
    }
    if (serverExited || server.child.exitCode !== null) report.exits++;
    // The server still takes a new session.
    const last = await connectTcp(server.port);
    if ((await last.dap.request('initialize', INIT, PROBE_TIMEOUT_MS)) === null) report.hangs++;
    last.socket.destroy();
  } finally {
    (conn as { socket: Socket } | null)?.socket.destroy();
    server.child.kill();
  }
  return { ...report, stderr: server.stderr() };
}

/** A real launch of examples/count.py (configurationDone after `initialized`), up to its first stop. */
async function launchCount(dap: RawDap): Promise<void> {
  const stopped = dap.waitFor((m) => m.event === 'stopped', PROBE_TIMEOUT_MS * 3);
  const initialized = dap.waitFor((m) => m.event === 'initialized', PROBE_TIMEOUT_MS);
  const launched = dap.request('launch', { program: COUNT, entry: 'count', args: "'berry', 'r'" }, PROBE_TIMEOUT_MS * 3);
  await initialized;
  await dap.request('configurationDone', {}, PROBE_TIMEOUT_MS);
  await Promise.all([launched, stopped]);
}

async function probe(dap: RawDap, report: FuzzReport): Promise<boolean> {
  const r = await dap.request('threads', undefined, PROBE_TIMEOUT_MS);
  report.probes++;
  if (r === null) report.hangs++;
  return r !== null;
}

function emptyReport(): FuzzReport {
  return { sent: 0, malformed: 0, responses: 0, probes: 0, exits: 0, hangs: 0, stackTraces: [], internalErrors: [], reconnects: 0, hangDetails: [] };
}

export type { ChildProcess };
