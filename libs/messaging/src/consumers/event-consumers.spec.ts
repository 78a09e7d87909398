import { Injectable } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { BaseConfig, SERVICE_MODE, type ServiceMode } from '@platform/platform';
import { defineEvent, type EventEnvelope } from '../contracts/event-contract';
import { EventBus } from '../event-bus';
import { EventConsumer, OnEvent } from './event-consumer.decorators';
import { EventConsumers } from './event-consumers';

const Ping = defineEvent<{ n: number }>('test.ping');

@Injectable()
@EventConsumer('test-api.pings', { inbox: false })
class PingConsumer {
  @OnEvent(Ping)
  async ping(_event: EventEnvelope<{ n: number }>): Promise<void> {}
}

async function consumersIn(mode: ServiceMode): Promise<{ subscribed: string[]; found: string[] }> {
  const subscribed: string[] = [];
  const bus = { subscribe: async (queue: string) => void subscribed.push(queue) };
  const moduleRef = await Test.createTestingModule({
    imports: [DiscoveryModule],
    providers: [
      PingConsumer,
      EventConsumers,
      { provide: EventBus, useValue: bus },
      { provide: BaseConfig, useValue: Object.assign(new BaseConfig(), { EVENTS_PREFETCH: 10, EVENTS_MAX_RETRIES: 5 }) },
      { provide: SERVICE_MODE, useValue: mode },
    ],
  }).compile();
  await moduleRef.init();
  const found = moduleRef.get(EventConsumers).consumers.map((c) => c.name);
  await moduleRef.close();
  return { subscribed, found };
}

describe('EventConsumers and the service mode', () => {
  it('subscribes the declared consumers of a serving app', async () => {
    await expect(consumersIn('serve')).resolves.toEqual({ subscribed: ['test-api.pings'], found: ['test-api.pings'] });
  });

  it('checks them but consumes nothing in `migrate` or another command', async () => {
    await expect(consumersIn('command')).resolves.toEqual({ subscribed: [], found: ['test-api.pings'] });
  });
});
