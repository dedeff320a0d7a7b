/**
 * ndb's language server (`ndb lsp --stdio`): predictions of example calls in the editor.
 *
 * For each example call of an open Python file (example-calls.ts), the model predicts the
 * run in a worker thread (prediction-worker.ts); the server turns the runs into hovers
 * (hover.ts), inlay hints (inlay-hints.ts; an assert's or doctest's predicted verdict:
 * verdict-hints.ts) and warnings about predicted exceptions
 * (diagnostics.ts). During a neural debug session the editor sends `ndb/debugState`
 * (protocol.ts) and hovers show the session's stop instead (session-state.ts).
 *
 * Nothing here may take the process down: a missing model is one error message, a failed
 * prediction is a diagnostic, and a bug in a background task is logged.
 */
import {
  type CancellationToken,
  type Connection,
  createConnection,
  type Hover,
  type HoverParams,
  type InitializeResult,
  type InlayHint,
  type InlayHintParams,
  type InlineValueParams,
  type InlineValueText,
  type Range,
  MarkupKind,
  MessageType,
  ProposedFeatures,
  ShowMessageNotification,
  StreamMessageReader,
  StreamMessageWriter,
  TextDocuments,
  TextDocumentSyncKind,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { functionAt } from '../program-analysis/program-info.js';
import { exceptionDiagnostic, skippedDiagnostic } from './diagnostics.js';
import { type DocumentPredictions, Predictions, type Slot } from './document-predictions.js';
import { exampleHover, wordAt } from './hover.js';
import { inlayHints } from './inlay-hints.js';
import { debugInlineValues } from './inline-values.js';
import { verdictHints } from './verdict-hints.js';
import { PredictionClient } from './prediction-client.js';
import { DEBUG_STATE_NOTIFICATION, type DebugStateParams, PREDICTION_STATUS_NOTIFICATION, type PredictionStatusParams } from '../protocol/lsp.js';
import { DebugSessions, sessionHover } from './session-state.js';

export interface ServerOptions {
  /** A model folder; default: the embedded model. */
  model?: string;
  /** cpu (default) or cuda. */
  device?: string;
  /** Most steps predicted per example run (default 150). */
  maxSteps?: number;
  /** Pause in typing before a changed document is analyzed, ms (default 300). */
  debounceMs?: number;
}

/** How long a hover waits for a run still being predicted before it answers with what is known. */
const HOVER_WAIT_MS = 60_000;
/**
 * The longest any request goes unanswered: past it the answer is the empty one (no hover, no
 * hints) and the server goes on. Requests are served concurrently and the synchronous work of
 * each is linear in the document (example-calls.ts, wordAt), so one slow request holds up only
 * itself, never the rest; the budget bounds the waits (analysis, predictions) it may be in.
 */
export const REQUEST_BUDGET_MS = HOVER_WAIT_MS + 5_000;

/** Starts the server on stdin/stdout; it runs until the client exits or closes stdin. */
export function startLanguageServer(options: ServerOptions): Connection {
  // Our own reader, not the bare stream: given process.stdin, the library exits the process
  // the moment stdin closes, which would cut the worker off mid-pass (see prediction-worker.ts).
  const reader = new StreamMessageReader(process.stdin);
  const connection = createConnection(ProposedFeatures.all, reader, new StreamMessageWriter(process.stdout));
  routeConsole(connection);
  const documents = new TextDocuments(TextDocument);
  const sessions = new DebugSessions();
  let predictions: Predictions | null = null;
  let client: PredictionClient | null = null;
  let refreshHints = false;
  let refreshInlineValues = false;

  // A bug in a background task is logged, never a crash of the editor's server.
  process.on('unhandledRejection', (err) => connection.console.error(`ndb: internal error: ${(err as Error)?.stack ?? String(err)}`));
  process.on('uncaughtException', (err) => connection.console.error(`ndb: internal error: ${err.stack ?? err.message}`));

  connection.onInitialize((params): InitializeResult => {
    refreshHints = params.capabilities.workspace?.inlayHint?.refreshSupport === true;
    refreshInlineValues = params.capabilities.workspace?.inlineValue?.refreshSupport === true;
    return {
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        hoverProvider: true,
        inlayHintProvider: true,
        inlineValueProvider: true,
      },
      serverInfo: { name: 'ndb' },
    };
  });

  connection.onInitialized(() => {
    try {
      client = new PredictionClient(
        { ...(options.model ? { model: options.model } : {}), ...(options.device ? { device: options.device } : {}), maxSteps: options.maxSteps ?? 150 },
        {
          onFatal: (message) => showMessage(MessageType.Error, `ndb cannot predict example runs: ${message}`),
          onWarning: (message) => showMessage(MessageType.Warning, message),
          onLog: (text) => connection.console.log(text.trimEnd()),
          onStarted: (handle) => predictions?.jobStarted(handle),
        },
      );
    } catch (err) {
      showMessage(MessageType.Error, `ndb cannot start its prediction worker: ${(err as Error).message}`);
      return;
    }
    predictions = new Predictions(
      client,
      {
        analyzed: (doc) => {
          // With runs pending, the first publish waits for one: a version replaced before
          // any run settled never publishes (its results are dropped, not shown then cleared).
          if (!doc.pending || doc.skipped.length > 0) publish(doc);
        },
        settled: (doc) => {
          publish(doc);
          if (refreshHints) void connection.languages.inlayHint.refresh().catch(() => undefined);
        },
        status: (doc, call, status, message) => {
          const params: PredictionStatusParams = { uri: doc.uri, version: doc.version, call: call.text, line: call.line + 1, status, ...(message ? { message } : {}) };
          void connection.sendNotification(PREDICTION_STATUS_NOTIFICATION, params);
        },
        log: (message) => connection.console.warn(message),
      },
      options.debounceMs,
    );
    // Documents opened before the worker existed.
    for (const doc of documents.all()) predictions.update(doc.uri, doc.version, doc.getText(), false);
  });

  documents.onDidChangeContent(({ document }) => {
    // The first sight of a document is its opening: analyzed at once; edits wait for a pause.
    predictions?.update(document.uri, document.version, document.getText(), predictions.get(document.uri) !== undefined);
  });
  documents.onDidClose(({ document }) => {
    predictions?.close(document.uri);
    void connection.sendDiagnostics({ uri: document.uri, diagnostics: [] });
  });

  /** A plain window/showMessage notification (the library's helper asks with showMessageRequest, which wants an answer). */
  function showMessage(type: MessageType, message: string): void {
    void connection.sendNotification(ShowMessageNotification.type, { type, message });
  }

  function publish(doc: DocumentPredictions): void {
    if (doc.stale) return;
    const diagnostics = doc.skipped.map((s) => skippedDiagnostic({ start: { line: s.line, character: s.start }, end: { line: s.line, character: s.end } }, s.text, s.reason));
    for (const slot of doc.slots) {
      const range = { start: { line: slot.call.line, character: slot.call.start }, end: { line: slot.call.line, character: slot.call.end } };
      const outcome = slot.outcome;
      if (outcome?.kind === 'skipped') diagnostics.push(skippedDiagnostic(range, slot.call.text, outcome.reason));
      if (outcome?.kind === 'failed') diagnostics.push(skippedDiagnostic(range, slot.call.text, `the prediction failed: ${outcome.reason}`));
      if (outcome?.kind === 'done') {
        const warning = exceptionDiagnostic(slot.run, doc.lines, doc.uri, slot.call.line);
        if (warning) diagnostics.push(warning);
      }
    }
    void connection.sendDiagnostics({ uri: doc.uri, version: doc.version, diagnostics });
  }

  /** The document's current predictions once its calls are known, or null (cancelled, closed). */
  async function readyPredictions(uri: string, token: CancellationToken): Promise<DocumentPredictions | null> {
    // A version replaced while we wait resolves `ready` too: then wait for its successor.
    for (let doc = predictions?.get(uri); doc; doc = predictions?.get(uri)) {
      if (!(await settledOrCancelled(doc.ready, token, HOVER_WAIT_MS))) return null;
      if (!doc.stale) return doc;
    }
    return null;
  }

  /** A request handler run within REQUEST_BUDGET_MS; a bug in it is logged and answered with `empty`. */
  function budgeted<P, R>(what: string, empty: R, handler: (params: P, token: CancellationToken) => Promise<R> | R) {
    return (params: P, token: CancellationToken): Promise<R> =>
      withinBudget(REQUEST_BUDGET_MS, empty, () => handler(params, token), (problem) => connection.console.error(`ndb: ${what}: ${problem}`));
  }

  connection.onHover(budgeted('hover', null, async (params: HoverParams, token): Promise<Hover | null> => {
    const text = documents.get(params?.textDocument?.uri);
    const at = text ? clampPosition(text, params.position) : null;
    if (!text || !at) return null;
    const target = wordAt(lineText(text, at.line), at.character);
    if (!target) return null;
    const doc = await readyPredictions(params.textDocument.uri, token);
    if (!doc || doc.info?.kind !== 'ok') return null;
    const fn = functionAt(doc.info, at.line + 1);
    const range = { start: { line: at.line, character: target.start }, end: { line: at.line, character: target.end } };
    const markdown = (value: string): Hover => ({ contents: { kind: MarkupKind.Markdown, value }, range });

    // During a debug session its stop speaks first; it needs no prediction of ours.
    const session = sessions.get(doc.uri);
    const fromSession = session ? sessionHover(session, target.word, fn?.name ?? '<module>') : null;
    if (fromSession) return markdown(fromSession);
    if (!fn) return null;
    // Runs still being predicted: wait for them, unless the client gives up first ($/cancelRequest);
    // then what is known so far is the answer.
    await settledOrCancelled(doc.allSettled(), token, HOVER_WAIT_MS);
    const value = exampleHover(target.word, fn, usableRuns(doc.slots));
    return value ? markdown(value) : null;
  }));

  connection.languages.inlayHint.on(budgeted('inlay hints', [] as InlayHint[], async (params: InlayHintParams, token) => {
    if (!isRange(params?.range)) return [];
    const doc = await readyPredictions(params.textDocument?.uri, token);
    if (!doc) return [];
    // Only finished runs: the hints of a run in progress would flicker; a refresh follows each run.
    const runs = doc.slots.filter((s) => s.outcome?.kind === 'done').map((s) => s.run);
    const hints = inlayHints(runs, doc.lines, params.range, doc.info?.kind === 'ok' ? new Set(doc.info.executableLines) : undefined);
    // The predicted verdict of each assert line and doctest example (verdict-hints.ts).
    return [...hints, ...(await verdictHints(doc, params.range))].sort((x, y) => x.position.line - y.position.line);
  }));

  // While a neural debug session is stopped in the document: the predicted values at the lines that set them.
  connection.languages.inlineValue.on(budgeted('inline values', [] as InlineValueText[], (params: InlineValueParams) => {
    if (!isRange(params?.range) || typeof params.textDocument?.uri !== 'string') return [];
    const session = sessions.get(params.textDocument.uri);
    const doc = documents.get(params.textDocument.uri);
    if (!session || !doc) {
      connection.console.log(`inline values: none (${doc ? 'no debug session stopped in this document' : 'not an open document'})`);
      return [];
    }
    const lines = doc.getText().split(/\r?\n|\r/);
    const values = debugInlineValues(session.stop, session.history, (line) => lines[line - 1], params.range.start.line + 1, params.range.end.line + 1);
    connection.console.log(`inline values: ${values.length} lines at the stop ${session.stop.function}:${session.stop.line}`);
    return values.map(({ line, text }): InlineValueText => {
      const end = lines[line - 1]!.length;
      return { range: { start: { line: line - 1, character: end }, end: { line: line - 1, character: end } }, text };
    });
  }));

  connection.onNotification(DEBUG_STATE_NOTIFICATION, (params: DebugStateParams | undefined) => {
    sessions.update(params);
    // The editor asks for inline values at the stop, often before the state reaches this server.
    if (refreshInlineValues) void connection.languages.inlineValue.refresh().catch(() => undefined);
  });

  connection.onShutdown(async () => {
    await client?.stop();
  });
  // The editor went away without shutdown (it crashed, or closed the pipe).
  reader.onClose(() => {
    void (client?.stop() ?? Promise.resolve()).finally(() => process.exit(1));
  });

  documents.listen(connection);
  connection.listen();
  return connection;
}

