/**
 * Predicted verdicts in the editor (issue 18): `ndb lsp --stdio` marks the assert lines and
 * doctest examples of an open file with inlay hints `predicted: ...`, recomputed for a new
 * version, never running the file. A JSON-RPC client on a spawned server with the shipped
 * model; the model is weak, so the checks are on which lines get which kind of verdict
 * (a call whose arguments do not bind is a certain `raises TypeError`), not on its values.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMessageConnection, type MessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import type { InlayHint, MarkupContent } from 'vscode-languageserver';
import { findExampleCalls } from '../lsp/example-calls.js';
import type { PredictionStatusParams } from '../protocol/lsp.js';
import type { FunctionInfo } from '../program-analysis/program-info.js';
import { HAS_EMBEDDED_MODEL } from './fixtures.js';

const BUILT = existsSync('dist/cli/lsp.js') && existsSync('dist/lsp/prediction-worker.js');
const LONG = 240_000;

const fn = (name: string): FunctionInfo => ({ name, qualname: name, line: 1, endLine: 3, params: [], callLine: 1, callLocals: [], localNames: [] });

describe('assert lines as example calls', () => {
  it('finds one-line asserts that call a top-level function with literals; ignores the program’s own checks', () => {
    const text = ['assert add(1, 2) == 3', 'assert not add(0, 0)', '    assert add(x, 1) > 0', 'assert isinstance(add(1, 2), int)', 'assert x == 1', "assert add('a',  'b')"].join('\n');
    const { calls, skipped } = findExampleCalls(text, [fn('add')]);
    expect(calls.map((c) => [c.kind, c.text, c.line])).toEqual([
      ['assert', 'add(1, 2)', 0],
      ['assert', 'add(0, 0)', 1],
      ['assert', "add('a',  'b')", 5],
    ]);
    expect(text.split('\n')[1]!.slice(calls[1]!.start, calls[1]!.end)).toBe('add(0, 0)');
    expect(skipped).toEqual([]);
  });
});

class Client {
  readonly statuses: PredictionStatusParams[] = [];
  private waiters: (() => void)[] = [];
  private constructor(
    readonly child: ChildProcess,
    readonly rpc: MessageConnection,
  ) {
    rpc.onNotification('ndb/predictionStatus', (p: PredictionStatusParams) => {
      this.statuses.push(p);
      for (const w of this.waiters) w();
    });
    rpc.onNotification('textDocument/publishDiagnostics', () => undefined);
    rpc.listen();
  }

  static async start(): Promise<Client> {
    const child = spawn(process.execPath, ['bin/ndb.js', 'lsp', '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stderr!.resume();
    const client = new Client(child, createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!)));
    await client.rpc.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {} });
    await client.rpc.sendNotification('initialized', {});
    return client;
  }

  /** Resolves once `n` calls of (uri, version) are settled (done, skipped or failed). */
  settled(uri: string, version: number, n: number, ms = 200_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const done = new Set(this.statuses.filter((s) => s.uri === uri && s.version === version && ['done', 'skipped', 'failed'].includes(s.status)).map((s) => s.call));
        if (done.size < n) return;
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== check);
        resolve();
      };
      const timer = setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms);
      this.waiters.push(check);
      check();
    });
  }

  hints(uri: string, lines: number): Promise<InlayHint[]> {
    return this.rpc.sendRequest('textDocument/inlayHint', { textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: { line: lines, character: 0 } } });
  }

  async stop(): Promise<void> {
    await this.rpc.sendRequest('shutdown');
    await this.rpc.sendNotification('exit');
    this.rpc.dispose();
  }
}

describe.skipIf(!HAS_EMBEDDED_MODEL || !BUILT)('ndb lsp: predicted verdicts of asserts and doctests', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ndb-lsp-verify-'));
  const leak = join(dir, 'LEAKED');
  const uri = pathToFileURL(join(dir, 'adder.py')).href;
  const TEXT = [
    `open(${JSON.stringify(leak)}, 'w').write('ran')`, // 0
    '', //                                  1
    'def add(a, b):', //                    2
    '    """Add.', //                       3
    '', //                                  4
    '    >>> add(1, 2)', //                 5
    '    3', //                             6
    '    """', //                           7
    '    return a + b', //                  8
    '', //                                  9
    'assert add(2, 3) == 5', //             10
    'assert add(1) == 2', //                11
    'assert add(x, 1) == 3', //             12
    '',
  ];
  let client: Client;

  beforeAll(async () => {
    client = await Client.start();
    await client.rpc.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version: 1, text: TEXT.join('\n') } });
    await client.settled(uri, 1, 3);
  }, LONG);

  afterAll(async () => {
    await client?.stop();
  }, LONG);

  it('marks each assert line and doctest example whose call was predicted, at the line’s end, as a prediction', async () => {
    const hints = (await client.hints(uri, TEXT.length)).filter((h) => String(h.label).startsWith('predicted:'));
    // Lines 5 and 10 are marked when the model's run reaches add's return (it may loop
    // instead: then no mark); line 11 always is.
    const marked = hints.map((h) => h.position.line);
    for (const line of marked) expect([5, 10, 11]).toContain(line);
    expect(new Set(marked).size).toBe(marked.length);
    for (const h of hints) {
      expect(h.position.character).toBe(TEXT[h.position.line]!.length);
      expect(String(h.label)).toMatch(/^predicted: (passes|fails, got .+|raises \w+|unknown.*)$/);
      expect((h.tooltip as MarkupContent).value).toMatch(/^Predicted by ndb: .*The file was not run\.$/);
    }
    // add(1) does not bind: the call fails before add runs, known from the input.
    expect(hints.find((h) => h.position.line === 11)!.label).toBe('predicted: raises TypeError');
    // add(x, 1) has no literal value to predict from: no hint, and nothing ran.
    expect(existsSync(leak)).toBe(false);
  });

  it('recomputes the marks for a new version of the file', async () => {
    const next = [...TEXT];
    next[10] = 'assert add(4, 1, 2) == 5';
    await client.rpc.sendNotification('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ text: next.join('\n') }] });
    await client.settled(uri, 2, 3);
    const hints = (await client.hints(uri, next.length)).filter((h) => String(h.label).startsWith('predicted:'));
    for (const h of hints) expect(h.position.character).toBe(next[h.position.line]!.length);
    // Line 10 is now a call that does not bind: marked for the new text, as line 11 still is.
    expect(hints.find((h) => h.position.line === 10)!.label).toBe('predicted: raises TypeError');
    expect(hints.find((h) => h.position.line === 11)!.label).toBe('predicted: raises TypeError');
    expect(existsSync(leak)).toBe(false);
  });
});
