import { Injectable, Logger } from '@nestjs/common';
import { domainOfEmail } from '../domains/domain';
import { DomainsService } from '../domains/domains.service';
import { SentMails } from '../emails/sent-mails.service';
import { parseReturnPath } from '../emails/verp';
import type { InboundEnvelope } from './inbound-message';
import { RecordFeedback } from './record-feedback';
import { malformed, unknownRecipient } from './smtp-reply';
import { StoreInboundMessage } from './store-inbound-message';

/**
 * What the receiver does with each recipient and message. A recipient is taken when it is
 * - the return path of a mail this service sent (`bounces+<email id>@bounce.<domain>`, the mail
 *   existing and sent from that domain), or
 * - any address of a domain some project verified (inbound mail);
 * anything else is 550 5.1.1. Every message is read as a report first (RecordFeedback: a DSN or
 * ARF report records its bounces, complaints and deliveries, also one sent to a project's address,
 * as feedback loops do; a malformed one is refused with 554 5.6.0). A message to a return path that
 * is no report (an auto-reply) is dropped; one to a project's domain is stored for each project
 * that verified that domain (StoreInboundMessage).
 */
@Injectable()
export class InboundDelivery {
  private readonly logger = new Logger('InboundDelivery');

  constructor(
    private readonly sentMails: SentMails,
    private readonly domains: DomainsService,
    private readonly feedback: RecordFeedback,
    private readonly store: StoreInboundMessage,
  ) {}

  /** Takes the recipient or throws the SMTP refusal. */
  async acceptRecipient(address: string): Promise<void> {
    const returnPath = parseReturnPath(address);
    if (returnPath) {
      const [mail] = await this.sentMails.find([returnPath.emailId]);
      if (mail && domainOfEmail(mail.fromEmail) === returnPath.domain) return;
      throw unknownRecipient(address);
    }
    if ((await this.domains.projectsReceivingMailFor(domainOfEmail(address))).length) return;
    throw unknownRecipient(address);
  }

  /** Handles a received message; throws the SMTP refusal when it is not taken. */
  async deliver(raw: Buffer, envelope: InboundEnvelope): Promise<void> {
    const outcome = await this.feedback.fromMessage(raw.toString('utf8'), envelope.rcptTo);
    if (outcome.kind === 'malformed') throw malformed(outcome.reason);
    const inbound = envelope.rcptTo.filter((r) => !parseReturnPath(r));
    const projects = new Set<string>();
    for (const domain of new Set(inbound.map(domainOfEmail))) for (const p of await this.domains.projectsReceivingMailFor(domain)) projects.add(p);
    const stored = projects.size ? await this.store.execute(raw, envelope, [...projects]) : [];
    this.logger.log(
      `from ${envelope.remoteAddress} (${envelope.heloName}) to ${envelope.rcptTo.join(', ')}: ${outcome.kind}, ${outcome.recorded} of ${outcome.events} feedback events new, stored ${stored.length}`,
    );
  }
}
