import { Injectable } from '@nestjs/common';
import { KnowledgeApiConfig } from '../config';
import { ChatClient, ChatError, type ChatMessage } from './chat.client';

/** The optional chat model (LLM_URL, LLM_MODEL): drafts projects and writes chunk context. */
@Injectable()
export class ChatService {
  private readonly client: ChatClient | null;

  constructor(config: KnowledgeApiConfig) {
    this.client = config.LLM_URL
      ? new ChatClient({ baseUrl: config.LLM_URL, model: config.LLM_MODEL, apiKey: config.LLM_API_KEY, timeoutMs: config.LLM_TIMEOUT_MS })
      : null;
  }

  get configured(): boolean {
    return !!this.client;
  }

  get model(): string | null {
    return this.client?.model ?? null;
  }

  complete(messages: ChatMessage[], opts?: { maxTokens?: number; json?: boolean; signal?: AbortSignal }): Promise<string> {
    if (!this.client) return Promise.reject(new ChatError('LLM_URL is not set'));
    return this.client.complete(messages, opts);
  }
}
