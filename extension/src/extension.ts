/**
 * The VS Code extension of ndb, the neural debugger for Python.
 *
 * - debug type `neural-python`: launch configurations (configuration.ts), the adapter run as
 *   `node <ndb>/bin/ndb.js dap` (or, with `"ndb.adapter": "inline"`, inside the extension
 *   host from <ndb>/dist/adapter/debug-session.js);
 * - commands: Step Back, Reverse Continue (DAP's own requests: VS Code's toolbar has them
 *   too, as the adapter advertises supportsStepBack), Predict Inputs (`ndb/predictInputs`),
 *   Resample This Step (`ndb/resample`), Show Predicted Trace (`ndb/trace`, trace-view.ts),
 *   Debug Function Under Cursor, Verify Tests (`ndb verify` on the file's asserts and
 *   doctests, verify-items.ts; a case picked is debugged);
 * - a status-bar item: the model, the device, the last stop's prediction time (the
 *   adapter's `ndb/stats` event);
 * - ndb's language server (`ndb lsp --stdio`), fed the debug state after each stop
 *   (debug-state.ts).
 *
 * `<ndb>` is the ndb package: `ndb/` inside the installed extension (npm run package puts
 * it there), or the repository around extension/ when run from a checkout.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as vscode from 'vscode';
import { LanguageClient, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node.js';
import { DEBUG_TYPE, NeuralConfigurationProvider } from './configuration.js';
import { type PredictedInputs, type PredictedTrace, PREDICT_INPUTS_REQUEST, RESAMPLE_REQUEST, STATS_EVENT, type StatsEventBody, TRACE_REQUEST } from '../../protocol/dap.js';
import { DEBUG_STATE_NOTIFICATION, type DebugStateParams } from '../../protocol/lsp.js';
import { type DebugState, DebugStateTrackers } from './debug-state.js';
import { TRACE_SCHEME, TraceDocuments } from './trace-view.js';
import { type VerifyItem, verifyItems, type VerifyJson, verifySummary } from './verify-items.js';

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;

function log(line: string): void {
  output?.appendLine(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
}

/** The ndb package: shipped inside the extension, or the checkout the extension folder sits in. */
export function ndbRoot(extensionPath: string): string {
  const shipped = join(extensionPath, 'ndb');
  if (existsSync(join(shipped, 'bin', 'ndb.js'))) return shipped;
  return join(extensionPath, '..');
}

/** The Node that runs ndb: the setting, else the editor's own runtime (Electron run as Node in desktop VS Code). */
function nodeRuntime(): { command: string; env: Record<string, string> } {
  const configured = vscode.workspace.getConfiguration('ndb').get<string>('nodePath', '').trim();
  if (configured) return { command: configured, env: {} };
  return { command: process.execPath, env: { ELECTRON_RUN_AS_NODE: '1' } };
}

class AdapterFactory implements vscode.DebugAdapterDescriptorFactory {
  constructor(private readonly root: string) {}

  async createDebugAdapterDescriptor(): Promise<vscode.DebugAdapterDescriptor> {
    const bin = join(this.root, 'bin', 'ndb.js');
    if (!existsSync(bin)) throw new Error(`ndb is not built: ${bin} is missing (run npm run build in ${this.root})`);
    if (vscode.workspace.getConfiguration('ndb').get('adapter') === 'inline') {
      // The adapter in this process: ESM, so a real import() (this file is CommonJS).
      const { NeuralDebugSession } = (await import(pathToFileURL(join(this.root, 'dist', 'adapter', 'debug-session.js')).href)) as {
        NeuralDebugSession: new () => vscode.DebugAdapter;
      };
      log('debug adapter: inline (in the extension host)');
      return new vscode.DebugAdapterInlineImplementation(new NeuralDebugSession());
    }
    const node = nodeRuntime();
    log(`debug adapter: ${node.command} ${bin} dap`);
    return new vscode.DebugAdapterExecutable(node.command, [bin, 'dap'], { env: node.env, cwd: this.root });
  }
}

/** The status-bar item: model · device · last stop's prediction time. */
class StatusItem {
  private readonly item = vscode.window.createStatusBarItem('ndb.status', vscode.StatusBarAlignment.Left, 50);
  private readonly sessions = new Set<string>();
  private lastMs: number | null = null;

