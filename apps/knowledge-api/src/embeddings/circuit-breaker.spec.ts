import { CircuitBreaker, type BreakerState } from './circuit-breaker';

type Step = ['fail' | 'ok' | 'allow' | 'tick', number?, (boolean | BreakerState)?];

describe('CircuitBreaker', () => {
  const cases: Array<{ name: string; steps: Step[] }> = [
    { name: 'stays closed below the failure threshold', steps: [['fail'], ['fail'], ['allow', 0, true], ['tick', 0, 'closed']] },
    { name: 'opens after the threshold and refuses calls', steps: [['fail'], ['fail'], ['fail'], ['tick', 0, 'open'], ['allow', 0, false]] },
    { name: 'a success resets the count', steps: [['fail'], ['fail'], ['ok'], ['fail'], ['fail'], ['tick', 0, 'closed']] },
    {
      name: 'half-opens after the cooldown and lets one trial through',
      steps: [['fail'], ['fail'], ['fail'], ['tick', 999, 'open'], ['tick', 1, 'half_open'], ['allow', 0, true], ['allow', 0, false]],
    },
    { name: 'a trial that succeeds closes it', steps: [['fail'], ['fail'], ['fail'], ['tick', 1000], ['allow', 0, true], ['ok'], ['tick', 0, 'closed'], ['allow', 0, true]] },
    { name: 'a trial that fails opens it again', steps: [['fail'], ['fail'], ['fail'], ['tick', 1000], ['allow', 0, true], ['fail'], ['tick', 0, 'open'], ['allow', 0, false]] },
  ];

  it.each(cases)('$name', ({ steps }) => {
    let now = 0;
    const breaker = new CircuitBreaker({ failures: 3, cooldownMs: 1000 }, () => now);
    for (const [op, n, expected] of steps) {
      if (op === 'fail') breaker.failure();
      else if (op === 'ok') breaker.success();
      else if (op === 'allow') expect(breaker.allow()).toBe(expected);
      else {
        now += n ?? 0;
        if (expected !== undefined) expect(breaker.state).toBe(expected);
      }
    }
  });
});
