/**
 * Client of an OpenAI-compatible chat completions endpoint (`POST {base}/v1/chat/completions` with
 * `{model, messages, temperature}` → `{choices: [{message: {content}}]}`; OpenAI, Ollama, vLLM,
 * LM Studio and llama.cpp's server answer it). The base URL may end in `/v1` or not.
 */
export class ChatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChatError';
  }
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatClientOptions {
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
}

export function chatEndpoint(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return /\/v\d+$/.test(trimmed) ? `${trimmed}/chat/completions` : `${trimmed}/v1/chat/completions`;
}

export class ChatClient {
  private readonly endpoint: string;

  constructor(private readonly opts: ChatClientOptions) {
    this.endpoint = chatEndpoint(opts.baseUrl);
  }

  get model(): string {
    return this.opts.model;
  }

  /** The assistant's answer to these messages. */
  async complete(messages: ChatMessage[], opts: { maxTokens?: number; json?: boolean; signal?: AbortSignal } = {}): Promise<string> {
    const timeout = AbortSignal.timeout(this.opts.timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    let res: Response;
    try {
      res = await fetch(this.endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {}),
        },
        body: JSON.stringify({
          model: this.opts.model,
          messages,
          temperature: 0.2,
          ...(opts.maxTokens ? { max_tokens: opts.maxTokens } : {}),
          ...(opts.json ? { response_format: { type: 'json_object' } } : {}),
        }),
        signal,
      });
    } catch (err) {
      const e = err as Error;
      throw new ChatError(
        e.name === 'TimeoutError' || timeout.aborted ? `chat server did not answer within ${this.opts.timeoutMs} ms` : `chat server unreachable: ${e.message}`,
      );
    }
    const text = await res.text();
    if (!res.ok) throw new ChatError(`chat server answered ${res.status}: ${text.slice(0, 200)}`);
    let body: { choices?: Array<{ message?: { content?: unknown } }> };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new ChatError('chat server answered something that is not JSON');
    }
    const content = body.choices?.[0]?.message?.content;
    if (typeof content !== 'string') throw new ChatError('chat server answered no choices[0].message.content');
    return content;
  }
}

/** The first JSON object in a model's answer (models wrap it in prose or a ``` fence at times). */
export function extractJsonObject(answer: string): Record<string, unknown> {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(answer);
  const candidates = [answer.trim(), fenced?.[1]?.trim() ?? ''];
  const start = answer.indexOf('{');
  const end = answer.lastIndexOf('}');
  if (start >= 0 && end > start) candidates.push(answer.slice(start, end + 1));
  for (const c of candidates) {
    if (!c) continue;
    try {
      const parsed = JSON.parse(c) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    } catch {
      // next candidate
    }
  }
  throw new ChatError('the model answered no JSON object');
}