  constructor() {
    this.item.name = 'Neural Debugger';
    this.item.command = 'ndb.showTrace';
  }

  started(session: vscode.DebugSession): void {
    if (session.type !== DEBUG_TYPE) return;
    this.sessions.add(session.id);
    this.lastMs = null;
    const model = session.configuration.model ? String(session.configuration.model).split('/').pop() : 'default';
    this.set(model ?? 'default', String(session.configuration.device ?? 'cpu'), null, 'loading the model…');
    this.item.show();
  }

  /** After each stop: its prediction time; a stop shown again (replayed) keeps the last one's. */
  stats(body: StatsEventBody): void {
    if (body.milliseconds !== null) this.lastMs = body.milliseconds;
    const note = body.replayed ? 'this stop was replayed from the timeline' : body.prefetched ? 'this stop was predicted in the background' : body.milliseconds === null ? 'this stop came from your input' : undefined;
    this.set(body.model, body.device, this.lastMs, note);
  }

  ended(session: vscode.DebugSession): void {
    this.sessions.delete(session.id);
    if (this.sessions.size === 0) this.item.hide();
  }

  private set(model: string, device: string, ms: number | null, note?: string): void {
    const time = ms === null ? '' : ` · ${ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`}`;
    this.item.text = `$(pulse) ndb: ${model} · ${device}${time}`;
    this.item.tooltip = `Neural debugger — model ${model} on ${device}${ms === null ? '' : `; the last prediction took ${Math.round(ms)} ms`}${note ? ` (${note})` : ''}. Click: Show Predicted Trace.`;
  }

  dispose(): void {
    this.item.dispose();
  }
}

/** The active neural-python session, or a message saying there is none. */
function neuralSession(): vscode.DebugSession | undefined {
  const session = vscode.debug.activeDebugSession;
  if (session?.type === DEBUG_TYPE) return session;
  void vscode.window.showWarningMessage('No neural debugging session is active: start one with F5 on a Python file.');
  return undefined;
}

/** Runs a custom request, an error shown to the user. */
async function request<T>(session: vscode.DebugSession, command: string, args?: unknown): Promise<T | undefined> {
  try {
    return (await session.customRequest(command, args)) as T;
  } catch (err) {
    void vscode.window.showErrorMessage(`Neural Debug: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

async function predictInputs(): Promise<void> {
  const session = neuralSession();
  if (!session) return;
  const entry = session.configuration.entry as string | undefined;
  if (!entry) {
    void vscode.window.showWarningMessage('Predict Inputs needs a session that debugs a function (launch with entry).');
    return;
  }
  const value = await vscode.window.showInputBox({
    title: `Predict Inputs: ${entry}`,
    prompt: `Which return value of ${entry}? A Python expression, e.g. 2 or 'abc'. The model infers the arguments of a call that returns it.`,
    placeHolder: 'the return value',
    ignoreFocusOut: true,
  });
  if (!value) return;
  const found = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Predicting the arguments of ${entry} for ${value}…` }, () =>
    request<PredictedInputs>(session, PREDICT_INPUTS_REQUEST, { value }),
  );
  if (!found) return;
  const detail = Object.entries(found.locals)
    .map(([n, v]) => {
      // No confidence: the value itself fed back, which no run of the model confirmed.
      const c = found.confidence[n];
      return c === undefined ? `${n} = ${v}` : `${n} = ${v} (${Math.round(c * 100)}%)`;
    })
    .join(', ');
  const check = describeCheck(found);
  const from =
    found.from === 'inverse'
      ? `from the return on line ${found.returnLine}`
      : found.check?.returns
        ? 'the value itself as the argument'
        : 'the value itself as the argument: no answer of the model was confirmed';
  output.appendLine(`predicted inputs: ${found.function}(${found.args}) → ${found.value}   [${detail}; ${from}; ${check}]`);
  const debug = 'Debug this call';
  const answer = await vscode.window.showInformationMessage(`Predicted: ${found.function}(${found.args}) → ${found.value}  (${detail}; ${check})`, debug);
  if (answer === debug) {
    const { name: _n, inferArgs: _i, __sessionId: _s, ...rest } = session.configuration;
    await vscode.debug.startDebugging(session.workspaceFolder, { ...rest, name: `Neural debug: ${found.function}(${found.args})`, entry: found.function, args: found.args });
  }
}

/** The forward check in words: does the model's own run of the predicted call give the value back. */
function describeCheck(found: PredictedInputs): string {
  const c = found.check;
  if (!c) return 'not checked forward';
  const sure = `${Math.round(c.confidence * 100)}%`;
  return c.returns ? `checked: the model runs it to ${found.value} (${sure})` : `unconfirmed: the model runs it to ${c.outcome} (${sure})`;
}

/**
 * Verify Tests: the predicted result of each assert and doctest example of the file
 * (`ndb verify FILE --tests FILE --doctests --json`; nothing runs), failing cases first;
 * picking a case with a call debugs that call.
 */
async function verifyTests(root: string): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'python') return void vscode.window.showInformationMessage('Open a Python file with asserts or doctest examples to verify them.');
  const document = editor.document;
  if (document.isUntitled) return void vscode.window.showInformationMessage('Save the file first: ndb verify reads it from disk.');
  if (document.isDirty) await document.save();
  const file = document.uri.fsPath;
  const node = nodeRuntime();
  const args = [join(root, 'bin', 'ndb.js'), 'verify', file, '--tests', file, '--doctests', '--json'];
  log(`verify tests: ${node.command} ${args.join(' ')}`);
  const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Predicting the tests of ${document.fileName.split(/[\\/]/).pop()}…` }, () =>
    new Promise<{ stdout: string; stderr: string; failed: boolean }>((resolve) =>
      execFile(node.command, args, { env: { ...process.env, ...node.env }, cwd: root, timeout: 600_000, maxBuffer: 32 * 1024 * 1024 }, (err, stdout, stderr) => resolve({ stdout, stderr, failed: err !== null })),
    ),
  );
  if (result.failed) {
    const message = result.stderr.trim().split('\n').find((l) => l.startsWith('ndb: error:')) ?? result.stderr.trim().split('\n').pop() ?? 'ndb verify failed';
    return void vscode.window.showErrorMessage(`Neural Debug: ${message}`);
  }
  const report = JSON.parse(result.stdout) as VerifyJson;
  if (report.total === 0) return void vscode.window.showInformationMessage('No asserts or doctest examples in this file.');
  const items = verifyItems(report);
  for (const item of items) output.appendLine(`verify: ${item.label.replace(/^\$\([\w-]+\) /, '')}  ${item.description}${item.detail ? `  (${item.detail})` : ''}`);
  output.appendLine(`verify: ${verifySummary(report)}`);
  const picked = await vscode.window.showQuickPick<VerifyItem & vscode.QuickPickItem>(items, {
    title: `Verify Tests: ${verifySummary(report)} (predicted by the model; nothing ran)`,
    placeHolder: 'Pick a case to debug its call',
    matchOnDescription: true,
  });
  if (!picked) return;
  if (!picked.debug) {
    editor.revealRange(new vscode.Range(picked.line - 1, 0, picked.line - 1, 0));
    return void vscode.window.showInformationMessage(`That case cannot be debugged: ${picked.detail ?? 'it is not a call with literal arguments'}.`);
  }
  await vscode.debug.startDebugging(vscode.workspace.getWorkspaceFolder(document.uri), {
    type: DEBUG_TYPE,
    request: 'launch',
    name: `Neural debug: ${picked.debug.entry}(${picked.debug.args})`,
    program: file,
    entry: picked.debug.entry,
    args: picked.debug.args,
  });
}

