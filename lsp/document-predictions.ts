/**
 * The example runs of each open document's current version: which calls it has, which runs
 * are predicted, pending or skipped, and the cache that spares predicting a run again.
 *
 * A new version replaces the old one at once (the old one is marked stale and its jobs are
 * cancelled in the worker), so nothing computed for an old text reaches the editor. The new
 * version's analysis (program-analysis/program-info.py, a Python subprocess) waits for a pause in typing.
 *
 * The cache is keyed by the text, not the version number: undoing an edit, or reopening a
 * file, finds the runs already predicted for that exact text.
 */
import { createHash } from 'node:crypto';
import { type ProgramInfo, programInfo } from '../program-analysis/program-info.js';
import { type ExampleCall, findExampleCalls, type SkippedCall } from './example-calls.js';
import type { JobHandle, Outcome, PredictionClient } from './prediction-client.js';
import { describeEnd, type PredictedRun } from './predicted-run.js';
import type { PredictionStatus } from '../protocol/lsp.js';

export interface Slot {
  call: ExampleCall;
  run: PredictedRun;
  /** Null while the run is being predicted. */
  outcome: Outcome | null;
  settled: Promise<void>;
}

export class DocumentPredictions {
  info: ProgramInfo | null = null;
  skipped: SkippedCall[] = [];
  slots: Slot[] = [];
  /** A later version replaced this one: its results are dropped. */
  stale = false;
  readonly lines: string[];
  /** The text's hash, once per version (the cache's key; hashing per call was quadratic in a file of many calls). */
  readonly textHash: string;
  /** Resolves once the calls are known (or the version is stale). */
  readonly ready: Promise<void>;
  markReady!: () => void;

  constructor(
    readonly uri: string,
    readonly version: number,
    readonly text: string,
  ) {
    this.lines = text.split(/\r?\n/);
    this.textHash = createHash('sha256').update(text).digest('hex');
    this.ready = new Promise((resolve) => (this.markReady = resolve));
  }

  /** Resolves once every run of this version is settled. */
  async allSettled(): Promise<void> {
    await this.ready;
    await Promise.all(this.slots.map((s) => s.settled));
  }

  get pending(): boolean {
    return this.slots.some((s) => s.outcome === null);
  }
}

export interface PredictionsEvents {
  /** The calls of a current version are known (runs from the cache are already settled). */
  analyzed(doc: DocumentPredictions): void;
  /** A run of a current version settled. */
  settled(doc: DocumentPredictions, slot: Slot): void;
  status(doc: DocumentPredictions, call: ExampleCall, status: PredictionStatus, message?: string): void;
  /** Something went wrong that is not the user's (logged, not shown). */
  log(message: string): void;
}

const CACHE_SIZE = 64;
/**
 * Analyses (a Python process each) running at once: opening a thousand files, or a client that
 * sends a thousand versions, queues them rather than starting a thousand Pythons. A version
 * replaced while it waits is dropped from the queue.
 */
const MAX_ANALYSES = 2;

export class Predictions {
  private readonly docs = new Map<string, DocumentPredictions>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly jobs = new Map<number, { doc: DocumentPredictions; call: ExampleCall }>();
  /** Complete runs by text and call, oldest first (a Map keeps insertion order). */
  private readonly cache = new Map<string, PredictedRun>();
  private analyses = 0;
  private readonly waiting: DocumentPredictions[] = [];

  constructor(
    private readonly client: PredictionClient,
    private readonly events: PredictionsEvents,
    private readonly debounceMs = 300,
  ) {}

  get(uri: string): DocumentPredictions | undefined {
    return this.docs.get(uri);
  }

