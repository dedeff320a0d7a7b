/**
 * Bad input that used to get through launch: sources in another encoding (a PEP 263 coding
 * line, a byte-order mark), what is not a regular file (a FIFO, /dev/zero), a program too large
 * to read, and a model file that is corrupt although its manifest's hash matches. Through the
 * decoder against real Python's `tokenize.detect_encoding`, `ndb debug` and a real DAP client,
 * on the shipped model.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { afterAll, describe, expect, it } from 'vitest';
import { decodePythonSource, MAX_SOURCE_BYTES, SourceError } from '../adapter/read-source.js';
import { pythonExecutable } from '../python/python-helper.js';
import { traceSource } from '../tracer/run-tracer.js';
import { declareUtf8 } from '../python/source.js';
import { COUNT_PY, EMBEDDED_MODEL, HAS_EMBEDDED_MODEL, ROOT } from './fixtures.js';

const NDB = join(ROOT, 'bin', 'ndb.js');
const dir = mkdtempSync(join(tmpdir(), 'ndb-bad-input-'));

function file(name: string, bytes: Buffer | string): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

const LATIN1 = file('latin1.py', Buffer.from('# -*- coding: latin-1 -*-\ndef f(s):\n    t = "caf\xe9"\n    return s + t\n', 'latin1'));
const BOM = file('bom.py', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('def f(s):\n    t = "café"\n    return s + t\n', 'utf8')]));
const NOT_UTF8 = file('not_utf8.py', Buffer.from('def f(s):\n    t = "caf\xe9"\n    return s + t\n', 'latin1'));
const BIG = file('big.py', Buffer.alloc(MAX_SOURCE_BYTES + 1000, '#'));
const FIFO = join(dir, 'fifo.py');
execFileSync('mkfifo', [FIFO]);

function ndbDebug(args: string[], input = 'q\n') {
  const r = spawnSync(process.execPath, [NDB, 'debug', ...args], { input, encoding: 'utf8', timeout: 150_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Python's own reading of these bytes: tokenize.detect_encoding, then decode; or its error. */
function pythonReads(bytes: Buffer): string {
  const script = [
    'import io, sys, tokenize',
    'data = sys.stdin.buffer.read()',
    'try:',
    '    enc, _ = tokenize.detect_encoding(io.BytesIO(data).readline)',
    "    text = data.decode(enc)",
    "    sys.stdout.write('OK ' + (text[1:] if text.startswith('\\ufeff') else text))",
    'except (SyntaxError, UnicodeDecodeError, LookupError) as e:',
    "    sys.stdout.write('ERR')",
  ].join('\n');
  return execFileSync(pythonExecutable(), ['-c', script], { input: bytes, encoding: 'utf8' });
}

function oursReads(bytes: Buffer): string {
  try {
    return 'OK ' + decodePythonSource(bytes);
  } catch (err) {
    if (err instanceof SourceError) return 'ERR';
    throw err;
  }
}

const clients: DebugClient[] = [];
afterAll(async () => {
  await Promise.all(clients.splice(0).map((dc) => dc.stop()));
}, 60_000);

async function dapClient(): Promise<DebugClient> {
  const wrapper = join(dir, 'ndb-dap.mjs');
  if (!existsSync(wrapper)) writeFileSync(wrapper, `process.argv.splice(2, 0, 'dap');\nawait import(${JSON.stringify(NDB)});\n`);
  const dc = new DebugClient('node', wrapper, 'neural-python', { cwd: dir });
  dc.defaultTimeout = 60_000;
  await dc.start();
  clients.push(dc);
  await dc.initializeRequest();
  return dc;
}

/** The launch's error message, or null when it launched. */
async function dapLaunchError(args: Record<string, unknown>): Promise<string | null> {
  const dc = await dapClient();
  const launched = dc.launchRequest(args as DebugProtocol.LaunchRequestArguments).then(
    () => null,
    (err: Error) => err.message,
  );
  await dc.configurationDoneRequest().catch(() => undefined);
  return launched;
}

describe('sources read the way Python reads them', () => {
  it('agrees with tokenize.detect_encoding on coding lines and byte-order marks', () => {
    const cases: Buffer[] = [
      Buffer.from('# -*- coding: latin-1 -*-\nx = "caf\xe9"\n', 'latin1'),
      Buffer.from('#!/usr/bin/env python3\n# vim: set fileencoding=iso-8859-1 :\nx = "\xe9"\n', 'latin1'),
      Buffer.from('x = 1\n# coding: latin-1\ny = "\xe9"\n', 'latin1'), // line 2 after code: no cookie, not UTF-8
      Buffer.from('# coding: utf_8\nx = "é"\n', 'utf8'),
      Buffer.from('# coding=cp1252\nx = "\x80\xe9"\n', 'latin1'),
      Buffer.from('# coding: ascii\nx = "\xe9"\n', 'latin1'),
      Buffer.from('# coding: no-such-codec\nx = 1\n', 'utf8'),
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('x = "é"\n', 'utf8')]),
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('# coding: latin-1\nx = 1\n', 'utf8')]),
      Buffer.from('x = "\xe9"\n', 'latin1'),
      Buffer.from('x = "🙂 é"\n', 'utf8'),
    ];
    for (const bytes of cases) expect(oursReads(bytes), JSON.stringify(bytes.toString('latin1'))).toBe(pythonReads(bytes));
  });
});

