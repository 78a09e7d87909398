import { Database } from '@platform/database';
import { signStripeWebhook, startFakeStripe, stripeEvent, type FakeStripe } from '../../test/fake-stripe';
import { bearer, newAccount, newProject, startEmailApi, type EmailTestApp, type TestAccount, type TestProject } from '../../test/helpers';

const SECRET_KEY = 'sk_test_51FakeKeyForTheFakeStripeServer';
const WEBHOOK_SECRET = 'whsec_test_secret_of_the_endpoint';
const PRICE = 'price_1PaidPlanMonthly';

describe('billing through Stripe (e2e, official client against a fake Stripe API)', () => {
  let t: EmailTestApp;
  let stripe: FakeStripe;

  beforeAll(async () => {
    stripe = await startFakeStripe({ secretKey: SECRET_KEY });
    t = await startEmailApi({
      EMAIL_RATE_LIMIT_PER_MINUTE: '100000',
      STRIPE_SECRET_KEY: SECRET_KEY,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_PRICE_ID: PRICE,
      STRIPE_API_BASE: stripe.url,
      BILLING_FREE_LIMIT: '3',
      DASHBOARD_URL: 'https://app.example.com/dashboard',
    });
  });
  afterAll(async () => {
    await t?.close();
    await stripe?.close();
  });

  const base = (p: TestProject) => `/users/@me/projects/${p.id}`;
  const webhook = (body: string, signature?: string) => {
    const req = t.http.post('/webhooks/incoming/stripe').set('Content-Type', 'application/json; charset=utf-8');
    return (signature === undefined ? req : req.set('Stripe-Signature', signature)).send(body);
  };
  const deliver = (event: Record<string, unknown>) => {
    const body = JSON.stringify(event);
    return webhook(body, signStripeWebhook(body, WEBHOOK_SECRET));
  };
  const send = (p: TestProject) => t.http.post('/v1/send').set(bearer(p.secretKey)).send({ to: 'buyer@example.com', subject: 'Receipt', body: 'thanks' });
  const checkout = (a: TestAccount, p: TestProject, body: Record<string, unknown> = {}) => t.http.post(`${base(p)}/checkout`).set('Cookie', a.cookie).send(body);

  it('says billing: true in GET /config', async () => {
    expect((await t.http.get('/config').expect(200)).body.billing).toBe(true);
  });

  it('creates a Checkout Session for the paid price, the project\'s customer created once and kept', async () => {
    const { account, project } = await newProject(t, 'Shop');
    const first = await checkout(account, project).expect(200);
    expect(first.body).toMatchObject({ id: expect.stringMatching(/^cs_test_/), url: expect.stringMatching(/^https:\/\/checkout\.stripe\.com\//), customerId: expect.stringMatching(/^cus_/) });
    const second = await checkout(account, project, { successUrl: 'https://app.example.com/paid', cancelUrl: 'https://app.example.com/back' }).expect(200);
    expect(second.body.customerId).toBe(first.body.customerId);
    expect(second.body.id).not.toBe(first.body.id);

    const customerCalls = stripe.calls.filter((c) => c.path === '/v1/customers' && c.params['metadata[projectId]'] === project.id);
    expect(customerCalls).toHaveLength(1);
    expect(customerCalls[0].params).toMatchObject({ name: 'Shop', email: account.email });
    expect(customerCalls[0].idempotencyKey).toBe(`email-api-customer-${project.id}`);
    const sessions = stripe.calls.filter((c) => c.path === '/v1/checkout/sessions' && c.params['client_reference_id'] === project.id);
    expect(sessions).toHaveLength(2);
    expect(sessions[0].params).toMatchObject({
      mode: 'subscription',
      customer: first.body.customerId,
      'line_items[0][price]': PRICE,
      'line_items[0][quantity]': '1',
      success_url: `https://app.example.com/dashboard?billing=success&project=${project.id}`,
      cancel_url: `https://app.example.com/dashboard?billing=cancelled&project=${project.id}`,
      'metadata[projectId]': project.id,
      'subscription_data[metadata][projectId]': project.id,
    });
    expect(sessions[1].params).toMatchObject({ success_url: 'https://app.example.com/paid', cancel_url: 'https://app.example.com/back' });

    // Two checkouts racing on a new project still make one customer (the idempotency key).
    const other = await newProject(t, 'Race');
    const raced = await Promise.all([checkout(other.account, other.project), checkout(other.account, other.project)]);
    expect(raced.map((r) => r.status)).toEqual([200, 200]);
    expect(raced[0].body.customerId).toBe(raced[1].body.customerId);

    await checkout(account, project, { successUrl: 'javascript:alert(1)' }).expect(422);
    const member = await newAccount(t, 'member');
    await t.http.post(`/projects/${project.id}/members`).set('Cookie', account.cookie).send({ email: member.email }).expect(201);
    expect((await checkout(member, project).expect(403)).body.error.code).toBe('FORBIDDEN');
  });

  it('opens the customer portal and lists the invoices, mapped and paged, through the client', async () => {
    const { account, project } = await newProject(t);
    expect((await t.http.post(`${base(project)}/billing-portal`).set('Cookie', account.cookie).send({}).expect(409)).body.error.code).toBe('BILLING_CUSTOMER_MISSING');
    expect((await t.http.get(`${base(project)}/billing-invoices`).set('Cookie', account.cookie).expect(200)).body).toEqual({ data: [], hasMore: false, cursor: null });

    const { customerId } = (await checkout(account, project).expect(200)).body;
    const portal = await t.http.post(`${base(project)}/billing-portal`).set(bearer(project.secretKey)).send({ returnUrl: 'https://app.example.com/settings' }).expect(200);
    expect(portal.body).toEqual({ id: expect.stringMatching(/^bps_/), url: expect.stringMatching(/^https:\/\/billing\.stripe\.com\//) });
    expect(stripe.calls.filter((c) => c.path === '/v1/billing_portal/sessions').at(-1)!.params).toEqual({ customer: customerId, return_url: 'https://app.example.com/settings' });

    const older = stripe.addInvoice(customerId, { status: 'paid', amount_due: 2900, amount_paid: 2900, total: 2900 });
    const middle = stripe.addInvoice(customerId, { status: 'open', amount_due: 4900, amount_paid: 0, total: 4900, currency: 'eur' });
    const newest = stripe.addInvoice(customerId, { status: 'paid' });
    stripe.addInvoice('cus_someone_else');
    const page1 = (await t.http.get(`${base(project)}/billing-invoices?limit=2`).set('Cookie', account.cookie).expect(200)).body;
    expect(page1.data.map((i: { id: string }) => i.id)).toEqual([newest['id'], middle['id']]);
    expect(page1).toMatchObject({ hasMore: true, cursor: middle['id'] });
    expect(page1.data[1]).toEqual({
      id: middle['id'], number: middle['number'], status: 'open', currency: 'eur', amountDue: 4900, amountPaid: 0, total: 4900,
      created: new Date((middle['created'] as number) * 1000).toISOString(),
      periodStart: new Date((middle['period_start'] as number) * 1000).toISOString(),
      periodEnd: new Date((middle['period_end'] as number) * 1000).toISOString(),
      hostedInvoiceUrl: middle['hosted_invoice_url'], invoicePdf: middle['invoice_pdf'],
    });
    const page2 = (await t.http.get(`${base(project)}/billing-invoices?limit=2&cursor=${page1.cursor}`).set('Cookie', account.cookie).expect(200)).body;
    expect(page2).toMatchObject({ data: [{ id: older['id'] }], hasMore: false, cursor: null });
    const list = stripe.calls.filter((c) => c.path === '/v1/invoices').at(-1)!;
    expect(list.params).toEqual({ customer: customerId, limit: '2', starting_after: middle['id'] });

    await t.http.get(`${base(project)}/billing-invoices?limit=0`).set('Cookie', account.cookie).expect(422);
    await t.http.get(`${base(project)}/billing-invoices?cursor=drop%20table`).set('Cookie', account.cookie).expect(422);
    // Stripe refusing: 502 in the error shape, never a 500.
    stripe.failNext(400, 'invalid_request_error');
    expect((await t.http.get(`${base(project)}/billing-invoices`).set('Cookie', account.cookie).expect(502)).body.error.code).toBe('BILLING_PROVIDER_ERROR');
  });

  it('disables the project on a signed invoice.payment_failed (billing still answers), re-enables it on a paid invoice; forged and replayed deliveries are refused', async () => {
    const { account, project } = await newProject(t);
    const { customerId } = (await checkout(account, project).expect(200)).body;
    const now = Math.floor(Date.now() / 1000);

    // Free plan: the allowance (BILLING_FREE_LIMIT 3) caps each category.
    for (let i = 0; i < 3; i++) await send(project).expect(200);
    expect((await send(project).expect(429)).body.error.code).toBe('BILLING_LIMIT_REACHED');

    const paid = await deliver(stripeEvent('checkout.session.completed', { id: 'cs_test_1', object: 'checkout.session', customer: customerId, client_reference_id: project.id, mode: 'subscription', payment_status: 'paid', subscription: 'sub_1' }, now - 50)).expect(200);
    expect(paid.body).toMatchObject({ received: true, duplicate: false, outcome: 'plan_active', projectId: project.id });
    const consumption = (await t.http.get(`${base(project)}/billing-consumption`).set('Cookie', account.cookie).expect(200)).body;
    expect(consumption).toMatchObject({ plan: 'active', categories: { transactional: { used: 3, limit: null } } });
    await send(project).expect(200);

    const failed = stripeEvent('invoice.payment_failed', { id: 'in_failed_1', object: 'invoice', customer: customerId, status: 'open' }, now - 40);
    expect((await deliver(failed).expect(200)).body).toMatchObject({ outcome: 'plan_past_due', projectId: project.id, duplicate: false });
    const refused = await send(project).expect(403);
    expect(refused.body.error).toMatchObject({ code: 'PROJECT_DISABLED', message: expect.stringContaining('billing: payment failed for invoice in_failed_1') });
    await t.http.post('/contacts').set(bearer(project.secretKey)).send({ email: 'x@example.com' }).expect(403);
    await t.http.get('/contacts').set(bearer(project.secretKey)).expect(200);
    // Settings and billing still answer.
    expect((await t.http.get(`${base(project)}/billing-consumption`).set('Cookie', account.cookie).expect(200)).body.plan).toBe('past_due');
    await t.http.put(`${base(project)}/billing-limits`).set('Cookie', account.cookie).send({ workflows: null, campaigns: null, transactional: 1000, inbound: null }).expect(200);
    await t.http.post(`${base(project)}/billing-portal`).set('Cookie', account.cookie).send({}).expect(200);
    await t.http.get(`${base(project)}/billing-invoices`).set('Cookie', account.cookie).expect(200);
    await checkout(account, project).expect(200);
    expect((await t.http.get(`/users/@me/projects/${project.id}/security`).set('Cookie', account.cookie).expect(200)).body).toMatchObject({ disabled: true });

    // Forged: another secret, a changed body, no signature, garbage; replayed: an old signed delivery.
    const body = JSON.stringify(stripeEvent('invoice.paid', { id: 'in_forged', object: 'invoice', customer: customerId }, now));
    for (const [payload, signature] of [
      [body, signStripeWebhook(body, 'whsec_not_the_secret')],
      [body.replace('in_forged', 'in_forgee'), signStripeWebhook(body, WEBHOOK_SECRET)],
      [body, undefined],
      [body, 'v1=deadbeef'],
      [body, signStripeWebhook(body, WEBHOOK_SECRET, now - 600)],
    ] as const) {
      const res = await webhook(payload, signature).expect(400);
      expect(res.body.error.code).toBe('STRIPE_SIGNATURE_INVALID');
    }
    await send(project).expect(403);

    // A paid invoice re-enables it.
    const paidInvoice = stripeEvent('invoice.paid', { id: 'in_paid_2', object: 'invoice', customer: customerId, status: 'paid' }, now - 20);
    expect((await deliver(paidInvoice).expect(200)).body).toMatchObject({ outcome: 'plan_active', duplicate: false });
    await send(project).expect(200);

    // The same event again (Stripe's retry, or a replay with a fresh signature) does nothing again.
    expect((await deliver(failed).expect(200)).body).toMatchObject({ duplicate: true, outcome: 'ignored' });
    await send(project).expect(200);
    // An older event delivered late does not overwrite the newer state.
    const late = stripeEvent('invoice.payment_failed', { id: 'in_failed_0', object: 'invoice', customer: customerId }, now - 30);
    expect((await deliver(late).expect(200)).body).toMatchObject({ duplicate: false, outcome: 'ignored' });
    await send(project).expect(200);

    // The subscription ending disables it again.
    const ended = stripeEvent('customer.subscription.deleted', { id: 'sub_1', object: 'subscription', customer: customerId, status: 'canceled' }, now - 10);
    expect((await deliver(ended).expect(200)).body).toMatchObject({ outcome: 'plan_canceled' });
    expect((await send(project).expect(403)).body.error.message).toContain('billing: subscription sub_1 ended');

    // Unknown customers and other types are acknowledged and ignored.
    expect((await deliver(stripeEvent('invoice.paid', { id: 'in_x', object: 'invoice', customer: 'cus_unknown' })).expect(200)).body).toMatchObject({ outcome: 'ignored', projectId: null });
    expect((await deliver(stripeEvent('customer.updated', { id: customerId, object: 'customer' })).expect(200)).body).toMatchObject({ outcome: 'ignored' });
  });

  it('never re-enables a project disabled for another reason', async () => {
    const { account, project } = await newProject(t);
    const { customerId } = (await checkout(account, project).expect(200)).body;
    const db = t.app.get(Database);
    await db.affected(`UPDATE ${db.table('projects')} SET disabled = true, disabled_reason = 'paused for review: complaints' WHERE id = $1`, [project.id]);
    await deliver(stripeEvent('invoice.paid', { id: 'in_1', object: 'invoice', customer: customerId })).expect(200);
    expect((await send(project).expect(403)).body.error.message).toContain('paused for review');
  });
});
