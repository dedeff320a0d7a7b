/**
 * `ndb lsp --stdio`, driven as an editor drives it: a JSON-RPC client (vscode-jsonrpc) on a
 * spawned `node bin/ndb.js lsp --stdio`, with the shipped model predicting in the server's
 * worker. The model is an interim one, so the tests check the structure of what comes back
 * (which variable, which lines, which version), never particular predicted values.
 *
 * The pure parts (finding example calls, the exception diagnostic, hints and hovers from a
 * run) are tested directly on hand-made runs, where the values are known.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CancellationTokenSource, createMessageConnection, type MessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import type { Diagnostic, Hover, InlayHint, MarkupContent, PublishDiagnosticsParams, ShowMessageParams } from 'vscode-languageserver';
import { exceptionDiagnostic } from '../lsp/diagnostics.js';
import { findExampleCalls, literalProblem } from '../lsp/example-calls.js';
import { exampleHover } from '../lsp/hover.js';
import { inlayHints } from '../lsp/inlay-hints.js';
import type { PredictedRun, PredictedStep } from '../lsp/predicted-run.js';
import type { PredictionStatusParams } from '../protocol/lsp.js';
import type { State } from '../grammar/state.js';
import type { FunctionInfo } from '../program-analysis/program-info.js';
import { HAS_EMBEDDED_MODEL } from './fixtures.js';

const BUILT = existsSync('dist/cli/lsp.js') && existsSync('dist/lsp/prediction-worker.js');
// A busy two-core machine: model load, Python helpers and ~100 ms per predicted step.
const LONG = 180_000;

// ---- the pure parts, on hand-made runs ---------------------------------------------------

const fnInfo = (name: string, line: number, endLine: number, localNames: string[]): FunctionInfo => ({ name, qualname: name, line, endLine, params: [], callLine: line, callLocals: [], localNames });

function step(event: State['event'], line: number, locals: Record<string, string>, extra: Partial<PredictedStep> & { value?: string; depth?: number } = {}): PredictedStep {
  const stack = [...Array(extra.depth ?? 1).keys()].map((i) => ({ function: i === 0 ? 'count' : 'helper', line: i === (extra.depth ?? 1) - 1 ? line : 1 }));
  return {
    state: { event, line, source: '', stack, locals, ...(extra.value === undefined ? {} : { value: extra.value }) },
    origin: extra.origin ?? 'model',
    confidence: extra.confidence ?? { locals: Object.fromEntries(Object.keys(locals).map((k) => [k, 0.5])), frame: 0.5 },
  };
}

describe('example calls', () => {
  const fns = [fnInfo('count', 1, 6, ['s', 't', 'n', 'c']), { ...fnInfo('inner', 3, 4, []), qualname: 'count.<locals>.inner' }];

  it('finds doctest and comment calls of top-level functions, once each', () => {
    const text = ['def count(s, t):', '    """', "    >>> count('berry', 'r')", '    >>> x = 3', '    """', '    return 0', "# ndb: count('berry', 'r')", "# ndb: count([1, (2, 3)], t={'a': None})  # two"].join('\n');
    const { calls, skipped } = findExampleCalls(text, fns);
    expect(calls.map((c) => [c.kind, c.entry, c.args, c.line])).toEqual([
      ['doctest', 'count', "'berry', 'r'", 2],
      ['comment', 'count', "[1, (2, 3)], t={'a': None}", 7],
    ]);
    expect(text.split('\n')[2]!.slice(calls[0]!.start, calls[0]!.end)).toBe("count('berry', 'r')");
    expect(skipped).toEqual([]);
  });

  it('says why a call is skipped: not literals, not a function of the file, not a call', () => {
    const text = ['# ndb: count(x, 1)', '# ndb: inner(1)', '# ndb: nowhere()', '# ndb: count', "# ndb: count(f'{1}', 2)", "s = '# ndb: count(1, 2)'"].join('\n');
    const { calls, skipped } = findExampleCalls(text, fns);
    expect(calls).toEqual([]);
    expect(skipped.map((s) => s.line)).toEqual([0, 1, 2, 3, 4]);
    expect(skipped[0]!.reason).toMatch(/'x' is not a literal/);
    expect(skipped[1]!.reason).toMatch(/not a top-level function/);
    expect(skipped[4]!.reason).toMatch(/f-string/);
  });

  it('checks literals quickly, leaving the last word to Python', () => {
    for (const ok of ["'a', 1, -2.5e3, 0x1f, 3j", "[1, {'k': (None, True)}], key=False", '"it\'s", b"x"', '']) expect(literalProblem(ok)).toBeNull();
    for (const bad of ['x', 'len([1])', '*xs', '**kw', '[1, y]']) expect(literalProblem(bad)).not.toBeNull();
  });
});

describe('runs to diagnostics, hovers and hints', () => {
  const lines = ['def count(s, t):', '    n = 0', '    for c in s:', '        n += 1', '    raise ValueError(n)', '', "# ndb: count('ab', 'a')"];
  const run: PredictedRun = {
    call: "count('ab', 'a')",
    steps: [
      step('call', 1, { s: "'ab'", t: "'a'" }, { origin: 'input', confidence: { locals: { s: 1, t: 1 }, frame: 1 } }),
      step('line', 2, { s: "'ab'", t: "'a'" }),
      step('line', 3, { s: "'ab'", t: "'a'", n: '0' }, { confidence: { locals: { n: 0.9 }, frame: 0.9 } }),
      step('line', 4, { s: "'ab'", t: "'a'", n: '0', c: "'a'" }, { confidence: { locals: { c: 0.8 }, frame: 0.8 } }),
      step('line', 3, { s: "'ab'", t: "'a'", n: '1', c: "'a'" }, { confidence: { locals: { n: 0.7 }, frame: 0.7 } }),
      step('line', 4, { s: "'ab'", t: "'a'", n: '1', c: "'b'" }, { confidence: { locals: { c: 0.6 }, frame: 0.6 } }),
      step('line', 3, { s: "'ab'", t: "'a'", n: '2', c: "'b'" }, { confidence: { locals: { n: 0.5 }, frame: 0.5 } }),
      step('line', 5, { s: "'ab'", t: "'a'", n: '2', c: "'b'" }, { confidence: { locals: {}, frame: 0.5 } }),
      step('exception', 5, { s: "'ab'", t: "'a'", n: '2', c: "'b'" }, { value: 'ValueError(2)' }),
      step('return', 5, { s: "'ab'", t: "'a'", n: '2', c: "'b'" }, { value: 'None' }),
    ],
    end: { exit: { kind: 'error', value: 'ValueError(2)' }, origin: 'model', confidence: 0.9 },
    complete: true,
  };

  it('warns of a predicted uncaught exception on the line that raises it', () => {
    const d = exceptionDiagnostic(run, lines, 'file:///x.py', 6)!;
    expect(d.severity).toBe(2);
    expect(d.source).toBe('ndb');
    expect(d.message).toBe('ndb predicts: ValueError(2) (a prediction; the program was not run)');
    expect(d.range).toEqual({ start: { line: 4, character: 4 }, end: { line: 4, character: lines[4]!.length } });
    expect(d.relatedInformation?.[0]?.location.range.start.line).toBe(6);
  });

  it('warns when the step cap cut the run after the exception left the entry, not for a normal end', () => {
    expect(exceptionDiagnostic({ ...run, end: null }, lines, 'file:///x.py')?.range.start.line).toBe(4);
    expect(exceptionDiagnostic({ ...run, end: null, steps: run.steps.slice(0, -1) }, lines, 'file:///x.py')).toBeNull();
    expect(exceptionDiagnostic({ ...run, end: { exit: { kind: 'normal', value: '2' }, origin: 'model', confidence: 1 } }, lines, 'file:///x.py')).toBeNull();
  });

  it('hovers the values a line set, with confidence; parameters as given', () => {
    const md = exampleHover('n', fnInfo('count', 1, 5, ['s', 't', 'n', 'c']), [run])!;
    expect(md).toContain('line 2: n = 0  (90%)');
    expect(md).toContain('line 4: n = 1  (70%)');
    expect(md).toContain('line 4: n = 2  (50%)');
    expect(md).toContain('predicted by ndb (the program was not run)');
    expect(exampleHover('s', fnInfo('count', 1, 5, ['s']), [run])).toContain('line 1 (call): s = ');
    expect(exampleHover('len', fnInfo('count', 1, 5, ['n']), [run])).toBeNull();
  });

  it('hints the last value and the count beside each line that set a local', () => {
    const hints = inlayHints([run], lines, { start: { line: 0, character: 0 }, end: { line: 99, character: 0 } });
    expect(hints.map((h) => [h.position.line, h.label])).toEqual([
      [1, 'n = 0'],
      [2, "c = 'b' (×3)"],
      [3, 'n = 2 (×2)'],
    ]);
    expect(hints[0]!.position.character).toBe(lines[1]!.length);
    // A line no run can stop on gets none, whatever the model predicted there.
    expect(inlayHints([run], lines, { start: { line: 0, character: 0 }, end: { line: 99, character: 0 } }, new Set([1, 2, 4, 5])).map((h) => h.position.line)).toEqual([1, 3]);
  });
});

// ---- the server, over stdio ----------------------------------------------------------------

/** A language client on a spawned server: it records every notification and lets tests wait on them. */
class Client {
  readonly diagnostics: PublishDiagnosticsParams[] = [];
  readonly statuses: PredictionStatusParams[] = [];
  readonly messages: ShowMessageParams[] = [];
  private waiters: (() => void)[] = [];
  private exited = false;
  private exitStatus = { code: null as number | null, signal: null as string | null };

