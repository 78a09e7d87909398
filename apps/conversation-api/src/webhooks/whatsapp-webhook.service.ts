import { Injectable, Logger } from '@nestjs/common';
import { safeEqual } from '@platform/auth';
import { ApiError } from '@platform/errors';
import { verifyHmacSignature } from '@platform/http-safety';
import type { WhatsAppCredentials } from '../channels/channel-credentials';
import { ChannelsService, type WebhookChannel } from '../channels/channels.service';
import { WhatsAppClient } from '../channels/whatsapp.client';
import { InboundService } from '../conversations/inbound.service';
import { InboundWriter } from '../conversations/inbound-writer';
import { MAX_MEDIA_BYTES, MediaStore } from '../media/media-store';
import { parseWhatsAppDelivery, PayloadError, type ParsedInbound } from './whatsapp-payload';

export interface DeliveryResult {
  received: number;
  duplicates: number;
  statuses: number;
  ignored: number;
}

const channelNotFound = () =>
  new ApiError(404, 'CHANNEL_NOT_FOUND', 'No channel with this id', { suggestion: 'Use the webhook_path of a channel from GET /api/v1/channels.' });

@Injectable()
export class WhatsAppWebhookService {
  private readonly logger = new Logger(WhatsAppWebhookService.name);

  constructor(
    private readonly channels: ChannelsService,
    private readonly whatsapp: WhatsAppClient,
    private readonly inbound: InboundService,
    private readonly writer: InboundWriter,
    private readonly media: MediaStore,
  ) {}

  /** The subscription handshake: echoes `hub.challenge` when `hub.mode=subscribe` and the verify token is the channel's. */
  async verify(channelId: string, mode?: string, token?: string, challenge?: string): Promise<string> {
    let found = await this.channelWithCredentials(channelId);
    // A verify token remembered from before may have been replaced: read the channel again before refusing.
    if (token && !safeEqual(token, found.creds.verify_token) && found.cached) found = await this.channelWithCredentials(channelId, true);
    if (mode !== 'subscribe' || !token || !safeEqual(token, found.creds.verify_token)) {
      throw new ApiError(403, 'VERIFICATION_FAILED', 'hub.mode must be subscribe and hub.verify_token the channel’s verify token', {
        suggestion: 'Configure the webhook at the provider with the verify token given when the channel was created.',
      });
    }
    if (!challenge) throw new ApiError(400, 'BAD_REQUEST', 'hub.challenge is missing', { suggestion: 'Send the challenge to echo as hub.challenge.' });
    return challenge;
  }

  /**
   * A delivery: `X-Hub-Signature-256` must be the HMAC-SHA256 of the raw body with the channel's app
   * secret (401 `INVALID_SIGNATURE`, nothing stored). Each message is stored once per provider id;
   * media URLs are looked up at the provider and the media downloaded into the media store (a failed
   * lookup or download keeps the media id and is logged); status callbacks
   * move our outgoing messages forward. Items for another phone number are not stored but logged and
   * counted on the channel (`status.ignored_items`), so a webhook shared by several numbers shows.
   * Unreadable credentials answer 409 `CHANNEL_CREDENTIALS_UNREADABLE`.
   */
  async receive(channelId: string, rawBody: Buffer | undefined, signature: string | undefined, body: unknown, requestId?: string): Promise<DeliveryResult> {
    let found = await this.channelWithCredentials(channelId);
    const signed = (creds: WhatsAppCredentials) => rawBody !== undefined && signature !== undefined && verifyHmacSignature(rawBody, creds.app_secret, signature);
    // A secret remembered from before may have been replaced: read the channel again before refusing.
    if (!signed(found.creds) && found.cached) found = await this.channelWithCredentials(channelId, true);
    if (!signed(found.creds)) {
      throw new ApiError(401, 'INVALID_SIGNATURE', 'X-Hub-Signature-256 is missing or does not match the body', {
        suggestion: 'Sign the raw body with the app secret of the channel: sha256=<hex HMAC-SHA256>.',
      });
    }
    const { channel, creds } = found;
    let delivery;
    try {
      delivery = parseWhatsAppDelivery(body);
    } catch (err) {
      if (err instanceof PayloadError) throw new ApiError(400, 'INVALID_PAYLOAD', `Not a WhatsApp Cloud API delivery: ${err.message}`, { suggestion: 'Send the provider’s webhook body unchanged.' });
      throw err;
    }
    const result: DeliveryResult = { received: 0, duplicates: 0, statuses: 0, ignored: 0 };
    const messages: ParsedInbound[] = [];
    for (const m of delivery.messages) {
      if (m.phoneNumberId !== channel.phoneNumberId) {
        result.ignored++;
        continue;
      }
      if (m.mediaId) {
        // Media is looked up at the provider once, not again on a redelivery.
        if (await this.inbound.seen(channel.id, m.sourceId)) {
          result.duplicates++;
          continue;
        }
        await this.resolveMedia(m, creds.access_token);
      }
      messages.push(m);
    }
    // Stored together with the messages of concurrent deliveries (one transaction), answered once committed.
    for (const stored of await this.writer.store({ channel, messages, correlationId: requestId })) {
      if (stored.duplicate) result.duplicates++;
      else result.received++;
    }
    const foreign = new Map<string, number>();
    for (const m of delivery.messages) if (m.phoneNumberId !== channel.phoneNumberId) foreign.set(m.phoneNumberId, (foreign.get(m.phoneNumberId) ?? 0) + 1);
    for (const s of delivery.statuses) {
      if (s.phoneNumberId !== channel.phoneNumberId) {
        result.ignored++;
        foreign.set(s.phoneNumberId, (foreign.get(s.phoneNumberId) ?? 0) + 1);
        continue;
      }
      if (await this.inbound.status(channel, s.sourceId, s.status, s.error)) result.statuses++;
    }
    for (const [phoneNumberId, n] of foreign) {
      this.logger.warn(`channel ${channel.id} (phone number id ${channel.phoneNumberId}) ignored ${n} webhook item(s) for phone number id ${phoneNumberId}`);
      await this.channels.countIgnored(channel.id, n, phoneNumberId);
    }
    return result;
  }

  private async resolveMedia(m: ParsedInbound, accessToken: string): Promise<void> {
    try {
      const info = await this.whatsapp.mediaInfo(m.mediaId!, accessToken);
      Object.assign(m.attachments[0], {
        ...(info.url ? { url: info.url } : {}),
        ...(info.mime_type ? { mime_type: info.mime_type } : {}),
        ...(typeof info.file_size === 'number' ? { file_size: info.file_size } : {}),
      });
      // The provider's URL expires within minutes: keep a copy, served by the API to agents.
      if (info.url) {
        const { bytes, mimeType } = await this.whatsapp.downloadMedia(info.url, accessToken, MAX_MEDIA_BYTES);
        Object.assign(m.attachments[0], { storage_key: await this.media.put(bytes), file_size: bytes.length, ...(!info.mime_type && mimeType ? { mime_type: mimeType } : {}) });
      }
    } catch (err) {
      this.logger.warn(`media ${m.mediaId} of message ${m.sourceId}: ${(err as Error).message}`);
    }
  }

  private async channelWithCredentials(channelId: string, fresh = false): Promise<WebhookChannel> {
    const found = await this.channels.forWebhook(channelId, fresh);
    if (!found) throw channelNotFound();
    return found;
  }
}
