import { Inject, Injectable, Logger } from '@nestjs/common';
import { LogisticsHooksConfig } from '../config';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export class LlmError extends Error {}

/**
 * Client of an OpenAI-compatible chat-completions endpoint (`LLM_URL`). Every caller treats a failure
 * (unset, unreachable, timeout, non-2xx, no content, unparseable JSON) as "no answer" and lets the
 * rules stand in.
 */
@Injectable()
export class LlmClient {
  private readonly logger = new Logger(LlmClient.name);
  private readonly url: string | null;

  constructor(@Inject(LogisticsHooksConfig) private readonly config: LogisticsHooksConfig) {
    const base = config.LLM_URL?.replace(/\/+$/, '');
    this.url = base ? (base.endsWith('/chat/completions') ? base : `${base}/chat/completions`) : null;
  }

  get enabled(): boolean {
    return this.url !== null;
  }

  /** The model's text answer. Throws LlmError on any failure. */
  async complete(messages: ChatMessage[], opts: { json?: boolean; maxTokens?: number } = {}): Promise<string> {
    if (!this.url) throw new LlmError('LLM_URL is not set');
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.config.LLM_API_KEY) headers.authorization = `Bearer ${this.config.LLM_API_KEY}`;
    let res: Response;
    try {
      res = await fetch(this.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          model: this.config.LLM_MODEL,
          messages,
          temperature: 0,
          max_tokens: opts.maxTokens ?? 800,
          ...(opts.json ? { response_format: { type: 'json_object' } } : {}),
        }),
        signal: AbortSignal.timeout(this.config.LLM_TIMEOUT_MS),
      });
    } catch (err) {
      throw this.fail(`the model did not answer: ${(err as Error).message}`);
    }
    if (!res.ok) throw this.fail(`the model answered ${res.status}`);
    let payload: { choices?: { message?: { content?: unknown } }[] };
    try {
      payload = (await res.json()) as typeof payload;
    } catch {
      throw this.fail('the model answered with something other than JSON');
    }
    const content = payload.choices?.[0]?.message?.content;
    if (typeof content !== 'string' || content.trim() === '') throw this.fail('the model answered without content');
    return content.trim();
  }

  /** The model's answer parsed as a JSON object (code fences tolerated). Throws LlmError on any failure. */
  async completeJson(messages: ChatMessage[]): Promise<Record<string, unknown>> {
    const text = await this.complete(messages, { json: true });
    const unfenced = text.replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, '');
    try {
      const value = JSON.parse(unfenced) as unknown;
      if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // fall through
    }
    throw this.fail('the model answer is not a JSON object');
  }

  private fail(message: string): LlmError {
    this.logger.warn(`${message}; the rules stand in`);
    return new LlmError(message);
  }
}