  private constructor(
    readonly child: ChildProcess,
    readonly rpc: MessageConnection,
  ) {
    child.on('exit', (code, signal) => {
      this.exited = true;
      this.exitStatus = { code, signal };
    });
    rpc.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => this.record(this.diagnostics, p));
    rpc.onNotification('ndb/predictionStatus', (p: PredictionStatusParams) => this.record(this.statuses, p));
    rpc.onNotification('window/showMessage', (p: ShowMessageParams) => this.record(this.messages, p));
    rpc.listen();
  }

  static async start(...flags: string[]): Promise<Client> {
    const child = spawn(process.execPath, ['bin/ndb.js', 'lsp', '--stdio', ...flags], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stderr!.resume();
    const client = new Client(child, createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!)));
    const init = (await client.rpc.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {} })) as { capabilities: Record<string, unknown> };
    expect(init.capabilities.hoverProvider).toBe(true);
    expect(init.capabilities.inlayHintProvider).toBe(true);
    expect(init.capabilities.inlineValueProvider).toBe(true);
    await client.rpc.sendNotification('initialized', {});
    return client;
  }

  get alive(): boolean {
    return !this.exited;
  }

  private record<T>(list: T[], item: T): void {
    list.push(item);
    for (const w of this.waiters) w();
  }

  /** Resolves with the first recorded item that matches, waiting for it as long as `ms`. */
  waitFor<T>(list: T[], match: (item: T) => boolean, ms = 150_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = list.find(match);
        if (!found) return;
        cleanup();
        resolve(found);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`nothing matched within ${ms} ms`));
      }, ms);
      const cleanup = () => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== check);
      };
      this.waiters.push(check);
      check();
    });
  }

  open(uri: string, text: string, version = 1): Promise<void> {
    return this.rpc.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version, text } });
  }

  hover(uri: string, line: number, character: number, token?: CancellationTokenSource): Promise<Hover | null> {
    const params = { textDocument: { uri }, position: { line, character } };
    // No token at all when there is none: a third argument would read as a second parameter.
    return token ? this.rpc.sendRequest('textDocument/hover', params, token.token) : this.rpc.sendRequest('textDocument/hover', params);
  }

  hints(uri: string, lines: number): Promise<InlayHint[]> {
    return this.rpc.sendRequest('textDocument/inlayHint', { textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: { line: lines, character: 0 } } });
  }

  /** shutdown, then exit: the server must answer and end with status 0 (a crash shows as another status or a signal). */
  async stop(): Promise<{ code: number | null; signal: string | null }> {
    const gone = this.exited ? Promise.resolve(this.exitStatus) : new Promise<{ code: number | null; signal: string | null }>((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
    const late = (ms: number) => new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms));
    try {
      // A dead server never answers: its exit ends the wait as well.
      await Promise.race([this.rpc.sendRequest('shutdown'), gone, late(30_000)]);
      await this.rpc.sendNotification('exit');
      return await Promise.race([gone, late(10_000)]);
    } finally {
      this.rpc.dispose();
      if (!this.exited) this.child.kill('SIGKILL');
    }
  }
}

