import { Injectable } from '@nestjs/common';

/**
 * The engine's notion of "now" (next_post windows and expiry, reminders, the 24-hour window).
 * Production uses the system time; tests move it with `advance` / `set` (the offset applies to every
 * reader in the app) instead of waiting.
 */
@Injectable()
export class Clock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  /** Moves the clock forward (tests). */
  advance(ms: number): void {
    this.offsetMs += ms;
  }

  /** Sets the clock to a point in time (tests). */
  set(at: Date): void {
    this.offsetMs = at.getTime() - Date.now();
  }
}
