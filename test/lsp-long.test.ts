/**
 * `ndb lsp --stdio` on a long file: the 804-line fixture with example calls of two of its
 * functions (and of one function too long for the model even cut to its own scope). Each
 * call is predicted with its own cut (program-analysis/cut.ts); hovers and inlay hints come back
 * on the file's own lines, inside what each entry reaches; the call too large is skipped
 * with the reason naming the sizes. A vscode-jsonrpc client drives the real server.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMessageConnection, type MessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import type { Hover, InlayHint, MarkupContent, PublishDiagnosticsParams } from 'vscode-languageserver';
import type { PredictionStatusParams } from '../protocol/lsp.js';
import { cutProgram } from '../program-analysis/cut.js';
import { HAS_EMBEDDED_MODEL } from './fixtures.js';

const BUILT = existsSync('dist/cli/lsp.js') && existsSync('dist/lsp/prediction-worker.js');
const LONG = 240_000;

const FIXTURE = readFileSync(join(import.meta.dirname, 'fixtures', 'long_module.py'), 'utf8');
const TOO_LONG = ['def big(x):', ...Array.from({ length: 400 }, (_, i) => `    x = x + ${i}`), '    return x'];
const TEXT = [FIXTURE.trimEnd(), '', '', ...TOO_LONG, '', "# ndb: vowel_count('kiwi')", "# ndb: summarize(['Banana', 'kiwi'])", '# ndb: big(1)', ''].join('\n');
const LINES = TEXT.split('\n');
const lineOf = (text: string) => LINES.findIndex((l) => l.startsWith(text)) + 1;
const URI = pathToFileURL('/tmp/ndb-lsp-long/long_module.py').href;

class Client {
  readonly statuses: PredictionStatusParams[] = [];
  readonly diagnostics: PublishDiagnosticsParams[] = [];
  private waiters: (() => void)[] = [];

  constructor(
    readonly child: ChildProcess,
    readonly rpc: MessageConnection,
  ) {
    rpc.onNotification('ndb/predictionStatus', (p: PredictionStatusParams) => this.record(this.statuses, p));
    rpc.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => this.record(this.diagnostics, p));
    rpc.listen();
  }

  private record<T>(list: T[], item: T): void {
    list.push(item);
    for (const w of this.waiters) w();
  }

  waitFor<T>(list: T[], match: (item: T) => boolean, ms = LONG - 20_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = list.find(match);
        if (!found) return;
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== check);
        resolve(found);
      };
      const timer = setTimeout(() => reject(new Error(`nothing matched within ${ms} ms`)), ms);
      this.waiters.push(check);
      check();
    });
  }
}

let client: Client;
/** File lines each entry's cut shows the model (a generous budget: every definition it reaches). */
const reached = new Map<string, Set<number>>();

beforeAll(async () => {
  for (const entry of ['vowel_count', 'summarize']) {
    const cut = await cutProgram(TEXT, entry, { budget: { measure: () => 0, limit: 1, unit: 'tokens' } });
    reached.set(entry, new Set(LINES.map((_, i) => i + 1).filter((l) => cut.sees(l))));
  }
  const child = spawn(process.execPath, ['bin/ndb.js', 'lsp', '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stderr!.resume();
  client = new Client(child, createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!)));
  await client.rpc.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {} });
  await client.rpc.sendNotification('initialized', {});
  await client.rpc.sendNotification('textDocument/didOpen', { textDocument: { uri: URI, languageId: 'python', version: 1, text: TEXT } });
  for (const call of ["vowel_count('kiwi')", "summarize(['Banana', 'kiwi'])", 'big(1)']) {
    await client.waitFor(client.statuses, (s) => s.uri === URI && s.call === call && ['done', 'skipped', 'failed'].includes(s.status));
  }
}, LONG);

afterAll(async () => {
  if (!client) return;
  await client.rpc.sendRequest('shutdown');
  await client.rpc.sendNotification('exit');
  client.rpc.dispose();
}, LONG);

describe.skipIf(!HAS_EMBEDDED_MODEL || !BUILT)('ndb lsp on a 1,200-line file', () => {
  it('predicts each example call with its own cut; the one too large is skipped with the sizes', () => {
    expect(LINES.length).toBeGreaterThan(1200);
    const final = (call: string) => client.statuses.filter((s) => s.uri === URI && s.call === call && ['done', 'skipped', 'failed'].includes(s.status)).at(-1);
    expect(final("vowel_count('kiwi')")).toMatchObject({ status: 'done', line: lineOf("# ndb: vowel_count('kiwi')") });
    expect(final("summarize(['Banana', 'kiwi'])")).toMatchObject({ status: 'done' });
    const big = final('big(1)');
    expect(big).toMatchObject({ status: 'skipped' });
    expect(big!.message).toMatch(/^the program is too long for the model, even cut to big's scope: big alone takes \d+ tokens/);
  });

  it("hovers a variable with its predicted values on the file's own lines", async () => {
    const n = lineOf('    n = 0'); // in vowel_count, 30 lines into the file
    const hover = (await client.rpc.sendRequest('textDocument/hover', { textDocument: { uri: URI }, position: { line: n - 1, character: 4 } })) as Hover | null;
    const md = (hover?.contents as MarkupContent | undefined)?.value ?? '';
    expect(md).toContain('**n**');
    const lines = [...md.matchAll(/line (\d+)/g)].map((m) => Number(m[1]));
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(reached.get('vowel_count')!.has(l)).toBe(true);
  });

  it('gives inlay hints on lines the example runs reach, far down the file too', async () => {
    const hints = (await client.rpc.sendRequest('textDocument/inlayHint', { textDocument: { uri: URI }, range: { start: { line: 0, character: 0 }, end: { line: LINES.length, character: 0 } } })) as InlayHint[];
    expect(hints.length).toBeGreaterThan(0);
    const seen = new Set([...reached.get('vowel_count')!, ...reached.get('summarize')!]);
    for (const h of hints) {
      expect(seen.has(h.position.line + 1)).toBe(true);
      expect(h.position.character).toBe(LINES[h.position.line]!.length);
    }
    // The call frame of summarize (line 779) gets its parameter's hint: a line past 600.
    expect(hints.some((h) => h.position.line + 1 > 600)).toBe(true);
  });
});
