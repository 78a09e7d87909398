import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OpenAI-compatible chat completions server on loopback (`POST /v1/chat/completions`). Its
 * answer is what `reply` returns for the request's messages (a test sets it); `fail` answers 503,
 * `hang` never answers.
 */
export interface FakeChatRequest {
  model: string;
  messages: Array<{ role: string; content: string }>;
  authorization?: string;
  response_format?: unknown;
}

export interface FakeChat {
  url: string;
  requests: FakeChatRequest[];
  mode: 'ok' | 'fail' | 'hang';
  reply: (req: FakeChatRequest) => string;
  close(): Promise<void>;
}

export async function startFakeChat(reply: (req: FakeChatRequest) => string = () => 'ok'): Promise<FakeChat> {
  const state = { mode: 'ok' as FakeChat['mode'], reply };
  const requests: FakeChatRequest[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      const parsed = JSON.parse(body) as FakeChatRequest;
      const request: FakeChatRequest = { model: parsed.model, messages: parsed.messages, response_format: parsed.response_format, authorization: req.headers.authorization };
      requests.push(request);
      if (state.mode === 'hang') return;
      if (state.mode === 'fail') {
        res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"overloaded"}}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${requests.length}`,
          object: 'chat.completion',
          model: parsed.model,
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: state.reply(request) } }],
          usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    get mode() {
      return state.mode;
    },
    set mode(m) {
      state.mode = m;
    },
    get reply() {
      return state.reply;
    },
    set reply(fn) {
      state.reply = fn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
