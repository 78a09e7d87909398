import { Inject, Injectable, Logger } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { verifyHmacSignature } from '@platform/http-safety';
import { mayNeedStripping, stripNul } from '../common/strip-nul';
import { AutomationConfig } from '../config';
import { AccountsRepository, type WebhookAccount } from '../accounts/accounts.repository';
import type { NewInbound } from '../engine/inbound.repository';
import { InboundWorker } from '../engine/inbound.worker';
import { InboundWriter } from './inbound-writer';
import { WebhookAccounts } from './webhook-accounts';

interface WebhookEntry {
  id?: string;
  time?: number;
  changes?: Array<{ field?: string; value?: Record<string, any> }>;
  messaging?: Array<Record<string, any>>;
}

/**
 * The platform's webhooks: verification handshake and the receiver. A delivery is checked against
 * the app secrets over the raw bytes, split into work items keyed by the platform's ids (comment id,
 * message mid, postback mid) and stored — duplicates are dropped by the unique key — then the
 * worker is woken; the answer does not wait for any processing. On the usual path a delivery costs
 * one database statement: the accounts come from a short-lived cache (WebhookAccounts) and the
 * items of concurrent deliveries are inserted together (InboundWriter).
 */
@Injectable()
export class WebhooksService {
  private readonly logger = new Logger(WebhooksService.name);

  constructor(
    private readonly repo: AccountsRepository,
    private readonly accounts: WebhookAccounts,
    private readonly writer: InboundWriter,
    private readonly worker: InboundWorker,
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
    const entries: WebhookEntry[] = Array.isArray((body as { entry?: unknown })?.entry) ? (body as { entry: WebhookEntry[] }).entry : [];
    const ids = [...new Set(entries.map((e) => String(e.id ?? '')).filter(Boolean))];
    let found = await this.accounts.find(ids);
    // A secret remembered from an earlier read may have been replaced since: read again before refusing.
    if (!this.signed(raw, signature, found.accounts) && found.cached) found = await this.accounts.find(ids, true);
    if (!this.signed(raw, signature, found.accounts)) {
      throw new ApiError(401, 'INVALID_SIGNATURE', 'X-Hub-Signature-256 is missing or does not match the body signed with the app secret');
    }
    const byIg = new Map(found.accounts.map((a) => [a.ig_user_id, a.id]));
    const items: NewInbound[] = [];
    for (const entry of entries) {
      const accountId = byIg.get(String(entry.id ?? ''));
      if (accountId === undefined) {
        this.logger.warn(`webhook for unknown account ${String(entry.id)} ignored`);
        continue;
      }
      items.push(...toItems(accountId, String(entry.id), entry));
    }
    const stored = await this.writer.store(items);
    if (stored > 0) this.worker.wake();
    return stored;
  }

  /** Whether `signature` is the body's HMAC with IG_APP_SECRET or the secret of one of the delivery's accounts. */
  private signed(raw: Buffer | undefined, signature: string | undefined, accounts: WebhookAccount[]): boolean {
    if (!raw || !signature) return false;
    const secrets = new Set([this.config.IG_APP_SECRET, ...accounts.map((a) => a.app_secret)]);
    for (const secret of secrets) if (secret && verifyHmacSignature(raw, secret, signature)) return true;
    return false;
  }
}

/** The work items of one entry: comments (not our own), messages (not echoes), postbacks. */
export function toItems(accountId: number, entryId: string, entry: WebhookEntry): NewInbound[] {
  const out: NewInbound[] = [];
  for (const change of entry.changes ?? []) {
    const v = change.value;
    if (!v || (change.field !== 'comments' && change.field !== 'live_comments') || !v.id || !v.from?.id) continue;
    if (String(v.from.id) === entryId) continue; // the account's own comments (our public replies) come back here
    out.push({
      account_id: accountId,
      dedup_key: `comment:${v.id}`,
      kind: 'comment',
      subject: `${accountId}:${v.from.id}`,
      payload: {
        comment_id: String(v.id),
        media_id: v.media?.id ? String(v.media.id) : null,
        text: typeof v.text === 'string' ? v.text : '',
        from: { id: String(v.from.id), username: v.from.username ?? null },
        parent_id: v.parent_id ? String(v.parent_id) : null,
        entry_id: entryId,
      },
    });
  }
  for (const m of entry.messaging ?? []) {
    const sender = m.sender?.id ? String(m.sender.id) : null;
    if (!sender || sender === entryId) continue;
    if (m.message) {
      const msg = m.message;
      if (msg.is_echo || msg.is_deleted || !msg.mid) continue;
      const story = msg.reply_to?.story;
      out.push({
        account_id: accountId,
        dedup_key: `message:${msg.mid}`,
        kind: story ? 'story_reply' : 'message',
        subject: `${accountId}:${sender}`,
        payload: { mid: String(msg.mid), sender_id: sender, text: typeof msg.text === 'string' ? msg.text : '', story_id: story?.id ? String(story.id) : null, entry_id: entryId },
      });
    } else if (m.postback) {
      const mid = m.postback.mid ? String(m.postback.mid) : `${sender}:${m.timestamp ?? ''}:${m.postback.payload ?? ''}`;
      out.push({
        account_id: accountId,
        dedup_key: `postback:${mid}`,
        kind: 'postback',
        subject: `${accountId}:${sender}`,
        payload: { mid, sender_id: sender, payload: m.postback.payload ?? null, title: m.postback.title ?? null, entry_id: entryId },
      });
    }
  }
  return out;
}