describe('a decoded source traced again (verify mode, the evaluation)', () => {
  it('is written as UTF-8 with its coding line saying so, so the run sees the same strings', async () => {
    const text = decodePythonSource(readFileSync(LATIN1), LATIN1);
    expect(declareUtf8(text).split('\n')[0]).toBe('# -*- coding: utf-8 -*-');
    expect(declareUtf8('x = 1\n# coding: latin-1\n')).toBe('x = 1\n# coding: latin-1\n'); // not a coding line after code
    const trace = await traceSource(text, { entry: 'f', args: "'x'" });
    expect(trace.exit).toMatchObject({ exit: 'normal', value: "'xcafé'" });
  });
});

describe.skipIf(!HAS_EMBEDDED_MODEL)('bad input through ndb debug', () => {
  it('debugs a latin-1 file with a coding line, and a file with a BOM, without an internal error', () => {
    for (const path of [LATIN1, BOM]) {
      const r = ndbDebug([path, '--entry', 'f', '--args', "'x'"], 's\nn\nq\n');
      expect(r.code).toBe(0);
      expect(r.stdout).not.toMatch(/internal error/);
      expect(r.stdout).toMatch(/-> def f\(s\):/);
    }
    const r = ndbDebug([LATIN1, '--entry', 'f', '--args', "'x'"], 'l\nq\n');
    expect(r.stdout).toContain('t = "café"');
  }, 320_000);

  it('refuses at launch, in one line, what Python could not read or is not a regular file', () => {
    const expected: [string, RegExp][] = [
      [NOT_UTF8, /is not valid UTF-8 \(byte 0xe9 at offset \d+\): Python reads a source as UTF-8 unless a coding line/],
      [FIFO, /is not a regular file \(a FIFO\)/],
      ['/dev/zero', /is not a regular file \(a character device\)/],
      [BIG, /is too large: 4\.0 MiB, and ndb reads programs of at most 4 MiB/],
    ];
    for (const [path, message] of expected) {
      const t0 = Date.now();
      const r = ndbDebug([path, '--entry', 'f', '--args', "'x'"]);
      expect(r.code, path).toBe(2);
      expect(r.stderr).toMatch(/^ndb: error: /);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(Date.now() - t0).toBeLessThan(60_000);
    }
  }, 320_000);
});

describe.skipIf(!HAS_EMBEDDED_MODEL)('bad input through a DAP launch', () => {
  it('launches and steps a latin-1 file with a coding line', async () => {
    const dc = await dapClient();
    const stopped = dc.waitForEvent('stopped', 120_000);
    const launched = dc.launchRequest({ program: LATIN1, entry: 'f', args: "'x'" } as DebugProtocol.LaunchRequestArguments);
    await dc.configurationDoneRequest();
    await Promise.all([launched, stopped]);
    const next = dc.waitForEvent('stopped', 120_000);
    const r = await dc.nextRequest({ threadId: 1 });
    expect(r.success).toBe(true);
    await next;
    const trace = await dc.stackTraceRequest({ threadId: 1 });
    expect(trace.body.stackFrames[0]!.line).toBeGreaterThanOrEqual(2);
  }, 160_000);

  it('answers a launch on what cannot be read with a clear error', async () => {
    expect(await dapLaunchError({ program: NOT_UTF8, entry: 'f', args: "'x'" })).toMatch(/is not valid UTF-8/);
    expect(await dapLaunchError({ program: FIFO, entry: 'f', args: "'x'" })).toMatch(/is not a regular file \(a FIFO\)/);
    expect(await dapLaunchError({ program: '/dev/zero', entry: 'f', args: "'x'" })).toMatch(/is not a regular file \(a character device\)/);
    expect(await dapLaunchError({ program: BIG, entry: 'f', args: "'x'" })).toMatch(/is too large/);
  }, 160_000);
});

describe.skipIf(!HAS_EMBEDDED_MODEL)('a corrupt model file with a re-hashed manifest', () => {
  const corrupt = join(dir, 'corrupt-model');
  cpSync(EMBEDDED_MODEL, corrupt, { recursive: true });
  const manifestPath = join(corrupt, 'manifest.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { files: Record<string, { sha256: string; size: number }> };
  for (const name of readdirSync(join(corrupt, 'onnx'))) {
    if (!name.endsWith('.onnx')) continue;
    const path = join(corrupt, 'onnx', name);
    truncateSync(path, 4096);
    const bytes = readFileSync(path);
    manifest.files[`onnx/${name}`] = { sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length };
  }
  writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));

  it('says the model file is corrupt in ndb debug and in a DAP launch, not an internal error', async () => {
    const r = ndbDebug([COUNT_PY, '--entry', 'count', '--args', "'berry', 'r'", '--model', corrupt]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^ndb: error: model folder .*: model\w*\.onnx is corrupt: onnxruntime cannot load it/);
    expect(r.stderr).not.toMatch(/internal error/);
    const message = await dapLaunchError({ program: COUNT_PY, entry: 'count', args: "'berry', 'r'", model: corrupt });
    expect(message).toMatch(/model\w*\.onnx is corrupt: onnxruntime cannot load it/);
    expect(message).not.toMatch(/internal error/);
  }, 160_000);
});
