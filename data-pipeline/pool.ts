/**
 * Runs async jobs with a bounded concurrency, in input order of start. The data pipeline's
 * work is Python subprocesses, so `concurrency = cores` keeps every core busy.
 */
export async function runPool<T, R>(items: readonly T[], concurrency: number, job: (item: T, index: number) => Promise<R>, onDone?: (result: R, index: number) => void): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  async function worker(): Promise<void> {
    while (next < items.length) {
      const i = next++;
      results[i] = await job(items[i]!, i);
      onDone?.(results[i]!, i);
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  return results;
}
