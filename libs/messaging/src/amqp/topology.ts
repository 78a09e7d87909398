import type { Channel } from 'amqplib';
import type { ResolvedAmqpOptions } from './amqp-options';

/**
 * Declares one consumer's queues and binds the first to `types`: `<name>` (dead-letters to the
 * DLX with key `<name>`), `<name>.retry` (expires back into `<name>`), `<name>.dlq` bound to the DLX.
 * The consumer and a publisher that declares its consumers' queues use the same arguments, so
 * whichever comes first creates them and the other's declaration matches. `step` is told what is
 * being done (for error messages).
 */
export async function declareConsumerQueues(
  channel: Channel,
  name: string,
  types: Iterable<string>,
  opts: Pick<ResolvedAmqpOptions, 'exchange' | 'dlx'>,
  step: (what: string) => void = () => undefined,
): Promise<Set<string>> {
  step(`declare queue "${name}"`);
  await channel.assertQueue(name, {
    durable: true,
    arguments: { 'x-dead-letter-exchange': opts.dlx, 'x-dead-letter-routing-key': name },
  });
  step(`declare queue "${name}.retry"`);
  await channel.assertQueue(`${name}.retry`, {
    durable: true,
    arguments: { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': name },
  });
  step(`declare queue "${name}.dlq"`);
  await channel.assertQueue(`${name}.dlq`, { durable: true });
  step(`bind queue "${name}.dlq" to exchange "${opts.dlx}"`);
  await channel.bindQueue(`${name}.dlq`, opts.dlx, name);
  const bound = new Set<string>();
  for (const type of types) {
    step(`bind queue "${name}" to exchange "${opts.exchange}" with key "${type}"`);
    await channel.bindQueue(name, opts.exchange, type);
    bound.add(type);
  }
  return bound;
}
