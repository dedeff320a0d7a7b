/**
 * What Predict Inputs costs (`ndb/predictInputs`, adapter/queries.ts), with the model's drawn
 * answers (INPUT_CANDIDATES, the default) against without them (`candidates: 0`: the model's
 * own answer and the value itself as the only argument, the protocol before the thirteenth
 * session), through a real DAP client on our adapter as it ships.
 *
 * The questions: the first rows of the real-code held-out file (evaluation/heldout-real.jsonl),
 * each asked for its row's output, on a session launched with the row's call and stopped on
 * entry. Each row asks both ways, in an order that alternates from row to row. Reported: the
 * median and p95 latency of each, their ratio, and how many answers the model's run forward
 * confirmed each way (only the drawn answers can add to them; the rest is the same work).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { INPUT_CANDIDATES } from '../model-client/input-prediction.js';
import { PREDICT_INPUTS_REQUEST, type PredictedInputs } from '../protocol/dap.js';
import { launchStopped, spawnAdapter } from './client.js';
import { percentile } from './stats.js';

export type InputsWay = 'drawn' | 'none';

export interface InputsAsk {
  row: string;
  way: InputsWay;
  ms: number;
  /** The model's run of the shown arguments returned the value. */
  confirmed: boolean;
  error?: string;
}

export interface PredictInputsResult {
  rows: number;
  candidates: number;
  asks: InputsAsk[];
  summary: Record<InputsWay, { median: number; p95: number; confirmed: number; failed: number }>;
  /** Median with the drawn answers over median without. */
  ratio: number;
}

const CANDIDATES: Record<InputsWay, number> = { drawn: INPUT_CANDIDATES, none: 0 };

/** One session: the row's program launched on its call, then Predict Inputs for its output, both ways. */
async function askRow(root: string, dir: string, row: { id: string; code: string; input: string; output: string }, first: InputsWay): Promise<InputsAsk[]> {
  const path = join(dir, `${row.id.replace(/\W+/g, '_')}.py`);
  await writeFile(path, row.code);
  const { child, dc } = spawnAdapter(root, [], 300_000);
  const asks: InputsAsk[] = [];
  try {
    await launchStopped(dc, { program: path, entry: 'f', args: row.input, prefetch: false });
    for (const way of first === 'drawn' ? (['drawn', 'none'] as const) : (['none', 'drawn'] as const)) {
      const t = performance.now();
      try {
        const answer = (await dc.customRequest(PREDICT_INPUTS_REQUEST, { value: row.output, candidates: CANDIDATES[way] })).body as PredictedInputs;
        asks.push({ row: row.id, way, ms: performance.now() - t, confirmed: answer.check?.returns === true });
      } catch (err) {
        asks.push({ row: row.id, way, ms: performance.now() - t, confirmed: false, error: (err as Error).message });
      }
    }
  } finally {
    await dc.disconnectRequest().catch(() => undefined);
    child.kill();
  }
  return asks;
}

export async function measurePredictInputs(root: string, dir: string, rows: number): Promise<PredictInputsResult> {
  const all = (await readFile(join(root, 'evaluation', 'heldout-real.jsonl'), 'utf8'))
    .split('\n')
    .filter((l) => l.trim())
    .slice(0, rows)
    .map((l) => JSON.parse(l) as { id: string; code: string; input: string; output: string });
  const asks: InputsAsk[] = [];
  for (const [i, row] of all.entries()) asks.push(...(await askRow(root, dir, row, i % 2 === 0 ? 'drawn' : 'none')));
  const of = (way: InputsWay) => {
    const mine = asks.filter((a) => a.way === way && a.error === undefined);
    const ms = mine.map((a) => a.ms);
    return { median: percentile(ms, 50), p95: percentile(ms, 95), confirmed: mine.filter((a) => a.confirmed).length, failed: asks.filter((a) => a.way === way && a.error !== undefined).length };
  };
  const summary = { drawn: of('drawn'), none: of('none') };
  return { rows: all.length, candidates: INPUT_CANDIDATES, asks, summary, ratio: summary.drawn.median / summary.none.median };
}

export function predictInputsLines(r: PredictInputsResult): string[] {
  const f = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : '-');
  const line = (name: string, s: PredictInputsResult['summary'][InputsWay]) => `  ${name.padEnd(44)}${f(s.median).padStart(8)}${f(s.p95).padStart(8)}   ${s.confirmed} of ${r.rows} confirmed${s.failed ? `, ${s.failed} failed` : ''}`;
  return [
    `Predict Inputs (ndb/predictInputs for each row's output, the first ${r.rows} rows of evaluation/heldout-real.jsonl), ms:`,
    `  ${'answers checked'.padEnd(44)}${'p50'.padStart(8)}${'p95'.padStart(8)}`,
    line(`own + output + ${r.candidates} drawn (default)`, r.summary.drawn),
    line('own + output (candidates: 0)', r.summary.none),
    `  drawn / none, median: ${Number.isFinite(r.ratio) ? r.ratio.toFixed(2) : '-'}x`,
  ];
}
