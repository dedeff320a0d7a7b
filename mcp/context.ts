/**
 * What every tool of `ndb mcp` shares: the model (loaded once, on the first call that needs
 * it), a lock that lets one tool use it at a time, the programs given as text (written to a
 * private folder, since the runtime reads a file), and the open debugging sessions.
 *
 * One model session (weights, device) serves everything; each debugging session and each
 * one-shot simulation predicts on a sibling of it (model-client/neural-predictor.ts): its own
 * program and prompt cache, the same weights. The lock keeps two tool calls from running the
 * model at once (clients may send calls concurrently; the calls then wait their turn).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadPredictor, type PredictorChoice } from '../adapter/load-predictor.js';
import { NeuralRuntime, RuntimeError } from '../adapter/runtime.js';
import type { NeuralPredictor } from '../model-client/neural-predictor.js';
import type { FrameCompleter } from '../model-client/input-prediction.js';
import { defaultModelDir } from '../model-client/model-folder.js';
import { PartialFrameDecoder } from '../model-client/partial-frame.js';

/** A program as a tool takes it: a file, or its text. */
export interface ProgramInput {
  path?: string | undefined;
  source?: string | undefined;
}

export interface ContextOptions extends Omit<PredictorChoice, 'onWarning'> {
  /** Most debugging sessions open at once (default DEFAULT_MAX_SESSIONS). */
  maxSessions?: number;
  /** A session untouched this long is closed (default DEFAULT_IDLE_MS). */
  idleMs?: number;
  /** One-line notes for the log (stderr): the CUDA fallback, sessions closed when idle. */
  log?: (message: string) => void;
}

export const DEFAULT_MAX_SESSIONS = 8;
export const DEFAULT_IDLE_MS = 30 * 60 * 1000;

/** One open debugging session. */
export interface DebugSessionEntry {
  id: string;
  runtime: NeuralRuntime;
  /** The program as the client gave it (a path, or `<source>`). */
  program: string;
  entry: string | null;
  lastUsed: number;
  /** The folder holding the program when it was given as text; removed at close. */
  scratch: string | null;
}

export class McpContext {
  private predictor: Promise<NeuralPredictor> | null = null;
  private completer: Promise<FrameCompleter> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly sessions = new Map<string, DebugSessionEntry>();
  private nextId = 1;
  private readonly scratchRoot: string;
  private readonly idleTimer: NodeJS.Timeout;
  private closed = false;
  readonly maxSessions: number;
  readonly idleMs: number;

  constructor(private readonly opts: ContextOptions = {}) {
    this.maxSessions = opts.maxSessions ?? DEFAULT_MAX_SESSIONS;
    this.idleMs = opts.idleMs ?? DEFAULT_IDLE_MS;
    this.scratchRoot = mkdtempSync(join(tmpdir(), 'ndb-mcp-'));
    this.idleTimer = setInterval(() => void this.closeIdle(), Math.min(this.idleMs, 60_000));
    this.idleTimer.unref();
  }

  /** The shared model session, loaded on first use (a failed load is tried again next time). */
  model(): Promise<NeuralPredictor> {
    if (!this.predictor) {
      const { model, device, precision, rules } = this.opts;
      this.predictor = loadPredictor({
        ...(model === undefined ? {} : { model }),
        ...(device === undefined ? {} : { device }),
        ...(precision === undefined ? {} : { precision }),
        ...(rules === undefined ? {} : { rules }),
        onWarning: (m) => this.opts.log?.(m),
      });
      this.predictor.catch(() => (this.predictor = null));
    }
    return this.predictor;
  }

  /** The model's completion of a given frame start (Predict Inputs' return states), loaded once. */
  frameCompleter(): Promise<FrameCompleter> {
    const dir = this.opts.model === undefined ? defaultModelDir() : resolve(this.opts.model);
    this.completer ??= this.model().then((m) => PartialFrameDecoder.load(m, dir));
    this.completer.catch(() => (this.completer = null));
    return this.completer;
  }

  /** Runs `fn` after every tool call before it has finished with the model. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * The file a tool reads its program from: `path` (resolved against the server's working
   * folder), or `source` written to a fresh file in a private folder (returned to remove).
   */
  programFile(input: ProgramInput, name = 'program.py'): { file: string; shown: string; scratch: string | null } {
    const given = (input.path !== undefined ? 1 : 0) + (input.source !== undefined ? 1 : 0);
    if (given !== 1) throw new RuntimeError('give the program as exactly one of path (a .py file) or source (its text)');
    if (input.path !== undefined) return { file: resolve(input.path), shown: input.path, scratch: null };
    const scratch = mkdtempSync(join(this.scratchRoot, 'p-'));
    const file = join(scratch, name);
    writeFileSync(file, input.source!, 'utf8');
    return { file, shown: '<source>', scratch };
  }

  removeScratch(scratch: string | null): void {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }

  /** A runtime on its own sibling of the model session; prefetch off (an agent's calls are not key presses to guess ahead of). */
  async newRuntime(): Promise<NeuralRuntime> {
    const model = await this.model();
    return new NeuralRuntime(model.sibling());
  }

  // ---- debugging sessions --------------------------------------------------------------------

  get openSessions(): number {
    return this.sessions.size;
  }

  /** Refuses a new session past the limit, before anything is loaded. */
  checkRoom(): void {
    if (this.sessions.size >= this.maxSessions) {
      const ids = [...this.sessions.keys()].join(', ');
      throw new RuntimeError(`${this.sessions.size} debugging sessions are open, the most this server keeps (${ids}): close one with debug_stop first`);
    }
  }

  addSession(entry: Omit<DebugSessionEntry, 'id' | 'lastUsed'>): DebugSessionEntry {
    this.checkRoom();
    const id = `s${this.nextId++}`;
    const session = { ...entry, id, lastUsed: Date.now() };
    this.sessions.set(id, session);
    return session;
  }

  session(id: string): DebugSessionEntry {
    const s = this.sessions.get(id);
    if (!s) {
      const open = [...this.sessions.keys()];
      throw new RuntimeError(`no debugging session ${JSON.stringify(id)}${open.length ? ` (open: ${open.join(', ')})` : ' (none is open: debug_start opens one)'}`);
    }
    s.lastUsed = Date.now();
    return s;
  }

  async closeSession(id: string): Promise<void> {
    const s = this.session(id);
    this.sessions.delete(id);
    await s.runtime.close();
    this.removeScratch(s.scratch);
  }

  private async closeIdle(): Promise<void> {
    const now = Date.now();
    for (const s of [...this.sessions.values()]) {
      if (now - s.lastUsed < this.idleMs) continue;
      this.opts.log?.(`closed debugging session ${s.id} (${s.program}): unused for ${Math.round(this.idleMs / 60000)} min`);
      await this.exclusive(() => this.closeSession(s.id)).catch(() => undefined);
    }
  }

  /** Whether the server is shutting down: long work stops at its next step. */
  get closing(): boolean {
    return this.closed;
  }

  /** The private folder's files in a message, said as the client gave them (`<source>`). */
  shownPaths(message: string): string {
    return message.split(this.scratchRoot).join('').replace(/\/p-[A-Za-z0-9]+\/(program|solution)\.py/g, '<source>');
  }

  /** Closes every session, frees the model and removes the private folder. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.idleTimer);
    for (const id of [...this.sessions.keys()]) await this.closeSession(id).catch(() => undefined);
    const model = await this.predictor?.catch(() => null);
    await this.queue;
    await model?.release();
    rmSync(this.scratchRoot, { recursive: true, force: true });
  }
}
