/**
 * Jumps over calls (issue 43, "Fast."): what a step over a call, a step out and a continue to a
 * breakpoint about 50 lines of run ahead cost, beside a single step measured in the same run
 * (bench/run.ts calls this; on its own: `node dist/bench/jumps.js [--quick] [--think MS]
 * [--programs a.py,b.py] [--json FILE]`, or `node dist/bench/run.js --jumps-only`).
 *
 * Programs: dev programs of the pdb corpus (evaluation/pdb-corpus/, split "dev"; never the
 * held-out ones), whole modules of several functions and classes, launched as a user would
 * (no entry: the module's top level, stopped on entry). Each program is first run under the
 * real tracer (`ndb trace FILE --json`), which gives, from the real events only:
 *   - the breakpoint line: the line whose first hit is nearest to 50 line events after the
 *     first one (where the session stops on entry);
 *   - which lines call a function of the program (a line event followed by a call event one
 *     frame deeper, into a function that is not a comprehension, a lambda or a class body),
 *     with how many line events the callee runs (what a step over that call rolls out);
 *   - which lines call nothing (no call event follows any of their hits).
 *
 * Then one session per configuration (bench/client.ts: ours = prefetch on, noprefetch), over
 * DAP, each a fresh adapter process, in an order that alternates from program to program:
 *   1. from the first stop, a breakpoint at that line, then `continue` (measured);
 *   2. then a restart (not measured), the breakpoint cleared, and from the entry, at every stop
 *      until the session's budget is spent (enough step overs of a call and step outs, or its
 *      presses or seconds; at the run's end, a restart, at most MAX_RESTARTS), by the line the
 *      session stands on (its top frame), as a user walks a program: on a line that calls a
 *      function of the program (at the module's top level, `main()`: a step in, not measured,
 *      since stepping over it is the whole run),
 *      `next` (a step over a call, measured) and, at the next such stop, `stepIn` (not
 *      measured) and, if that entered a deeper frame, `stepOut` (measured), in turn; on a
 *      line that calls nothing, `next` (the single step, measured); on any other line (one that
 *      only enters a comprehension or a lambda; a return or exception stop, where a `next`
 *      leaves the frame; the stop right after a call returned, where the line's call already
 *      ran: StopAt), `next`, kept in the JSON but not in the table.
 * Before every press the client waits the think time (as bench/client.ts does) so that a
 * prefetched guess can land; a press answered from one is a hit (the stopped event's
 * `ndb.prefetched`, as run.ts counts them). Continue is not among the guessed presses
 * (adapter/prefetch.ts PREFETCH_ACTIONS), so it has no hits unless that changes.
 * The stops follow the predicted run, not the real one: the line a press was made on is the
 * session's own, and whether the continue landed on its breakpoint is reported.
 *
 * Reported per action and configuration: median, p95, n, hits, and the ratio of the median
 * to the single step's median of the same configuration; for ours also the medians of hits
 * and of misses apart (the issue's targets: under 150 ms without a hit, under 20 ms with one).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { NdbStopInfo } from '../protocol/dap.js';
import { EXCEPTION_NAME, RETURN_NAME } from '../adapter/variables-view.js';
import { type Config, launchStopped, spawnAdapter } from './client.js';
import { percentile } from './stats.js';

/** Dev programs of evaluation/pdb-corpus/corpus.json: classes, methods, recursion, str parsing. */
export const JUMP_PROGRAMS: readonly string[] = ['inventory.py', 'grades.py', 'bank_account.py', 'merge_sort.py'];
export const JUMP_CONFIGS: readonly Config[] = ['ours', 'noprefetch'];
/** Line events after the first stop that the continue's breakpoint should be. */
export const RUN_AHEAD = 50;
/** Restarts after the run's end (the steps' walk from the entry), per session. */
const MAX_RESTARTS = 3;

export type JumpAction = 'continue' | 'step_over_call' | 'step_out' | 'single_step';
const TABLE_ACTIONS: readonly JumpAction[] = ['single_step', 'step_over_call', 'step_out', 'continue'];

