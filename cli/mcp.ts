/**
 * `ndb mcp`: the Model Context Protocol server, for coding agents (mcp/server.ts).
 */
import { isLoopback, newToken } from '../adapter/server.js';
import { McpContext } from '../mcp/context.js';
import { serveHttp, serveStdio } from '../mcp/server.js';
import { defineCommand, type FlagSpecs, type Parsed } from './command-line.js';

const MCP_FLAGS = {
  port: { type: 'string', value: 'N', description: 'serve streamable HTTP on port N of 127.0.0.1 (0: any free port) instead of stdio' },
  host: { type: 'string', value: 'H', description: 'the loopback interface to listen on (default 127.0.0.1)' },
  token: { type: 'string', value: 'T', description: 'the token HTTP clients must give (default: NDB_MCP_TOKEN, else a fresh one)' },
  model: { type: 'string', value: 'DIR', description: 'a model folder (default: the embedded model)' },
  device: { type: 'string', value: 'cpu|cuda', description: 'where the model runs (default cpu)' },
  precision: { type: 'string', value: 'fp32|int8', description: "the model's weights (default fp32)" },
  rules: { type: 'string', value: 'all|none|LIST', description: "the symbolic stepper's rules (default all)" },
  'max-sessions': { type: 'string', value: 'N', description: 'debugging sessions open at once (default 8)' },
} satisfies FlagSpecs;

export const MCP_COMMAND = defineCommand({
  name: 'mcp',
  summary: 'serve the Model Context Protocol (tools for coding agents)',
  description: `Serve ndb's tools to coding agents over the Model Context Protocol: simulate_call,
debug_start, debug_step, debug_inspect, debug_stop, predict_inputs and verify_tests (see
docs/mcp.md). On stdin/stdout by default (what an agent's client starts); with --port,
streamable HTTP at http://127.0.0.1:N/mcp, every request carrying the server's token as
Authorization: Bearer TOKEN (a fresh one is printed with the port, or set it with --token
or NDB_MCP_TOKEN). Nothing of the programs runs: every state is predicted.`,
  flags: MCP_FLAGS,
  run: mcpCommand,
});

const MIN_TOKEN_CHARS = 16;

export async function mcpCommand({ values }: Parsed<typeof MCP_FLAGS>, fail: (message: string) => Error): Promise<void> {
  // Every flag checked before anything is made (the private folder, the model).
  let maxSessions: number | undefined;
  if (values['max-sessions'] !== undefined) {
    maxSessions = Number(values['max-sessions']);
    if (!Number.isInteger(maxSessions) || maxSessions < 1 || maxSessions > 64) throw fail(`--max-sessions must be an integer from 1 to 64, got ${JSON.stringify(values['max-sessions'])}`);
  }
  let http: { port: number; host: string; token: string; shown: string } | null = null;
  if (values.port === undefined) {
    for (const flag of ['host', 'token'] as const) if (values[flag] !== undefined) throw fail(`--${flag} needs --port (on stdio the client's pipes are the session's own)`);
  } else {
    const port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw fail(`--port must be a port number (0 for any free one), got ${JSON.stringify(values.port)}`);
    const host = values.host ?? '127.0.0.1';
    if (!isLoopback(host)) throw fail(`--host ${host} is reachable from other machines: ndb mcp listens on a loopback interface only (127.0.0.1, ::1)`);
    const given = values.token ?? process.env.NDB_MCP_TOKEN;
    const source = values.token !== undefined ? '--token' : 'NDB_MCP_TOKEN';
    if (given !== undefined && given.length < MIN_TOKEN_CHARS) throw fail(`the token from ${source} is too short: give at least ${MIN_TOKEN_CHARS} characters`);
    const token = given ?? newToken();
    http = { port, host, token, shown: given === undefined ? `token ${token}` : `token from ${source}` };
  }
  const log = (m: string) => process.stderr.write(`ndb mcp: ${m.replace(/^ndb: /, '')}\n`);
  const ctx = new McpContext({
    ...(values.model === undefined ? {} : { model: values.model }),
    ...(values.device === undefined ? {} : { device: values.device }),
    ...(values.precision === undefined ? {} : { precision: values.precision }),
    ...(values.rules === undefined ? {} : { rules: values.rules }),
    ...(maxSessions === undefined ? {} : { maxSessions }),
    log,
  });
  // Stopped by a signal: the sessions closed, the model freed, the private folder removed.
  const stop = () => void ctx.close().finally(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  if (!http) {
    await serveStdio(ctx);
    return;
  }
  const server = await serveHttp(ctx, http).catch(async (err: unknown) => {
    await ctx.close();
    throw err;
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : http.port;
  const url = `http://${http.host.includes(':') ? `[${http.host}]` : http.host}:${bound}/mcp`;
  // The one line a script waits for; the server then runs until the process is stopped.
  process.stdout.write(`ndb mcp: listening on ${url}, ${http.shown} (clients send it as Authorization: Bearer TOKEN)\n`);
}
