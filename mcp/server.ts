/**
 * `ndb mcp`: the neural debugger as a Model Context Protocol server, on the official SDK
 * (@modelcontextprotocol/sdk), for coding agents: over stdio (what an agent's client starts),
 * or over streamable HTTP on a loopback interface, each request carrying the server's token
 * (`Authorization: Bearer TOKEN`), as the DAP server's TCP mode asks for its token.
 *
 * The tools are mcp/tools.ts; what they share (the model, the lock, the debugging sessions)
 * is mcp/context.ts. Over HTTP the server is stateless (a fresh protocol server per request)
 * while the debugging sessions live in the context: a session id works across requests.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { packageRoot } from '../model-client/model-folder.js';
import type { McpContext } from './context.js';
import { type CallControl, failure, toolTable } from './tools.js';

const INSTRUCTIONS = `ndb predicts what Python code does without running it: a small language model trained on execution traces, with a symbolic stepper that decides what Python's semantics fix (each value says whether it was decided or predicted, and how sure the model is). Use simulate_call to see a call's predicted result and trace, verify_tests to predict test verdicts or rank candidate solutions (Best@k) with repair feedback, predict_inputs to find arguments for a wanted return value, and debug_start/debug_step/debug_inspect/debug_stop to step through a predicted run. Predictions can be wrong: treat them as evidence, not proof.`;

let packageVersion: string | undefined;

/** The version in package.json (read once: over HTTP a protocol server is made per request). */
function version(): string {
  packageVersion ??= (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  return packageVersion;
}

/** What the SDK gives a tool handler beside its input (the part ndb uses). */
interface RequestExtra {
  signal?: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification: (n: { method: 'notifications/progress'; params: { progressToken: string | number; progress: number; total?: number; message: string } }) => Promise<void>;
}

/** The call's cancel signal, and progress notifications when the client asked for them (a progress token). */
function control(extra: RequestExtra): CallControl {
  const token = extra._meta?.progressToken;
  return {
    ...(extra.signal ? { signal: extra.signal } : {}),
    ...(token === undefined ? {} : { progress: (progress: number, total: number | undefined, message: string) => void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, ...(total === undefined ? {} : { total }), message } }).catch(() => undefined) }),
  };
}

/** A protocol server with every tool, over `ctx`. */
export function createMcpServer(ctx: McpContext): McpServer {
  const server = new McpServer({ name: 'ndb', title: 'ndb, the neural debugger for Python', version: version() }, { instructions: INSTRUCTIONS });
  for (const tool of toolTable()) {
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema: tool.input, outputSchema: tool.output, annotations: { readOnlyHint: tool.name !== 'debug_start' && tool.name !== 'debug_step' && tool.name !== 'debug_stop', openWorldHint: false } },
      // Every call in turn (the model is one); an error is the call's answer, never the server's end.
      ((input: never, extra: RequestExtra) => ctx.exclusive(() => tool.run(ctx, input, control(extra))).catch((err: unknown) => failure(err, (m) => ctx.shownPaths(m)))) as never,
    );
  }
  return server;
}

/** Serves on stdin/stdout until the client closes them (or the connection); then frees everything. */
export async function serveStdio(ctx: McpContext): Promise<void> {
  const server = createMcpServer(ctx);
  const transport = new StdioServerTransport();
  await server.connect(transport);
  await new Promise<void>((resolve) => {
    server.server.onclose = resolve;
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  await server.close().catch(() => undefined);
  await ctx.close().catch(() => undefined);
}

export interface HttpOptions {
  port: number;
  host: string;
  token: string;
}

/** The request's token matches (compared in constant time). */
function authorized(req: IncomingMessage, token: string): boolean {
  const header = req.headers.authorization ?? '';
  const m = /^Bearer\s+(.+)$/i.exec(header);
  if (!m) return false;
  const given = Buffer.from(m[1]!.trim());
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message }, id: null }));
}

/** Streamable HTTP at /mcp; resolves with the server once it listens. */
export function serveHttp(ctx: McpContext, opts: HttpOptions): Promise<Server> {
  const http = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/mcp') return refuse(res, 404, 'not found: the MCP endpoint is /mcp');
    if (!authorized(req, opts.token)) return refuse(res, 401, "unauthorized: give the server's token as Authorization: Bearer TOKEN", { 'WWW-Authenticate': 'Bearer realm="ndb"' });
    if (req.method !== 'POST') return refuse(res, 405, 'method not allowed: this server is stateless, POST each message', { Allow: 'POST' });
    const server = createMcpServer(ctx);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close().catch(() => undefined);
      void server.close().catch(() => undefined);
    });
    server
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch((err: unknown) => {
        if (!res.headersSent) refuse(res, 500, `ndb internal error: ${(err as Error).message}`);
      });
  });
  return new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(opts.port, opts.host, () => resolve(http));
  });
}
