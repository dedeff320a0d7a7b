/**
 * The adapter's transport and its TCP server, against a real `ndb dap` process:
 *
 * - stdio survives every malformed frame (invalid JSON, JSON null, a Content-Length too short,
 *   too long or over the cap, an LF-only header, stray bytes, an HTTP request), answers what
 *   names its request, and goes on answering;
 * - requests with missing or wrong arguments get a clear error, never a JS stack trace;
 * - `ndb dap --port`: only `initialize` before the token; a wrong token refused; the right one
 *   in launch or attach opens the session (and `initialized` comes then); an HTTP request or an
 *   unknown header closes the connection; a non-loopback --host needs --allow-remote; a short
 *   --token is refused; NDB_DAP_TOKEN is taken.
 *
 * None of this needs the model (no launch gets as far as loading one).
 */
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { DapReader } from '../adapter/transport.js';
import { Rng } from '../util/rng.js';
import { randomInput } from './dap-fuzz.js';
import { clientText, connectTcp, frame, NDB, ROOT, spawnStdio, spawnTcp, STACK_LIKE, type DapMessage } from './dap-raw.js';

const children: { kill(): unknown }[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill();
});

const INIT = { adapterID: 'neural-python', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' };

describe('DapReader', () => {
  function read(mode: 'lenient' | 'strict', chunks: (string | Buffer)[], maxBytes = 1000) {
    const messages: unknown[] = [];
    const malformed: string[] = [];
    const fatal: string[] = [];
    const reader = new DapReader(mode, { message: (m) => messages.push(m), malformed: (p) => malformed.push(p), fatal: (p) => fatal.push(p) }, maxBytes);
    for (const c of chunks) reader.push(typeof c === 'string' ? Buffer.from(c) : c);
    return { messages, malformed, fatal };
  }

  it('reads frames split anywhere, with CRLF or LF-only headers', () => {
    const whole = frame('{"a":1}').toString() + 'Content-Length: 7\n\n{"b":2}' + frame('{"c":"é"}').toString();
    for (let cut = 1; cut < whole.length; cut += 3) {
      expect(read('lenient', [whole.slice(0, cut), whole.slice(cut)]).messages).toEqual([{ a: 1 }, { b: 2 }, { c: 'é' }]);
    }
  });

  it('resynchronises after a wrong Content-Length, bad JSON and stray bytes', () => {
    const r = read('lenient', [
      'Content-Length: 5\r\n\r\n{"seq":1,"command":"x"}', // too short
      frame('{"ok":1}'),
      'Content-Length: 900\r\n\r\n{"seq":2}', // too long: the next header ends it
      frame('{"ok":2}'),
      'garbage\r\n\r\n',
      frame('{"ok":3}'),
      'Content-Length: 99999\r\n\r\n', // over the cap
      frame('{"ok":4}'),
    ]);
    expect(r.messages).toEqual([{ ok: 1 }, { seq: 2 }, { ok: 2 }, { ok: 3 }, { ok: 4 }]);
    expect(r.malformed.length).toBeGreaterThanOrEqual(3);
    expect(r.fatal).toEqual([]);
  });

  it('reads the same messages however the bytes are split (a CR may arrive without its LF)', () => {
    const messy = [
      frame('{"seq":1}'),
      Buffer.from([0xf6, 0x93, 0x58, 0x2d, 0x5d]),
      'Content-Length: 932968428075\r\n\r\n',
      frame('{"seq":2}'),
      'Content-Length: 3\n\n"x"',
      '(@l\t\u0007+K',
      frame('{"seq":3}'),
      'Content-Length: 1\r\n\r\n1',
      'Content-Length: 40\r\n\r\n{"seq":4}',
      frame('{"seq":5}'),
    ];
    const all = Buffer.concat(messy.map((m) => (typeof m === 'string' ? Buffer.from(m, 'latin1') : m)));
    const whole = read('lenient', [all]).messages;
    expect(whole).toEqual([{ seq: 1 }, { seq: 2 }, 'x', { seq: 3 }, 1, { seq: 4 }, { seq: 5 }]);
    for (let step = 1; step <= 17; step++) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < all.length; i += step) chunks.push(all.subarray(i, i + step));
      expect(read('lenient', chunks).messages, `in pieces of ${step}`).toEqual(whole);
    }
  });

  it('reads a fuzzed stream the same whole and in random pieces', () => {
    const rng = new Rng(7);
    const parts: Buffer[] = [];
    for (let i = 0; i < 400; i++) parts.push(...randomInput(rng, 1000 + i, ['threads', 'evaluate', 'launch', 'next'], false).bytes);
    const all = Buffer.concat(parts);
    const whole = read('lenient', [all], 8 * 1024 * 1024).messages;
    expect(whole.length).toBeGreaterThan(250);
    for (let trial = 0; trial < 6; trial++) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < all.length; ) {
        const n = rng.int(1, trial < 3 ? 40 : 3000);
        chunks.push(all.subarray(i, i + n));
        i += n;
      }
      expect(read('lenient', chunks, 8 * 1024 * 1024).messages, `trial ${trial}`).toEqual(whole);
    }
  });

  it('in strict mode, calls anything that is not DAP fatal', () => {
    expect(read('strict', ['POST / HTTP/1.1\r\nHost: x\r\n\r\n']).fatal[0]).toMatch(/^not DAP framing: an HTTP request \(POST \/ HTTP\/1\.1\)/);
    expect(read('strict', ['Content-Length: 2\r\nX-Other: 1\r\n\r\n{}']).fatal[0]).toMatch(/^not DAP framing: "X-Other: 1"/);
    expect(read('strict', ['Content-Length: 5000\r\n\r\n']).fatal[0]).toMatch(/over the limit/);
    const ok = read('strict', ['Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}']);
    expect([ok.messages, ok.fatal]).toEqual([[{}], []]);
  });
});