const uri = (name: string) => pathToFileURL(join('/tmp/ndb-lsp-test', name)).href;
const markdownOf = (h: Hover | null) => (h?.contents as MarkupContent | undefined)?.value ?? '';

const COUNT = [
  'def count(s, t):', //            0
  '    """How often t is in s."""', // 1
  '    n = 0', //                   2
  '    for c in s:', //             3
  '        if c == t:', //          4
  '            n += 1', //          5
  '    return n', //                6
  '', //                            7
  "# ndb: count('berry', 'r')", //  8
  '',
].join('\n');
const COUNT_LINES = { first: 1, last: 7 }; // the function's 1-based lines

/** A loop long enough that its run is still being predicted when the test acts. */
/**
 * A run the model keeps predicting until the language server's step cap (it ends loops with an
 * exit in sight after an iteration or two; one without keeps it going, as examples/ticks.py
 * does for bench:memory), so that a prediction is still running when the test acts.
 */
const LONG_LOOP = (tag: string) =>
  ['def total(k):', `    """${tag}"""`, '    acc = 0', '    while True:', '        acc = acc + 1', '        k = k - 1', '        rate = acc // k', '', '# ndb: total(1000)', ''].join('\n');

const lineNumbers = (markdown: string) => [...markdown.matchAll(/line (\d+)/g)].map((m) => Number(m[1]));

