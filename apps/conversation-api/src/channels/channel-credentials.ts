import { Injectable } from '@nestjs/common';
import { ConversationApiConfig } from '../config';
import { loadEncryptionKey, SecretBox } from '../common/secrets';

export interface WhatsAppCredentials {
  access_token: string;
  app_secret: string;
  verify_token: string;
}

/** Channel credentials at rest: AES-256-GCM with CONVERSATION_ENCRYPTION_KEY, bound to the channel id. */
@Injectable()
export class ChannelCredentials {
  private readonly box: SecretBox;

  constructor(config: ConversationApiConfig) {
    this.box = new SecretBox(loadEncryptionKey(config));
  }

  seal(channelId: string, credentials: WhatsAppCredentials): string {
    return this.box.seal(JSON.stringify(credentials), `channel:${channelId}`);
  }

  /** Throws a clear error when the value was sealed under another CONVERSATION_ENCRYPTION_KEY. */
  open(channelId: string, sealed: string): WhatsAppCredentials {
    try {
      return JSON.parse(this.box.open(sealed, `channel:${channelId}`)) as WhatsAppCredentials;
    } catch {
      throw new Error(`the credentials of channel ${channelId} cannot be decrypted: CONVERSATION_ENCRYPTION_KEY is not the key they were stored with`);
    }
  }
}
