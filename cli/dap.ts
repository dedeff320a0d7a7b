/**
 * `ndb dap`: the debug adapter, for VS Code and other DAP clients (adapter/debug-session.ts).
 */
import { AUTH_TIMEOUT_MS, isLoopback, listeningPort, MAX_CONNECTIONS, newToken, serveStdio, serveTcp } from '../adapter/server.js';
import { defineCommand, type FlagSpecs, type Parsed } from './command-line.js';

const DAP_FLAGS = {
  port: { type: 'string', value: 'N', description: 'serve on TCP port N (0: any free port) instead of stdio' },
  host: { type: 'string', value: 'H', description: 'the interface to listen on (default 127.0.0.1)' },
  token: { type: 'string', value: 'T', description: 'the token clients must give (default: NDB_DAP_TOKEN, else a fresh one)' },
  'allow-remote': { type: 'boolean', description: 'allow a --host other machines can reach' },
  'max-connections': { type: 'string', value: 'N', description: `TCP sessions at once (default ${MAX_CONNECTIONS}); one more is closed at once` },
  'auth-timeout': { type: 'string', value: 'S', description: `seconds a TCP client has to give the token (default ${AUTH_TIMEOUT_MS / 1000})` },
} satisfies FlagSpecs;

export const DAP_COMMAND = defineCommand({
  name: 'dap',
  summary: 'serve the Debug Adapter Protocol (VS Code, nvim-dap, dap-mode, …)',
  description: `Serve the Debug Adapter Protocol on stdin/stdout (what an editor starts), or on TCP
port N (0: any free port), each connection a new session. A TCP client must give the
server's token as "token" in its launch (or attach) configuration: a fresh one is
printed with the port, or set it with --token T or NDB_DAP_TOKEN. The host is
127.0.0.1; another interface needs --allow-remote (anyone who can reach it and has
the token can launch, and verify mode runs programs). A connection that has not
given the token within 30 s (--auth-timeout), or sends more than 64 KiB before it,
is closed; at most --max-connections sessions are served at once.`,
  flags: DAP_FLAGS,
  run: dapCommand,
});

/** The shortest token accepted from the user. */
const MIN_TOKEN_CHARS = 16;

export async function dapCommand({ values }: Parsed<typeof DAP_FLAGS>, fail: (message: string) => Error): Promise<void> {
  if (values.port === undefined) {
    for (const flag of ['host', 'token', 'allow-remote', 'max-connections', 'auth-timeout'] as const) if (values[flag] !== undefined) throw fail(`--${flag} needs --port (on stdio the editor's pipes are the session's own)`);
    serveStdio();
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw fail(`--port must be a port number (0 for any free one), got ${JSON.stringify(values.port)}`);
  const host = values.host ?? '127.0.0.1';
  if (!isLoopback(host)) {
    if (!values['allow-remote']) {
      throw fail(`--host ${host} is reachable from other machines: anyone there with the token could launch programs (and run them in verify mode); add --allow-remote if that is what you mean`);
    }
    process.stderr.write(`ndb dap: warning: listening on ${host}, reachable from other machines; the token is all that stands between them and this adapter\n`);
  }
  const given = values.token ?? process.env.NDB_DAP_TOKEN;
  const source = values.token !== undefined ? '--token' : 'NDB_DAP_TOKEN';
  if (given !== undefined && given.length < MIN_TOKEN_CHARS) throw fail(`the token from ${source} is too short: give at least ${MIN_TOKEN_CHARS} characters`);
  const token = given ?? newToken();
  let maxConnections: number | undefined;
  if (values['max-connections'] !== undefined) {
    maxConnections = Number(values['max-connections']);
    if (!Number.isInteger(maxConnections) || maxConnections < 1) throw fail(`--max-connections must be a positive integer, got ${JSON.stringify(values['max-connections'])}`);
  }
  let authTimeoutMs: number | undefined;
  if (values['auth-timeout'] !== undefined) {
    authTimeoutMs = Number(values['auth-timeout']) * 1000;
    if (!Number.isFinite(authTimeoutMs) || authTimeoutMs <= 0) throw fail(`--auth-timeout must be a positive number of seconds, got ${JSON.stringify(values['auth-timeout'])}`);
  }
  const server = await serveTcp(port, host, { token, ...(maxConnections === undefined ? {} : { maxConnections }), ...(authTimeoutMs === undefined ? {} : { authTimeoutMs }) });
  // The one line a script waits for; the sessions then run until the process is stopped.
  const shown = given === undefined ? `token ${token}` : `token from ${source}`;
  process.stdout.write(`ndb dap: listening on ${host}:${listeningPort(server)}, ${shown} (clients give it as "token" in their launch configuration)\n`);
}
