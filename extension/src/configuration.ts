/**
 * Launch configurations of type `neural-python`: F5 on a Python file with no launch.json
 * debugs the function under the cursor (asking which one when the cursor is in none, then
 * for its arguments, an empty answer letting the model infer them), and every configuration
 * gets the `ndb.*` settings for what it leaves out.
 */
import * as vscode from 'vscode';
import { NDB_EVENTS_FLAG } from '../../protocol/dap.js';
import { functionAt, type PyFunction, pythonFunctions } from './python-functions.js';

export const DEBUG_TYPE = 'neural-python';

/** What the user answered last per function (the next F5 offers it again). */
const ARGS_KEY = 'ndb.lastArgs';

/** The module's top level, offered beside the functions. */
const MODULE_ITEM = '$(file-code) the module (top level)';

export class NeuralConfigurationProvider implements vscode.DebugConfigurationProvider {
  constructor(private readonly memento: vscode.Memento) {}

  provideDebugConfigurations(): vscode.DebugConfiguration[] {
    return [{ type: DEBUG_TYPE, request: 'launch', name: 'Neural debug: current file', program: '${file}', stopOnEntry: true }];
  }

  /** No launch.json (F5 with nothing chosen): debug the function under the cursor. */
  async resolveDebugConfiguration(_folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): Promise<vscode.DebugConfiguration | null | undefined> {
    if (!config.type && !config.request && !config.name) {
      const editor = vscode.window.activeTextEditor;
      if (!editor || editor.document.languageId !== 'python') {
        void vscode.window.showInformationMessage('Neural debugging needs a Python file: open one, or add a neural-python launch configuration.');
        return undefined;
      }
      return this.configForEditor(editor);
    }
    if (config.type === DEBUG_TYPE && !config.request) config.request = 'launch';
    return config;
  }

  /**
   * The `ndb.*` settings for what the configuration leaves out (after ${file} and the like are
   * substituted), and `ndbEvents`: this extension reads the adapter's `ndb/stats` events (the
   * status bar), which the adapter sends only to clients that ask.
   */
  resolveDebugConfigurationWithSubstitutedVariables(folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): vscode.DebugConfiguration {
    return { ...withSettings(config, vscode.workspace.getConfiguration('ndb', folder?.uri)), [NDB_EVENTS_FLAG]: true };
  }

  /** A configuration for the editor's file: the function under the cursor (or one picked), its arguments asked. */
  async configForEditor(editor: vscode.TextEditor, pick = false): Promise<vscode.DebugConfiguration | undefined> {
    const doc = editor.document;
    if (doc.isDirty) await doc.save();
    const functions = pythonFunctions(doc.getText());
    let fn: PyFunction | null | undefined = pick ? undefined : functionAt(functions, editor.selection.active.line + 1);
    if (fn === undefined) {
      fn = await pickFunction(functions);
      if (fn === undefined) return undefined;
    }
    const base = { type: DEBUG_TYPE, request: 'launch', program: doc.uri.fsPath, stopOnEntry: true };
    if (fn === null) return { ...base, name: `Neural debug: ${basename(doc.uri)}` };
    const args = await this.askArguments(fn, doc.uri);
    if (args === undefined) return undefined;
    const name = `Neural debug: ${fn.qualname}`;
    return args === '' ? { ...base, name, entry: fn.qualname, inferArgs: true } : { ...base, name, entry: fn.qualname, args };
  }

  /** The arguments as Python literals; '' lets the model infer them; undefined: cancelled. */
  private async askArguments(fn: PyFunction, uri: vscode.Uri): Promise<string | undefined> {
    const key = `${uri.toString()}#${fn.qualname}`;
    const last = this.memento.get<Record<string, string>>(ARGS_KEY, {});
    const answer = await vscode.window.showInputBox({
      title: `Neural debug: ${fn.qualname}(${fn.params})`,
      prompt: `Arguments for ${fn.qualname}, as Python literals (e.g. 'berry', 'r'). Leave empty to let the model infer them.`,
      placeHolder: `${fn.params || 'no parameters'} — empty: the model infers them`,
      value: last[key] ?? '',
      ignoreFocusOut: true,
    });
    if (answer === undefined) return undefined;
    await this.memento.update(ARGS_KEY, { ...last, [key]: answer.trim() });
    return answer.trim();
  }
}

/** A function of the file, or null for the module's top level; undefined: cancelled. */
async function pickFunction(functions: readonly PyFunction[]): Promise<PyFunction | null | undefined> {
  const items = [
    ...functions.map((f) => ({ label: `$(symbol-function) ${f.qualname}`, description: `(${f.params})`, detail: `line ${f.line}${f.inClass ? ' · a method: give self as an argument' : ''}`, fn: f as PyFunction | null })),
    { label: MODULE_ITEM, description: '', detail: 'predict a run of the whole file', fn: null },
  ];
  const chosen = await vscode.window.showQuickPick(items, { title: 'Neural debug: which function?', placeHolder: 'The cursor is in no function: pick one to debug', ignoreFocusOut: true });
  return chosen === undefined ? undefined : chosen.fn;
}

/** The settings for each launch argument the configuration does not set. */
export function withSettings(config: vscode.DebugConfiguration, settings: vscode.WorkspaceConfiguration): vscode.DebugConfiguration {
  const out = { ...config };
  const model = settings.get<string>('model', '').trim();
  if (out.model === undefined && model !== '') out.model = model;
  if (out.model === '') delete out.model;
  for (const key of ['device', 'precision', 'samples', 'temperature', 'verify'] as const) {
    const value = settings.get(key);
    if (out[key] === undefined && value !== undefined && value !== null) out[key] = value;
  }
  return out;
}

function basename(uri: vscode.Uri): string {
  return uri.path.split('/').pop() ?? uri.path;
}
