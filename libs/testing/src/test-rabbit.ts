import { connect } from 'amqplib';
import { testServices, uniqueSuffix } from './services';

export interface TestRabbit {
  url: string;
  /** `test.<random>`: prefix every exchange and queue of the test with it. */
  prefix: string;
  /** `<prefix>.events`: pass as the event bus's exchange. */
  exchange: string;
  /** `<prefix>.dlx`: pass as the event bus's dead-letter exchange. */
  dlx: string;
  /** `<prefix>.<name>`, recorded for cleanup together with its `.retry` and `.dlq` companions. */
  queue(name: string): string;
  /** Deletes the exchanges and every queue handed out by `queue()`. */
  cleanup(): Promise<void>;
}

/**
 * Unique RabbitMQ names for one messaging test, so that test files (and repeated runs) never see each
 * other's messages. Throws when no RabbitMQ answered the global setup's probe.
 */
export async function createTestRabbit(): Promise<TestRabbit> {
  const { amqpUrl } = testServices();
  if (!amqpUrl) {
    throw new Error(
      'createTestRabbit: RabbitMQ is not available (the global setup found none at TEST_AMQP_URL, default amqp://guest:guest@127.0.0.1:5672). Start it, or test against the in-process bus.',
    );
  }
  const prefix = `test.${uniqueSuffix(10)}`;
  const queues = new Set<string>();
  return {
    url: amqpUrl,
    prefix,
    exchange: `${prefix}.events`,
    dlx: `${prefix}.dlx`,
    queue(name: string) {
      const full = `${prefix}.${name}`;
      queues.add(full);
      return full;
    },
    async cleanup() {
      const connection = await connect(amqpUrl);
      try {
        const channel = await connection.createChannel();
        for (const q of queues) {
          for (const name of [q, `${q}.retry`, `${q}.dlq`]) await channel.deleteQueue(name);
        }
        await channel.deleteExchange(`${prefix}.events`);
        await channel.deleteExchange(`${prefix}.dlx`);
        await channel.close();
      } finally {
        await connection.close().catch(() => undefined);
      }
    },
  };
}