/** stdout is the protocol channel: whatever code logs goes to the client's log instead. */
function routeConsole(connection: Connection): void {
  console.log = console.info = console.debug = (...args: unknown[]) => connection.console.log(args.map(String).join(' '));
  console.warn = (...args: unknown[]) => connection.console.warn(args.map(String).join(' '));
  console.error = (...args: unknown[]) => connection.console.error(args.map(String).join(' '));
}

/**
 * A client's position within `doc`: null when it is not a position (numbers missing) or its
 * line is not in the document; a character past the line's end is its end. Nothing downstream
 * then walks further than the document (a hover at `character: 2**70` walked down one by one).
 */
export function clampPosition(doc: TextDocument, position: unknown): { line: number; character: number } | null {
  const p = position as { line?: unknown; character?: unknown } | null | undefined;
  if (typeof p?.line !== 'number' || typeof p.character !== 'number' || !Number.isFinite(p.line) || Number.isNaN(p.character)) return null;
  const line = Math.floor(p.line);
  if (line < 0 || line >= doc.lineCount) return null;
  const character = Number.isFinite(p.character) ? Math.max(0, Math.floor(p.character)) : p.character > 0 ? Number.MAX_SAFE_INTEGER : 0;
  return { line, character: Math.min(character, Number.MAX_SAFE_INTEGER) };
}

