/**
 * A seeded, bounded fuzz of `ndb lsp --stdio` (test/lsp-fuzz.test.ts runs it), driven as an
 * editor drives it: a JSON-RPC client (vscode-jsonrpc) on a spawned server, no mocks. It opens,
 * changes and closes documents whose lines are odd on purpose (a `# ndb:` line of a million
 * blanks, `>>>` and `assert` lines of blanks, lone carriage returns, U+2028, NUL, thousands of
 * example calls, very long lines) and sends hovers, inlay hints and inline values at odd
 * positions (2**70, negative, fractional, missing, strings), `ndb/debugState` notifications of
 * odd shapes, and unknown methods. It checks:
 *
 * - every request is answered (a result or an error), each within ANSWER_TIMEOUT_MS;
 * - the server never exits, and logs no internal error;
 * - afterwards it still answers at once, and shuts down with status 0.
 *
 * The server runs without a model (`--model` names no folder): the predictions fail at once,
 * so what is measured is the server's own work on what the client sends.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import { Rng } from '../util/rng.js';
import { ROOT } from './fixtures.js';

const NDB = join(ROOT, 'bin', 'ndb.js');
/** No answer within this is a hang. */
export const ANSWER_TIMEOUT_MS = 30_000;
/** Requests in flight at once (an editor pipelines a few; the fuzz more). */
const IN_FLIGHT = 64;
const DOCUMENTS = 24;

export interface LspFuzzReport {
  inputs: number;
  requests: number;
  answered: number;
  errors: number;
  notifications: number;
  hangs: string[];
  exits: number;
  internalErrors: string[];
  /** The slowest answer, ms. */
  slowestMs: number;
  /** The hover after the fuzz, on a plain document: ms to answer. */
  afterMs: number;
  exitStatus: { code: number | null; signal: string | null };
}

const BLANKS = ' '.repeat(1_000_000);
const ODD_LINES = [
  `# ndb: f(1)${BLANKS}`,
  `# ndb:${BLANKS}`,
  `    >>>${BLANKS}`,
  `    >>> f(2)${BLANKS}x`,
  `assert ${BLANKS}f(1) == 1`,
  `assert not${BLANKS}`,
  '#ndb:'.repeat(50_000) + '\r',
  '# ndb: f(' + '1, '.repeat(50_000) + ')',
  '# ndb: f(' + "'".repeat(30_001) + ')',
  '# ndb: f(' + '*'.repeat(50_000) + ')',
  '# ndb: f(' + 'k=1, '.repeat(30_000) + ')',
  '# ndb: f(' + '('.repeat(100_000),
  'x = "# ndb: f(1)"',
  '# ndb: f(1)\r# ndb: f(2)',
  '# ndb: f(1)\u2028',
  '\u0000\u0000# ndb: f(\u0000)',
  'é🙂'.repeat(10_000),
  'a'.repeat(200_000),
];
const PLAIN_LINES = [
  'def f(a, b=2):', '    """Twice a.', '    >>> f(1)', '    >>> f(2, 3)', '    """', '    c = a * 2', '    return c + b', '',
  '# ndb: f(1)', '# ndb: f(x)', '# ndb: g(1)', '# ndb: f(1', 'assert f(1) == 4', 'assert not f(0)', 'class K:', '    def m(self):',
  '        return self', 'def g(s):', '    for ch in s:', '        yield ch', '\t', '', '   ', 'lambda: 0', '# ndb: f(*[1])',
  "# ndb: f('a' * 3)", '# ndb: f(1e999, 0x_1)', 'def (', '@dec', 'async def h():', '    await h()',
];

function randomDocument(rng: Rng): string {
  const lines: string[] = [];
  const n = rng.chance(0.05) ? rng.int(1000, 5000) : rng.int(0, 60);
  for (let i = 0; i < n; i++) lines.push(rng.chance(0.01) ? rng.pick(ODD_LINES) : rng.pick(PLAIN_LINES));
  // Many example calls of one function (each would be a run).
  if (rng.chance(0.05)) for (let i = 0; i < 3000; i++) lines.push(`# ndb: f(${i})`);
  return lines.join(rng.pick(['\n', '\r\n', '\n', '\r']));
}

