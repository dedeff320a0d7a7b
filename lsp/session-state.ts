/**
 * What the editor's neural debug session last told the language server (`ndb/debugState`),
 * per document, and the hover it gives: during a session, the value at the current stop
 * matters more than the example run's.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { DebugStateParams, DebugStop, DebugHistoryEntry } from '../protocol/lsp.js';
import { shorten } from './predicted-run.js';

interface SessionState {
  stop: DebugStop;
  history: DebugHistoryEntry[];
}

/** The same file under two spellings of its URI (`%3A` or `:` in a drive letter, …) is one key. */
export function uriKey(uri: string): string {
  if (!uri.startsWith('file:')) return uri;
  try {
    return pathToFileURL(fileURLToPath(uri)).href;
  } catch {
    return uri;
  }
}

export class DebugSessions {
  private readonly byUri = new Map<string, SessionState>();

  /** Applies an `ndb/debugState` notification; anything malformed is ignored (it comes from outside). */
  update(params: DebugStateParams | undefined): void {
    if (!params) {
      this.byUri.clear();
      return;
    }
    if (typeof params.uri !== 'string') return;
    const key = uriKey(params.uri);
    if (!params.stop || typeof params.stop.line !== 'number' || typeof params.stop.locals !== 'object') {
      this.byUri.delete(key);
      return;
    }
    const locals = ownEntries(params.stop.locals).filter(([, v]) => typeof v === 'object' && v !== null && typeof (v as { value?: unknown }).value === 'string');
    const stop = { ...params.stop, function: typeof params.stop.function === 'string' ? params.stop.function : '<module>', locals: Object.fromEntries(locals) as DebugStop['locals'] };
    // Only well-formed history entries: a line, and locals that map names to strings.
    const history = (Array.isArray(params.history) ? params.history : [])
      .filter((h) => typeof h === 'object' && h !== null && typeof h.line === 'number' && typeof h.locals === 'object' && h.locals !== null && (h.function === undefined || typeof h.function === 'string'))
      .map((h) => ({ ...h, locals: Object.fromEntries(ownEntries(h.locals).filter(([, v]) => typeof v === 'string')) as Record<string, string> }));
    this.byUri.set(key, { stop, history });
  }

  get(uri: string): SessionState | undefined {
    return this.byUri.get(uriKey(uri));
  }
}

/** An object's own entries (never `constructor`, `__proto__` or `toString` of its prototype); none for a non-object. */
function ownEntries(value: unknown): [string, unknown][] {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.entries(value) : [];
}

const MAX_CHANGES = 15;

/**
 * Markdown for `name` at the session's current stop and how it changed over the stops so
 * far, or null when the session knows nothing of it in `functionName` (the function under
 * the cursor; `<module>` outside any).
 */
export function sessionHover(state: SessionState, name: string, functionName: string): string | null {
  const { stop, history } = state;
  // The session's frame names a function by its code name; a client may send `Class.method`.
  if (stop.function !== functionName && stop.function.split('.').pop() !== functionName) return null;
  // Own properties only: a word such as `constructor` under the cursor is no local of the stop.
  const current = Object.hasOwn(stop.locals, name) ? stop.locals[name] : undefined;
  const past = history.filter((h) => (h.function === undefined || h.function === functionName) && Object.hasOwn(h.locals, name));
  if (!current && past.length === 0) return null;
  const parts: string[] = [];
  if (current) {
    const value = typeof current.value === 'string' ? current.value : String(current.value);
    const confidence = typeof current.confidence === 'number' ? ` (confidence ${Math.round(current.confidence * 100)}%)` : '';
    parts.push(`**${name}** = \`${shorten(value, 120)}\`${confidence} at line ${stop.line}, the current stop of the neural debug session`);
  } else {
    parts.push(`**${name}** is not a local at the current stop (line ${stop.line}) of the neural debug session`);
  }
  // The steps where the value changed (or first appeared), the current stop's value last.
  const changes: string[] = [];
  let previous: string | undefined;
  for (const h of past) {
    const value = h.locals[name]!;
    if (value !== previous) changes.push(`line ${h.line}: ${name} = ${shorten(value, 60)}`);
    previous = value;
  }
  if (current && current.value !== previous) changes.push(`line ${stop.line}: ${name} = ${shorten(current.value, 60)}  (now)`);
  if (changes.length > 0) {
    const shown = changes.slice(-MAX_CHANGES);
    const omitted = changes.length - shown.length;
    parts.push(['How it changed over the steps so far (its value at each stop where it changed):', '```', ...(omitted > 0 ? [`… ${omitted} earlier changes`] : []), ...shown, '```'].join('\n'));
  }
  parts.push('_predicted by ndb (the program was not run)_');
  return parts.join('\n\n');
}
