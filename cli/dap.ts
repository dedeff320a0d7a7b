/**
 * `ndb dap`: the debug adapter, for VS Code and other DAP clients (adapter/session.ts).
 */
import { parseArgs } from 'node:util';
import { listeningPort, serveStdio, serveTcp } from '../adapter/server.js';

export const DAP_USAGE = `  ndb dap [--port N [--host H]]
      Serve the Debug Adapter Protocol on stdin/stdout (what an editor starts), or on TCP
      port N (0: any free port; the port is printed), each connection a new session.
`;

export async function dapCommand(argv: string[], fail: (message: string) => Error): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { port: { type: 'string' }, host: { type: 'string' } } });
  if (values.port === undefined) {
    if (values.host !== undefined) throw fail('--host needs --port');
    serveStdio();
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw fail(`--port must be a port number (0 for any free one), got ${JSON.stringify(values.port)}`);
  const host = values.host ?? '127.0.0.1';
  const server = await serveTcp(port, host);
  // The one line a script waits for; the sessions then run until the process is stopped.
  process.stdout.write(`ndb dap: listening on ${host}:${listeningPort(server)}\n`);
}
