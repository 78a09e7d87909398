import { Injectable, Logger } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { PlatformValidationPipe } from '@platform/platform';
import { X509Certificate } from 'node:crypto';
import { EmailApiConfig } from '../config';
import { SentMails } from '../emails/sent-mails.service';
import { RecordFeedback } from '../inbound/record-feedback';
import { SesWebhookAnswerDto, SnsMessageDto } from './dto/ses-webhook.dto';
import { readSesEvent, sesFeedbackEvents } from './ses-events';
import { SnsClient } from './sns-client';
import { snsUrlAllowed, verifySnsSignature } from './sns-signature';

const refused = (code: string, message: string, suggestion: string) => new ApiError(403, code, message, { suggestion });

/**
 * `POST /webhooks/ses`: Amazon SES events through SNS. Every delivery is checked before use: its
 * topic is one of SES_SNS_TOPIC_ARNS, its certificate URL https on an SNS host
 * (SNS_CERT_HOST_PATTERN), its signature verifies with that certificate (SignatureVersion 1:
 * SHA1withRSA, 2: SHA256withRSA); anything else is refused with 403. A SubscriptionConfirmation is
 * confirmed by GETting its SubscribeURL (on an SNS host as well); a Notification's SES Bounce,
 * Complaint or Delivery is matched to its mail by SES's message id (stored from the SMTP answer when
 * the mail was sent) and recorded as the SMTP reports are, under the same keys: a duplicate (SNS
 * retries, or the same bounce also reported by a DSN) records nothing new.
 */
@Injectable()
export class SesWebhookService {
  private readonly logger = new Logger('SesWebhook');
  private readonly topics: Set<string>;
  private readonly hostPattern: RegExp;
  private readonly validation = new PlatformValidationPipe({ whitelist: true, forbidNonWhitelisted: false });

  constructor(
    config: EmailApiConfig,
    private readonly sns: SnsClient,
    private readonly sentMails: SentMails,
    private readonly feedback: RecordFeedback,
  ) {
    this.topics = new Set((config.SES_SNS_TOPIC_ARNS ?? '').split(',').map((s) => s.trim()).filter(Boolean));
    this.hostPattern = new RegExp(config.SNS_CERT_HOST_PATTERN);
  }

  async receive(body: unknown): Promise<SesWebhookAnswerDto> {
    const m = (await this.validation.transform(body, { type: 'body', metatype: SnsMessageDto })) as SnsMessageDto;
    if (!this.topics.has(m.TopicArn)) {
      throw refused('SNS_TOPIC_NOT_ALLOWED', `Deliveries of the topic ${m.TopicArn} are not taken here`, 'Subscribe this endpoint to a topic listed in SES_SNS_TOPIC_ARNS, or add the topic there.');
    }
    if (!m.Signature || !m.SignatureVersion || !m.SigningCertURL) {
      throw refused('SNS_SIGNATURE_MISSING', 'The delivery is not signed (Signature, SignatureVersion and SigningCertURL are required)', 'Only Amazon SNS deliveries are taken; SNS signs every message.');
    }
    if (!snsUrlAllowed(m.SigningCertURL, this.hostPattern, 'certificate')) {
      throw refused('SNS_CERT_URL_NOT_ALLOWED', 'SigningCertURL is not an https .pem URL on an SNS host', 'Only certificates served by Amazon SNS (https://sns.<region>.amazonaws.com/…pem) are trusted.');
    }
    let certificate: X509Certificate;
    try {
      certificate = await this.sns.certificate(m.SigningCertURL);
    } catch (err) {
      this.logger.warn(`SNS certificate ${m.SigningCertURL}: ${(err as Error).message}`);
      throw new ApiError(502, 'SNS_CERTIFICATE_UNAVAILABLE', 'The signing certificate could not be fetched', { suggestion: 'SNS delivers the message again later; check that this service reaches SNS over https.' });
    }
    if (!verifySnsSignature(m, certificate)) {
      throw refused('SNS_SIGNATURE_INVALID', 'The signature does not verify with the signing certificate', 'Only unmodified Amazon SNS deliveries are taken.');
    }
    switch (m.Type) {
      case 'SubscriptionConfirmation':
        return this.confirm(m);
      case 'UnsubscribeConfirmation':
        this.logger.warn(`SNS unsubscribed this endpoint from ${m.TopicArn}`);
        return { type: m.Type };
      default:
        return this.notification(m);
    }
  }

  private async confirm(m: SnsMessageDto): Promise<SesWebhookAnswerDto> {
    if (!snsUrlAllowed(m.SubscribeURL, this.hostPattern, 'subscribe')) {
      throw refused('SNS_SUBSCRIBE_URL_NOT_ALLOWED', 'SubscribeURL is not an https URL on an SNS host', 'Only subscriptions confirmed at Amazon SNS are taken.');
    }
    try {
      await this.sns.confirmSubscription(m.SubscribeURL!);
    } catch (err) {
      this.logger.warn(`SNS subscription to ${m.TopicArn} not confirmed: ${(err as Error).message}`);
      throw new ApiError(502, 'SNS_CONFIRMATION_FAILED', 'Confirming the subscription at SNS failed', { suggestion: 'SNS sends the confirmation again; check that this service reaches SNS over https.' });
    }
    this.logger.log(`SNS subscription to ${m.TopicArn} confirmed`);
    return { type: m.Type, confirmed: true };
  }

  private async notification(m: SnsMessageDto): Promise<SesWebhookAnswerDto> {
    const summary = readSesEvent(m.Message);
    if (!summary) {
      this.logger.warn(`SNS notification ${m.MessageId} of ${m.TopicArn} carries no SES event`);
      return { type: m.Type, sesEventType: '', emailId: null, events: 0, recorded: 0 };
    }
    const emailId = summary.providerMessageId ? await this.sentMails.byProviderMessageId(summary.providerMessageId) : null;
    const [mail] = emailId ? await this.sentMails.find([emailId]) : [];
    if (!mail || mail.projectId === null) return { type: m.Type, sesEventType: summary.type, emailId: mail ? mail.id : null, events: 0, recorded: 0 };
    const events = sesFeedbackEvents(summary, { emailId: mail.id, recipient: mail.recipient }, m.MessageId);
    return { type: m.Type, sesEventType: summary.type, emailId: mail.id, events: events.length, recorded: await this.feedback.record(events) };
  }
}
