import { Injectable } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { ConversationApiConfig } from '../config';

/** What a reply other than plain text sends through the WhatsApp Cloud API. */
export type OutboundPayload =
  | { kind: 'media'; type: 'image' | 'video' | 'audio' | 'document'; link: string; caption?: string; filename?: string }
  | { kind: 'template'; name: string; language: string; components?: Array<Record<string, unknown>> };

/** A failed call to the provider: its HTTP status and Graph API error, when it answered. */
export class ProviderError extends ApiError {
  constructor(
    message: string,
    readonly providerStatus?: number,
  ) {
    super(502, 'PROVIDER_ERROR', message, { suggestion: 'Check the channel credentials and the provider status, then retry.' });
  }
}

export interface MediaInfo {
  id: string;
  url?: string;
  mime_type?: string;
  sha256?: string;
  file_size?: number;
}

/**
 * WhatsApp Cloud API client (Graph API): `POST /{phone-number-id}/messages` to send, `GET /{media-id}`
 * for media. Base URL WHATSAPP_API_URL (the real one by default; tests start a fake provider).
 */
@Injectable()
export class WhatsAppClient {
  constructor(private readonly config: ConversationApiConfig) {}

  /** Sends a text; resolves with the provider's message id (`wamid.…`). */
  async sendText(phoneNumberId: string, accessToken: string, to: string, body: string): Promise<string> {
    const res = await this.call('POST', `/${encodeURIComponent(phoneNumberId)}/messages`, accessToken, {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to,
      type: 'text',
      text: { preview_url: false, body },
    });
    const id = (res as { messages?: Array<{ id?: unknown }> }).messages?.[0]?.id;
    if (typeof id !== 'string') throw new ProviderError('The provider accepted the message but returned no message id');
    return id;
  }

  /**
   * Sends media by link (`{type: image|video|audio|document, [type]: {link, caption?, filename?}}`)
   * or an approved template (`{type: template, template: {name, language: {code}, components}}`, the
   * only messages allowed outside the 24-hour customer service window); the provider's message id.
   */
  async sendPayload(phoneNumberId: string, accessToken: string, to: string, payload: OutboundPayload): Promise<string> {
    const body =
      payload.kind === 'template'
        ? { type: 'template', template: { name: payload.name, language: { code: payload.language }, ...(payload.components ? { components: payload.components } : {}) } }
        : {
            type: payload.type,
            [payload.type]: {
              link: payload.link,
              ...(payload.caption && payload.type !== 'audio' ? { caption: payload.caption } : {}),
              ...(payload.filename && payload.type === 'document' ? { filename: payload.filename } : {}),
            },
          };
    const res = await this.call('POST', `/${encodeURIComponent(phoneNumberId)}/messages`, accessToken, { messaging_product: 'whatsapp', recipient_type: 'individual', to, ...body });
    const id = (res as { messages?: Array<{ id?: unknown }> }).messages?.[0]?.id;
    if (typeof id !== 'string') throw new ProviderError('The provider accepted the message but returned no message id');
    return id;
  }

  /** Where a received media file can be downloaded (the URL needs the access token and expires after minutes). */
  async mediaInfo(mediaId: string, accessToken: string): Promise<MediaInfo> {
    return (await this.call('GET', `/${encodeURIComponent(mediaId)}`, accessToken)) as MediaInfo;
  }

  /**
   * Downloads a media file from the URL `mediaInfo` gave (it needs the access token and expires
   * within minutes). Only the provider's media hosts (https, `*.fbsbx.com`, `*.whatsapp.net`,
   * `*.facebook.com`) or WHATSAPP_API_URL's own origin are fetched, never any address a payload names.
   */
  async downloadMedia(url: string, accessToken: string, maxBytes: number): Promise<{ bytes: Buffer; mimeType: string | null }> {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      throw new ProviderError('The provider gave a media URL that is not a URL');
    }
    const api = new URL(this.config.WHATSAPP_API_URL);
    const providerHost = target.protocol === 'https:' && /(^|\.)(fbsbx\.com|whatsapp\.net|facebook\.com)$/i.test(target.hostname);
    if (!providerHost && target.origin !== api.origin) throw new ProviderError(`Media is only downloaded from the provider's hosts, not ${target.host}`);
    let res: Response;
    try {
      res = await fetch(target, { headers: { authorization: `Bearer ${accessToken}` }, redirect: 'error', signal: AbortSignal.timeout(Math.max(this.config.WHATSAPP_TIMEOUT_MS, 30_000)) });
    } catch (err) {
      throw new ProviderError(`The media could not be downloaded: ${(err as Error).message}`);
    }
    if (!res.ok) throw new ProviderError(`The provider refused the media download (${res.status})`, res.status);
    const declared = Number(res.headers.get('content-length') ?? '0');
    if (declared > maxBytes) throw new ProviderError(`The media is larger than ${maxBytes} bytes`);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.length;
      if (size > maxBytes) throw new ProviderError(`The media is larger than ${maxBytes} bytes`);
      chunks.push(Buffer.from(chunk));
    }
    return { bytes: Buffer.concat(chunks), mimeType: res.headers.get('content-type') };
  }

  private async call(method: 'GET' | 'POST', path: string, accessToken: string, body?: unknown): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(`${this.config.WHATSAPP_API_URL.replace(/\/+$/, '')}${path}`, {
        method,
        headers: { authorization: `Bearer ${accessToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(this.config.WHATSAPP_TIMEOUT_MS),
      });
    } catch (err) {
      throw new ProviderError(`The provider could not be reached: ${(err as Error).message}`);
    }
    const text = await res.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    if (!res.ok) {
      const error = (json as { error?: { message?: string; code?: number } } | null)?.error;
      throw new ProviderError(`The provider refused the request (${res.status}${error?.code ? `, code ${error.code}` : ''}): ${error?.message ?? text.slice(0, 200)}`, res.status);
    }
    if (!json || typeof json !== 'object') throw new ProviderError('The provider answered with no JSON object');
    return json;
  }
}
