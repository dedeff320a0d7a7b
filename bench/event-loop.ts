/**
 * How free the adapter's event loop stays while the model runs: perf_hooks'
 * monitorEventLoopDelay in the adapter process (bench/adapter.ts), from its first stopped
 * event on (the steps: the launch before it loads the model, which onnxruntime-node does
 * synchronously). A timer's delay past its time is how long a DAP request arriving then
 * would have waited. On exit the adapter writes the longest delay and the 99th percentile to
 * stderr in one tagged line, which bench/client.ts reads back.
 */
import { writeSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { z } from 'zod';
import type { NeuralDebugSession } from '../adapter/debug-session.js';

const EventLoopDelay = z.object({ maxMs: z.number(), p99Ms: z.number() });
export type EventLoopDelay = z.infer<typeof EventLoopDelay>;

const TAG = 'ndb-bench event-loop';

/** Starts watching at `session`'s first stopped event; reports on process exit. */
export function watchEventLoop(session: NeuralDebugSession): void {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  let watching = false;
  const sendEvent = session.sendEvent.bind(session);
  session.sendEvent = (event: DebugProtocol.Event) => {
    if (event.event === 'stopped' && !watching) watching = delay.enable();
    sendEvent(event);
  };
  process.on('exit', () => {
    if (!watching) return;
    // The histogram is in nanoseconds and includes the sampling interval (1 ms), which is not delay.
    const ms = (ns: number) => Math.max(0, ns / 1e6 - 1);
    const report: EventLoopDelay = { maxMs: ms(delay.max), p99Ms: ms(delay.percentile(99)) };
    writeSync(2, `${TAG} ${JSON.stringify(report)}\n`);
  });
}

/** The figures in an adapter's stderr, if it wrote them. */
export function readEventLoop(stderr: string): EventLoopDelay | undefined {
  const line = stderr.split('\n').find((l) => l.startsWith(`${TAG} `));
  return line ? EventLoopDelay.parse(JSON.parse(line.slice(TAG.length + 1))) : undefined;
}
