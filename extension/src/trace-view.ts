/**
 * "Show Predicted Trace": the adapter's timeline (custom request `ndb/trace`) as a readonly
 * text document, one line per predicted stop: the line, its source, what changed in the
 * locals, each with the model's confidence. The document is virtual (scheme `ndb-trace`),
 * so VS Code opens it readonly.
 */
import * as vscode from 'vscode';
import type { PredictedTrace } from '../../protocol/dap.js';

export const TRACE_SCHEME = 'ndb-trace';

export class TraceDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '(the trace is gone: run Show Predicted Trace again)';
  }

  /** Shows `trace` (replacing what the same session showed before). */
  async show(sessionName: string, trace: PredictedTrace): Promise<void> {
    const file = trace.program.split('/').pop() || 'program';
    const uri = vscode.Uri.from({ scheme: TRACE_SCHEME, path: `/${file} — predicted trace.txt`, query: sessionName });
    this.texts.set(uri.toString(), renderTrace(sessionName, trace));
    this.changed.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: false, viewColumn: vscode.ViewColumn.Beside });
  }
}

function percent(p: number | undefined): string {
  return p === undefined ? '' : ` (${Math.round(p * 100)}%)`;
}

export function renderTrace(sessionName: string, trace: PredictedTrace): string {
  const out: string[] = [];
  out.push(`Predicted trace — ${sessionName}`);
  out.push(`${trace.program}`);
  out.push(`${trace.steps.length} stops${trace.end ? ', then the end' : ''}; ▶ marks the current one. Values are the model's predictions (the program never ran); (NN%) is its confidence.`);
  out.push('');
  const width = Math.max(4, ...trace.steps.map((s) => `${s.function}:${s.line}`.length));
  for (const s of trace.steps) {
    const marker = s.current ? '▶' : ' ';
    const where = `${s.function}:${s.line}`.padEnd(width);
    const indent = '  '.repeat(Math.max(0, s.depth - 1));
    out.push(`${marker} #${String(s.index).padStart(3)}  ${where}  ${s.event.padEnd(9)} ${indent}${s.source.trim()}`);
    const changed = s.changed.map((n) => `${n} = ${s.locals[n]}${s.origin === 'model' ? percent(s.confidence[n]) : ''}`);
    if (s.value !== undefined) changed.push(`${s.event === 'exception' ? 'raises' : 'returns'} ${s.value}`);
    if (changed.length > 0) out.push(`${' '.repeat(8 + width)}  ${changed.join(', ')}${s.origin !== 'model' ? `  [${s.origin === 'input' ? 'your input' : s.origin}]` : ''}`);
    if (s.action) out.push(`${' '.repeat(8 + width)}  ↓ ${s.action.replace(/_/g, ' ')}`);
  }
  if (trace.end) out.push(`${trace.end.current ? '▶' : ' '} end   ${trace.end.exit}${percent(trace.end.confidence)}`);
  return out.join('\n') + '\n';
}
