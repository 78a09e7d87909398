import { createHmac } from 'node:crypto';
import { createTestApp, type TestApp } from '@platform/testing';
import { OpenAccount } from '../src/accounts/open-account';
import { MessageDeliveryWorker } from '../src/conversations/message-delivery.worker';
import type { ConversationApiConfig } from '../src/config';
import { conversationApiService } from '../src/service';

export const ADMIN_EMAIL = 'admin@conversation.test';
export const ADMIN_PASSWORD = 'admin-password-1';

export type ConversationTestApp = TestApp<ConversationApiConfig>;

/** The app on a throwaway database with its first administrator. */
export function startApp(env: Record<string, string | undefined> = {}): Promise<ConversationTestApp> {
  return createTestApp(conversationApiService, {
    CONVERSATION_ADMIN_EMAIL: ADMIN_EMAIL,
    CONVERSATION_ADMIN_PASSWORD: ADMIN_PASSWORD,
    CONVERSATION_RATE_LIMIT_PER_MINUTE: '100000',
    REDIS_KEY_PREFIX: `conversation-test-${Math.random().toString(36).slice(2)}:`,
    ...env,
  });
}

export interface Session {
  access: string;
  refresh: string;
  auth: { Authorization: string };
}

export async function login(t: ConversationTestApp, email: string, password: string): Promise<Session> {
  const res = await t.http.post('/api/v1/auth/login').send({ email, password }).expect(200);
  return { access: res.body.data.access_token, refresh: res.body.data.refresh_token, auth: { Authorization: `Bearer ${res.body.data.access_token}` } };
}

/** A user of the admin's account with the named role, logged in. */
export async function userWithRole(t: ConversationTestApp, admin: Session, role: string, email: string): Promise<Session & { id: string }> {
  const roles = await t.http.get('/api/v1/roles').set(admin.auth).expect(200);
  const roleId = (roles.body.data as Array<{ id: string; name: string }>).find((r) => r.name === role)!.id;
  const created = await t.http.post('/api/v1/users').set(admin.auth).send({ email, name: email.split('@')[0], password: 'user-password-1', role_id: roleId }).expect(201);
  return { ...(await login(t, email, 'user-password-1')), id: created.body.data.id };
}

/** Another account (tenant) with its administrator, logged in. */
export async function otherAccount(t: ConversationTestApp, email: string): Promise<Session> {
  await t.app.get(OpenAccount).execute('Other account', { email, name: 'Other admin', password: 'other-password-1' });
  return login(t, email, 'other-password-1');
}

export const WA = { accessToken: 'EAAG-test-access-token', appSecret: 'test-app-secret', verifyToken: 'test-verify-token', phoneNumberId: '106540352242922' };

export async function whatsappChannel(t: ConversationTestApp, admin: Session, extra: Record<string, unknown> = {}): Promise<{ id: string }> {
  const res = await t.http
    .post('/api/v1/channels/whatsapp')
    .set(admin.auth)
    .send({ name: 'Support', phone_number: '+15550001111', phone_number_id: WA.phoneNumberId, access_token: WA.accessToken, app_secret: WA.appSecret, verify_token: WA.verifyToken, ...extra })
    .expect(201);
  return { id: res.body.data.id };
}

export function textDelivery(opts: { id: string; from: string; text: string; name?: string; phoneNumberId?: string }): string {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550001111', phone_number_id: opts.phoneNumberId ?? WA.phoneNumberId },
              contacts: [{ profile: { name: opts.name ?? 'Kim Contact' }, wa_id: opts.from }],
              messages: [{ from: opts.from, id: opts.id, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: opts.text } }],
            },
          },
        ],
      },
    ],
  });
}

export const sign = (body: string, secret = WA.appSecret) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** POSTs a signed delivery to the channel's webhook. */
export function deliver(t: ConversationTestApp, channelId: string, body: string, signature = sign(body)) {
  return t.http.post(`/api/v1/webhooks/whatsapp/${channelId}`).set('content-type', 'application/json').set('x-hub-signature-256', signature).send(body);
}

/**
 * Runs the delivery worker until the message has left `pending` (a retry may be due a few
 * milliseconds later: tests set CONVERSATION_DELIVERY_RETRY_MS low); the message as the API shows it.
 */
export async function delivered(t: ConversationTestApp, auth: Session['auth'], conversationId: string, messageId: string): Promise<{ status: string; error: string | null; source_id: string | null }> {
  const worker = t.app.get(MessageDeliveryWorker);
  for (let i = 0; i < 200; i++) {
    await worker.drain();
    const res = await t.http.get(`/api/v1/conversations/${conversationId}`).set(auth).expect(200);
    const message = res.body.data.messages.find((m: { id: string }) => m.id === messageId);
    if (message.status !== 'pending') return message;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`message ${messageId} still pending`);
}
