import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { verifyHmacSignature } from '@platform/http-safety';
import { mayNeedStripping, stripNul } from '../common/strip-nul';
import { AutomationConfig } from '../config';
import { AccountsService, type WebhookAccount } from '../accounts/accounts.service';
import type { NewInbound } from '../engine/inbound';
import { InboundService } from '../engine/inbound.service';
import { InboundWorker } from '../engine/inbound.worker';
import { InboundWriter } from './inbound-writer';
import { WebhookAccounts } from './webhook-accounts';
import { entryIds, itemsFor, readDelivery, UnreadableDeliveryError, type DeliveryEntry } from './webhook-payload';

/**
 * The platform's webhooks: verification handshake and the receiver. A delivery is checked against
 * the app secrets over the raw bytes, split into work items keyed by the platform's ids (comment id,
 * message mid, postback mid) and stored — duplicates are dropped by the unique key — then the
 * worker is woken; the answer does not wait for any processing. On the usual path a delivery costs
 * one database statement: the accounts come from a short-lived cache (WebhookAccounts) and the
 * items of concurrent deliveries are inserted together (InboundWriter). A signed delivery that is
 * not in the platform's shape is answered 400 and kept for inspection, unprocessed
 * (webhook-payload.ts, InboundService.keepUnreadable).
 */
@Injectable()
export class WebhooksService {
  private readonly logger = new Logger(WebhooksService.name);

  constructor(
    private readonly repo: AccountsService,
    private readonly accounts: WebhookAccounts,
    private readonly writer: InboundWriter,
    private readonly worker: InboundWorker,
    private readonly inbound: InboundService,
    @Inject(AutomationConfig) private readonly config: AutomationConfig,
  ) {}

  async verify(mode: string | undefined, token: string | undefined, challenge: string | undefined): Promise<string> {
    const known = token !== undefined && token !== '' && (token === this.config.IG_VERIFY_TOKEN || (await this.repo.verifyTokenKnown(token)));
    if (mode !== 'subscribe' || !known) {
      throw new ApiError(403, 'FORBIDDEN', 'Webhook verification failed: hub.mode must be subscribe and hub.verify_token must equal IG_VERIFY_TOKEN');
    }
    return challenge ?? '';
  }

  async receive(raw: Buffer | undefined, signature: string | undefined, parsed: unknown): Promise<number> {
    // JSON carries U+0000 and unpaired surrogates only as \u escapes; PostgreSQL stores neither.
    const body = raw && mayNeedStripping(raw) ? stripNul(parsed) : parsed;
    const ids = entryIds(body);
    let found = await this.accounts.find(ids);
    // A secret remembered from an earlier read may have been replaced since: read again before refusing.
    if (!this.signed(raw, signature, found.accounts) && found.cached) found = await this.accounts.find(ids, true);
    if (!this.signed(raw, signature, found.accounts)) {
      throw new ApiError(401, 'INVALID_SIGNATURE', 'X-Hub-Signature-256 is missing or does not match the body signed with the app secret');
    }
    const entries = await this.read(raw, body, found.accounts);
    const byIg = new Map(found.accounts.map((a) => [a.ig_user_id, a.id]));
    const items: NewInbound[] = [];
    for (const entry of entries) {
      const accountId = byIg.get(entry.id ?? '');
      if (accountId === undefined) {
        this.logger.warn(`webhook for unknown account ${String(entry.id)} ignored`);
        continue;
      }
      items.push(...itemsFor(accountId, entry.events));
    }
    const stored = await this.writer.store(items);
    if (stored > 0) this.worker.wake();
    return stored;
  }

  /** The delivery's entries; one it cannot read is kept for inspection (once per body), then refused with 400. */
  private async read(raw: Buffer | undefined, body: unknown, accounts: WebhookAccount[]): Promise<DeliveryEntry[]> {
    try {
      return readDelivery(body);
    } catch (err) {
      if (!(err instanceof UnreadableDeliveryError)) throw err;
      this.logger.warn(`unreadable webhook delivery kept, not processed: ${err.reason}`);
      const dedupKey = `unreadable:${createHash('sha256').update(raw ?? '').digest('hex')}`;
      await this.inbound.keepUnreadable({ accountId: accounts[0]?.id ?? null, dedupKey, body, reason: err.reason });
      throw err;
    }
  }

  /** Whether `signature` is the body's HMAC with IG_APP_SECRET or the secret of one of the delivery's accounts. */
  private signed(raw: Buffer | undefined, signature: string | undefined, accounts: WebhookAccount[]): boolean {
    if (!raw || !signature) return false;
    const secrets = new Set([this.config.IG_APP_SECRET, ...accounts.map((a) => a.app_secret)]);
    for (const secret of secrets) if (secret && verifyHmacSignature(raw, secret, signature)) return true;
    return false;
  }
}
