/**
 * The debug state, forwarded to ndb's language server (`ndb lsp --stdio`, lsp/ in the ndb
 * package) so that it can show the predicted values in the editor: after each `stopped`
 * event of a neural-python session, the top frame's line, function and locals (stackTrace,
 * scopes, variables; each value's confidence is in the variable's `type`, as `int · 93%`),
 * and the stops before it in that function (the adapter's `ndb/trace`), as the
 * `ndb/debugState` notification (protocol/lsp.ts); null when the session ends.
 */
import * as vscode from 'vscode';
import { type PredictedTrace, TRACE_REQUEST } from '../../protocol/dap.js';
import type { DebugState as DebugStateParams, DebugStop } from '../../protocol/lsp.js';

/** The state this extension sends: always with a stop (the end of a session is null). */
export type DebugState = DebugStateParams & { stop: DebugStop };

export type SendState = (state: DebugState | null) => void;

/** The confidence in a variable's `type` (`list · 93%`); 1 where none is given (your input, the tracer). */
export function confidenceOf(type: string | undefined): number {
  const m = /(\d+(?:\.\d+)?)%/.exec(type ?? '');
  return m ? Number(m[1]) / 100 : 1;
}

/** Queries the top frame of `session` as a DebugState (null when there is no frame: the run ended before its first stop). */
export async function queryDebugState(session: vscode.DebugSession, threadId = 1): Promise<DebugState | null> {
  const trace = (await session.customRequest('stackTrace', { threadId, startFrame: 0, levels: 1 })) as { stackFrames: { id: number; name: string; line: number; source?: { path?: string } }[] };
  const top = trace.stackFrames[0];
  if (!top?.source?.path) return null;
  const { scopes } = (await session.customRequest('scopes', { frameId: top.id })) as { scopes: { name: string; variablesReference: number; presentationHint?: string }[] };
  const scope = scopes.find((s) => s.presentationHint === 'locals') ?? scopes[0];
  const locals: DebugState['stop']['locals'] = {};
  if (scope && scope.variablesReference > 0) {
    const { variables } = (await session.customRequest('variables', { variablesReference: scope.variablesReference })) as { variables: { name: string; value: string; type?: string }[] };
    for (const v of variables) locals[v.name] = { value: v.value, confidence: confidenceOf(v.type) };
  }
  let history: DebugState['history'] = [];
  try {
    const timeline = (await session.customRequest(TRACE_REQUEST)) as PredictedTrace;
    const current = timeline.steps.findIndex((s) => s.current);
    const upTo = current < 0 ? timeline.steps.length : current;
    history = timeline.steps
      .slice(0, upTo)
      .filter((s) => s.function === top.name)
      .map((s) => ({ line: s.line, locals: s.locals }));
  } catch {
    // An adapter without ndb/trace: the stop alone.
  }
  return { uri: documentUri(top.source.path).toString(), stop: { line: top.line, function: top.name, locals }, history };
}

/**
 * The file URI the language server knows the document by. A stack frame's path is a plain
 * path, except in a remote window (code-server, Remote SSH), where the editor hands
 * extensions `vscode-remote://host/path`; `Uri.file` of that named no open document, so the
 * server never matched the session to its document.
 */
export function documentUri(path: string): vscode.Uri {
  const uri = /^[a-z][\w+.-]+:\/\//i.test(path) ? vscode.Uri.parse(path) : vscode.Uri.file(path);
  if (uri.scheme === 'file') return uri;
  const open = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.path === uri.path);
  return open?.uri ?? vscode.Uri.file(uri.path);
}

/** A tracker per neural-python session: the state after every stop, null at the end. */
export class DebugStateTrackers implements vscode.DebugAdapterTrackerFactory {
  /** The state queries in flight, across sessions (settled() waits for them). */
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly send: SendState,
    private readonly log: (line: string) => void,
  ) {}

  /**
   * Resolves once every stop's state queried so far has been sent. The editor asks for
   * inline values as soon as it shows a stop, before its state reaches the language server;
   * the language client's middleware waits here first (VS Code does not ask again on the
   * server's refresh).
   */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  createDebugAdapterTracker(session: vscode.DebugSession): vscode.DebugAdapterTracker {
    let query = 0;
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      query++;
      this.send(null);
    };
    return {
      onDidSendMessage: (message: { type?: string; event?: string; body?: { threadId?: number } }) => {
        if (message.type !== 'event') return;
        if (message.event === 'stopped') {
          const mine = ++query;
          const sent = queryDebugState(session, message.body?.threadId ?? 1)
            .then((state) => {
              // A later stop (or the end) has come since: its state wins.
              if (mine === query && !ended) this.send(state);
            })
            .catch((err: unknown) => this.log(`debug state: ${err instanceof Error ? err.message : String(err)}`))
            .finally(() => this.pending.delete(sent));
          this.pending.add(sent);
        } else if (message.event === 'terminated') end();
      },
      onWillStopSession: end,
      onExit: end,
    };
  }
}
