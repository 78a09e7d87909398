import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { KnowledgeMcpConfig } from '../config';
import { KnowledgeApiClient } from '../knowledge/knowledge-api.client';

export type TransportChoice = 'all' | 'streamable-http' | 'sse';
const CHOICES: TransportChoice[] = ['all', 'streamable-http', 'sse'];

/**
 * Which transports this process serves, decided once at start: the `transport` of knowledge-api's
 * `GET /api/mcp/config` (set with `POST /api/mcp/config`, which says it applies at the next start),
 * or MCP_TRANSPORT when knowledge-api does not answer within 2 s or names none.
 */
@Injectable()
export class TransportChoiceService implements OnApplicationBootstrap {
  private readonly logger = new Logger('McpTransport');
  private choice: TransportChoice;
  private from: 'knowledge-api' | 'MCP_TRANSPORT' = 'MCP_TRANSPORT';

  constructor(
    config: KnowledgeMcpConfig,
    private readonly api: KnowledgeApiClient,
  ) {
    this.choice = config.MCP_TRANSPORT;
  }

  async onApplicationBootstrap(): Promise<void> {
    try {
      const config = await Promise.race([
        this.api.get<{ transport?: unknown }>('/api/mcp/config'),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer within 2 s')), 2_000).unref()),
      ]);
      if (CHOICES.includes(config.transport as TransportChoice)) {
        this.choice = config.transport as TransportChoice;
        this.from = 'knowledge-api';
      }
    } catch (err) {
      this.logger.warn(`knowledge-api's MCP configuration not read (${(err as Error).message}): MCP_TRANSPORT=${this.choice} applies`);
    }
    this.logger.log(`transports: ${this.choice} (from ${this.from})`);
  }

  get transport(): TransportChoice {
    return this.choice;
  }

  get source(): string {
    return this.from;
  }

  serves(kind: 'streamable-http' | 'sse'): boolean {
    return this.choice === 'all' || this.choice === kind;
  }
}