const NUMBERS = [0, 1, 2, 5, 9, 40, 1000, 2 ** 31, 2 ** 53, 2 ** 70, 1e300, -1, -(2 ** 70), 0.5, 3.7];

function randomNumber(rng: Rng): unknown {
  if (rng.chance(0.05)) return rng.pick([null, 'x', '3', [], {}, true]);
  return rng.chance(0.6) ? rng.int(0, 12) : rng.pick(NUMBERS);
}

function randomPosition(rng: Rng): unknown {
  if (rng.chance(0.03)) return rng.pick([null, undefined, {}, 'x', [1, 2], { line: 1 }]);
  return { line: randomNumber(rng), character: randomNumber(rng) };
}

function randomRange(rng: Rng): unknown {
  if (rng.chance(0.03)) return rng.pick([null, undefined, {}, { start: {} }]);
  return { start: randomPosition(rng), end: randomPosition(rng) };
}

function randomDebugState(rng: Rng, uri: string): unknown {
  if (rng.chance(0.1)) return rng.pick([null, undefined, {}, { uri: 5 }, 'x', []]);
  const locals = (): Record<string, unknown> => ({ a: { value: '1', confidence: 0.5 }, c: { value: rng.pick(['[1]', 'x'.repeat(10_000), '']), confidence: rng.pick([1, 'x', null]) }, ...(rng.chance(0.2) ? { constructor: 5, toString: { value: 3 } } : {}) });
  return {
    uri,
    stop: rng.chance(0.1) ? rng.pick([null, {}, { line: 'x' }]) : { line: randomNumber(rng), function: rng.pick(['f', 'g', '<module>', 5]), locals: rng.chance(0.1) ? rng.pick([null, [], 'x']) : locals() },
    history: rng.chance(0.1)
      ? rng.pick([null, 'x', [null, 5, { line: 1 }, { line: 2, locals: 'x' }]])
      : Array.from({ length: rng.int(0, 30) }, () => ({ line: randomNumber(rng), ...(rng.chance(0.5) ? { function: 'f' } : {}), locals: { a: String(rng.int(0, 9)), ...(rng.chance(0.2) ? { constructor: 'x' } : {}) } })),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function fuzzLsp(seed: number, inputs: number): Promise<LspFuzzReport> {
  const rng = new Rng(seed);
  const child = spawn(process.execPath, [NDB, 'lsp', '--stdio', '--model', '/nonexistent/ndb-fuzz-model'], { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stderr!.resume();
  let exited = false;
  let exitStatus: { code: number | null; signal: string | null } = { code: null, signal: null };
  const gone = new Promise<void>((resolve) =>
    child.on('exit', (code, signal) => {
      exited = true;
      exitStatus = { code, signal };
      resolve();
    }),
  );
  const rpc = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  const report: LspFuzzReport = { inputs: 0, requests: 0, answered: 0, errors: 0, notifications: 0, hangs: [], exits: 0, internalErrors: [], slowestMs: 0, afterMs: -1, exitStatus };
  rpc.onNotification('window/logMessage', (p: { type: number; message: string }) => {
    if (/internal error|no answer within/.test(p.message)) report.internalErrors.push(p.message.slice(0, 400));
  });
  rpc.onNotification(() => undefined);
  rpc.onError(() => undefined);
  rpc.listen();
  await rpc.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {} });
  await rpc.sendNotification('initialized', {});

  const uris = Array.from({ length: DOCUMENTS }, (_, i) => pathToFileURL(`/tmp/ndb-lsp-fuzz/doc${i}.py`).href);
  const versions = new Map<string, number>();
  const open = new Set<string>();
  let inFlight = 0;
  const pending = new Set<Promise<void>>();

  const request = (method: string, params: unknown, what: string) => {
    report.requests++;
    inFlight++;
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const p = Promise.race([
      rpc.sendRequest(method, params).then(
        () => 'answered' as const,
        () => 'error' as const,
      ),
      new Promise<'hang'>((resolve) => (timer = setTimeout(() => resolve('hang'), ANSWER_TIMEOUT_MS))),
    ]).then((outcome) => {
      clearTimeout(timer);
      inFlight--;
      report.slowestMs = Math.max(report.slowestMs, Date.now() - started);
      if (outcome === 'hang') report.hangs.push(what);
      else {
        report.answered++;
        if (outcome === 'error') report.errors++;
      }
    });
    pending.add(p);
    void p.finally(() => pending.delete(p));
  };

  for (let i = 0; i < inputs && !exited; i++) {
    report.inputs++;
    while (inFlight >= IN_FLIGHT && !exited) await sleep(2);
    const uri = rng.pick(uris);
    const kind = rng.weighted({ open: 4, change: 6, close: 1, debugState: 4, unknownNotification: 1, hover: 55, inlayHint: 15, inlineValue: 10, unknownRequest: 4 });
    const version = (versions.get(uri) ?? 0) + 1;
    switch (kind) {
      case 'open':
        versions.set(uri, version);
        open.add(uri);
        report.notifications++;
        void rpc.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version, text: randomDocument(rng) } });
        break;
      case 'change': {
        if (!open.has(uri)) break;
        versions.set(uri, version);
        report.notifications++;
        const change = rng.chance(0.5) ? { text: randomDocument(rng) } : { range: randomRange(rng), text: rng.chance(0.05) ? rng.pick(ODD_LINES) : rng.pick(PLAIN_LINES) + '\n' };
        // A change must be a range of numbers or the whole text: the client library checks its own sends.
        const valid = 'range' in change ? isNumberRange(change.range) : true;
        void rpc.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [valid ? change : { text: randomDocument(rng) }] });
        break;
      }
      case 'close':
        if (!open.has(uri)) break;
        open.delete(uri);
        report.notifications++;
        void rpc.sendNotification('textDocument/didClose', { textDocument: { uri } });
        break;
      case 'debugState':
        report.notifications++;
        void rpc.sendNotification('ndb/debugState', randomDebugState(rng, uri));
        break;
      case 'unknownNotification':
        report.notifications++;
        void rpc.sendNotification(rng.pick(['ndb/nothing', '$/odd', 'textDocument/didSave']), { textDocument: { uri } });
        break;
      case 'hover':
        request('textDocument/hover', { textDocument: rng.chance(0.02) ? rng.pick([null, {}, { uri: 5 }]) : { uri }, position: randomPosition(rng) }, `hover #${i}`);
        break;
      case 'inlayHint':
        request('textDocument/inlayHint', { textDocument: { uri }, range: randomRange(rng) }, `inlayHint #${i}`);
        break;
      case 'inlineValue':
        request('textDocument/inlineValue', { textDocument: { uri }, range: randomRange(rng), context: { frameId: 1, stoppedLocation: randomRange(rng) } }, `inlineValue #${i}`);
        break;
      case 'unknownRequest':
        request(rng.pick(['textDocument/definition', 'ndb/nothing', 'workspace/symbol', 'textDocument/completion']), { textDocument: { uri }, position: randomPosition(rng) }, `unknown #${i}`);
        break;
    }
  }
  await Promise.race([Promise.all([...pending]), gone]);
  if (exited) report.exits++;

  if (!exited) {
    const uri = pathToFileURL('/tmp/ndb-lsp-fuzz/after.py').href;
    await rpc.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version: 1, text: 'def f(a):\n    b = a + 1\n    return b\n' } });
    const started = Date.now();
    await rpc.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 1, character: 4 } });
    report.afterMs = Date.now() - started;
    await Promise.race([rpc.sendRequest('shutdown'), gone, sleep(30_000)]);
    await rpc.sendNotification('exit');
    await Promise.race([gone, sleep(10_000)]);
  }
  rpc.dispose();
  if (!exited) child.kill('SIGKILL');
  report.exitStatus = exitStatus;
  return report;
}

function isNumberRange(range: unknown): boolean {
  const r = range as { start?: { line?: unknown; character?: unknown }; end?: { line?: unknown; character?: unknown } } | null | undefined;
  return [r?.start?.line, r?.start?.character, r?.end?.line, r?.end?.character].every((n) => typeof n === 'number');
}
