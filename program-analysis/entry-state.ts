/**
 * The first state of a debugging session, from the user's input, not from the model.
 *
 * The model never sees the entry's arguments: training prompts hold the program and the
 * states, nothing else, so asked for a first frame it could only guess them. They are the
 * user's input, though, and the call state follows from them without running the program:
 * call_frame.py binds the literal arguments to the entry's signature (CPython's own binding,
 * on a stub) and writes the reprs as the tracer does. What it cannot know without running
 * code (a default that is not a literal, a decorated entry) is left to the model (see
 * `EntryStart`). A module entry starts at `<module>:1` with no locals (the tracer's first
 * event for every module: CPython reports a module's call on line 1).
 */
import { z } from 'zod';
import { serializeFrame } from '../grammar/serialize.js';
import type { Exit, Locals, State } from '../grammar/state.js';
import { truncateState } from '../grammar/truncate.js';
import { helperPath, runPythonHelper } from '../python/python-helper.js';
import { NUL_IN_ARGS, sourceLines } from '../python/source.js';

export interface Entry {
  /** The function to call (dotted for a method: `Class.method`). */
  entry: string;
  /** Its arguments as Python literals, e.g. `[1, 2], 'x', k=3` (ignored with inferArgs). */
  args: string;
  /** No arguments from the user: the model proposes them (the call frame's values are left to it). */
  inferArgs?: boolean;
}

/**
 * known: the whole first state. partial: the frame's text up to the first local whose
 * value needs the program to run (ends after its `"name":`), for the model to complete.
 * exit: the call itself fails (arguments that do not bind). unknown: the first state needs
 * the program to run; the model predicts it whole.
 */
export type EntryStart =
  | { kind: 'known'; state: State }
  | { kind: 'partial'; prefix: string }
  | { kind: 'exit'; exit: Exit }
  | { kind: 'unknown'; reason: string };

/** Bad input: no such function, arguments that are not literals, a syntax error. */
export class EntryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EntryError';
  }
}

const HelperOutputSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('call'), function: z.string().min(1), line: z.number().int().positive(), locals: z.array(z.tuple([z.string(), z.string().nullable()])) }),
  z.object({ kind: z.literal('error'), value: z.string() }),
  z.object({ kind: z.literal('unknown'), reason: z.string() }),
  z.object({ kind: z.literal('invalid'), message: z.string() }),
]);

const HELPER_TIMEOUT_MS = 10_000;

async function runHelper(program: string, entry: Entry): Promise<unknown> {
  if (!entry.inferArgs && entry.args.includes('\0')) throw new EntryError(NUL_IN_ARGS);
  const args = [`--entry=${entry.entry}`, entry.inferArgs ? '--infer' : `--args=${entry.args}`];
  const run = await runPythonHelper({ script: helperPath('call_frame.py', import.meta.url), args, input: program, timeoutMs: HELPER_TIMEOUT_MS });
  if (run.timedOut) throw new Error(`call_frame.py took longer than ${HELPER_TIMEOUT_MS / 1000} s`);
  return run.output;
}

function moduleStart(program: string): State {
  const source = sourceLines(program)[0] ?? '';
  return truncateState({ event: 'call', line: 1, source, stack: [{ function: '<module>', line: 1 }], locals: {} });
}

export async function entryStart(program: string, entry: Entry | null): Promise<EntryStart> {
  if (!entry) return { kind: 'known', state: moduleStart(program) };
  const out = HelperOutputSchema.parse(await runHelper(program, entry));
  switch (out.kind) {
    case 'invalid':
      throw new EntryError(out.message);
    case 'unknown':
      return out;
    case 'error':
      return { kind: 'exit', exit: { kind: 'error', value: out.value } };
    case 'call':
      return callStart(program, out.function, out.line, out.locals);
  }
}

/** A unique stand-in for an unknown value while the frame is serialized. */
const UNKNOWN = '\u0000ndb-unknown';

function callStart(program: string, fn: string, line: number, bound: [string, string | null][]): EntryStart {
  const locals: Locals = {};
  for (const [name, repr] of bound) locals[name] = repr ?? UNKNOWN;
  const state = truncateState({ event: 'call', line, source: sourceLines(program)[line - 1] ?? '', stack: [{ function: fn, line }], locals });
  // Truncation may have cut the unknown values off (past the 11th local): then all is known.
  const firstUnknown = Object.keys(state.locals).findIndex((k) => bound.some(([name, repr]) => name === k && repr === null));
  if (firstUnknown < 0) return { kind: 'known', state };
  // Serialize up to that local with a marker value, and cut just before the value: the
  // prefix ends after `"name":`, where the tokenizer's pieces break (so its tokens are the
  // ones the whole frame would have).
  const entries = Object.entries(state.locals).slice(0, firstUnknown + 1);
  const text = serializeFrame('forward', { ...state, locals: Object.fromEntries(entries) });
  const tail = ` ${JSON.stringify(entries[firstUnknown]![1])}}`;
  return { kind: 'partial', prefix: text.slice(0, text.length - tail.length) };
}
