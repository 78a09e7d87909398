import { createTestRabbit, testServices, type FakeDnsServer, type TestRabbit } from '@platform/testing';
import { bearer, type EmailTestApp, type TestProject } from './helpers';

interface RecordBody {
  type: string;
  name: string;
  value: string;
  priority?: number;
}

/** Publishes a domain's records in the fake DNS server (what its owner does at their DNS host). */
export function publish(dns: FakeDnsServer, records: RecordBody[]): void {
  const byName = new Map<string, { TXT: string[]; MX: Array<{ priority: number; exchange: string }> }>();
  for (const r of records) {
    const entry = byName.get(r.name) ?? { TXT: [], MX: [] };
    if (r.type === 'TXT') entry.TXT.push(r.value);
    if (r.type === 'MX') entry.MX.push({ priority: r.priority ?? 10, exchange: r.value });
    byName.set(r.name, entry);
  }
  for (const [name, entry] of byName) dns.set(name, entry);
}

/** Adds the domain, publishes its records and verifies it; answers the domain as the API does. */
export async function verifiedDomain(t: EmailTestApp, dns: FakeDnsServer, project: TestProject, domain: string): Promise<{ id: string; records: Array<RecordBody & { purpose: string }> }> {
  const res = await t.http.post('/domains').set(bearer(project.secretKey)).send({ domain }).expect(201);
  publish(dns, res.body.records);
  const verified = await t.http.get(`/domains/${res.body.id}/verify`).set(bearer(project.secretKey)).expect(200);
  if (verified.body.status !== 'verified') throw new Error(`domain ${domain} did not verify: ${JSON.stringify(verified.body.checks)}`);
  return res.body;
}

/** RabbitMQ settings of a test app (throwaway exchange and queues) when the test setup found RabbitMQ; else the in-process bus. */
export async function testRabbit(): Promise<{ rabbit?: TestRabbit; env: Record<string, string> }> {
  const url = testServices().amqpUrl;
  if (!url) return { env: {} };
  const rabbit = await createTestRabbit();
  for (const consumer of ['email-api.automation', 'email-api.campaigns', 'email-api.workflows']) rabbit.queue(consumer);
  return { rabbit, env: { AMQP_URL: url, EVENTS_EXCHANGE: rabbit.exchange, EVENTS_DLX: rabbit.dlx, EVENTS_QUEUE_PREFIX: `${rabbit.prefix}.` } };
}
