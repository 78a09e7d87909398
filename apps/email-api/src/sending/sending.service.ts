import { Injectable } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { EmailApiConfig } from '../config';
import { SendingRepository } from './sending.repository';

export interface SendingSettings {
  /** The project's own rate (mails per second), null: the default. */
  sendRate: number | null;
  /** The rate in force. */
  effectiveRate: number;
  defaultRate: number;
  maxRate: number;
}

/** The project's send throttle setting (every kind of mail; see emails/throttle.ts). */
@Injectable()
export class SendingService {
  constructor(
    private readonly config: EmailApiConfig,
    private readonly sending: SendingRepository,
  ) {}

  async get(projectId: string): Promise<SendingSettings> {
    return this.view(await this.sending.sendRate(projectId));
  }

  async set(projectId: string, rate: number | null): Promise<SendingSettings> {
    if (rate !== null && rate > this.config.EMAIL_SEND_RATE_MAX) {
      throw new ApiError(422, 'VALIDATION_ERROR', `sendRate must be at most ${this.config.EMAIL_SEND_RATE_MAX} mails per second`, {
        errors: [{ field: 'sendRate', message: `at most ${this.config.EMAIL_SEND_RATE_MAX}`, code: 'too_big' }],
        suggestion: 'Ask the operator to raise EMAIL_SEND_RATE_MAX, or send at most that rate.',
      });
    }
    await this.sending.setSendRate(projectId, rate);
    return this.view(rate);
  }

  private view(rate: number | null): SendingSettings {
    return { sendRate: rate, effectiveRate: rate ?? this.config.EMAIL_SEND_RATE, defaultRate: this.config.EMAIL_SEND_RATE, maxRate: this.config.EMAIL_SEND_RATE_MAX };
  }
}
