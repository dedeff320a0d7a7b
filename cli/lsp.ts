/**
 * `ndb lsp --stdio`: the language server (lsp/server.ts), which shows
 * the predicted runs of a file's example calls as hovers, inlay hints and diagnostics.
 */
import { startLanguageServer } from '../lsp/server.js';
import { defineCommand, type FlagSpecs, type Parsed } from './command-line.js';

const LSP_FLAGS = {
  stdio: { type: 'boolean', description: 'serve on stdin/stdout (the only way)' },
  model: { type: 'string', value: 'DIR', description: 'a model folder (default: the embedded model)' },
  device: { type: 'string', value: 'cpu|cuda', description: 'where the model runs (default cpu)' },
  'max-steps': { type: 'string', value: 'N', description: 'predictions per example run' },
  // Editors' clients pass their process id; the server library reads it from argv itself.
  clientProcessId: { type: 'string', value: 'PID', description: "the editor's process id", hidden: true },
} satisfies FlagSpecs;

export const LSP_COMMAND = defineCommand({
  name: 'lsp',
  summary: 'serve the Language Server Protocol (predicted runs of example calls)',
  description: `Serve the Language Server Protocol on stdin/stdout: predicted runs of each example call
(\`>>> f(ARGS)\` in a docstring, \`# ndb: f(ARGS)\`) as hovers, inlay hints, diagnostics.`,
  flags: LSP_FLAGS,
  run: lspCommand,
});

export async function lspCommand({ values }: Parsed<typeof LSP_FLAGS>, fail: (message: string) => Error): Promise<void> {
  if (!values.stdio) throw fail('ndb lsp serves on stdin/stdout only: run `ndb lsp --stdio`');
  let maxSteps: number | undefined;
  if (values['max-steps'] !== undefined) {
    maxSteps = Number(values['max-steps']);
    if (!Number.isInteger(maxSteps) || maxSteps < 1) throw fail(`--max-steps must be a positive integer, got ${JSON.stringify(values['max-steps'])}`);
  }
  // A missing model or a bad device is reported to the editor (window/showMessage), not here:
  // the editor started this process and shows no terminal.
  startLanguageServer({
    ...(values.model === undefined ? {} : { model: values.model }),
    ...(values.device === undefined ? {} : { device: values.device }),
    ...(maxSteps === undefined ? {} : { maxSteps }),
  });
}
