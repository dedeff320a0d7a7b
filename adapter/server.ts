/**
 * Serving the debug adapter (`ndb dap`): on stdin/stdout, the way VS Code starts an adapter
 * executable, or on a TCP port, one session per connection (for clients that connect to a
 * running adapter, and for debugging the adapter itself).
 */
import { createServer, type AddressInfo, type Server } from 'node:net';
import { NeuralDebugSession } from './session.js';

/**
 * Every request handles its own errors (session.ts); should one slip through anyway, it is
 * logged rather than allowed to end the process and with it the user's debugging session.
 */
function keepRunningOnStrayRejections(): void {
  process.on('unhandledRejection', (reason) => {
    process.stderr.write(`ndb dap: unexpected error (a bug in ndb): ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}\n`);
  });
}

/** One session on stdin/stdout; the process ends with it. */
export function serveStdio(): void {
  keepRunningOnStrayRejections();
  // stdout carries the protocol: anything a library logs goes to stderr instead.
  console.log = console.error;
  console.info = console.error;
  const session = new NeuralDebugSession();
  process.on('SIGTERM', () => session.shutdown());
  session.start(process.stdin, process.stdout);
}

/** Listens on `port` (0: any free one) and resolves with the server once it listens. */
export function serveTcp(port: number, host = '127.0.0.1'): Promise<Server> {
  keepRunningOnStrayRejections();
  const server = createServer((socket) => {
    // A client that goes away mid-answer must not take the server (and its other sessions) down.
    socket.on('error', () => socket.destroy());
    const session = new NeuralDebugSession();
    session.setRunAsServer(true);
    session.start(socket, socket);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

export function listeningPort(server: Server): number {
  return (server.address() as AddressInfo).port;
}
