// The socket's token life: a dashboard socket is disconnected when its token expires (the gateway's
// connection handler with a stand-in socket; the handshake itself is covered by the e2e and replica tests).
import { EventEmitter } from 'node:events';
import { SessionRevocations } from '../access/session-revocations';
import type { AdminTokenVerifier } from '../access/admin-token.verifier';
import { ErrorsGateway } from './errors.gateway';

function fakeSocket(expiresInMs: number) {
  const socket = Object.assign(new EventEmitter(), {
    data: { user: { id: 'u', email: null, role: 'admin', sessionId: 's1', expiresAt: Date.now() + expiresInMs } },
    rooms: [] as string[],
    sent: [] as unknown[],
    disconnected: false,
    join(room: string) {
      this.rooms.push(room);
    },
    disconnect() {
      this.disconnected = true;
      (this as unknown as EventEmitter).emit('disconnect', 'server namespace disconnect');
    },
  });
  const emitter = socket as unknown as EventEmitter;
  const emit = emitter.emit.bind(emitter);
  emitter.emit = (event: string | symbol, ...args: unknown[]) => {
    if (event === 'session_ended') socket.sent.push(args[0]);
    return emit(event, ...args);
  };
  return socket;
}

describe('ErrorsGateway token life', () => {
  const gateway = new ErrorsGateway({} as AdminTokenVerifier, new SessionRevocations());

  it('disconnects the socket when its token expires, after telling it why', async () => {
    const socket = fakeSocket(30);
    gateway.handleConnection(socket as never);
    expect(socket.rooms).toEqual(['session:s1']);
    expect(socket.disconnected).toBe(false);
    await new Promise((r) => setTimeout(r, 80));
    expect(socket.sent).toEqual([{ reason: 'expired' }]);
    expect(socket.disconnected).toBe(true);
  });

  it('does nothing more once the socket left before expiry', async () => {
    const socket = fakeSocket(30);
    gateway.handleConnection(socket as never);
    socket.disconnect();
    socket.disconnected = false;
    await new Promise((r) => setTimeout(r, 80));
    expect(socket.sent).toEqual([]);
    expect(socket.disconnected).toBe(false);
  });
});