describe('ndb dap on stdio', () => {
  it('survives malformed frames and bad requests, answering each that names itself, with no stack trace', async () => {
    const { child, dap, stderr } = spawnStdio();
    children.push(child);
    expect((await dap.request('initialize', INIT))?.success).toBe(true);
    const garbage: (string | Buffer)[] = [
      frame('{"seq": 900, "type": "request", "command": "threads", '), // not JSON, but it names its request
      frame('null'),
      frame('[1, 2]'),
      frame('"text"'),
      frame('{"type": "event", "seq": 3}'),
      frame('{"seq": 901, "type": "request"}'), // no command
      `Content-Length: 3\r\n\r\n{"seq": 902, "type": "request", "command": "threads"}`, // too short
      `Content-Length: 5000\r\n\r\n{"seq": 903, "type": "request", "command": "threads"}`, // too long
      `Content-Length: 999999999\r\n\r\n`, // over the cap
      'POST / HTTP/1.1\r\nHost: localhost\r\n\r\n',
      Buffer.from([0, 255, 13, 10, 13, 10, 7]),
    ];
    for (const g of garbage) dap.write(g);
    // LF-only headers are read.
    const lf = dap.waitFor((m) => m.request_seq === 904, 10_000);
    const lfBody = '{"seq": 904, "type": "request", "command": "threads"}';
    dap.write(`Content-Length: ${lfBody.length}\n\n${lfBody}`);
    expect((await lf)?.success).toBe(true);
    const notJson = await dap.waitFor((m) => m.request_seq === 900, 10_000);
    expect(notJson).toMatchObject({ success: false, command: 'threads' });
    expect(notJson!.message).toMatch(/^ndb dap could not read this request: a message that is not JSON/);
    expect(await dap.waitFor((m) => m.request_seq === 901, 5_000)).toMatchObject({ success: false, message: expect.stringMatching(/not a DAP request: command: Required/) });

    // Requests whose arguments are missing or of the wrong type: a clear error each.
    const bad: [string, unknown, RegExp][] = [
      ['stackTrace', { threadId: 'one', levels: -1 }, /^stackTrace: arguments\.threadId: Expected number, received string; arguments\.levels: Number must be greater than or equal to 0/],
      ['scopes', undefined, /^scopes: arguments: Required/],
      ['variables', { variablesReference: null }, /^variables: arguments\.variablesReference: Expected number, received null/],
      ['evaluate', { expression: 42 }, /^evaluate: arguments\.expression: Expected string/],
      ['setBreakpoints', { source: 'x.py' }, /^setBreakpoints: arguments\.source: Expected object/],
      ['launch', undefined, /^launch: arguments: Required/],
      ['launch', {}, /^launch configuration: program: program is required/],
      ['next', [], /^next: arguments: Expected object, received array/],
      ['ndb/predictInputs', { value: 3 }, /^ndb\/predictInputs: arguments\.value: Expected string/],
      ['ndb/predictInputs', { value: '3', candidates: 99 }, /^ndb\/predictInputs: arguments\.candidates: Number must be less than or equal to 16/],
      ['ndb/predictInputs', { value: '3', candidates: 1.5 }, /^ndb\/predictInputs: arguments\.candidates: Expected integer/],
      ['source', 7, /^source: arguments: Expected object/],
      ['nonsense', undefined, /unrecognized request/],
    ];
    for (const [command, args, message] of bad) {
      const r = await dap.request(command, args);
      expect(r, command).not.toBeNull();
      expect(r!.success, command).toBe(false);
      expect(r!.message, command).toMatch(message);
    }
    // Requests that need a launch say so; stackTrace and initialize without arguments are answered.
    expect((await dap.request('stackTrace'))?.success).toBe(true);
    expect((await dap.request('initialize'))?.success).toBe(true);
    expect((await dap.request('next', { threadId: 1 }))?.message).toMatch(/no program is launched yet/);

    for (const m of dap.messages) expect(clientText(m), JSON.stringify(m)).not.toMatch(STACK_LIKE);
    expect(dap.messages.filter((m) => /ndb internal error/.test(clientText(m)))).toEqual([]);
    expect((await dap.request('threads'))?.body).toEqual({ threads: [{ id: 1, name: 'main' }] });
    expect(child.exitCode).toBeNull();
    expect(stderr()).toMatch(/ndb dap: ignored input: a message must be a JSON object, not null/);
  }, 60_000);

  it('ends when its client disconnects, or when stdin closes', async () => {
    const a = spawnStdio();
    children.push(a.child);
    await a.dap.request('initialize', INIT);
    const exited = new Promise<number | null>((res) => a.child.once('exit', res));
    await a.dap.request('disconnect', {});
    expect(await exited).toBe(0);
    const b = spawnStdio();
    children.push(b.child);
    await b.dap.request('initialize', INIT);
    const exitedB = new Promise<number | null>((res) => b.child.once('exit', res));
    b.child.stdin!.end();
    expect(await exitedB).toBe(0);
  }, 30_000);
});

