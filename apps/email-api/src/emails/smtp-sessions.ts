import { Readable } from 'node:stream';
import { parseConnectionUrl } from 'nodemailer/lib/shared';
import SMTPConnection from 'nodemailer/lib/smtp-connection';

/** Why a mail did not go through, and whether the server may have it anyway. */
export class DeliveryError extends Error {
  constructor(
    message: string,
    /** The server's reply code when it refused the mail (it does not have it then). */
    readonly responseCode: number | undefined,
    /**
     * The end of the data was written and the connection failed before the server's answer: the
     * server may have accepted the mail. Sending it again could deliver a second copy.
     */
    readonly uncertain: boolean,
    /** Failed before the server answered DATA: no byte of the message reached it. */
    readonly beforeData = false,
  ) {
    super(message);
    this.name = 'DeliveryError';
  }
}

export interface SmtpSessionOptions {
  /** `smtp://[user:pass@]host:port` or `smtps://…` (nodemailer's URL form, query options included). */
  url: string;
  /** Connections kept open at most. */
  size: number;
  connectionTimeout: number;
  greetingTimeout: number;
  socketTimeout: number;
}

type Envelope = { from: string; to: string[] };
/**
 * Records the mail as handed over and calls `endData()` when the server may have it: at the latest
 * together with the record's commit (Database.commitWith). Rejecting before `endData()` leaves the
 * data unended, so the server drops the mail.
 */
export type HandOver = (endData: () => void) => Promise<void>;
type SendError = Error & { responseCode?: number };

/**
 * A pool of SMTP connections (nodemailer's SMTPConnection: EHLO, STARTTLS, AUTH, PIPELINING) that
 * hands a message over in two steps. `deliver` sends the envelope and the message, then holds back
 * the line that ends the data (`<CRLF>.<CRLF>`) and leaves it to `handOver`: the caller ends the
 * data in the same step as it commits its record of the hand-over. A sender that dies before never
 * ended the data, so the server dropped the mail, and the mail is still queued: it is sent again
 * whole. One that dies after had its record committed: the mail is not sent again. (nodemailer's
 * own pool sends the message in one go, which leaves a round trip in which a mail is accepted but
 * not yet recorded.)
 *
 * Connections are opened on demand up to `size`, reused while they answer, and closed after any
 * failure; a reused connection that fails before the server saw any of the message is replaced and
 * the mail tried again, at the latest on a fresh connection (servers close idle connections).
 */
export class SmtpSessions {
  private readonly options: SMTPConnection.Options;
  private readonly auth: SMTPConnection.AuthenticationCredentials | undefined;
  private readonly idle: SMTPConnection[] = [];
  private readonly dead = new WeakSet<SMTPConnection>();
  private readonly waiting: Array<() => void> = [];
  private open = 0;
  private closed = false;

  constructor(private readonly settings: SmtpSessionOptions) {
    const { auth, ...options } = parseConnectionUrl(settings.url) as SMTPConnection.Options & { auth?: { user?: string; pass?: string } };
    this.options = { ...options, connectionTimeout: settings.connectionTimeout, greetingTimeout: settings.greetingTimeout, socketTimeout: settings.socketTimeout };
    this.auth = auth?.user ? { credentials: { user: auth.user, pass: auth.pass ?? '' } } : undefined;
  }

  /** Connections open now (idle or sending). */
  get connections(): number {
    return this.open;
  }

