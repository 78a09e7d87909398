import { Inject, Injectable, Logger, Optional, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { SERVICE_MODE, type ServiceMode } from '@platform/platform';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { EmailApiConfig } from '../config';
import { InboundDelivery } from './inbound-delivery';
import { SmtpReply, tooLarge, tooManyRecipients, tryLater } from './smtp-reply';

/** Recipients one message may have at the receiver. */
export const MAX_RECIPIENTS = 50;

/**
 * The inbound SMTP receiver (the `smtp-server` package) on INBOUND_SMTP_PORT: the mail exchanger of
 * every domain's return path `bounce.<domain>` (the MX record of the domain answer). No AUTH, no
 * STARTTLS (mail exchangers take mail in clear when no certificate is offered); SIZE is advertised
 * and enforced (552), recipients are checked at RCPT time (550), a message is answered only once
 * what it records is committed (250), so a message whose answer was lost comes again and lands once
 * by its events' keys. Our own failures are 451 (the sender tries again). Nothing a client sends can
 * end the process: every callback catches. Not started in commands (`node main.js migrate`).
 */
@Injectable()
export class SmtpReceiver implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('SmtpReceiver');
  private server: SMTPServer | null = null;
  private boundPort: number | null = null;

  constructor(
    private readonly config: EmailApiConfig,
    private readonly delivery: InboundDelivery,
    @Optional() @Inject(SERVICE_MODE) private readonly mode?: ServiceMode,
  ) {}

  /** The port it listens on (null when not listening). */
  get port(): number | null {
    return this.boundPort;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.mode === 'command') return;
    const max = this.config.INBOUND_MAX_BYTES;
    const server = new SMTPServer({
      name: this.config.INBOUND_SMTP_HOSTNAME ?? this.config.RETURN_PATH_MX,
      banner: 'email-api inbound ESMTP',
      size: max,
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      logger: false,
      maxClients: 500,
      socketTimeout: 60_000,
      closeTimeout: 5_000,
      onRcptTo: (address, session, callback) => {
        if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) return callback(tooManyRecipients(MAX_RECIPIENTS));
        this.delivery.acceptRecipient(address.address).then(
          () => callback(),
          (err: unknown) => callback(this.reply(err, 'RCPT')),
        );
      },
      onData: (stream, session, callback) => this.onData(stream, session, callback),
    });
    server.on('error', (err) => this.logger.warn(`inbound SMTP: ${err.message}`));
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error) => reject(err);
      server.server.once('error', onError);
      server.listen(this.config.INBOUND_SMTP_PORT, this.config.INBOUND_SMTP_HOST, () => {
        server.server.off('error', onError);
        resolve();
      });
    });
    this.server = server;
    this.boundPort = (server.server.address() as AddressInfo).port;
    this.logger.log(`inbound SMTP listening on ${this.config.INBOUND_SMTP_HOST}:${this.boundPort}`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = null;
    this.boundPort = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback: (err?: Error | null) => void): void {
    const chunks: Buffer[] = [];
    let size = 0;
    let answered = false;
    const max = this.config.INBOUND_MAX_BYTES;
    // One answer per message, whichever of the stream's error and end comes first.
    const answer = (err?: Error | null) => {
      if (answered) return;
      answered = true;
      callback(err);
    };
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // What is over the limit is not kept; the stream is read to its end and refused then.
      if (size <= max) chunks.push(chunk);
    });
    stream.on('error', (err: Error) => answer(this.reply(err, 'DATA')));
    stream.on('end', () => {
      if (stream.sizeExceeded || size > max) return answer(tooLarge(max));
      const envelope = {
        mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
        rcptTo: session.envelope.rcptTo.map((r) => r.address),
        remoteAddress: session.remoteAddress,
        heloName: session.hostNameAppearsAs,
      };
      this.delivery.deliver(Buffer.concat(chunks), envelope).then(
        () => answer(),
        (err: unknown) => answer(this.reply(err, 'DATA')),
      );
    });
  }

  /** The refusal to answer: an SmtpReply as it is, anything else logged and answered 451. */
  private reply(err: unknown, stage: string): Error {
    if (err instanceof SmtpReply) return err;
    this.logger.error(`inbound SMTP ${stage} failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
    return tryLater();
  }
}
