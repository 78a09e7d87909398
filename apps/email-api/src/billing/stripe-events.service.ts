import { Injectable, Logger } from '@nestjs/common';
import { Transactions } from '@platform/database';
import type Stripe from 'stripe';
import { ProjectDirectory } from '../access/project-directory.service';
import { BILLING_DISABLED_PREFIX, type BillingPlan } from './billing';
import { BillingRepository } from './billing.repository';
import { StripeGateway } from './stripe-gateway';

export interface StripeWebhookAnswer {
  received: true;
  eventId: string;
  type: string;
  /** The event was delivered before (same id): nothing was done again. */
  duplicate: boolean;
  /** What it changed: `plan_active`, `plan_past_due`, `plan_canceled`, or `ignored` (another type, an unknown customer, or older than the state in place). */
  outcome: 'plan_active' | 'plan_past_due' | 'plan_canceled' | 'ignored';
  projectId: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The id of an expandable Stripe field (a string, or an object with `id`). */
function idOf(value: string | { id?: string } | null | undefined): string | null {
  if (typeof value === 'string') return value;
  return value?.id ?? null;
}

/**
 * `POST /webhooks/incoming/stripe`: the delivery is verified (StripeGateway.verifyEvent), then in one
 * transaction its event id is recorded (a redelivery or replay of the same event does nothing) and
 * the event applied to the project of its customer:
 *
 * | event | plan | project |
 * |---|---|---|
 * | `checkout.session.completed` (paid, or no payment required) | `active` | re-enabled if billing disabled it; the customer kept |
 * | `invoice.paid` | `active` | re-enabled if billing disabled it |
 * | `invoice.payment_failed` | `past_due` | disabled (`billing: payment failed …`) |
 * | `customer.subscription.deleted` | `canceled` | disabled (`billing: subscription … ended`) |
 *
 * Stripe does not deliver in order: an event older (its `created`) than the one that set the plan
 * in place changes nothing. Other event types are recorded and ignored.
 */
@Injectable()
export class StripeEvents {
  private readonly logger = new Logger('StripeWebhook');

  constructor(
    private readonly transactions: Transactions,
    private readonly repo: BillingRepository,
    private readonly stripe: StripeGateway,
    private readonly projects: ProjectDirectory,
  ) {}

  async receive(raw: Buffer, signature: string | undefined): Promise<StripeWebhookAnswer> {
    const event = this.stripe.verifyEvent(raw, signature);
    const answer = await this.transactions.transaction(async (): Promise<StripeWebhookAnswer> => {
      const projectId = await this.projectOf(event);
      const base = { received: true as const, eventId: event.id, type: event.type, projectId };
      if (!(await this.repo.markEvent(event.id, event.type, projectId))) return { ...base, duplicate: true, outcome: 'ignored' };
      if (!projectId) return { ...base, duplicate: false, outcome: 'ignored' };
      return { ...base, duplicate: false, outcome: await this.apply(event, projectId) };
    });
    this.logger.log(`${event.type} ${event.id}${answer.projectId ? ` for project ${answer.projectId}` : ''}: ${answer.duplicate ? 'duplicate' : answer.outcome}`);
    return answer;
  }

  private async apply(event: Stripe.Event, projectId: string): Promise<StripeWebhookAnswer['outcome']> {
    const at = new Date(event.created * 1000);
    switch (event.type) {
      case 'checkout.session.completed': {
        const session = event.data.object;
        const customer = idOf(session.customer);
        if (customer) await this.repo.keepCustomer(projectId, customer);
        if (session.payment_status === 'unpaid') return 'ignored';
        return this.setPlan(projectId, 'active', at, idOf(session.subscription));
      }
      case 'invoice.paid':
        return this.setPlan(projectId, 'active', at, null);
      case 'invoice.payment_failed':
        return this.setPlan(projectId, 'past_due', at, null, `payment failed for invoice ${event.data.object.id ?? ''}`.trim());
      case 'customer.subscription.deleted':
        return this.setPlan(projectId, 'canceled', at, event.data.object.id, `subscription ${event.data.object.id} ended`);
      default:
        return 'ignored';
    }
  }

  private async setPlan(projectId: string, plan: BillingPlan, at: Date, subscriptionId: string | null, disableReason?: string): Promise<StripeWebhookAnswer['outcome']> {
    if (!(await this.repo.setPlan(projectId, plan, at, subscriptionId))) return 'ignored';
    if (plan === 'active') await this.projects.enableIfDisabledFor(projectId, BILLING_DISABLED_PREFIX);
    else await this.projects.disable(projectId, `${BILLING_DISABLED_PREFIX}${disableReason ?? plan}`);
    return `plan_${plan}` as StripeWebhookAnswer['outcome'];
  }

  /** The project of the event's customer; for a checkout session of a new customer, its `client_reference_id`. */
  private async projectOf(event: Stripe.Event): Promise<string | null> {
    const object = event.data.object as { object?: string; customer?: string | { id?: string } | null; client_reference_id?: string | null; metadata?: Record<string, string> | null };
    const customer = idOf(object.customer);
    const known = customer ? await this.repo.projectOfCustomer(customer) : null;
    if (known) return known;
    if (object.object === 'checkout.session') {
      const reference = object.client_reference_id ?? object.metadata?.['projectId'] ?? null;
      if (reference && UUID.test(reference) && (await this.projects.exists(reference))) return reference;
    }
    return null;
  }
}
