import { Injectable, Logger } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import Stripe from 'stripe';
import { EmailApiConfig } from '../config';
import { billingDisabled } from './billing';

/** How old a webhook's signed timestamp may be (the client's default, Stripe's recommendation: 5 minutes). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

export interface StripeInvoice {
  id: string;
  number: string | null;
  status: string | null;
  currency: string;
  amountDue: number;
  amountPaid: number;
  total: number;
  created: Date;
  periodStart: Date | null;
  periodEnd: Date | null;
  hostedInvoiceUrl: string | null;
  invoicePdf: string | null;
}

const date = (unix: number | null | undefined) => (typeof unix === 'number' ? new Date(unix * 1000) : null);

/**
 * The Stripe API through the official client (`stripe`), configured by STRIPE_SECRET_KEY and
 * STRIPE_API_BASE (host, port and protocol of the base URL: tests point it at a fake Stripe server),
 * with STRIPE_TIMEOUT_MS and two network retries (the client adds idempotency keys to retried POSTs).
 * Unconfigured: every call throws 503 BILLING_DISABLED. Stripe's refusals and outages are 502
 * BILLING_PROVIDER_ERROR.
 */
@Injectable()
export class StripeGateway {
  private readonly logger = new Logger('Stripe');
  private readonly client: Stripe | null;

  constructor(private readonly config: EmailApiConfig) {
    this.client = config.STRIPE_SECRET_KEY ? createStripeClient(config.STRIPE_SECRET_KEY, config.STRIPE_API_BASE, config.STRIPE_TIMEOUT_MS) : null;
  }

  get configured(): boolean {
    return this.client !== null;
  }

  private get stripe(): Stripe {
    if (!this.client) throw billingDisabled();
    return this.client;
  }

  /**
   * A customer for the project. The idempotency key is the project's, so two calls racing before
   * the first customer is kept get the same customer from Stripe (idempotency keys last 24 hours).
   */
  async createCustomer(project: { id: string; name: string }, email: string | null): Promise<string> {
    const customer = await this.call('create the customer', () =>
      this.stripe.customers.create(
        { name: project.name, ...(email ? { email } : {}), metadata: { projectId: project.id } },
        { idempotencyKey: `email-api-customer-${project.id}` },
      ),
    );
    return customer.id;
  }

  /** A Checkout Session in subscription mode for STRIPE_PRICE_ID; answers its id and URL. */
  async createCheckoutSession(opts: { customerId: string; projectId: string; successUrl: string; cancelUrl: string }): Promise<{ id: string; url: string; expiresAt: Date | null }> {
    const session = await this.call('create the checkout session', () =>
      this.stripe.checkout.sessions.create({
        mode: 'subscription',
        customer: opts.customerId,
        client_reference_id: opts.projectId,
        line_items: [{ price: this.config.STRIPE_PRICE_ID!, quantity: 1 }],
        success_url: opts.successUrl,
        cancel_url: opts.cancelUrl,
        metadata: { projectId: opts.projectId },
        subscription_data: { metadata: { projectId: opts.projectId } },
      }),
    );
    if (!session.url) throw providerError('create the checkout session', 'Stripe answered a session without a URL');
    return { id: session.id, url: session.url, expiresAt: date(session.expires_at) };
  }

  async createPortalSession(customerId: string, returnUrl: string): Promise<{ id: string; url: string }> {
    const session = await this.call('create the billing portal session', () => this.stripe.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl }));
    return { id: session.id, url: session.url };
  }

  /** One page of the customer's invoices, newest first. */
  async listInvoices(customerId: string, limit: number, startingAfter?: string): Promise<{ data: StripeInvoice[]; hasMore: boolean }> {
    const page = await this.call('list the invoices', () =>
      this.stripe.invoices.list({ customer: customerId, limit, ...(startingAfter ? { starting_after: startingAfter } : {}) }),
    );
    return {
      hasMore: page.has_more,
      data: page.data.map((i) => ({
        id: i.id!,
        number: i.number ?? null,
        status: i.status ?? null,
        currency: i.currency,
        amountDue: i.amount_due,
        amountPaid: i.amount_paid,
        total: i.total,
        created: new Date(i.created * 1000),
        periodStart: date(i.period_start),
        periodEnd: date(i.period_end),
        hostedInvoiceUrl: i.hosted_invoice_url ?? null,
        invoicePdf: i.invoice_pdf ?? null,
      })),
    };
  }

  /**
   * The event of a webhook delivery, verified by the client's `webhooks.constructEvent` over the raw
   * body with STRIPE_WEBHOOK_SECRET: a `v1` HMAC-SHA256 signature of `<t>.<body>` must match and `t`
   * be at most WEBHOOK_TOLERANCE_SECONDS old. Throws 400 STRIPE_SIGNATURE_INVALID otherwise.
   */
  verifyEvent(raw: Buffer, signature: string | undefined): Stripe.Event {
    const stripe = this.stripe;
    if (!signature) throw invalidSignature('The Stripe-Signature header is missing');
    try {
      return stripe.webhooks.constructEvent(raw, signature, this.config.STRIPE_WEBHOOK_SECRET!, WEBHOOK_TOLERANCE_SECONDS);
    } catch (err) {
      throw invalidSignature((err as Error).message);
    }
  }

  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof ApiError) throw err;
      const e = err as { type?: string; statusCode?: number; message?: string; requestId?: string };
      this.logger.warn(`Stripe refused to ${what}: ${e.type ?? 'error'} ${e.statusCode ?? ''} ${e.message ?? String(err)}${e.requestId ? ` (${e.requestId})` : ''}`);
      throw providerError(what, e.message ?? String(err));
    }
  }
}

/** The official client pointed at `apiBase` (`https://api.stripe.com`, or a fake server in tests). */
export function createStripeClient(secretKey: string, apiBase: string, timeoutMs: number): Stripe {
  const url = new URL(apiBase);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return new Stripe(secretKey, {
    host: url.hostname,
    port: url.port ? Number(url.port) : protocol === 'http' ? 80 : 443,
    protocol,
    timeout: timeoutMs,
    maxNetworkRetries: 2,
    telemetry: false,
    appInfo: { name: 'email-api' },
  });
}

const providerError = (what: string, detail: string) =>
  new ApiError(502, 'BILLING_PROVIDER_ERROR', `Stripe could not ${what}: ${detail}`, {
    suggestion: 'Try again in a moment; if it persists, check the Stripe dashboard and the server\'s STRIPE_* settings.',
  });

const invalidSignature = (detail: string) =>
  new ApiError(400, 'STRIPE_SIGNATURE_INVALID', `The webhook is not signed by Stripe with this endpoint's secret: ${detail}`, {
    suggestion: `Stripe signs each delivery (Stripe-Signature: t=…,v1=…) over the raw body with the endpoint's signing secret (STRIPE_WEBHOOK_SECRET); deliveries older than ${WEBHOOK_TOLERANCE_SECONDS} seconds are refused.`,
  });
