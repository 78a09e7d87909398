import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { lastValueFrom, of } from 'rxjs';
import type { ClickCounter } from './click-counter';
import { ClicksCountedInterceptor } from './clicks-counted.interceptor';

describe('ClicksCountedInterceptor', () => {
  const handler = () => {
    const handle = jest.fn(() => of('answer'));
    return { next: { handle } as CallHandler, handle };
  };
  const context = {} as ExecutionContext;

  it('runs the handler once the clicks this process stored are counted', async () => {
    let settle!: () => void;
    const counter = { pending: true, settled: jest.fn(() => new Promise<void>((resolve) => (settle = resolve))) };
    const { next, handle } = handler();
    const answer = lastValueFrom(new ClicksCountedInterceptor(counter as unknown as ClickCounter).intercept(context, next));
    await new Promise((r) => setImmediate(r));
    expect(handle).not.toHaveBeenCalled();
    settle();
    await expect(answer).resolves.toBe('answer');
    expect(handle).toHaveBeenCalledTimes(1);
  });

  it('costs nothing when no click is waiting', async () => {
    const counter = { pending: false, settled: jest.fn() };
    const { next, handle } = handler();
    await expect(lastValueFrom(new ClicksCountedInterceptor(counter as unknown as ClickCounter).intercept(context, next))).resolves.toBe('answer');
    expect(counter.settled).not.toHaveBeenCalled();
    expect(handle).toHaveBeenCalledTimes(1);
  });
});