describe.skipIf(!HAS_EMBEDDED_MODEL || !BUILT)('ndb lsp --stdio on the shipped model', () => {
  let client: Client;
  let countDiagnostics: PublishDiagnosticsParams;

  beforeAll(async () => {
    client = await Client.start();
    await client.open(uri('count.py'), COUNT);
    countDiagnostics = await client.waitFor(client.diagnostics, (d) => d.uri === uri('count.py'));
  }, LONG);

  afterAll(async () => {
    // A run is still being predicted (the cancelled hover's): shutdown must end it cleanly.
    expect(await client?.stop()).toEqual({ code: 0, signal: null });
  }, LONG);

  it('publishes the example run\'s diagnostics for the opened version, all marked as ndb\'s predictions', () => {
    expect(countDiagnostics.version).toBe(1);
    for (const d of countDiagnostics.diagnostics) {
      expect(d.source).toBe('ndb');
      if (d.severity === 2) expect(d.message).toMatch(/^ndb predicts: .+ \(a prediction; the program was not run\)$/);
    }
    const done = client.statuses.find((s) => s.uri === uri('count.py') && s.status === 'done');
    expect(done).toMatchObject({ version: 1, call: "count('berry', 'r')", line: 9 });
  });

  it('hovers a variable with its predicted values, line by line in the function', async () => {
    const hover = await client.hover(uri('count.py'), 2, 5);
    const md = markdownOf(hover);
    expect(md).toContain('**n**');
    expect(md).toContain('predicted by ndb (the program was not run)');
    expect(lineNumbers(md).some((n) => n >= COUNT_LINES.first && n <= COUNT_LINES.last)).toBe(true);
    expect(hover!.range).toEqual({ start: { line: 2, character: 4 }, end: { line: 2, character: 5 } });
    // Not a word: the comment's '#'.
    expect(await client.hover(uri('count.py'), 8, 0)).toBeNull();
  });

  it('gives inlay hints only on lines of the function, marked as predictions', async () => {
    const hints = await client.hints(uri('count.py'), 10);
    expect(hints.length).toBeGreaterThan(0);
    for (const h of hints) {
      expect(h.position.line + 1).toBeGreaterThanOrEqual(COUNT_LINES.first);
      expect(h.position.line + 1).toBeLessThanOrEqual(COUNT_LINES.last);
      expect(h.position.character).toBe(COUNT.split('\n')[h.position.line]!.length);
      expect(String(h.label)).toMatch(/^\w+ = /);
      expect((h.tooltip as MarkupContent).value).toMatch(/Predicted by ndb .*the program was not run/);
    }
  });

  it('shows the debug session\'s stop in the hover while one runs, the example run after', async () => {
    await client.rpc.sendNotification('ndb/debugState', {
      uri: uri('count.py'),
      stop: { line: 6, function: 'count', locals: { s: { value: "'berry'", confidence: 1 }, n: { value: '7', confidence: 0.25 } } },
      history: [
        { line: 3, locals: { s: "'berry'" } },
        { line: 4, locals: { s: "'berry'", n: '0' } },
        { line: 6, locals: { s: "'berry'", n: '5' } },
      ],
    });
    const during = markdownOf(await client.hover(uri('count.py'), 5, 12));
    expect(during).toContain('**n** = `7` (confidence 25%)');
    expect(during).toContain('current stop of the neural debug session');
    expect(during).toContain('line 4: n = 0');
    expect(during).toContain('line 6: n = 5');
    await client.rpc.sendNotification('ndb/debugState', null);
    const after = markdownOf(await client.hover(uri('count.py'), 5, 12));
    expect(after).not.toContain('debug session');
    expect(after).toContain("example call `count('berry', 'r')`");
  });

  it('gives inline values while a debug session is stopped: at the lines that set them, low confidence shown', async () => {
    await client.rpc.sendNotification('ndb/debugState', {
      uri: uri('count.py'),
      stop: { line: 5, function: 'count', locals: { s: { value: "'berry'", confidence: 1 }, t: { value: "'r'", confidence: 1 }, n: { value: '1', confidence: 0.55 }, c: { value: "'r'", confidence: 0.9 } } },
      history: [
        { line: 1, function: 'count', locals: { s: "'berry'", t: "'r'" } },
        { line: 3, function: 'count', locals: { s: "'berry'", t: "'r'" } },
        { line: 4, function: 'count', locals: { s: "'berry'", t: "'r'", n: '0' } },
        { line: 5, function: 'count', locals: { s: "'berry'", t: "'r'", n: '0', c: "'b'" } },
        { line: 6, function: 'count', locals: { s: "'berry'", t: "'r'", n: '0', c: "'b'" } },
        { line: 4, function: 'count', locals: { s: "'berry'", t: "'r'", n: '1', c: "'b'" } },
      ],
    });
    const values = (await client.rpc.sendRequest('textDocument/inlineValue', {
      textDocument: { uri: uri('count.py') },
      range: { start: { line: 0, character: 0 }, end: { line: 9, character: 0 } },
      context: { frameId: 1, stoppedLocation: { start: { line: 4, character: 0 }, end: { line: 4, character: 0 } } },
    })) as { range: { start: { line: number; character: number } }; text: string }[];
    const lines = COUNT.split('\n');
    expect(values.map((v) => [v.range.start.line + 1, v.text])).toEqual([
      [1, "s = 'berry', t = 'r'"],
      [4, "c = 'r'"],
      [6, 'n = 1 (55%)'],
    ]);
    for (const v of values) expect(v.range.start.character).toBe(lines[v.range.start.line]!.length);
    await client.rpc.sendNotification('ndb/debugState', null);
    const after = await client.rpc.sendRequest('textDocument/inlineValue', { textDocument: { uri: uri('count.py') }, range: { start: { line: 0, character: 0 }, end: { line: 9, character: 0 } }, context: { frameId: 1, stoppedLocation: { start: { line: 4, character: 0 }, end: { line: 4, character: 0 } } } });
    expect(after).toEqual([]);
  });

  it('warns of a predicted exception if the model predicts one (the structure only)', async () => {
    const text = ['def check(x):', '    if x < 0:', "        raise ValueError('negative')", '    return x', '', '# ndb: check(-1)', ''].join('\n');
    await client.open(uri('check.py'), text);
    const published = await client.waitFor(client.diagnostics, (d) => d.uri === uri('check.py'));
    for (const d of published.diagnostics.filter((x: Diagnostic) => x.severity === 2)) {
      expect(d.source).toBe('ndb');
      expect(d.message).toMatch(/^ndb predicts: .+ \(a prediction; the program was not run\)$/);
      expect(d.range.start.line).toBeLessThan(4);
    }
  });

  it('cancels a stale prediction when the document changes: the old version never publishes', async () => {
    const u = uri('stale.py');
    await client.open(u, LONG_LOOP('v1'));
    await client.waitFor(client.statuses, (s) => s.uri === u && s.version === 1 && s.status === 'started');
    await client.rpc.sendNotification('textDocument/didChange', { textDocument: { uri: u, version: 2 }, contentChanges: [{ text: LONG_LOOP('v2') }] });
    await client.waitFor(client.statuses, (s) => s.uri === u && s.version === 1 && s.status === 'cancelled');
    await client.waitFor(client.diagnostics, (d) => d.uri === u && d.version === 2);
    expect(client.diagnostics.filter((d) => d.uri === u && d.version === 1)).toEqual([]);
    expect(client.statuses.filter((s) => s.uri === u && s.version === 1).map((s) => s.status)).not.toContain('done');
  });

  it('answers a hover waiting on a prediction when the client cancels it, and other files at once', async () => {
    const u = uri('slow.py');
    await client.open(u, LONG_LOOP('slow'));
    await client.open(uri('plain.py'), 'def f(a):\n    b = a + 1\n    return b\n');
    await client.waitFor(client.statuses, (s) => s.uri === u && s.status === 'started');
    // Another file's hover does not wait for the model.
    let started = Date.now();
    expect(await client.hover(uri('plain.py'), 1, 4)).toBeNull();
    expect(Date.now() - started).toBeLessThan(5_000);
    // This one waits for the run; the client gives up after a moment and gets what is known.
    const source = new CancellationTokenSource();
    started = Date.now();
    const hover = client.hover(u, 4, 9, source);
    setTimeout(() => source.cancel(), 300);
    const answer = await hover;
    expect(Date.now() - started).toBeLessThan(10_000);
    if (answer) expect(markdownOf(answer)).toContain('**acc**');
    expect(client.statuses.some((s) => s.uri === u && s.status === 'done')).toBe(false);
    // Closing the file cancels its run in the worker.
    await client.rpc.sendNotification('textDocument/didClose', { textDocument: { uri: u } });
    await client.waitFor(client.statuses, (s) => s.uri === u && s.status === 'cancelled');
  });

  it('survives bad input: a syntax error, arguments that are not literals, an unknown function', async () => {
    await client.open(uri('broken.py'), "def f(:\n    pass\n# ndb: f(1)\n");
    const broken = await client.waitFor(client.diagnostics, (d) => d.uri === uri('broken.py'));
    expect(broken.diagnostics.every((d) => d.source === 'ndb')).toBe(true);
    expect(await client.hover(uri('broken.py'), 1, 5)).toBeNull();

    // Names are refused at once; `1 + 2` passes the quick check and is refused by Python in the worker.
    await client.open(uri('bad-args.py'), 'def g(a):\n    return a\n\n# ndb: g(x)\n# ndb: h(1)\n# ndb: g(1 + 2)\n');
    const bad = await client.waitFor(client.diagnostics, (d) => d.uri === uri('bad-args.py') && d.diagnostics.length === 3);
    expect(bad.diagnostics.map((d) => [d.severity, d.range.start.line])).toEqual([
      [3, 3],
      [3, 4],
      [3, 5],
    ]);
    expect(bad.diagnostics[0]!.message).toMatch(/^ndb skips the example call g\(x\): 'x' is not a literal/);
    expect(bad.diagnostics[2]!.message).toMatch(/^ndb skips the example call g\(1 \+ 2\): .*not a Python literal/);
    expect(client.alive).toBe(true);
  });
});

describe.skipIf(!BUILT)('ndb lsp --stdio without a model', () => {
  it('says so in a window/showMessage error and keeps serving', async () => {
    const client = await Client.start('--model', '/nonexistent/ndb-model');
    try {
      const message = await client.waitFor(client.messages, (m) => m.type === 1, 60_000);
      expect(message.message).toMatch(/no model folder at \/nonexistent\/ndb-model/);
      await client.open(uri('count.py'), COUNT);
      const published = await client.waitFor(client.diagnostics, (d) => d.uri === uri('count.py'), 60_000);
      expect(published.diagnostics.map((d) => d.severity)).toEqual([3]);
      expect(await client.hover(uri('count.py'), 2, 5)).toBeNull();
      expect(client.alive).toBe(true);
    } finally {
      expect(await client.stop()).toEqual({ code: 0, signal: null });
    }
  }, LONG);
});
