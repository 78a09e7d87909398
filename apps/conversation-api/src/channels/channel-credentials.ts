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

  open(channelId: string, sealed: string): WhatsAppCredentials {
    return JSON.parse(this.box.open(sealed, `channel:${channelId}`)) as WhatsAppCredentials;
  }
}
