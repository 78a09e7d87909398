// POST /an-audit over HTTP on a throwaway PostgreSQL database: every outcome of the spec, upstream
// checks merged, and the low-score notification delivered by the outbox to a webhook receiver started
// by the test (HMAC-signed; a failed delivery retried), none for a good score.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyHmacSignature } from '@platform/http-safety';
import { createTestApp, type TestApp } from '@platform/testing';
import type { LogisticsHooksConfig } from '../config';
import { logisticsHooksService } from '../service';

const API_KEY = 'test-logistics-key-0123456789';
const SECRET = 'audit-webhook-secret-0123456789';
const clean = { job_type: 'freight', containers: ['MSCU1234566'], consignee: 'Importadora SA', eta: '2026-11-29', telex_release: true, charges: [{ description: 'Ocean freight', amount: 1200, currency: 'USD' }] };

describe('arrival-notice audit', () => {
  let t: TestApp<LogisticsHooksConfig>;
  let receiver: http.Server;
  const received: { body: string; headers: http.IncomingHttpHeaders }[] = [];
  let failNext = 0;
  const audit = (body: Record<string, unknown>) => t.http.post('/an-audit').send({ api_key: API_KEY, ...body });
  const waitFor = async (n: number) => {
    for (let i = 0; i < 100 && received.length < n; i++) await new Promise((r) => setTimeout(r, 50));
  };

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        if (failNext > 0) {
          failNext--;
          res.writeHead(503).end();
          return;
        }
        received.push({ body, headers: req.headers });
        res.writeHead(204).end();
      });
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    t = await createTestApp(logisticsHooksService, {
      LOGISTICS_API_KEY: API_KEY,
      AUDIT_WEBHOOK_URL: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/audit`,
      AUDIT_WEBHOOK_SECRET: SECRET,
      OUTBOUND_ALLOW_PRIVATE: 'true',
      EVENTS_OUTBOX_POLL_MS: '50',
    });
  });
  afterAll(async () => {
    await t?.close();
    receiver?.closeAllConnections();
    await new Promise((r) => receiver?.close(r));
  });

  it('requires the API key', async () => {
    await t.http.post('/an-audit').send({ notice: clean }).expect(401);
  });

  it.each([
    ['SUCCESS', { notice: clean }, 'SUCCESS', 100],
    ['an upstream stop → EXCEPTION', { notice: clean, checks: [{ name: 'AMOUNTS_MATCH', stop_processing: true, passed: false, message: 'freight differs' }] }, 'EXCEPTION', 60],
    ['freight without telex → FINANCIAL_PENDING', { notice: { ...clean, telex_release: false } }, 'FINANCIAL_PENDING', 75],
    ['minor issues → PARTIAL_SUCCESS', { notice: { ...clean, consignee: '' } }, 'PARTIAL_SUCCESS', 90],
  ])('%s', async (_name, body, outcome, score) => {
    const res = await audit(body).expect(200);
    expect(res.body).toMatchObject({ success: true, outcome, score, threshold: 70, shipment_ref: 'MSCU1234566' });
    expect(res.body.notification).toBe(score < 70 ? 'queued' : 'not_needed');
  });

  it('posts a signed notification for a low score, retrying a failed delivery; none for good scores', async () => {
    await waitFor(1);
    received.length = 0;
    failNext = 1;
    const res = await audit({ notice: { ...clean, containers: ['MSCU1234567'], telex_release: false } }).expect(200);
    expect(res.body).toMatchObject({ outcome: 'EXCEPTION', score: 35, notification: 'queued' });
    await waitFor(1);
    expect(received).toHaveLength(1);
    const [hit] = received;
    expect(verifyHmacSignature(hit.body, SECRET, hit.headers['x-signature'] as string)).toBe(true);
    expect(hit.headers['x-event-id']).toBeTruthy();
    expect(JSON.parse(hit.body)).toMatchObject({
      event: 'an_audit.low_score',
      audit_id: res.body.audit_id,
      outcome: 'EXCEPTION',
      score: 35,
      threshold: 70,
      failed_checks: [expect.objectContaining({ name: 'SHIPMENT_REFERENCE', stop_processing: true }), expect.objectContaining({ name: 'TELEX_RELEASE' })],
    });
    expect(failNext).toBe(0);
    await audit({ notice: clean }).expect(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(received).toHaveLength(1);
  });

  it('refuses malformed notices with 422', async () => {
    await audit({}).expect(422);
    await audit({ notice: { telex_release: 'yes' } }).expect(422);
    await audit({ notice: clean, checks: [{ name: 'X' }] }).expect(422);
  });
});
