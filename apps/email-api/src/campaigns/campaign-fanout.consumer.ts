import { Injectable } from '@nestjs/common';
import { EmailCampaignBatch, EventConsumer, OnEvent, type EmailCampaignBatchData, type EventEnvelope } from '@platform/messaging';
import { FanOutCampaignBatch } from './fan-out-batch';

/**
 * The campaign fan-out over RabbitMQ: each `email.campaign_batch` message writes the next 500
 * recipients of a sending campaign as queued mails (the send worker sends them) and enqueues the
 * next message, in the inbox's transaction (a redelivered message is skipped).
 */
@Injectable()
@EventConsumer('email-api.campaigns')
export class CampaignFanoutConsumer {
  constructor(private readonly fanOut: FanOutCampaignBatch) {}

  @OnEvent(EmailCampaignBatch)
  async batch(event: EventEnvelope<EmailCampaignBatchData>): Promise<void> {
    await this.fanOut.execute(event.data.campaignId, event.data.batch);
  }
}