describe('ndb dap --port', () => {
  it('answers only initialize before the token, refuses a wrong one, and opens the session with the right one', async () => {
    const server = await spawnTcp();
    children.push(server.child);
    expect(server.token).toMatch(/^[\w-]{32}$/);
    const { socket, dap } = await connectTcp(server.port);
    expect((await dap.request('initialize', INIT))?.success).toBe(true);
    for (const command of ['threads', 'configurationDone', 'setBreakpoints', 'evaluate', 'disconnect']) {
      const r = await dap.request(command, command === 'setBreakpoints' ? { source: { path: '/x.py' } } : command === 'evaluate' ? { expression: '1' } : {});
      expect(r?.message, command).toMatch(/^this ndb dap server needs its token: put "token"/);
    }
    expect((await dap.request('launch', { program: '/nope.py', token: 'wrong' }))?.message).toBe("the token in the launch configuration is not this ndb dap server's token");
    expect(dap.messages.some((m) => m.event === 'initialized')).toBe(false);
    // The right token: the launch goes on to its own error (no such program; no model is loaded for it),
    const initialized = dap.waitFor((m) => m.event === 'initialized', 10_000);
    expect((await dap.request('launch', { token: server.token }))?.message).toMatch(/^launch configuration: program: program is required/);
    expect(await initialized).not.toBeNull();
    // and the session answers from then on.
    expect((await dap.request('threads'))?.success).toBe(true);
    socket.destroy();

    // attach with the token opens a session too.
    const second = await connectTcp(server.port);
    await second.dap.request('initialize', INIT);
    expect((await second.dap.request('attach', { token: server.token }))?.success).toBe(true);
    expect((await second.dap.request('threads'))?.success).toBe(true);
    second.socket.destroy();
    expect(server.child.exitCode).toBeNull();
  }, 60_000);

  it('closes a connection that does not speak DAP: an HTTP POST, an unknown header, a message over the cap', async () => {
    const server = await spawnTcp();
    children.push(server.child);
    const body = JSON.stringify({ seq: 1, type: 'request', command: 'launch', arguments: { program: '/tmp/x.py', verify: true } });
    const attempts = [
      `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      `Content-Length: ${body.length}\r\nOrigin: http://evil.example\r\n\r\n${body}`,
      `Content-Length: 999999999\r\n\r\n`,
      `GET / HTTP/1.1\r\n\r\n`,
    ];
    for (const attempt of attempts) {
      const { dap } = await connectTcp(server.port);
      dap.write(attempt);
      expect(await dap.whenClosed(10_000), attempt).toBe(true);
      expect(dap.messages).toEqual([]);
    }
    expect(server.stderr()).toMatch(/ndb dap: closed a connection from 127\.0\.0\.1:\d+: not DAP framing: an HTTP request \(POST \/ HTTP\/1\.1\)/);
    // The server is still there for a real client.
    const { dap } = await connectTcp(server.port);
    expect((await dap.request('initialize', INIT))?.success).toBe(true);
  }, 60_000);

  it('refuses a non-loopback host without --allow-remote, a short --token, and takes NDB_DAP_TOKEN', async () => {
    const remote = spawnSync(process.execPath, [NDB, 'dap', '--port', '0', '--host', '0.0.0.0'], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
    expect(remote.status).toBe(2);
    expect(remote.stderr).toMatch(/^ndb: error: --host 0\.0\.0\.0 is reachable from other machines: .* add --allow-remote if that is what you mean\n$/);
    const short = spawnSync(process.execPath, [NDB, 'dap', '--port', '0', '--token', 'abc'], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
    expect(short.status).toBe(2);
    expect(short.stderr).toMatch(/the token from --token is too short/);
    const stdioHost = spawnSync(process.execPath, [NDB, 'dap', '--token', 'x'.repeat(20)], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
    expect(stdioHost.stderr).toMatch(/--token needs --port/);

    const allowed = await spawnTcp(['--host', '0.0.0.0', '--allow-remote']);
    children.push(allowed.child);
    expect(allowed.line).toMatch(/^ndb dap: listening on 0\.0\.0\.0:\d+, token [\w-]{32} /);
    await new Promise((r) => setTimeout(r, 200));
    expect(allowed.stderr()).toMatch(/warning: listening on 0\.0\.0\.0, reachable from other machines/);

    const token = 'a-token-from-the-environment';
    const fromEnv = await spawnTcp([], { ...process.env, NDB_DAP_TOKEN: token });
    children.push(fromEnv.child);
    expect(fromEnv.line).toMatch(/, token from NDB_DAP_TOKEN /);
    expect(fromEnv.line).not.toContain(token);
    const { dap } = await connectTcp(fromEnv.port);
    await dap.request('initialize', INIT);
    expect((await dap.request('attach', { token }))?.success).toBe(true);
  }, 60_000);
});

export type { DapMessage };
