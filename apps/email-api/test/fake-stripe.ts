import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake of the Stripe API on loopback, in Stripe's wire format, for the official `stripe` client
 * (configured with `host`, `port` and `protocol: 'http'`): form-encoded requests
 * (`application/x-www-form-urlencoded`, nested keys such as `line_items[0][price]`), `Authorization:
 * Bearer <secret key>`, JSON answers whose objects carry `object`, lists as `{object: 'list', data,
 * has_more, url}`, errors as `{error: {type, message, param?}}` with Stripe's statuses, and
 * `Idempotency-Key` honoured on POST (the same key answers the first answer again, as Stripe does
 * for 24 hours).
 *
 * Endpoints: `POST /v1/customers`, `POST /v1/checkout/sessions`, `POST /v1/billing_portal/sessions`,
 * `GET /v1/invoices` (`customer`, `limit`, `starting_after`; newest first).
 */
export interface FakeStripe {
  /** `http://127.0.0.1:<port>` (STRIPE_API_BASE) */
  url: string;
  /** Every request: method, path, the form fields (flat keys) or query, and the headers that matter. */
  calls: Array<{ method: string; path: string; params: Record<string, string>; idempotencyKey?: string; stripeVersion?: string }>;
  customers: Map<string, Record<string, unknown>>;
  /** Adds an invoice of a customer (newest last); answers it. */
  addInvoice(customer: string, fields?: Partial<{ status: string; amount_due: number; amount_paid: number; total: number; currency: string; number: string; created: number }>): Record<string, unknown>;
  /** The next request answers this status with a Stripe error (e.g. 500 api_error). */
  failNext(status: number, type?: string): void;
  close(): Promise<void>;
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

/** The `Stripe-Signature` header of a webhook body, made as Stripe makes it: `t=<unix seconds>,v1=<HMAC-SHA256 of "t.payload">`. */
export function signStripeWebhook(payload: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): string {
  const v1 = createHmac('sha256', secret).update(`${timestamp}.${payload}`, 'utf8').digest('hex');
  return `t=${timestamp},v1=${v1}`;
}

/** A Stripe event envelope (API object `event`) around `object`. */
export function stripeEvent(type: string, object: Record<string, unknown>, created = Math.floor(Date.now() / 1000)): Record<string, unknown> {
  return { id: id('evt'), object: 'event', api_version: '2025-11-17.clover', created, data: { object }, livemode: false, pending_webhooks: 1, request: { id: null, idempotency_key: null }, type };
}

export async function startFakeStripe(opts: { secretKey: string }): Promise<FakeStripe> {
  const calls: FakeStripe['calls'] = [];
  const customers = new Map<string, Record<string, unknown>>();
  const invoices: Array<Record<string, unknown>> = [];
  const idempotent = new Map<string, { status: number; body: unknown }>();
  let failure: { status: number; type: string } | null = null;

  const send = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'Request-Id': id('req') });
    res.end(text);
  };
  const error = (res: ServerResponse, status: number, type: string, message: string, param?: string) => send(res, status, { error: { type, message, ...(param ? { param } : {}) } });

  const route = (method: string, path: string, p: Record<string, string>): { status: number; body: unknown } => {
    const missing = (...names: string[]) => names.find((n) => !p[n]);
    const invalid = (param: string) => ({ status: 400, body: { error: { type: 'invalid_request_error', message: `Missing required param: ${param}.`, param } } });
    const now = Math.floor(Date.now() / 1000);
    if (method === 'POST' && path === '/v1/customers') {
      const customer = { id: id('cus'), object: 'customer', created: now, email: p['email'] ?? null, name: p['name'] ?? null, livemode: false, metadata: metadataOf(p) };
      customers.set(customer.id, customer);
      return { status: 200, body: customer };
    }
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      const gone = missing('mode', 'success_url', 'line_items[0][price]');
      if (gone) return invalid(gone);
      if (p['customer'] && !customers.has(p['customer'])) return { status: 400, body: { error: { type: 'invalid_request_error', message: `No such customer: '${p['customer']}'`, param: 'customer', code: 'resource_missing' } } };
      const sid = id('cs_test');
      return {
        status: 200,
        body: {
          id: sid, object: 'checkout.session', mode: p['mode'], customer: p['customer'] ?? null, client_reference_id: p['client_reference_id'] ?? null,
          success_url: p['success_url'], cancel_url: p['cancel_url'] ?? null, status: 'open', payment_status: 'unpaid', livemode: false,
          url: `https://checkout.stripe.com/c/pay/${sid}`, expires_at: now + 86_400, created: now, metadata: metadataOf(p), subscription: null,
        },
      };
    }
    if (method === 'POST' && path === '/v1/billing_portal/sessions') {
      const gone = missing('customer');
      if (gone) return invalid(gone);
      if (!customers.has(p['customer'])) return { status: 400, body: { error: { type: 'invalid_request_error', message: `No such customer: '${p['customer']}'`, param: 'customer', code: 'resource_missing' } } };
      const bid = id('bps');
      return { status: 200, body: { id: bid, object: 'billing_portal.session', customer: p['customer'], return_url: p['return_url'] ?? null, url: `https://billing.stripe.com/p/session/${bid}`, created: now, livemode: false } };
    }
    if (method === 'GET' && path === '/v1/invoices') {
      const limit = Math.min(100, Math.max(1, Number(p['limit'] ?? 10)));
      let list = invoices.filter((i) => !p['customer'] || i['customer'] === p['customer']).reverse();
      if (p['starting_after']) {
        const at = list.findIndex((i) => i['id'] === p['starting_after']);
        if (at < 0) return { status: 400, body: { error: { type: 'invalid_request_error', message: `No such invoice: '${p['starting_after']}'`, param: 'starting_after' } } };
        list = list.slice(at + 1);
      }
      return { status: 200, body: { object: 'list', data: list.slice(0, limit), has_more: list.length > limit, url: '/v1/invoices' } };
    }
    return { status: 404, body: { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}).` } } };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://stripe.local');
    const method = req.method ?? 'GET';
    const params = Object.fromEntries(method === 'GET' ? url.searchParams : new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
    const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
    calls.push({ method, path: url.pathname, params, idempotencyKey, stripeVersion: req.headers['stripe-version'] as string | undefined });
    if (req.headers.authorization !== `Bearer ${opts.secretKey}`) return error(res, 401, 'invalid_request_error', 'Invalid API Key provided');
    if (failure) {
      const f = failure;
      failure = null;
      return error(res, f.status, f.type, 'An error occurred with our connection to Stripe.');
    }
    const key = method === 'POST' && idempotencyKey ? `${url.pathname} ${idempotencyKey}` : null;
    const answer = (key && idempotent.get(key)) || route(method, url.pathname, params);
    if (key && answer.status < 500) idempotent.set(key, answer);
    send(res, answer.status, answer.body);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) error(res, 500, 'api_error', 'fake Stripe failed');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    customers,
    addInvoice(customer, fields = {}) {
      const created = fields.created ?? Math.floor(Date.now() / 1000) + invoices.length;
      const invoice = {
        id: id('in'), object: 'invoice', customer, status: 'paid', currency: 'usd', amount_due: 2900, amount_paid: 2900, total: 2900,
        number: `FAKE-${String(invoices.length + 1).padStart(4, '0')}`, created, period_start: created - 30 * 86_400, period_end: created,
        hosted_invoice_url: `https://invoice.stripe.com/i/${id('inv')}`, invoice_pdf: `https://pay.stripe.com/invoice/${id('pdf')}/pdf`, livemode: false, ...fields,
      };
      invoices.push(invoice);
      return invoice;
    },
    failNext(status, type = 'api_error') {
      failure = { status, type };
    },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** `metadata[key]=value` form fields as an object. */
function metadataOf(p: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(p)) {
    const m = /^metadata\[([^\]]+)\]$/.exec(k);
    if (m) out[m[1]] = v;
  }
  return out;
}