  /**
   * Sends `raw` to `envelope.to`; resolves with the server's acceptance reply once `handOver`
   * resolved too. Throws a DeliveryError: a refusal (`responseCode`), a failure before the data
   * ended (the server does not have the mail), or one after (`uncertain`: the answer was lost, or the
   * record failed after the data was ended). `handOver` is called once the message body is on the
   * socket.
   */
  async deliver(envelope: Envelope, raw: Buffer, handOver: HandOver): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      const { connection, reused } = await this.acquire();
      let healthy = false;
      try {
        const response = await this.transfer(connection, envelope, raw, handOver);
        healthy = true;
        return response;
      } catch (err) {
        const failure = err as DeliveryError;
        // A reused connection the server had closed meanwhile (421: closing the channel): nothing of the
        // mail reached it. The next idle one may be as old, so this goes on until a fresh connection.
        if (failure.beforeData && (failure.responseCode === undefined || failure.responseCode === 421) && reused && attempt <= this.settings.size) continue;
        throw failure;
      } finally {
        this.release(connection, healthy);
      }
    }
  }

  /** Closes the idle connections (QUIT) and refuses new deliveries; connections in use close when released. */
  close(): void {
    this.closed = true;
    for (const connection of this.idle.splice(0)) {
      this.open--;
      connection.quit();
    }
    for (const wake of this.waiting.splice(0)) wake();
  }

  private async transfer(connection: SMTPConnection, envelope: Envelope, raw: Buffer, handOver: HandOver): Promise<string> {
    let reads = 0;
    let ended = false;
    let answered = false;
    let recorded: Promise<void> | null = null;
    // highWaterMark 0: a read is asked for only once the previous chunk went on to the socket.
    const message = new Readable({
      highWaterMark: 0,
      read() {
        reads++;
        // First read: the server answered DATA (354) and the connection pipes the message to its socket.
        if (reads === 1) this.push(raw);
        // Second: the body is on the socket; only the end of the data is left, and handOver decides when.
        else if (reads === 2) {
          recorded = handOver(() => {
            // A connection that failed meanwhile never gets the end of the data: the mail is not sent.
            const socket = connection._socket;
            if (ended || answered || !socket || !socket.writable) return;
            ended = true;
            this.push(null);
          });
          recorded.catch((err: unknown) => {
            if (!ended) this.destroy(err instanceof Error ? err : new Error(String(err)));
          });
        }
      },
    });
    const answer = await new Promise<{ response: string } | { error: SendError }>((resolve) =>
      // A copy: the connection keeps its state of the transaction (errors included) on the object it is given.
      connection.send({ from: envelope.from, to: [...envelope.to] }, message, (err: SendError | null, info) => {
        answered = true;
        resolve(err ? { error: err } : { response: info.response });
      }),
    );
    // The record of the hand-over, if it began, settles too before the outcome is known.
    const recordError = recorded ? await (recorded as Promise<void>).then(() => null, (err: SendError) => err) : null;
    if ('error' in answer) throw this.failure(answer.error, ended, reads);
    // Accepted, but the record failed after the data was ended: the caller must not send it again.
    if (recordError) throw this.failure(recordError, ended, reads);
    return answer.response;
  }

  private failure(err: SendError, ended: boolean, reads: number): DeliveryError {
    return new DeliveryError(err.message, err.responseCode, ended && err.responseCode === undefined, reads === 0);
  }

  private async acquire(): Promise<{ connection: SMTPConnection; reused: boolean }> {
    for (;;) {
      if (this.closed) throw new DeliveryError('the SMTP connection pool is closed', undefined, false);
      const idle = this.idle.pop();
      if (idle) {
        if (!this.dead.has(idle)) return { connection: idle, reused: true };
        continue;
      }
      if (this.open < this.settings.size) {
        this.open++;
        try {
          return { connection: await this.connect(), reused: false };
        } catch (err) {
          this.open--;
          this.waiting.shift()?.();
          const failure = err as SendError;
          throw new DeliveryError(failure.message, failure.responseCode, false);
        }
      }
      await new Promise<void>((wake) => this.waiting.push(wake));
    }
  }

  private release(connection: SMTPConnection, healthy: boolean): void {
    if (healthy && !this.closed && !this.dead.has(connection)) {
      this.idle.push(connection);
    } else {
      this.open--;
      this.dead.add(connection);
      connection.close();
    }
    this.waiting.shift()?.();
  }

  private connect(): Promise<SMTPConnection> {
    return new Promise<SMTPConnection>((resolve, reject) => {
      const connection = new SMTPConnection(this.options);
      let settled = false;
      const fail = (err: Error) => {
        if (settled) return;
        settled = true;
        connection.close();
        reject(err);
      };
      // Errors while sending also reach the send callback; an idle connection's error ends it.
      connection.on('error', (err: Error) => {
        this.dead.add(connection);
        fail(err);
      });
      connection.once('end', () => {
        this.dead.add(connection);
        const index = this.idle.indexOf(connection);
        if (index >= 0) {
          this.idle.splice(index, 1);
          this.open--;
          this.waiting.shift()?.();
        }
        fail(new Error('the SMTP server closed the connection'));
      });
      connection.connect((err?: Error) => {
        if (err) return fail(err);
        if (settled) return;
        if (!this.auth || !connection.allowsAuth) {
          settled = true;
          return resolve(connection);
        }
        connection.login(this.auth, (loginErr) => {
          if (loginErr) return fail(loginErr);
          settled = true;
          resolve(connection);
        });
      });
    });
  }
}
