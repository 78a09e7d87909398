import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { once } from 'node:events';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { MailComposerOptions } from 'nodemailer/lib/mail-composer';
import type { DkimKey } from '../domains/domains.service';
import { createMessageBuilder, DKIM_SIGNED_HEADERS, type BuiltMessage } from './message-builder';

/**
 * The MIME threads: each runs createMessageBuilder from its source text (the same code whether the
 * service runs built or from the test sources) with the modules it loads itself. Building and above
 * all RSA signing are most of a mail's CPU; on the event loop they would hold up the SMTP lanes,
 * the database and the HTTP API. A thread that dies fails its messages (the send worker retries
 * them) and is replaced.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const load = (path) => { const mod = require(path); return mod && mod.default ? mod.default : mod; };
const builder = (${createMessageBuilder.toString()})({
  crypto: require('node:crypto'),
  url: require('node:url'),
  MailComposer: load(workerData.modules.mailComposer),
  qp: require(workerData.modules.qp),
  base64: require(workerData.modules.base64),
  mimeFuncs: require(workerData.modules.mimeFuncs),
}, workerData.signedHeaders);
let building = 0;
let closing = false;
const settled = () => {
  if (--building === 0 && closing) parentPort.close();
};
parentPort.on('message', (m) => {
  // 'close': answer the messages under way, then let the thread end by itself (nothing cut in native code)
  if (m === 'close') {
    closing = true;
    if (building === 0) parentPort.close();
    return;
  }
  const { id, message, dkim } = m;
  building++;
  builder.build(message, dkim).then(
    (built) => parentPort.postMessage({ id, raw: built.raw, envelope: built.envelope }),
    (err) => parentPort.postMessage({ id, error: String((err && err.message) || err) }),
  ).finally(settled);
});
`;

interface Pending {
  resolve: (built: BuiltMessage) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
}

@Injectable()
export class MimeBuilder implements OnApplicationShutdown {
  /** One thread per CPU: the event loop mostly waits on sockets meanwhile (on 2 CPUs, 2 threads sent 1.4× the mails of building on the event loop). */
  readonly threads = availableParallelism();
  private readonly slots: Slot[] = [];
  private nextId = 0;
  private closed = false;

  /** The message as nodemailer's transports would send it, DKIM-signed when `dkim` is given (createMessageBuilder). */
  build(message: MailComposerOptions, dkim: DkimKey | null): Promise<BuiltMessage> {
    if (this.closed) return Promise.reject(new Error('the MIME builder is shut down'));
    const slot = this.leastBusy();
    const id = this.nextId++;
    return new Promise<BuiltMessage>((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ id, message, dkim });
    });
  }

  private leastBusy(): Slot {
    while (this.slots.length < this.threads) this.slots.push(this.spawn());
    let best = this.slots[0];
    for (const slot of this.slots) if (slot.pending.size < best.pending.size) best = slot;
    return best;
  }

  private spawn(): Slot {
    const modules = {
      mailComposer: require.resolve('nodemailer/lib/mail-composer'),
      qp: require.resolve('nodemailer/lib/qp'),
      base64: require.resolve('nodemailer/lib/base64'),
      mimeFuncs: require.resolve('nodemailer/lib/mime-funcs'),
    };
    const worker = new Worker(WORKER, { eval: true, workerData: { modules, signedHeaders: DKIM_SIGNED_HEADERS } });
    const slot: Slot = { worker, pending: new Map() };
    worker.unref();
    worker.on('message', (m: { id: number; raw?: Uint8Array; envelope?: BuiltMessage['envelope']; error?: string }) => {
      const pending = slot.pending.get(m.id);
      if (!pending) return;
      slot.pending.delete(m.id);
      if (m.error !== undefined) pending.reject(new Error(m.error));
      else pending.resolve({ raw: Buffer.from(m.raw!.buffer, m.raw!.byteOffset, m.raw!.byteLength), envelope: m.envelope! });
    });
    const fail = (err: Error) => {
      const index = this.slots.indexOf(slot);
      if (index >= 0) this.slots.splice(index, 1);
      for (const p of slot.pending.values()) p.reject(err);
      slot.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the MIME builder thread stopped (exit code ${code})`)));
    return slot;
  }

  /** Asks each thread to end once its messages are built; one still running after 5 s is terminated. */
  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    const slots = this.slots.splice(0);
    await Promise.all(
      slots.map(async ({ worker }) => {
        const exited = once(worker, 'exit');
        worker.postMessage('close');
        const timer = setTimeout(() => void worker.terminate(), 5000);
        await exited;
        clearTimeout(timer);
      }),
    );
  }
}
