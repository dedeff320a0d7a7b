/**
 * The language server answers every request, whatever the document and the position:
 *
 * - the example-call scan is linear in a line's length (a `# ndb:`, `>>>` or `assert` line of a
 *   million blanks was quadratic: minutes), and so is the literal check of a call's arguments;
 * - a position past the line's end (`character: 2**70`) is its end;
 * - the fuzz (test/lsp-fuzz.ts): NDB_LSP_FUZZ_INPUTS inputs (10,000 by default) against a real
 *   `ndb lsp --stdio` over stdio, every request answered, no exit, no internal error.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { findExampleCalls, literalProblem, MAX_EXAMPLE_CALLS, scanLine } from '../lsp/example-calls.js';
import { wordAt } from '../lsp/hover.js';
import { clampPosition, withinBudget } from '../lsp/server.js';
import type { FunctionInfo } from '../program-analysis/program-info.js';
import { fuzzLsp } from './lsp-fuzz.js';

const BUILT = existsSync('dist/cli/lsp.js') && existsSync('dist/lsp/prediction-worker.js');
const INPUTS = Number(process.env.NDB_LSP_FUZZ_INPUTS ?? 10_000);
const SEED = Number(process.env.NDB_LSP_FUZZ_SEED ?? 48);

const f: FunctionInfo = { name: 'f', qualname: 'f', line: 1, endLine: 2, params: ['a'], callLine: 1, callLocals: ['a'], localNames: ['a'] };
const BLANKS = ' '.repeat(1_000_000);

function timed<T>(work: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = work();
  return { value, ms: performance.now() - started };
}

describe('example calls in linear time', () => {
  it('reads a `# ndb:`, `>>>` or `assert` line of a million blanks in milliseconds, as before for ordinary lines', () => {
    for (const line of [`# ndb: f(1)${BLANKS}`, `# ndb:${BLANKS}`, `    >>> f(1)${BLANKS}`, `>>>${BLANKS}x`, `assert ${BLANKS}f(1) == 2${BLANKS}`, `assert not${BLANKS}`, '#ndb:'.repeat(200_000) + '\r', `# ndb: f(${'1, '.repeat(300_000)})`, `# ndb: f(${'*'.repeat(300_000)})`, `# ndb: f(${'k=1, '.repeat(200_000)})`, `# ndb: f(${"'".repeat(300_001)})`]) {
      const { ms } = timed(() => findExampleCalls(`def f(a):\n    return a\n${line}\n`, [f]));
      expect(ms, line.slice(0, 20)).toBeLessThan(1_000);
    }
    // What the lines mean is unchanged.
    expect(scanLine(`# ndb: f(1)${BLANKS}`)).toEqual({ kind: 'comment', body: 'f(1)', column: 7 });
    expect(scanLine('    >>>   f(2)  ')).toEqual({ kind: 'doctest', body: 'f(2)', column: 10 });
    expect(scanLine('assert not  f(3) == 1')).toEqual({ kind: 'assert', body: 'f(3) == 1', column: 12 });
    expect(scanLine('assertf(1)')).toBeNull();
    expect(scanLine('>>>f(1)')).toBeNull();
    expect(scanLine('x = 1  #   ndb:f(4)')).toEqual({ kind: 'comment', body: 'f(4)', column: 15 });
    expect(scanLine('s = "# ndb: f(1)"')).toBeNull();
    // A body holding a line terminator is no call (as `.` could not match one).
    expect(scanLine('# ndb: f(1)\r x')).toBeNull();
    expect(scanLine('# ndb: f(1)\r')).toEqual({ kind: 'comment', body: 'f(1)', column: 7 });
    expect(scanLine('>>> x\r # ndb: f(5)')).toEqual({ kind: 'comment', body: 'f(5)', column: 14 });
  });

  it('checks literals as before', () => {
    for (const ok of ["'a', 1, -2.5e3, 0x1f, 3j", "[1, {'k': (None, True)}], key=False", '"it\'s", b"x"', "'''a'b''', rb'\\x'", '2 * 3', '']) expect(literalProblem(ok), ok).toBeNull();
    expect(literalProblem('x')).toBe("'x' is not a literal");
    expect(literalProblem("f'{1}'")).toBe('an f-string is not a literal');
    expect(literalProblem("rf'{1}'")).toBe('an f-string is not a literal');
    expect(literalProblem('1, *xs')).toBe('argument unpacking (* or **) is not a literal');
    expect(literalProblem('**kw')).toBe('argument unpacking (* or **) is not a literal');
    expect(literalProblem('k == 1')).toBe("'k' is not a literal");
    expect(literalProblem("'abc")).toBe('an unterminated string is not a literal');
  });

  it(`predicts at most ${MAX_EXAMPLE_CALLS} calls of a file and says so for the rest`, () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `# ndb: f(${i})`);
    const { value, ms } = timed(() => findExampleCalls(['def f(a):', '    return a', ...lines].join('\n'), [f]));
    expect(ms).toBeLessThan(2_000);
    expect(value.calls).toHaveLength(MAX_EXAMPLE_CALLS);
    expect(value.skipped.length).toBeLessThanOrEqual(200);
    expect(value.skipped[0]!.reason).toBe(`the file has more than ${MAX_EXAMPLE_CALLS} example calls: ndb predicts the first ${MAX_EXAMPLE_CALLS}`);
  });
});

describe('positions from the client', () => {
  const doc = TextDocument.create('file:///x.py', 'python', 1, 'def f(a):\n    bee = a\n');

  it('finds the word at a position past the line in constant time', () => {
    const line = '    bee = a';
    for (const character of [2 ** 70, 1e300, Number.MAX_SAFE_INTEGER, 1e9]) {
      const { value, ms } = timed(() => wordAt(line, character));
      expect(value).toEqual({ word: 'a', start: 10, end: 11 });
      expect(ms).toBeLessThan(50);
    }
    expect(wordAt(line, -5)).toBeNull();
    expect(wordAt(line, 5.5)).toEqual({ word: 'bee', start: 4, end: 7 });
  });

  it('clamps a position to the document, and refuses what is not one', () => {
    expect(clampPosition(doc, { line: 1, character: 2 ** 70 })).toEqual({ line: 1, character: Number.MAX_SAFE_INTEGER });
    expect(clampPosition(doc, { line: 1, character: -3 })).toEqual({ line: 1, character: 0 });
    expect(clampPosition(doc, { line: 2 ** 70, character: 0 })).toBeNull();
    expect(clampPosition(doc, { line: -1, character: 0 })).toBeNull();
    for (const odd of [null, undefined, {}, { line: '1', character: 0 }, { line: 1 }, 'x']) expect(clampPosition(doc, odd)).toBeNull();
  });

  it('answers a request past its budget with nothing, and one that threw the same way', async () => {
    const problems: string[] = [];
    expect(await withinBudget(50, null, () => new Promise<string>(() => undefined), (p) => problems.push(p))).toBeNull();
    expect(await withinBudget(1_000, [], () => Promise.reject(new Error('boom')), (p) => problems.push(p))).toEqual([]);
    expect(await withinBudget(1_000, [], () => [1], (p) => problems.push(p))).toEqual([1]);
    expect(problems[0]).toMatch(/^no answer within 0\.05 s/);
    expect(problems[1]).toMatch(/^internal error: Error: boom/);
  });
});

describe.skipIf(!BUILT)('the two hangs of issue 48, through a real server', () => {
  it('answers a hover at character 2**70, and publishes a file with a million-blank `# ndb:` line, at once', async () => {
    const child = spawn(process.execPath, ['bin/ndb.js', 'lsp', '--stdio', '--model', '/nonexistent/ndb-model'], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stderr!.resume();
    const rpc = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    const published: { uri: string; diagnostics: unknown[] }[] = [];
    rpc.onNotification('textDocument/publishDiagnostics', (p: unknown) => void published.push(p as { uri: string; diagnostics: unknown[] }));
    rpc.listen();
    try {
      await rpc.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {} });
      await rpc.sendNotification('initialized', {});
      const uri = 'file:///tmp/ndb-lsp-hang/blanks.py';
      const text = `def f(a):\n    bee = a\n    return bee\n# ndb: f(1)${BLANKS}\n# ndb:${BLANKS}\n    >>> f(2)${BLANKS}\n`;
      let started = Date.now();
      await rpc.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version: 1, text } });
      while (!published.some((p) => p.uri === uri) && Date.now() - started < 30_000) await new Promise((r) => setTimeout(r, 50));
      expect(published.some((p) => p.uri === uri)).toBe(true);
      expect(Date.now() - started).toBeLessThan(15_000);
      started = Date.now();
      const hover = await rpc.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 1, character: 2 ** 70 } });
      expect(Date.now() - started).toBeLessThan(5_000);
      // The word at the end of line 2 (`a`); no run was predicted (no model), so no hover text.
      expect(hover).toBeNull();
      expect(await rpc.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 2 ** 70, character: 1e9 } })).toBeNull();
    } finally {
      rpc.dispose();
      child.kill('SIGKILL');
    }
  }, 60_000);
});

describe.skipIf(!BUILT)('the language server fuzz', () => {
  it(
    `answers every request of ${INPUTS} random inputs (seed ${SEED}): no hang, no exit, no internal error`,
    async () => {
      const r = await fuzzLsp(SEED, INPUTS);
      if (process.env.NDB_FUZZ_SHOW) console.error(r);
      expect(r.inputs).toBe(INPUTS);
      expect(r.requests).toBeGreaterThan(INPUTS / 2);
      expect({ answered: r.answered, hangs: r.hangs, exits: r.exits, internalErrors: r.internalErrors }).toEqual({ answered: r.requests, hangs: [], exits: 0, internalErrors: [] });
      // Still answering at once, and a clean shutdown.
      expect(r.afterMs).toBeGreaterThanOrEqual(0);
      expect(r.afterMs).toBeLessThan(15_000);
      expect(r.exitStatus).toEqual({ code: 0, signal: null });
    },
    Math.max(300_000, INPUTS * 60),
  );
});