export interface JumpPress {
  program: string;
  config: Config;
  /** The measured action; `other`: a `next` that is none of them (see the header; not in the table). */
  action: JumpAction | 'other';
  ms: number;
  prefetched: boolean;
  /** The session's own stop the press was made at, and where it landed (top frame line, frames, what kind of stop: see StopAt). */
  from: StopAt;
  to: StopAt & { end: boolean };
  /** step_over_call: line events the callee runs in the real trace (the median over that line's calls). */
  calleeLines?: number;
}

/**
 * Where a session stands: the top frame's line, the number of frames, and the stop's kind as
 * the Variables view shows it: `return` (a return or exception stop, `(return)` /
 * `(exception)`: a `next` leaves the frame), `back` (the stop right after a call returned,
 * `(return) f`: the line's call already ran), or `line`.
 */
export interface StopAt {
  line: number;
  depth: number;
  kind: 'line' | 'return' | 'back';
}

export interface JumpProgram {
  file: string;
  /** The breakpoint line and the index of its first hit among the real run's line events (the first stop is 0). */
  breakpoint: { line: number; firstHit: number };
  realLineEvents: number;
  /** Line -> line events its program call runs (median over its hits), from the real trace. */
  callLines: Record<number, number>;
  plainLines: number[];
  /** Per configuration: did the continue land on the breakpoint line; presses; errors. */
  sessions: { config: Config; continueLanded: boolean | null; presses: number; stepInsThatDidNotEnter: number; restarts: number; ended: boolean; seconds: number; error?: string }[];
}

export interface JumpRow {
  action: JumpAction;
  config: Config;
  n: number;
  median: number;
  p95: number;
  hits: number;
  hitMedian: number;
  missMedian: number;
  /** This median over the single step's median, same configuration, same run. */
  overSingleStep: number;
}

export interface JumpsResult {
  thinkMs: number;
  /** Per session: step overs of a call and step outs wanted (each), and the most presses and seconds spent. */
  budget: { jumps: number; presses: number; seconds: number };
  runAhead: number;
  programs: JumpProgram[];
  table: JumpRow[];
  presses: JumpPress[];
  wallSeconds: number;
}

interface TraceEvent {
  event: 'call' | 'line' | 'return' | 'exception';
  depth: number;
  function: string;
  line: number;
}

/** Comprehensions and lambdas: Python frames, but not a function a user steps over as a call. */
const ANONYMOUS = /^<(listcomp|dictcomp|setcomp|genexpr|lambda)>$/;

