import { consumerSetupHint } from './amqp-event-bus';

describe('consumerSetupHint', () => {
  it.each([
    [
      'Operation failed: QueueDeclare; 406 (PRECONDITION-FAILED) with message "PRECONDITION_FAILED - inequivalent arg \'x-dead-letter-exchange\' for queue \'q\' in vhost \'/\'"',
      /delete the queue/,
    ],
    [
      'Operation failed: QueueDeclare; 406 (PRECONDITION-FAILED) with message "PRECONDITION_FAILED - inequivalent arg \'durable\' for queue \'q\'"',
      /delete the queue/,
    ],
    [
      'Operation failed: QueueDeclare; 403 (ACCESS-REFUSED) with message "ACCESS_REFUSED - access to queue \'q\' in vhost \'/\' refused for user \'app\'"',
      /set_permissions/,
    ],
    [
      'Operation failed: QueueDeclare; 405 (RESOURCE-LOCKED) with message "RESOURCE_LOCKED - cannot obtain exclusive access to locked queue \'q\'"',
      /exclusively/,
    ],
  ])('tells the operator what to do about %s', (message, hint) => {
    expect(consumerSetupHint(message)).toMatch(hint);
  });

  it('gives no queue advice for other failures, e.g. an ack of an unknown delivery tag', () => {
    expect(consumerSetupHint('Channel closed by server: 406 (PRECONDITION-FAILED) with message "PRECONDITION_FAILED - unknown delivery tag 3"')).toBe('');
    expect(consumerSetupHint('Channel ended, no reply will be forthcoming')).toBe('');
  });
});