/**
 * The language server, when this ndb has one and the setting allows it. `ndb lsp --help`
 * exits 0 where the command exists (an older ndb answers an unknown command with exit 2),
 * whatever its help text looks like.
 */
async function startLanguageClient(context: vscode.ExtensionContext, root: string): Promise<void> {
  if (!vscode.workspace.getConfiguration('ndb').get<boolean>('languageServer', true)) return;
  const bin = join(root, 'bin', 'ndb.js');
  const node = nodeRuntime();
  const hasLsp = await new Promise<boolean>((resolve) =>
    execFile(node.command, [bin, 'lsp', '--help'], { env: { ...process.env, ...node.env }, timeout: 20_000 }, (err) => resolve(err === null)),
  );
  if (!hasLsp) {
    log('language server: this ndb has no `ndb lsp` command; the predicted values show in the debug views only');
    return;
  }
  const serverOptions: ServerOptions = { command: node.command, args: [bin, 'lsp', '--stdio'], options: { env: { ...process.env, ...node.env }, cwd: root } };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file', language: 'python' }],
    outputChannel: output,
    // Inline values at a stop need that stop's state on the server first (debug-state.ts).
    middleware: { provideInlineValues: async (document, range, context, token, next) => (await stateTrackers.settled(), next(document, range, context, token)) },
  };
  client = new LanguageClient('ndb', 'ndb language server', serverOptions, clientOptions);
  try {
    await client.start();
    log('language server: started (ndb lsp --stdio)');
  } catch (err) {
    log(`language server: did not start: ${err instanceof Error ? err.message : String(err)}`);
    client = undefined;
  }
  context.subscriptions.push({ dispose: () => void client?.stop() });
}

