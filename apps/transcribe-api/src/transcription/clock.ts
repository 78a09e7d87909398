import { Injectable } from '@nestjs/common';

/** The clock of job expiries and progress: the system's, replaced in tests to move time without waiting. */
@Injectable()
export class Clock {
  now(): number {
    return Date.now();
  }
}
