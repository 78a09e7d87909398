// A fake OpenAI-compatible chat-completions server on loopback: `POST /v1/chat/completions` answers
// with what `answer` returns for the request (the assistant's content), or an HTTP error.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequest {
  model: string;
  messages: { role: string; content: string }[];
  response_format?: { type: string };
  [key: string]: unknown;
}

export type FakeAnswer = string | { status: number; body?: string } | { hang: true };

export interface FakeLlm {
  /** Base URL to use as LLM_URL (`http://127.0.0.1:<port>/v1`). */
  url: string;
  requests: ChatRequest[];
  /** Decides each answer; default: a fixed JSON classification. */
  answer: (req: ChatRequest) => FakeAnswer;
  close(): Promise<void>;
}

export async function startFakeLlm(answer?: (req: ChatRequest) => FakeAnswer): Promise<FakeLlm> {
  const fake: FakeLlm = {
    url: '',
    requests: [],
    answer: answer ?? (() => JSON.stringify({ priority: 'LOW', category: 'GENERAL', sentiment: 'NEUTRAL' })),
    close: async () => undefined,
  };
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
      fake.requests.push(body);
      const result = fake.answer(body);
      if (typeof result === 'object' && 'hang' in result) {
        hanging.add(res);
        return;
      }
      if (typeof result === 'object') {
        res.writeHead(result.status, { 'content-type': 'application/json' }).end(result.body ?? '{"error":"failed"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `chatcmpl-${fake.requests.length}`,
          object: 'chat.completion',
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: result }, finish_reason: 'stop' }],
        }),
      );
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  fake.close = async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
  return fake;
}
