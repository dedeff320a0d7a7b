/**
 * `ndb lsp --stdio`: the language server (extension/language-server/server.ts), which shows
 * the predicted runs of a file's example calls as hovers, inlay hints and diagnostics.
 */
import { parseArgs } from 'node:util';
import { startLanguageServer } from '../extension/language-server/server.js';

export const LSP_USAGE = `  ndb lsp --stdio [--model DIR] [--device cpu|cuda] [--max-steps N]
      Serve the Language Server Protocol on stdin/stdout: predicted runs of each example call
      (\`>>> f(ARGS)\` in a docstring, \`# ndb: f(ARGS)\`) as hovers, inlay hints, diagnostics.
`;

export async function lspCommand(argv: string[], fail: (message: string) => Error): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      stdio: { type: 'boolean', default: false },
      model: { type: 'string' },
      device: { type: 'string' },
      'max-steps': { type: 'string' },
      // Editors' clients pass their process id; the server library reads it from argv itself.
      clientProcessId: { type: 'string' },
    },
  });
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