function isRange(range: unknown): range is Range {
  const r = range as { start?: { line?: unknown; character?: unknown }; end?: { line?: unknown; character?: unknown } } | null | undefined;
  return [r?.start?.line, r?.start?.character, r?.end?.line, r?.end?.character].every((n) => typeof n === 'number' && !Number.isNaN(n));
}

/**
 * `work`'s answer, or `empty` once `budgetMs` passed or when it threw (`report` says which);
 * a late answer is dropped.
 */
export function withinBudget<R>(budgetMs: number, empty: R, work: () => Promise<R> | R, report: (problem: string) => void): Promise<R> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (value: R, problem?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (problem) report(problem);
      resolve(value);
    };
    const timer = setTimeout(() => finish(empty, `no answer within ${budgetMs / 1000} s: answered with nothing`), budgetMs);
    try {
      Promise.resolve(work()).then(
        (value) => finish(value),
        (err: unknown) => finish(empty, `internal error: ${(err as Error)?.stack ?? String(err)}`),
      );
    } catch (err) {
      finish(empty, `internal error: ${(err as Error)?.stack ?? String(err)}`);
    }
  });
}

function lineText(doc: TextDocument, line: number): string {
  return doc.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } }).replace(/\r?\n$/, '');
}

/** The runs with something to show: finished ones, and the part already predicted of the others. */
function usableRuns(slots: readonly Slot[]): Slot['run'][] {
  return slots.filter((s) => s.outcome === null || s.outcome.kind === 'done').map((s) => s.run);
}

/** Waits for `promise`; false when the request was cancelled or the wait ran out first. */
function settledOrCancelled(promise: Promise<unknown>, token: CancellationToken, timeoutMs: number): Promise<boolean> {
  if (token.isCancellationRequested) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => done(false), timeoutMs);
    const listener = token.onCancellationRequested(() => done(false));
    function done(ok: boolean): void {
      clearTimeout(timer);
      listener.dispose();
      resolve(ok);
    }
    promise.then(
      () => done(true),
      () => done(true),
    );
  });
}