/** The real run's events (`ndb trace FILE --json`, the real tracer), and what this bench needs from them. */
export function analyseTrace(root: string, path: string): Omit<JumpProgram, 'file' | 'sessions'> {
  const out = execFileSync(process.execPath, [join(root, 'bin', 'ndb.js'), 'trace', path, '--json'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  const events = out
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { type?: string } & TraceEvent)
    .filter((e) => e.type === 'event');
  const lineEvents = events.filter((e) => e.event === 'line');
  if (lineEvents.length === 0) throw new Error(`${path}: the real trace has no line events`);
  const firstHit = new Map<number, number>();
  lineEvents.forEach((e, i) => firstHit.has(e.line) || firstHit.set(e.line, i));
  const [bpLine, bpHit] = [...firstHit.entries()].filter(([, i]) => i > 0).sort((a, b) => Math.abs(a[1] - RUN_AHEAD) - Math.abs(b[1] - RUN_AHEAD) || a[1] - b[1])[0]!;
  const spans = new Map<number, number[]>();
  const callsSomething = new Set<number>();
  events.forEach((e, k) => {
    const next = events[k + 1];
    if (e.event !== 'line' || !next || next.event !== 'call' || next.depth !== e.depth + 1) return;
    callsSomething.add(e.line);
    // A class statement runs its body as a frame that starts on the class line itself: not a call.
    if (ANONYMOUS.test(next.function) || next.line === e.line) return;
    let lines = 0;
    for (let j = k + 1; j < events.length && events[j]!.depth > e.depth; j++) if (events[j]!.event === 'line') lines++;
    spans.set(e.line, [...(spans.get(e.line) ?? []), lines]);
  });
  const callLines = Object.fromEntries([...spans].map(([line, xs]) => [line, percentile(xs, 50)]));
  const plainLines = [...firstHit.keys()].filter((l) => !callsSomething.has(l)).sort((a, b) => a - b);
  return { breakpoint: { line: bpLine, firstHit: bpHit }, realLineEvents: lineEvents.length, callLines, plainLines };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const info = (stop: DebugProtocol.StoppedEvent): NdbStopInfo => (stop.body as { ndb?: NdbStopInfo }).ndb ?? {};

/** One session of `config` on `program` (see the header). */
async function runJumpSession(root: string, path: string, program: JumpProgram, config: Config, thinkMs: number, budget: JumpsResult['budget']): Promise<JumpPress[]> {
  const began = performance.now();
  const { child, dc } = spawnAdapter(root, [], 120_000);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const session: JumpProgram['sessions'][number] = { config, continueLanded: null, presses: 0, stepInsThatDidNotEnter: 0, restarts: 0, ended: false, seconds: NaN };
  program.sessions.push(session);
  const out: JumpPress[] = [];
  /** What the Debug view asks after a stop (stack, scopes, the top frame's variables): where the session stands, and whether it is a return or exception stop. */
  const where = async (): Promise<StopAt> => {
    const frames = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames;
    const top = frames[0];
    const scopes = top ? (await dc.scopesRequest({ frameId: top.id })).body.scopes : [];
    const vars = scopes[0] ? (await dc.variablesRequest({ variablesReference: scopes[0].variablesReference })).body.variables : [];
    const kind = vars.some((v) => v.name === RETURN_NAME || v.name === EXCEPTION_NAME) ? 'return' : vars.some((v) => v.name.startsWith(`${RETURN_NAME} `)) ? 'back' : 'line';
    return { line: top?.line ?? 0, depth: frames.length, kind };
  };
  /** Think, press, wait for the stop: the latency from the request to the stopped event. */
  const press = async (request: () => Promise<DebugProtocol.Response>) => {
    await sleep(thinkMs);
    const stopped = dc.waitForEvent('stopped') as Promise<DebugProtocol.StoppedEvent>;
    stopped.catch(() => undefined);
    const t = performance.now();
    await request();
    const stop = await stopped;
    const ms = performance.now() - t;
    const ndb = info(stop);
    session.presses++;
    return { ms, prefetched: ndb.prefetched === true, end: ndb.end === true, replayed: ndb.replayed === true };
  };
  /** Stops on a call line: the first is stepped over, the next stepped into and out of, and so on. */
  let callVisits = 0;
  const done: Record<JumpAction, number> = { continue: 0, step_over_call: 0, step_out: 0, single_step: 0 };
  const spent = () => session.presses >= budget.presses || performance.now() - began > budget.seconds * 1000 || (done.step_over_call >= budget.jumps && done.step_out >= budget.jumps);
  const record = (action: JumpPress['action'], r: { ms: number; prefetched: boolean; end: boolean; replayed: boolean }, from: StopAt, to: StopAt, calleeLines?: number) => {
    if (r.replayed) return; // a stop predicted before: not a prediction's cost
    if (action !== 'other') done[action]++;
    out.push({ program: program.file, config, action, ms: r.ms, prefetched: r.prefetched, from, to: { ...to, end: r.end }, ...(calleeLines !== undefined ? { calleeLines } : {}) });
  };
  try {
    const { first } = await launchStopped(dc, { program: path, ...(config === 'ours' ? {} : { prefetch: false }) });
    let ended = info(first).end === true;
    let at = await where();
    const source = { path };
    // 1. Continue to the breakpoint about RUN_AHEAD line events ahead, from the first stop.
    await dc.setBreakpointsRequest({ source, breakpoints: [{ line: program.breakpoint.line }] });
    if (!ended) {
      const r = await press(() => dc.continueRequest({ threadId: 1 }));
      const to = await where();
      session.continueLanded = !r.end && to.line === program.breakpoint.line;
      record('continue', r, at, to);
      at = to;
      ended = r.end;
    }
    await dc.setBreakpointsRequest({ source, breakpoints: [] });
    // 2. From the entry again (not measured), step by the line the session stands on.
    const restart = async () => {
      const [stop] = await Promise.all([dc.waitForEvent('stopped') as Promise<DebugProtocol.StoppedEvent>, dc.restartRequest({})]);
      ended = info(stop).end === true;
      at = await where();
    };
    await restart();
    while (!spent()) {
      if (ended) {
        if (session.restarts++ >= MAX_RESTARTS) break;
        await restart();
        if (ended) break;
      }
      // Only a line stop stands before its line's call: from a return stop a `next` leaves the frame, and right after a call returned the line's call already ran.
      const callee = at.kind === 'line' ? program.callLines[at.line] : undefined;
      // At the module's top level a call line (`main()`) is stepped into, not measured: stepping over it is the whole run.
      const topLevel = callee !== undefined && at.depth === 1;
      if (topLevel || (callee !== undefined && callVisits++ % 2 === 1)) {
        const into = await press(() => dc.stepInRequest({ threadId: 1 }));
        const inside = await where();
        if (into.end) {
          ended = true;
          continue;
        }
        if (inside.depth <= at.depth) {
          session.stepInsThatDidNotEnter++;
          at = inside;
          continue;
        }
        if (topLevel) {
          at = inside;
          continue;
        }
        const r = await press(() => dc.stepOutRequest({ threadId: 1 }));
        const to = await where();
        record('step_out', r, inside, to);
        at = to;
        ended = r.end;
      } else {
        const r = await press(() => dc.nextRequest({ threadId: 1 }));
        const to = await where();
        const action = callee !== undefined ? 'step_over_call' : at.kind === 'line' && program.plainLines.includes(at.line) ? 'single_step' : 'other';
        record(action, r, at, to, callee);
        at = to;
        ended = r.end;
      }
    }
    session.ended = ended;
  } catch (err) {
    session.error = `${(err as Error).message}${stderr ? ` (adapter: ${stderr.trim().split('\n').slice(-3).join(' | ')})` : ''}`;
  } finally {
    await Promise.race([dc.disconnectRequest().catch(() => undefined), sleep(2000)]);
    const closed = new Promise((r) => child.once('close', r));
    child.kill();
    await Promise.race([closed, sleep(2000)]);
    session.seconds = (performance.now() - began) / 1000;
  }
  return out;
}

export async function measureJumps(root: string, opts: { thinkMs?: number; quick?: boolean; programs?: readonly string[]; log?: (line: string) => void } = {}): Promise<JumpsResult> {
  const thinkMs = opts.thinkMs ?? 500;
  const budget = opts.quick ? { jumps: 3, presses: 40, seconds: 45 } : { jumps: 6, presses: 80, seconds: 120 };
  const log = opts.log ?? (() => undefined);
  const started = performance.now();
  const programs: JumpProgram[] = [];
  const presses: JumpPress[] = [];
  for (const [i, file] of (opts.programs ?? JUMP_PROGRAMS).entries()) {
    const path = join(root, 'evaluation', 'pdb-corpus', file);
    const program: JumpProgram = { file, ...analyseTrace(root, path), sessions: [] };
    programs.push(program);
    // Alternate which configuration runs first (a busy machine weighs on both alike).
    for (const config of i % 2 === 0 ? JUMP_CONFIGS : [...JUMP_CONFIGS].reverse()) {
      const mine = await runJumpSession(root, path, program, config, thinkMs, budget);
      presses.push(...mine);
      const s = program.sessions.at(-1)!;
      log(`jumps ${config.padEnd(10)} ${file.padEnd(16)} ${mine.length} measured, continue ${s.continueLanded === null ? 'not made' : s.continueLanded ? 'landed' : 'missed'} line ${program.breakpoint.line}${s.error ? `, ERROR ${s.error}` : ''}`);
    }
  }
  const table: JumpRow[] = [];
  for (const config of JUMP_CONFIGS) {
    const of = (a: JumpAction) => presses.filter((p) => p.config === config && p.action === a);
    const single = percentile(of('single_step').map((p) => p.ms), 50);
    for (const action of TABLE_ACTIONS) {
      const xs = of(action);
      const ms = xs.map((p) => p.ms);
      const median = percentile(ms, 50);
      table.push({
        action,
        config,
        n: xs.length,
        median,
        p95: percentile(ms, 95),
        hits: xs.filter((p) => p.prefetched).length,
        hitMedian: percentile(xs.filter((p) => p.prefetched).map((p) => p.ms), 50),
        missMedian: percentile(xs.filter((p) => !p.prefetched).map((p) => p.ms), 50),
        overSingleStep: median / single,
      });
    }
  }
  return { thinkMs, budget, runAhead: RUN_AHEAD, programs, table, presses, wallSeconds: (performance.now() - started) / 1000 };
}

/** The report's lines. */
export function jumpsLines(r: JumpsResult): string[] {
  const f = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '-');
  const landed = r.programs.flatMap((p) => p.sessions).filter((s) => s.continueLanded === true).length;
  const continues = r.programs.flatMap((p) => p.sessions).filter((s) => s.continueLanded !== null).length;
  const notEntered = r.programs.flatMap((p) => p.sessions).reduce((a, s) => a + s.stepInsThatDidNotEnter, 0);
  const errors = r.programs.flatMap((p) => p.sessions.filter((s) => s.error).map((s) => `${p.file} ${s.config}: ${s.error}`));
  return [
    `jumps over calls: ${r.programs.map((p) => p.file).join(', ')} (evaluation/pdb-corpus, dev), whole modules; think ${r.thinkMs} ms; a session stops at ${r.budget.jumps} step overs of a call and ${r.budget.jumps} step outs, ${r.budget.presses} presses, ${r.budget.seconds} s or the run's end; ${f(r.wallSeconds, 0)} s in all`,
    `continue: to the line first hit nearest ${r.runAhead} real line events after the first stop (${r.programs.map((p) => `${p.file} line ${p.breakpoint.line} @${p.breakpoint.firstHit}`).join(', ')}); landed on it in ${landed}/${continues} sessions`,
    `step over call: next on a line calling a program function (callee runs ${f(percentile(r.presses.filter((p) => p.action === 'step_over_call' && p.calleeLines !== undefined).map((p) => p.calleeLines!), 50), 0)} real line events, median); step out: after a step in that entered (${notEntered} step ins did not enter)`,
    `ms, request to stopped event; ratio = median / the single step's median, same configuration, same run`,
    `action          config     |    p50    p95   n  hits | hit p50 miss p50 | x single step`,
    ...r.table.map(
      (row) =>
        `${row.action.padEnd(15)} ${row.config.padEnd(10)} | ${f(row.median).padStart(6)} ${f(row.p95, 0).padStart(6)} ${String(row.n).padStart(3)} ${`${row.hits}/${row.n}`.padStart(5)} | ${f(row.hitMedian).padStart(7)} ${f(row.missMedian).padStart(8)} | ${f(row.overSingleStep, 2).padStart(12)}x`,
    ),
    ...(errors.length ? [`errors: ${errors.join('; ')}`] : []),
  ];
}

// The CLI, when run directly.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { parseArgs } = await import('node:util');
  const { packageRoot } = await import('../model-client/model-folder.js');
  const { values } = parseArgs({ options: { quick: { type: 'boolean' }, think: { type: 'string' }, json: { type: 'string' }, programs: { type: 'string' } } });
  const programs = values.programs ? values.programs.split(',') : undefined;
  const result = await measureJumps(packageRoot(), { thinkMs: Number(values.think ?? 500), quick: values.quick === true, ...(programs ? { programs } : {}), log: (l) => process.stderr.write(`${l}\n`) });
  process.stdout.write(jumpsLines(result).join('\n') + '\n');
  if (values.json) {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(values.json, JSON.stringify(result, null, 2) + '\n');
  }
  process.exit(0);
}
