import { connect } from 'amqplib';
import { testServices } from './services';
import { createTestRabbit } from './test-rabbit';

const { amqpUrl } = testServices();

describe('createTestRabbit', () => {
  // The global setup found RabbitMQ or not; each case has its own assertion.
  if (amqpUrl) it('gives unique names and deletes what they name', async () => {
    const [a, b] = await Promise.all([createTestRabbit(), createTestRabbit()]);
    expect(a.prefix).toMatch(/^test\.[a-z0-9]{10}$/);
    expect(a.prefix).not.toBe(b.prefix);
    expect(a.exchange).toBe(`${a.prefix}.events`);
    const queue = a.queue('email-api');
    expect(queue).toBe(`${a.prefix}.email-api`);

    const connection = await connect(a.url);
    try {
      const channel = await connection.createChannel();
      await channel.assertExchange(a.exchange, 'topic', { durable: true });
      await channel.assertExchange(a.dlx, 'topic', { durable: true });
      for (const q of [queue, `${queue}.retry`, `${queue}.dlq`]) await channel.assertQueue(q, { durable: true });
      await channel.close();

      await a.cleanup();
      await b.cleanup();

      for (const [kind, name] of [
        ['queue', queue],
        ['queue', `${queue}.dlq`],
        ['exchange', a.exchange],
      ] as const) {
        const probe = await connection.createChannel();
        probe.on('error', () => undefined);
        const check = kind === 'queue' ? probe.checkQueue(name) : probe.checkExchange(name);
        await expect(check).rejects.toThrow(/NOT_FOUND/);
      }
    } finally {
      await connection.close();
    }
  });

  if (!amqpUrl) it('says RabbitMQ is not available', async () => {
    await expect(createTestRabbit()).rejects.toThrow(/RabbitMQ is not available/);
  });
});
