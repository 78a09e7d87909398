import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Request, Response } from 'express';

/**
 * Serves a Node request with the SDK's web-standard Streamable HTTP transport, converting only what
 * that transport reads and writes:
 * - in: method, URL and headers (a `Headers`), and the body Express already parsed;
 * - out: a body-less answer (202, DELETE) ends at once; an event stream (GET, or an answer streamed
 *   as SSE) is written event by event until it ends or the client goes away; any other body (the
 *   JSON answer of a `tools/call`) is read whole and written with its Content-Length in one `end`:
 *   one write per answer, not a chunked body and its terminator.
 */
export async function serveWeb(transport: WebStandardStreamableHTTPServerTransport, req: Request, res: Response): Promise<void> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  let url = `http://${req.headers.host ?? 'localhost'}${req.originalUrl}`;
  if (!URL.canParse(url)) url = `http://localhost${req.originalUrl}`;
  // The transport reads a POST body only when none is given; Express parsed every JSON body (the
  // transport answers any other content type 415 before it looks at the body).
  const request = { method: req.method, url, headers } as unknown as globalThis.Request;
  const parsedBody = req.method === 'POST' ? (req.body as unknown) : undefined;
  const answer = await transport.handleRequest(request, { parsedBody });
  const out: Record<string, string> = {};
  answer.headers.forEach((value, name) => (out[name] = value));
  if (!answer.body) {
    res.writeHead(answer.status, out).end();
    return;
  }
  if (!(out['content-type'] ?? '').startsWith('text/event-stream')) {
    const body = Buffer.from(await answer.arrayBuffer());
    out['content-length'] = String(body.length);
    res.writeHead(answer.status, out).end(body);
    return;
  }
  res.writeHead(answer.status, out);
  res.flushHeaders();
  const reader = answer.body.getReader();
  res.on('close', () => void reader.cancel().catch(() => undefined));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      res.write(value);
    }
  } catch {
    // the stream was cancelled (client gone, session closed)
  }
  if (!res.destroyed) res.end();
}

type StreamEntry = { resolveJson?: (answer: globalThis.Response) => void };

/**
 * The SDK's transport (1.32) in JSON response mode answers a POST through its stream entry's
 * `resolveJson` but never removes the entry, so a long session keeps every answer it gave (about
 * 13 KB a ping, found by the soak). This drops each JSON-mode entry as it answers; SSE entries are
 * left to the SDK, which removes them itself. A transport without that map is left alone.
 */
export function dropAnsweredStreams(transport: WebStandardStreamableHTTPServerTransport): void {
  const streams = (transport as unknown as { _streamMapping?: unknown })._streamMapping;
  if (!(streams instanceof Map)) return;
  const map = streams as Map<string, StreamEntry>;
  const set = map.set.bind(map);
  map.set = (id: string, entry: StreamEntry) => {
    const resolve = entry.resolveJson;
    if (resolve) {
      entry.resolveJson = (answer) => {
        map.delete(id);
        resolve(answer);
      };
    }
    return set(id, entry);
  };
}
