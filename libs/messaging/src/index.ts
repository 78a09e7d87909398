export {
  defineEvent,
  createEnvelope,
  encodeEnvelope,
  decodeEnvelope,
  type EventContract,
  type EventEnvelope,
  type EventData,
  type PublishOptions,
} from './contracts/event-contract';
export * from './contracts/events';
export {
  EventBus,
  BrokerUnavailableError,
  DEFAULT_MAX_RETRIES,
  DEFAULT_PREFETCH,
  type EventHandler,
  type SubscribeOptions,
  type DeliveryOutcome,
  type DeliveryObserver,
} from './event-bus';
export { EVENT_CONSUMERS, consumerQueuesOf } from './contracts/consumers';
export { MessagingMetrics, DLQ_DEPTH_TIMEOUT_MS } from './messaging-metrics';
export { AmqpEventBus, type AmqpEventBusOptions } from './amqp/amqp-event-bus';
export { InProcessBroker, InProcessEventBus, type DeadLetter, type InProcessBrokerOptions } from './in-process/in-process-event-bus';
export { Outbox, OutboxRelay, type OutboxRelayOptions, type OutboxRow } from './outbox/outbox';
export { Inbox } from './outbox/inbox';
export { OutboxMessage, ProcessedEvent, messagingEntities } from './outbox/outbox.entities';
export { createOutboxTables, dropOutboxTables } from './outbox/outbox.migration';
export { MessagingModule, createEventBus, type MessagingModuleOptions } from './messaging.module';
export { EventConsumer, OnEvent, type EventConsumerOptions, type OnEventOptions } from './consumers/event-consumer.decorators';
export { EventConsumers, type DeclaredConsumer } from './consumers/event-consumers';
