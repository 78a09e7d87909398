import { Inject, Injectable } from '@nestjs/common';
import { LogisticsHooksConfig } from '../config';
import { parseCarrierSettings } from './carrier-settings';
import { DcsaClient } from './dcsa.client';

/** One DCSA client per configured carrier (OCEAN_CARRIERS), their OAuth2 tokens kept per process. */
@Injectable()
export class OceanCarriers {
  private readonly clients = new Map<string, DcsaClient>();

  constructor(@Inject(LogisticsHooksConfig) config: LogisticsHooksConfig) {
    // validated at start (config.ts): what remains here parses
    for (const [code, endpoint] of parseCarrierSettings(config.OCEAN_CARRIERS).endpoints) {
      this.clients.set(code, new DcsaClient(code, endpoint, { timeoutMs: config.OCEAN_TIMEOUT_MS, maxPages: config.OCEAN_MAX_PAGES, pageSize: 100 }));
    }
  }

  get(carrier: string): DcsaClient | null {
    return this.clients.get(carrier) ?? null;
  }

  get configured(): string[] {
    return [...this.clients.keys()];
  }
}
