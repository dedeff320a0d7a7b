/**
 * The types of a program's locals, line by line, from pyright (a static type checker: it reads
 * the program's text and typeshed's stubs; nothing of the program or its libraries runs).
 *
 * Once per program (cached by its text), in child processes so that nothing waits on it:
 * local_types.py writes a copy of the program with a line of `reveal_type(name)` before each
 * statement for the scope's locals, every declaration replaced by `Any` (so a type comes from
 * what the code computes, never from an annotation a caller may break); pyright checks the copy
 * (`--outputjson`); each revealed type becomes a fact only where it is certain at run time
 * (PyType: a builtin scalar or container, None, an instance of a class of the program that
 * prints as a default repr, or a union of those; `Unknown`, `Any`, a library's class, a
 * generic, a literal enum: nothing). Where pyright is missing, fails or times out, there are
 * no facts (NODE_DEBUG=ndb-types says why), never an error.
 *
 * The facts reach the symbolic stepper through the program's ControlFlow (attachTypes), read by
 * semantics/rules/typed.ts.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { debuglog } from 'node:util';
import { z } from 'zod';
import { helperPath, runPythonHelper } from '../python/python-helper.js';
import type { PyType } from '../semantics/facts.js';
import type { ControlFlow } from './control-flow.js';

const log = debuglog('ndb-types');
const HELPER_TIMEOUT_MS = 10_000;
const PYRIGHT_TIMEOUT_MS = 60_000;

/** The types pyright makes certain for a frame's locals, by the frame's function (its code's name, `<module>`) and line. */
export class ProgramTypes {
  static readonly EMPTY = new ProgramTypes(new Map());

  constructor(private readonly byFrame: ReadonlyMap<string, ReadonlyMap<string, readonly PyType[]>>) {}

  /** The locals' types on a line event of `fn` at `line` (undefined: none known). */
  at(fn: string, line: number): ReadonlyMap<string, readonly PyType[]> | undefined {
    return this.byFrame.get(`${fn}:${line}`);
  }

  get size(): number {
    return this.byFrame.size;
  }
}

const HelperSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('ok'), text: z.string(), reveals: z.record(z.tuple([z.string(), z.number()])), classes: z.array(z.string()) }),
  z.object({ kind: z.literal('error') }),
]);

const PyrightSchema = z.object({
  generalDiagnostics: z.array(z.object({ severity: z.string(), message: z.string(), range: z.object({ start: z.object({ line: z.number() }) }) })),
});

const cache = new Map<string, Promise<ProgramTypes>>();

/** The program's types (cached by its text); never rejects: no facts where pyright cannot tell. */
export function programTypes(source: string): Promise<ProgramTypes> {
  let found = cache.get(source);
  if (!found) {
    found = analyse(source).catch((e: unknown) => {
      log('no types: %s', e instanceof Error ? e.message : String(e));
      return ProgramTypes.EMPTY;
    });
    cache.set(source, found);
  }
  return found;
}

const attached = new WeakMap<ControlFlow, ProgramTypes>();

/** Gives the program's control flow its types, for the rules (semantics/rules/typed.ts). */
export function attachTypes(flow: ControlFlow, types: ProgramTypes): void {
  attached.set(flow, types);
}

/** The types attached to the program's control flow (undefined: none, or not yet worked out). */
export function typesOf(flow: ControlFlow): ProgramTypes | undefined {
  return attached.get(flow);
}

async function analyse(source: string): Promise<ProgramTypes> {
  const run = await runPythonHelper({ script: helperPath('local_types.py', import.meta.url), input: source, timeoutMs: HELPER_TIMEOUT_MS });
  if (run.timedOut) throw new Error(`local_types.py took longer than ${HELPER_TIMEOUT_MS / 1000} s`);
  const out = HelperSchema.parse(run.output);
  if (out.kind === 'error') return ProgramTypes.EMPTY;
  const dir = await mkdtemp(join(tmpdir(), 'ndb-types-'));
  try {
    const file = join(dir, 'program.py');
    await writeFile(file, out.text);
    const report = PyrightSchema.parse(JSON.parse(await runPyright(file, dir)));
    const classes = new Set(out.classes);
    const byFrame = new Map<string, Map<string, readonly PyType[]>>();
    for (const d of report.generalDiagnostics) {
      if (d.severity !== 'information') continue;
      const at = out.reveals[String(d.range.start.line + 1)];
      const m = /^Type of "([\p{L}_][\p{L}\p{N}_]*)" is "(.*)"$/su.exec(d.message);
      if (!at || !m) continue;
      const types = pyTypes(m[2]!, classes);
      if (!types) continue;
      const key = `${at[0]}:${at[1]}`;
      let frame = byFrame.get(key);
      if (!frame) byFrame.set(key, (frame = new Map()));
      frame.set(m[1]!, types);
    }
    log('%d frames typed', byFrame.size);
    return new ProgramTypes(byFrame);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs pyright's command line on `file` (its JSON report; pyright exits 1 where it found errors, which the copy always has). */
function runPyright(file: string, cwd: string): Promise<string> {
  const cli = join(dirname(createRequire(import.meta.url).resolve('pyright/package.json')), 'index.js');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, '--outputjson', file], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), PYRIGHT_TIMEOUT_MS);
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-2000)));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (signal || (code !== 0 && code !== 1)) reject(new Error(`pyright ended with ${signal ?? `exit code ${code}`}: ${err.trim().split('\n').pop() ?? ''}`));
      else resolve(out);
    });
  });
}

const SIMPLE: Readonly<Record<string, PyType>> = { int: 'int', float: 'float', str: 'str', bool: 'bool', None: 'none' };
const GENERIC: Readonly<Record<string, PyType>> = { list: 'list', dict: 'dict', set: 'set', tuple: 'tuple' };

/**
 * A type pyright revealed, as the facts it makes certain (undefined: none). A union is every
 * member's (`Unbound` aside: where the name is bound, it is the rest); one member unknown and
 * nothing is.
 */
export function pyTypes(text: string, classes: ReadonlySet<string>): readonly PyType[] | undefined {
  const out = new Set<PyType>();
  for (const member of splitTop(text, '|')) {
    if (member === 'Unbound') continue;
    const one = pyType(member, classes);
    if (!one) return undefined;
    for (const t of one) out.add(t);
  }
  return out.size > 0 ? [...out] : undefined;
}

function pyType(text: string, classes: ReadonlySet<string>): readonly PyType[] | undefined {
  if (text in SIMPLE) return [SIMPLE[text]!];
  if (classes.has(text)) return ['object'];
  const generic = /^(\w+)\[(.*)\]$/s.exec(text);
  if (!generic) return undefined;
  const [, head, inner] = generic;
  if (head! in GENERIC) return [GENERIC[head!]!];
  if (head !== 'Literal') return undefined;
  const out: PyType[] = [];
  for (const lit of splitTop(inner!, ',')) {
    if (/^-?\d+$/.test(lit)) out.push('int');
    else if (/^['"]/.test(lit)) out.push('str');
    else if (lit === 'True' || lit === 'False') out.push('bool');
    else if (lit === 'None') out.push('none');
    else return undefined; // bytes, an enum's member
  }
  return out;
}

/** `text` split on `sep` outside brackets and quotes, each part trimmed. */
function splitTop(text: string, sep: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') depth--;
    else if (c === sep && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts;
}
