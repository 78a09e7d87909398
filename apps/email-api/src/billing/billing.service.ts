import { Injectable } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { EmailApiConfig } from '../config';
import { billingDisabled } from './billing';
import { BillingRepository } from './billing.repository';
import { StripeGateway, type StripeInvoice } from './stripe-gateway';

export interface CheckoutRequest {
  successUrl?: string;
  cancelUrl?: string;
}

/**
 * The billing provider's routes for one project: a Checkout Session for the paid plan (the
 * project's Stripe customer created once and kept), the customer portal and the invoices. Each
 * answers 503 BILLING_DISABLED while Stripe is not configured.
 */
@Injectable()
export class BillingService {
  constructor(
    private readonly repo: BillingRepository,
    private readonly stripe: StripeGateway,
    private readonly config: EmailApiConfig,
  ) {}

  get configured(): boolean {
    return this.stripe.configured;
  }

  private get dashboard(): string {
    return this.config.DASHBOARD_URL ?? this.config.PUBLIC_BASE_URL;
  }

  async checkout(project: { id: string; name: string }, email: string | null, body: CheckoutRequest): Promise<{ id: string; url: string; expiresAt: Date | null; customerId: string }> {
    this.assertConfigured();
    const customerId = await this.customerOf(project, email);
    const session = await this.stripe.createCheckoutSession({
      customerId,
      projectId: project.id,
      successUrl: body.successUrl ?? `${this.dashboard}?billing=success&project=${project.id}`,
      cancelUrl: body.cancelUrl ?? `${this.dashboard}?billing=cancelled&project=${project.id}`,
    });
    return { ...session, customerId };
  }

  async portal(projectId: string, returnUrl?: string): Promise<{ id: string; url: string }> {
    this.assertConfigured();
    const account = await this.repo.account(projectId);
    if (!account?.stripeCustomerId) {
      throw new ApiError(409, 'BILLING_CUSTOMER_MISSING', 'This project has no Stripe customer yet', {
        suggestion: 'Start a subscription first with POST /users/@me/projects/:id/checkout; the portal manages an existing customer.',
      });
    }
    return this.stripe.createPortalSession(account.stripeCustomerId, returnUrl ?? this.dashboard);
  }

  /** The customer's invoices, newest first (none before the first checkout). */
  async invoices(projectId: string, limit: number, startingAfter?: string): Promise<{ data: StripeInvoice[]; hasMore: boolean; cursor: string | null }> {
    this.assertConfigured();
    const account = await this.repo.account(projectId);
    if (!account?.stripeCustomerId) return { data: [], hasMore: false, cursor: null };
    const page = await this.stripe.listInvoices(account.stripeCustomerId, limit, startingAfter);
    return { ...page, cursor: page.hasMore && page.data.length ? page.data[page.data.length - 1].id : null };
  }

  /** The project's Stripe customer, created at the first checkout and kept on the project. */
  private async customerOf(project: { id: string; name: string }, email: string | null): Promise<string> {
    const account = await this.repo.account(project.id);
    if (account?.stripeCustomerId) return account.stripeCustomerId;
    const created = await this.stripe.createCustomer(project, email);
    return this.repo.keepCustomer(project.id, created);
  }

  private assertConfigured(): void {
    if (!this.stripe.configured) throw billingDisabled();
  }
}
