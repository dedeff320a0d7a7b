/**
 * ndb's debug adapter in the test's own process, on a TCP port, with the real tracer as its
 * Predictor: every state is then the real run's, so where a DAP feature stops can be checked
 * exactly (test/dap-features.test.ts, test/dap-debugpy.test.ts). DebugClient connects with
 * `start(port)`, as VS Code connects to an adapter server.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { NeuralDebugSession } from '../adapter/debug-session.js';
import { attachTransport } from '../adapter/server.js';
import { TracerPredictor } from '../evaluation/tracer-predictor.js';

export interface TracerServer {
  port: number;
  close(): Promise<void>;
}

export async function serveOnTracer(): Promise<TracerServer> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.setNoDelay(true);
    const session = new NeuralDebugSession({ loadPredictor: async () => Object.assign(new TracerPredictor(), { release: async () => undefined }), log: () => undefined });
    session.setRunAsServer(true);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => session.shutdown());
    attachTransport(session, socket, socket, 'strict', () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    // Connections a client left open end with the server.
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}
