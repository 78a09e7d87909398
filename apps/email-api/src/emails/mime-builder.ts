import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { once } from 'node:events';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { SendMailOptions } from 'nodemailer';
import type { DkimKey } from '../domains/domains.service';

/**
 * The header fields the DKIM signature covers: nodemailer's default list (RFC 6376 §5.4.1's and the
 * MIME fields), plus `List-Unsubscribe-Post`, which RFC 8058 §4 requires a valid signature to cover
 * together with `List-Unsubscribe` (mailbox providers ignore one-click unsubscribe otherwise).
 */
export const DKIM_SIGNED_HEADERS = [
  'From', 'Sender', 'Reply-To', 'Subject', 'Date', 'Message-ID', 'To', 'Cc', 'MIME-Version', 'Content-Type', 'Content-Transfer-Encoding',
  'Content-ID', 'Content-Description', 'Resent-Date', 'Resent-From', 'Resent-Sender', 'Resent-To', 'Resent-Cc', 'Resent-Message-ID',
  'In-Reply-To', 'References', 'List-Id', 'List-Help', 'List-Unsubscribe', 'List-Unsubscribe-Post', 'List-Subscribe', 'List-Post',
  'List-Owner', 'List-Archive',
].join(':');

/** What a worker answers: the finished message and the envelope nodemailer derived (or was given). */
export interface BuiltMessage {
  raw: Buffer;
  envelope: { from: string | false; to: string[] };
}

/**
 * Builds each message (nodemailer's MIME composer, then its DKIM signer) in worker threads: RSA
 * signing and MIME building are most of a mail's CPU, and on the event loop they would hold up the
 * SMTP lanes, the database and the HTTP API. The worker is nodemailer's own stream transport, so the
 * bytes are those nodemailer would have sent itself. The code is evaluated from a string (as
 * knowledge-api's PDF worker is): the same pool runs from the built service and from the test
 * sources. A worker that dies fails its messages (the send worker retries them) and is replaced.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const nodemailer = require(workerData.nodemailer);
const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
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
  const { id, message } = m;
  building++;
  transport.sendMail(message).then(
    (info) => parentPort.postMessage({ id, raw: info.message, envelope: info.envelope }),
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

  /** The message as nodemailer would send it, DKIM-signed when `dkim` is given (covering DKIM_SIGNED_HEADERS). */
  build(message: SendMailOptions, dkim: DkimKey | null): Promise<BuiltMessage> {
    if (this.closed) return Promise.reject(new Error('the MIME builder is shut down'));
    const slot = this.leastBusy();
    const id = this.nextId++;
    return new Promise<BuiltMessage>((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ id, message: dkim ? { ...message, dkim: { ...dkim, headerFieldNames: DKIM_SIGNED_HEADERS } } : message });
    });
  }

  private leastBusy(): Slot {
    while (this.slots.length < this.threads) this.slots.push(this.spawn());
    let best = this.slots[0];
    for (const slot of this.slots) if (slot.pending.size < best.pending.size) best = slot;
    return best;
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER, { eval: true, workerData: { nodemailer: require.resolve('nodemailer') } });
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
