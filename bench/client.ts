/**
 * One benchmark session, driven as a DAP client drives the adapter: the adapter process
 * (bench/adapter.ts) spawned on stdio, @vscode/debugadapter-testsupport's DebugClient on the
 * other end. After each stop the client asks what VS Code asks (stack, scopes, the innermost
 * frame's variables), then "thinks" for a while before the next key press: that pause is
 * what prefetch works in. Latency is from a request's send to its stopped event.
 *
 * When the run ends before the plan does, the client restarts (not measured) and goes on, so
 * that every action of the plan is measured.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { NdbStopInfo } from '../protocol/dap.js';
import { type EventLoopDelay, readEventLoop } from './event-loop.js';
import type { BenchProgram } from './programs.js';

export type BenchAction = 'step_over' | 'step_into' | 'step_return' | 'continue';
/**
 * ours: our adapter as it ships. noprefetch: the same, launched with `prefetch: false` (what a
 * key press costs when no guess is ready). baseline (2): every optimization off
 * (bench/adapter.ts --baseline). generate (1): transformers.js generate(), prompt rebuilt each
 * step (bench/adapter.ts --generate, bench/generate-predictor.ts).
 */
export type Config = 'ours' | 'noprefetch' | 'baseline' | 'generate';
export const CONFIGS: readonly Config[] = ['ours', 'noprefetch', 'baseline', 'generate'];

const ADAPTER_FLAGS: Record<Config, string[]> = { ours: [], noprefetch: [], baseline: ['--baseline'], generate: ['--generate'] };
/** Only ours prefetches. */
const PREFETCH: Record<Config, boolean> = { ours: true, noprefetch: false, baseline: false, generate: false };

export interface StepSample {
  action: BenchAction;
  ms: number;
  prefetched: boolean;
  replayed: boolean;
  /** Tokens of the frame (chosen by the model and fixed by the grammar). */
  tokens?: number;
  /** Of those, the ones the model chose: one forward pass each when decoding one chosen token per pass (the floor's passes). */
  sampled?: number;
  passes?: number;
  prefilled?: number;
  /** The prediction's own time (for a prefetched stop: the time it took in the background). */
  predictMs?: number;
}

export interface SessionResult {
  config: Config;
  program: string;
  /** launch request -> first stopped event, in a fresh process: model load, program prefill, first state. */
  coldMs: number;
  steps: StepSample[];
  /** Each stop as the client saw it (frames and innermost variables), to compare the configs. */
  states: string[];
  /** Peak resident memory of the adapter process (VmHWM), bytes. */
  peakRss: number;
  /** The adapter's event loop during the steps (bench/event-loop.ts); absent if it did not report. */
  eventLoop?: EventLoopDelay;
  /** Restarts after the run ended before the plan did. */
  restarts: number;
  /** Key presses answered with an error (the model wrote no whole state): the session goes on, as a user's would. */
  failedSteps: { action: BenchAction; error: string }[];
  error?: string;
}

/** DebugClient connects to a process it spawned itself; here the bench spawns it (to read its memory). */
export class BenchClient extends DebugClient {
  attach(readable: NodeJS.ReadableStream, writable: NodeJS.WritableStream): void {
    this.connect(readable as never, writable as never);
  }
}

const REQUESTS: Record<BenchAction, (dc: DebugClient) => Promise<DebugProtocol.Response>> = {
  step_over: (dc) => dc.nextRequest({ threadId: 1 }),
  step_into: (dc) => dc.stepInRequest({ threadId: 1 }),
  step_return: (dc) => dc.stepOutRequest({ threadId: 1 }),
  continue: (dc) => dc.continueRequest({ threadId: 1 }),
};