  /** A document opened (analyzed now) or changed (analyzed after `debounceMs` without another change). */
  update(uri: string, version: number, text: string, debounce: boolean): void {
    const old = this.docs.get(uri);
    if (old && old.version === version && old.text === text) return;
    this.retire(uri, version);
    const doc = new DocumentPredictions(uri, version, text);
    this.docs.set(uri, doc);
    if (!debounce) return this.analyze(doc);
    this.timers.set(
      uri,
      setTimeout(() => {
        this.timers.delete(uri);
        this.analyze(doc);
      }, this.debounceMs),
    );
  }

  close(uri: string): void {
    this.retire(uri, null);
    this.docs.delete(uri);
  }

  /** The current version of `uri` is replaced (by `version`, or by nothing: closed). */
  private retire(uri: string, version: number | null): void {
    clearTimeout(this.timers.get(uri));
    this.timers.delete(uri);
    const old = this.docs.get(uri);
    if (!old) return;
    old.stale = true;
    old.markReady();
    if (old.pending) this.client.cancel(uri, version);
  }

  jobStarted(handle: JobHandle): void {
    const owner = this.jobs.get(handle.job);
    if (owner && !owner.doc.stale) this.events.status(owner.doc, owner.call, 'started');
  }

  /** Queues `doc`'s analysis behind at most MAX_ANALYSES running ones. */
  private analyze(doc: DocumentPredictions): void {
    this.waiting.push(doc);
    this.startAnalyses();
  }

  private startAnalyses(): void {
    while (this.analyses < MAX_ANALYSES && this.waiting.length > 0) {
      const doc = this.waiting.shift()!;
      if (doc.stale) continue;
      this.analyses++;
      void this.runAnalysis(doc).finally(() => {
        this.analyses--;
        this.startAnalyses();
      });
    }
  }

  private async runAnalysis(doc: DocumentPredictions): Promise<void> {
    try {
      doc.info = await programInfo(doc.text);
    } catch (err) {
      this.events.log(`ndb: cannot read the functions of ${doc.uri}: ${(err as Error).message}`);
    }
    if (doc.stale) return;
    if (doc.info?.kind === 'ok') {
      const { calls, skipped } = findExampleCalls(doc.text, doc.info.functions);
      doc.skipped = skipped;
      doc.slots = calls.map((call) => this.slotFor(doc, call));
    }
    doc.markReady();
    this.events.analyzed(doc);
  }

  private slotFor(doc: DocumentPredictions, call: ExampleCall): Slot {
    const key = cacheKey(doc, call);
    const cached = this.cache.get(key);
    if (cached) {
      // Most recently used last: what is evicted is what was not asked for longest.
      this.cache.delete(key);
      this.cache.set(key, cached);
      this.events.status(doc, call, 'done', `${describeEnd(cached)} (from the cache)`);
      return { call, run: cached, outcome: { kind: 'done' }, settled: Promise.resolve() };
    }
    const handle = this.client.submit({ uri: doc.uri, version: doc.version, program: doc.text, entry: call.entry, args: call.args }, call.text);
    this.jobs.set(handle.job, { doc, call });
    this.events.status(doc, call, 'queued');
    const slot: Slot = { call, run: handle.run, outcome: null, settled: Promise.resolve() };
    slot.settled = handle.settled.then((outcome) => {
      this.jobs.delete(handle.job);
      // A run finished for a version already replaced is dropped, as if cancelled.
      if (doc.stale) return this.events.status(doc, call, 'cancelled');
      slot.outcome = outcome;
      if (outcome.kind === 'done') this.remember(key, handle.run);
      this.events.status(doc, call, outcome.kind, outcome.kind === 'skipped' || outcome.kind === 'failed' ? outcome.reason : outcome.kind === 'done' ? describeEnd(handle.run) : undefined);
      this.events.settled(doc, slot);
    });
    return slot;
  }

  private remember(key: string, run: PredictedRun): void {
    this.cache.set(key, run);
    if (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
  }
}

function cacheKey(doc: DocumentPredictions, call: ExampleCall): string {
  return `${doc.textHash}\u0000${call.entry}\u0000${call.args}`;
}
