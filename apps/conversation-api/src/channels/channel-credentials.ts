import { Injectable } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { ConversationApiConfig } from '../config';
import { loadEncryptionKey, SecretBox } from '../common/secrets';
import type { EmailCredentials } from './email-settings';

export interface WhatsAppCredentials {
  access_token: string;
  app_secret: string;
  verify_token: string;
}

/**
 * The channel's credentials cannot be decrypted (stored under another CONVERSATION_ENCRYPTION_KEY):
 * 409 `CHANNEL_CREDENTIALS_UNREADABLE`, a clear answer instead of a 500 (which a provider retries).
 */
export class CredentialsUnreadableError extends ApiError {
  constructor(channelId: string) {
    super(409, 'CHANNEL_CREDENTIALS_UNREADABLE', `The credentials of channel ${channelId} cannot be decrypted: CONVERSATION_ENCRYPTION_KEY is not the key they were stored with`, {
      suggestion: 'Restore the CONVERSATION_ENCRYPTION_KEY they were stored with, or set all three credentials again with PATCH /api/v1/channels/{id}.',
    });
  }
}

/** Channel credentials at rest: AES-256-GCM with CONVERSATION_ENCRYPTION_KEY, bound to the channel id. */
@Injectable()
export class ChannelCredentials {
  private readonly box: SecretBox;

  constructor(config: ConversationApiConfig) {
    this.box = new SecretBox(loadEncryptionKey(config));
  }

  seal(channelId: string, credentials: WhatsAppCredentials | EmailCredentials): string {
    return this.box.seal(JSON.stringify(credentials), `channel:${channelId}`);
  }

  /** Throws a clear error when the value was sealed under another CONVERSATION_ENCRYPTION_KEY. */
  open<T extends WhatsAppCredentials | EmailCredentials = WhatsAppCredentials>(channelId: string, sealed: string): T {
    try {
      return JSON.parse(this.box.open(sealed, `channel:${channelId}`)) as T;
    } catch {
      throw new CredentialsUnreadableError(channelId);
    }
  }
}