/** Restarts at most this often per session (a program whose run ends at once would loop). */
const MAX_RESTARTS = 3;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Our adapter as it ships (dist/bench/adapter.js, with `flags`), spawned by the bench, and a DAP client on its stdio. */
export function spawnAdapter(root: string, flags: readonly string[], timeoutMs: number): { child: ChildProcessWithoutNullStreams; dc: BenchClient } {
  const child = spawn(process.execPath, [join(root, 'dist', 'bench', 'adapter.js'), ...flags], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
  const dc = new BenchClient('node', '', 'neural-python');
  dc.defaultTimeout = timeoutMs;
  dc.attach(child.stdout, child.stdin);
  return { child, dc };
}

/** Initialize, configurationDone, launch (stopped on entry): the entry's stop and how long the launch took to it. */
export async function launchStopped(dc: DebugClient, launchArgs: Record<string, unknown>): Promise<{ first: DebugProtocol.StoppedEvent; coldMs: number }> {
  const initialized = dc.waitForEvent('initialized');
  await dc.initializeRequest({ adapterID: 'neural-python', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
  await initialized;
  await dc.configurationDoneRequest();
  const sent = performance.now();
  const [first] = await Promise.all([dc.waitForEvent('stopped') as Promise<DebugProtocol.StoppedEvent>, dc.launchRequest({ ...launchArgs, stopOnEntry: true } as DebugProtocol.LaunchRequestArguments)]);
  return { first, coldMs: performance.now() - sent };
}

export async function runSession(root: string, program: BenchProgram, config: Config, plan: readonly BenchAction[], thinkMs: number): Promise<SessionResult> {
  const { child, dc } = spawnAdapter(root, ADAPTER_FLAGS[config], 120_000);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const result: SessionResult = { config, program: program.name, coldMs: NaN, steps: [], states: [], peakRss: NaN, restarts: 0, failedSteps: [] };
  try {
    const launched = await launchStopped(dc, { program: program.path, entry: program.entry, args: program.args, ...(PREFETCH[config] ? {} : { prefetch: false }) });
    const first = launched.first;
    result.coldMs = launched.coldMs;
    let ended = info(first).end === true;
    const seen = async () => void result.states.push(await look(dc));
    await seen();
    for (const action of plan) {
      if (ended) {
        if (result.restarts++ >= MAX_RESTARTS) break;
        const [stop] = await Promise.all([dc.waitForEvent('stopped') as Promise<DebugProtocol.StoppedEvent>, dc.restartRequest({})]);
        ended = info(stop).end === true;
        await seen();
        if (ended) break;
      }
      await sleep(thinkMs);
      const t = performance.now();
      const stopped = dc.waitForEvent('stopped') as Promise<DebugProtocol.StoppedEvent>;
      stopped.catch(() => undefined); // abandoned below when the request fails
      try {
        await REQUESTS[action](dc);
      } catch (err) {
        result.failedSteps.push({ action, error: (err as Error).message });
        continue;
      }
      const stop = await stopped;
      const ms = performance.now() - t;
      const ndb = info(stop);
      const s = ndb.stats;
      result.steps.push({
        action,
        ms,
        prefetched: ndb.prefetched === true,
        replayed: ndb.replayed === true,
        ...(s ? { tokens: s.sampledTokens + s.forcedTokens, sampled: s.sampledTokens, passes: s.forwardPasses, prefilled: s.prefilledTokens, predictMs: s.milliseconds } : {}),
      });
      ended = ndb.end === true;
      await seen();
    }
    result.peakRss = peakRss(child.pid!);
  } catch (err) {
    result.error = `${(err as Error).message}${stderr ? ` (adapter: ${stderr.trim().split('\n').slice(-3).join(' | ')})` : ''}`;
  } finally {
    await Promise.race([dc.disconnectRequest().catch(() => undefined), sleep(2000)]);
    const closed = new Promise((r) => child.once('close', r));
    child.kill();
    // The adapter writes its event-loop figures as it exits; 'close' comes after its stderr.
    await Promise.race([closed, sleep(2000)]);
    const eventLoop = readEventLoop(stderr);
    if (eventLoop) result.eventLoop = eventLoop;
  }
  return result;
}

function info(stop: DebugProtocol.StoppedEvent): NdbStopInfo {
  return (stop.body as { ndb?: NdbStopInfo }).ndb ?? {};
}

/** What the Debug view asks for after a stop; the answer, as text, is the stop as the user sees it. */
async function look(dc: DebugClient): Promise<string> {
  const frames = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames;
  const top = frames[0];
  if (!top) return '';
  const scopes = (await dc.scopesRequest({ frameId: top.id })).body.scopes;
  const vars = scopes[0] ? (await dc.variablesRequest({ variablesReference: scopes[0].variablesReference })).body.variables : [];
  return `${frames.map((f) => `${f.name}:${f.line}`).join(' ')} ${vars.map((v) => `${v.name}=${v.value}`).join(', ')}`;
}

/** The process's peak resident set (Linux /proc); NaN elsewhere. */
function peakRss(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}
