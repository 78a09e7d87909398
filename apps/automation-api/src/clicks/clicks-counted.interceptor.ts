import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { from, switchMap, type Observable } from 'rxjs';
import { ClickCounter } from './click-counter';

/**
 * Read-your-clicks: a request to this process waits, before its handler runs, for the clicks this
 * process has stored to be counted (ClickCounter.settled; at once when none is waiting). A client
 * that followed a tracked link and then reads the run, the contact, the events or the stats sees its
 * click, as when the redirect counted it itself. Another replica's reads see it a counting round
 * later (milliseconds).
 */
@Injectable()
export class ClicksCountedInterceptor implements NestInterceptor {
  constructor(private readonly counter: ClickCounter) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (!this.counter.pending) return next.handle();
    return from(this.counter.settled()).pipe(switchMap(() => next.handle()));
  }
}
