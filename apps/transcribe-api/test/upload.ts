import { request as httpRequest, type ClientRequest } from 'node:http';
import { Readable } from 'node:stream';

/**
 * Sends `POST path` with a multipart body whose `file` part is `head` followed by zero bytes up to
 * `size` bytes, generated chunk by chunk: nothing close to `size` is ever held in memory.
 * Resolves with the status and body as soon as the server answers.
 */
export function streamUpload(baseUrl: string, path: string, size: number, head: Buffer): Promise<{ status: number; body: string; sent: number }> {
  const boundary = `----transcribe-test-${Date.now()}`;
  const preamble = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
  );
  const epilogue = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = Buffer.alloc(256 * 1024);
  let sent = 0;
  function* parts(): Generator<Buffer> {
    yield preamble;
    yield head;
    let left = size - head.length;
    while (left > 0) {
      const n = Math.min(left, chunk.length);
      yield n === chunk.length ? chunk : chunk.subarray(0, n);
      left -= n;
    }
    yield epilogue;
  }
  const body = Readable.from(parts(), { objectMode: false });
  body.on('data', (c: Buffer) => (sent += c.length));
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': preamble.length + size + epilogue.length,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          body.destroy();
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), sent });
        });
      },
    );
    req.on('error', reject);
    body.pipe(req);
  });
}

/**
 * Starts `POST path` with a multipart body whose `file` part is `file`, and returns the request for
 * the test to destroy (a client going away). By default the body is complete; with `keepOpen` the
 * request declares `declaredBytes` of file, sends `file` plus 1 MiB of it and then stalls, as an
 * upload cut off midway. Errors of the destroyed request are ignored.
 */
export function streamUploadRequest(
  baseUrl: string,
  path: string,
  file: Buffer,
  opts: { declaredBytes?: number; keepOpen?: boolean } = {},
): ClientRequest {
  const boundary = `----transcribe-test-${Date.now()}`;
  const preamble = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
  );
  const epilogue = Buffer.from(`\r\n--${boundary}--\r\n`);
  const fileBytes = opts.keepOpen ? (opts.declaredBytes ?? file.length) : file.length;
  const req = httpRequest(new URL(path, baseUrl), {
    method: 'POST',
    headers: {
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': preamble.length + fileBytes + epilogue.length,
    },
  });
  req.on('error', () => undefined);
  req.on('response', (res) => res.resume());
  req.write(preamble);
  req.write(file);
  if (opts.keepOpen) req.write(Buffer.alloc(1024 * 1024));
  else req.end(epilogue);
  return req;
}
