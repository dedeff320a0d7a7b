/**
 * The machine's memory bandwidth, the floor's denominator (a memory-bound forward pass reads
 * every weight once). Each of `threads` worker threads copies its own 128 MiB Float32Array
 * (well past the caches), all starting together; a round's bandwidth is the bytes all of
 * them read and wrote over the slowest one's time. The result is the best round: the machine
 * is shared, and the floor is what the memory can do when it gets the chance. bench/run.ts
 * takes the best of one thread and two: ndb runs a pass on one thread, but one core alone may
 * not draw all the bandwidth there is (here two drew 25-34 GB/s, one 20-28).
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

const BYTES = 128 * 2 ** 20;
const ROUNDS = 8;

interface Job {
  /** Round r starts when start[0] reaches r + 1. */
  start: SharedArrayBuffer;
}

function copyRounds(job: Job): void {
  const src = new Float32Array(BYTES / 4);
  const dst = new Float32Array(BYTES / 4);
  for (let i = 0; i < src.length; i += 1024) src[i] = i; // touch every page first
  dst.set(src);
  const start = new Int32Array(job.start);
  parentPort!.postMessage('ready');
  for (let r = 0; r < ROUNDS; r++) {
    Atomics.wait(start, 0, r);
    const t = performance.now();
    dst.set(src);
    parentPort!.postMessage(performance.now() - t);
  }
}

/** Bytes per second (read + written) that `threads` threads copy together, best of 8 rounds. */
export async function measureBandwidth(threads = 1): Promise<number> {
  const start = new Int32Array(new SharedArrayBuffer(4));
  const workers = Array.from({ length: threads }, () => new Worker(new URL(import.meta.url), { workerData: { start: start.buffer } satisfies Job }));
  const inbox = workers.map((w) => {
    const messages: unknown[] = [];
    w.on('message', (m) => messages.push(m));
    return messages;
  });
  const received = async (count: number) => {
    while (inbox.some((m) => m.length < count)) await new Promise((r) => setTimeout(r, 2));
  };
  try {
    await received(1);
    let best = 0;
    for (let r = 0; r < ROUNDS; r++) {
      Atomics.store(start, 0, r + 1);
      Atomics.notify(start, 0);
      await received(r + 2);
      const slowest = Math.max(...inbox.map((m) => m[r + 1] as number));
      best = Math.max(best, (threads * 2 * BYTES) / (slowest / 1000));
    }
    return best;
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

if (!isMainThread && (workerData as Job | undefined)?.start) copyRounds(workerData as Job);