const stateTrackers = new DebugStateTrackers(sendState, log);

function sendState(state: DebugState | null): void {
  if (!client?.isRunning()) return;
  log(state ? `${DEBUG_STATE_NOTIFICATION}: ${state.stop.function}:${state.stop.line}, ${Object.keys(state.stop.locals).length} locals, ${state.history.length} earlier stops` : `${DEBUG_STATE_NOTIFICATION}: null (the session ended)`);
  const params: DebugStateParams = state;
  void client.sendNotification(DEBUG_STATE_NOTIFICATION, params).catch((err: unknown) => log(`${DEBUG_STATE_NOTIFICATION}: ${String(err)}`));
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('Neural Debugger');
  const root = ndbRoot(context.extensionPath);
  log(`ndb at ${root}`);
  const configs = new NeuralConfigurationProvider(context.workspaceState);
  const traces = new TraceDocuments();
  const status = new StatusItem();

  context.subscriptions.push(
    output,
    status,
    vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, configs),
    vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, configs, vscode.DebugConfigurationProviderTriggerKind.Dynamic),
    vscode.debug.registerDebugAdapterDescriptorFactory(DEBUG_TYPE, new AdapterFactory(root)),
    vscode.debug.registerDebugAdapterTrackerFactory(DEBUG_TYPE, stateTrackers),
    vscode.workspace.registerTextDocumentContentProvider(TRACE_SCHEME, traces),
    vscode.debug.onDidStartDebugSession((s) => status.started(s)),
    vscode.debug.onDidTerminateDebugSession((s) => status.ended(s)),
    vscode.debug.onDidReceiveDebugSessionCustomEvent((e) => {
      if (e.session.type === DEBUG_TYPE && e.event === STATS_EVENT) status.stats(e.body as StatsEventBody);
    }),
    vscode.commands.registerCommand('ndb.debugFunction', async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor || editor.document.languageId !== 'python') return void vscode.window.showInformationMessage('Open a Python file to debug one of its functions.');
      const config = await configs.configForEditor(editor);
      if (config) await vscode.debug.startDebugging(vscode.workspace.getWorkspaceFolder(editor.document.uri), config);
    }),
    vscode.commands.registerCommand('ndb.stepBack', async () => {
      const session = neuralSession();
      if (session) await request(session, 'stepBack', { threadId: 1 });
    }),
    vscode.commands.registerCommand('ndb.reverseContinue', async () => {
      const session = neuralSession();
      if (session) await request(session, 'reverseContinue', { threadId: 1 });
    }),
    vscode.commands.registerCommand('ndb.resample', async () => {
      const session = neuralSession();
      if (session) await request(session, RESAMPLE_REQUEST, { threadId: 1 });
    }),
    vscode.commands.registerCommand('ndb.predictInputs', predictInputs),
    vscode.commands.registerCommand('ndb.verifyTests', () => verifyTests(root)),
    vscode.commands.registerCommand('ndb.showTrace', async () => {
      const session = neuralSession();
      const trace = session && (await request<PredictedTrace>(session, TRACE_REQUEST));
      if (session && trace) await traces.show(session.name, trace);
    }),
  );
  // The language server starts in the background: debugging does not wait for it.
  void startLanguageClient(context, root).catch((err: unknown) => log(`language server: ${String(err)}`));
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
