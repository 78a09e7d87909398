import { Injectable } from '@nestjs/common';

/**
 * The time the idle rules are judged by: the system clock, plus an offset that only tests move
 * (`advance`), so that "1800 s without requests" is checked without waiting 1800 s.
 */
@Injectable()
export class Clock {
  private offsetMs = 0;

  now(): number {
    return Date.now() + this.offsetMs;
  }

  /** Moves this clock forward (tests). */
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
