import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake WhatsApp Cloud API (Graph API) for tests: node:http on 127.0.0.1, port 0. It answers
 * `POST /{version}/{phone-number-id}/messages` (text) and `GET /{version}/{media-id}` in the real
 * shapes, checks the bearer token like the real one (401 with Graph error 190 otherwise), records
 * every sent message and can refuse the next sends.
 */
export interface FakeSentWhatsApp {
  phoneNumberId: string;
  to: string;
  type: string;
  text?: { body: string; preview_url?: boolean };
  /** A template message's `template`, a media message's `{link, caption?, filename?}`. */
  template?: Record<string, unknown>;
  media?: Record<string, unknown>;
  id: string;
  authorization: string;
}

export interface FakeWhatsApp {
  /** `http://127.0.0.1:<port>/v21.0`: WHATSAPP_API_URL */
  url: string;
  readonly sent: FakeSentWhatsApp[];
  readonly mediaLookups: string[];
  /** The next `times` sends answer this Graph error. */
  failNext(error: { status: number; code: number; message: string; times?: number }): void;
  close(): Promise<void>;
}

/** The bytes the fake serves for a media id. */
export const mediaBytes = (mediaId: string): Buffer => Buffer.from(`fake jpeg bytes of ${mediaId}`);

export async function startFakeWhatsApp(opts: { accessToken: string }): Promise<FakeWhatsApp> {
  const sent: FakeSentWhatsApp[] = [];
  const mediaLookups: string[] = [];
  let failure: { status: number; code: number; message: string; times: number } | null = null;
  let counter = 0;
  let port = 0;

  const reply = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const graphError = (res: ServerResponse, status: number, code: number, message: string) =>
    reply(res, status, { error: { message, type: 'OAuthException', code, fbtrace_id: 'fake' } });

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const auth = req.headers.authorization ?? '';
      if (auth !== `Bearer ${opts.accessToken}`) return graphError(res, 401, 190, 'Invalid OAuth access token.');
      const path = new URL(req.url ?? '/', 'http://x').pathname.split('/').filter(Boolean);
      if (path[0] !== 'v21.0') return graphError(res, 400, 2500, 'Unknown path components');
      if (req.method === 'POST' && path.length === 3 && path[2] === 'messages') {
        if (failure && failure.times > 0) {
          failure.times--;
          return graphError(res, failure.status, failure.code, failure.message);
        }
        let body: Record<string, unknown>;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        } catch {
          return graphError(res, 400, 100, 'Invalid JSON');
        }
        if (body.messaging_product !== 'whatsapp' || typeof body.to !== 'string') return graphError(res, 400, 100, '(#100) Invalid parameter');
        const id = `wamid.FAKE${++counter}`;
        const type = String(body.type);
        const extra = type === 'template' ? { template: body.template as Record<string, unknown> } : type !== 'text' ? { media: body[type] as Record<string, unknown> } : {};
        sent.push({ phoneNumberId: path[1], to: body.to, type, text: body.text as FakeSentWhatsApp['text'], ...extra, id, authorization: auth });
        return reply(res, 200, { messaging_product: 'whatsapp', contacts: [{ input: body.to, wa_id: body.to }], messages: [{ id }] });
      }
      if (req.method === 'GET' && path.length === 2) {
        mediaLookups.push(path[1]);
        // The real URL is on lookaside.fbsbx.com; this one is the fake's own origin (which the client also accepts).
        return reply(res, 200, { messaging_product: 'whatsapp', url: `http://127.0.0.1:${port}/v21.0/media-download/${path[1]}`, mime_type: 'image/jpeg', sha256: 'fake-sha', file_size: 1234, id: path[1] });
      }
      if (req.method === 'GET' && path.length === 3 && path[1] === 'media-download') {
        const bytes = mediaBytes(path[2]);
        res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': bytes.length }).end(bytes);
        return;
      }
      return graphError(res, 400, 2500, 'Unsupported request');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v21.0`,
    sent,
    mediaLookups,
    failNext: (e) => {
      failure = { ...e, times: e.times ?? 1 };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
