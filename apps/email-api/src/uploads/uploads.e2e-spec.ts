import { CreateBucketCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import sharp from 'sharp';
import { bearer, newProject, startEmailApi, type EmailTestApp, type TestAccount, type TestProject } from '../../test/helpers';

const BUCKET = 'email-images';
const CACHE = 'public, max-age=31536000, immutable';

const solid = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: { r: 20, g: 120, b: 220 } } });

/** One image of each accepted format, made here. */
async function sampleImages(): Promise<Array<{ name: string; data: Buffer; type: string; ext: string }>> {
  return [
    { name: 'a.png', data: await solid(64, 48).png().toBuffer(), type: 'image/png', ext: 'png' },
    { name: 'b.jpg', data: await solid(64, 48).jpeg().toBuffer(), type: 'image/jpeg', ext: 'jpg' },
    { name: 'c.gif', data: await solid(64, 48).gif().toBuffer(), type: 'image/gif', ext: 'gif' },
    { name: 'd.webp', data: await solid(64, 48).webp().toBuffer(), type: 'image/webp', ext: 'webp' },
  ];
}

/** The path of a public URL on the app (the tests reach it through supertest). */
const pathOf = (url: string) => new URL(url).pathname.replace(/^\/email\//, '/');

/** An s3rver (S3's REST protocol) on loopback, with the bucket created through the AWS SDK. */
async function startS3(): Promise<{ endpoint: string; client: S3Client; close(): Promise<void> }> {
  const directory = await mkdtemp(join(tmpdir(), 'email-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
  return {
    endpoint,
    client,
    async close() {
      client.destroy();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

const stores: Array<['disk' | 's3']> = [['disk'], ['s3']];

describe.each(stores)('image uploads stored on %s (e2e)', (store) => {
  let t: EmailTestApp;
  let s3: Awaited<ReturnType<typeof startS3>> | undefined;
  let owner: { account: TestAccount; project: TestProject };
  let sk: { Authorization: string };

  beforeAll(async () => {
    if (store === 's3') s3 = await startS3();
    t = await startEmailApi({
      PUBLIC_BASE_URL: 'https://mail.example.com/email',
      ...(s3 ? { S3_BUCKET: BUCKET, S3_ENDPOINT: s3.endpoint, S3_FORCE_PATH_STYLE: 'true', S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER' } : {}),
    });
    owner = await newProject(t, 'Images');
    sk = bearer(owner.project.secretKey);
  });
  afterAll(async () => {
    await t?.close();
    await s3?.close();
  });

  it('stores PNG, JPEG, GIF and WebP and serves each back at its public URL with its type and cache headers', async () => {
    for (const image of await sampleImages()) {
      const res = await t.http.post('/uploads/image').set(sk).attach('file', image.data, { filename: image.name, contentType: 'application/octet-stream' }).expect(201);
      expect(res.body).toMatchObject({ contentType: image.type, width: 64, height: 48, key: `${res.body.sha256}.${image.ext}` });
      expect(res.body.url).toBe(`https://mail.example.com/email/uploads/images/${owner.project.id}/${res.body.key}`);

      const served = await t.http.get(pathOf(res.body.url)).buffer(true).parse((r, done) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => done(null, Buffer.concat(chunks)));
      }).expect(200);
      expect(served.headers).toMatchObject({ 'content-type': image.type, 'cache-control': CACHE, etag: `"${res.body.sha256}"`, 'x-content-type-options': 'nosniff' });
      expect((served.body as Buffer).length).toBe(res.body.size);
      expect((await sharp(served.body as Buffer).metadata()).format).toBe(image.ext === 'jpg' ? 'jpeg' : image.ext);

      // a cached copy is confirmed without a body
      const notModified = await t.http.get(pathOf(res.body.url)).set('If-None-Match', `"${res.body.sha256}"`).expect(304);
      expect(notModified.headers['cache-control']).toBe(CACHE);
      const head = await t.http.head(pathOf(res.body.url)).expect(200);
      expect([head.headers['content-type'], head.headers['content-length']]).toEqual([image.type, String(res.body.size)]);
    }
    if (store === 'disk') {
      const [first] = (await t.http.get('/uploads/images').set(sk).expect(200)).body.data;
      expect(existsSync(join(t.config.DATA_DIR, 'email-api', 'uploads', owner.project.id, first.key))).toBe(true);
    }
  });

  it('gives the same image the same upload and URL, strips EXIF and scales oversized images down', async () => {
    const photo = await solid(3000, 1500).jpeg().withExif({ IFD0: { Make: 'SecretCam', Copyright: 'Jane' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 0/1' } }).toBuffer();
    expect((await sharp(photo).metadata()).exif).toBeDefined();
    const first = await t.http.post('/uploads/image').set(sk).attach('file', photo, 'holiday.jpg').expect(201);
    const again = await t.http.post('/uploads/image').set(sk).attach('file', photo, 'copy-of-holiday.jpeg').expect(201);
    expect(again.body).toEqual(first.body);
    expect(first.body).toMatchObject({ width: 2000, height: 1000, contentType: 'image/jpeg' });

    const stored = await t.http.get(pathOf(first.body.url)).buffer(true).parse((r, done) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => done(null, Buffer.concat(chunks)));
    }).expect(200);
    const meta = await sharp(stored.body as Buffer).metadata();
    expect([meta.width, meta.height, meta.exif, meta.xmp, meta.icc]).toEqual([2000, 1000, undefined, undefined, undefined]);
    expect((stored.body as Buffer).includes(Buffer.from('SecretCam'))).toBe(false);

    if (s3) {
      // the object itself carries the headers a public bucket (S3_PUBLIC_URL) would answer with
      const object = await s3.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${owner.project.id}/${first.body.key}` }));
      expect([object.ContentType, object.CacheControl, object.ContentLength]).toEqual(['image/jpeg', CACHE, first.body.size]);
      object.Body?.transformToByteArray();
    }
  });

  it('answers 404 for unknown images, other projects\' paths and names that are not image keys', async () => {
    const upload = (await t.http.post('/uploads/image').set(sk).attach('file', await solid(5, 5).png().toBuffer(), 'x.png').expect(201)).body;
    const other = await newProject(t, 'Other');
    for (const path of [
      `/uploads/images/${other.project.id}/${upload.key}`,
      `/uploads/images/${owner.project.id}/${'0'.repeat(64)}.png`,
      `/uploads/images/${owner.project.id}/${upload.sha256}.svg`,
      `/uploads/images/${owner.project.id}/..%2F..%2F..%2Fetc%2Fpasswd`,
      `/uploads/images/..%2F${owner.project.id}/${upload.key}`,
      `/uploads/images/not-a-project/${upload.key}`,
    ]) {
      const res = await t.http.get(path).expect(404);
      expect(res.body.error.code).toBe('UPLOAD_NOT_FOUND');
    }
  });
});

describe('image upload rules (e2e)', () => {
  let t: EmailTestApp;
  let owner: { account: TestAccount; project: TestProject };
  let sk: { Authorization: string };

  beforeAll(async () => {
    t = await startEmailApi();
    owner = await newProject(t, 'Rules');
    sk = bearer(owner.project.secretKey);
  });
  afterAll(() => t?.close());

  it('refuses a text file named .png, SVG, a broken image and a missing file with clear codes', async () => {
    const text = await t.http.post('/uploads/image').set(sk).attach('file', Buffer.from('definitely not a picture\n'), { filename: 'photo.png', contentType: 'image/png' }).expect(415);
    expect(text.body.error).toMatchObject({ code: 'UNSUPPORTED_IMAGE_TYPE', statusCode: 415 });
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>');
    expect((await t.http.post('/uploads/image').set(sk).attach('file', svg, { filename: 'logo.svg', contentType: 'image/svg+xml' }).expect(415)).body.error.code).toBe('UNSUPPORTED_IMAGE_TYPE');
    const png = await sharp({ create: { width: 100, height: 100, channels: 3, background: 'black', noise: { type: 'gaussian', mean: 128, sigma: 40 } } }).png().toBuffer();
    const broken = await t.http.post('/uploads/image').set(sk).attach('file', png.subarray(0, 500), 'cut.png').expect(422);
    expect(broken.body.error.code).toBe('INVALID_IMAGE');
    const missing = await t.http.post('/uploads/image').set(sk).field('caption', 'no file').expect(422);
    expect(missing.body.error.errors[0]).toMatchObject({ field: 'file', code: 'required' });
    await t.http.post('/uploads/image').set(sk).send({ file: 'iVBORw0KGgo=' }).expect(422);
    await t.http.post('/uploads/image').set(sk).attach('image', png, 'x.png').expect(400);
    // nothing was recorded
    expect((await t.http.get('/uploads/images').set(sk).expect(200)).body).toMatchObject({ data: [], total: 0 });
  });

  it('refuses a body over 5 MB with 413: a declared length before reading it, a streamed one as soon as it passes the cap', async () => {
    const multipart = { ...sk, 'Content-Type': 'multipart/form-data; boundary=X' };
    // 500 MB announced: answered from the headers alone
    const declared = await rawPost(t, { ...multipart, 'Content-Length': String(500 * 1024 * 1024) }, {});
    expect([declared.status, declared.body.error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);

    // chunked, no length announced: counted while it streams
    const streamed = await rawPost(t, { ...multipart, 'Transfer-Encoding': 'chunked' }, { streamBytes: 200 * 1024 * 1024 });
    expect([streamed.status, streamed.body.error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    expect(streamed.sent).toBeLessThan(100 * 1024 * 1024);

    // a file one byte over the cap in a body within the multipart allowance
    const file = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.alloc(5 * 1024 * 1024 - 2, 1)]);
    const body = Buffer.concat([Buffer.from('--X\r\nContent-Disposition: form-data; name="file"; filename="big.jpg"\r\nContent-Type: image/jpeg\r\n\r\n'), file, Buffer.from('\r\n--X--\r\n')]);
    const justOver = await rawPost(t, { ...multipart, 'Content-Length': String(body.length) }, { body });
    expect([justOver.status, justOver.body.error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
  });

  it('needs the secret key or a session of a member; the image URL itself is public', async () => {
    const png = await solid(8, 8).png().toBuffer();
    const none = await t.http.post('/uploads/image').attach('file', png, 'a.png').expect(401);
    expect(none.body.error.code).toBe('MISSING_AUTH');
    expect((await t.http.post('/uploads/image').set(bearer(owner.project.publicKey)).attach('file', png, 'a.png').expect(401)).body.error.code).toBe('INVALID_API_KEY');

    const bySession = await t.http.post('/uploads/image').set('Cookie', owner.account.cookie).set('X-Project-Id', owner.project.id).attach('file', png, 'a.png').expect(201);
    const stranger = await newProject(t, 'Stranger');
    expect((await t.http.post('/uploads/image').set('Cookie', stranger.account.cookie).set('X-Project-Id', owner.project.id).attach('file', png, 'a.png').expect(403)).body.error.code).toBe('PROJECT_ACCESS_DENIED');

    // no credentials needed to read it
    await t.http.get(pathOf(bySession.body.url)).expect(200);
    // each project lists its own uploads only
    expect((await t.http.get('/uploads/images').set(sk).expect(200)).body.data.map((u: { id: string }) => u.id)).toEqual([bySession.body.id]);
    expect((await t.http.get('/uploads/images').set(bearer(stranger.project.secretKey)).expect(200)).body.total).toBe(0);
  });

  it('pages the project\'s uploads newest first', async () => {
    const { project } = await newProject(t, 'Pages');
    const key = bearer(project.secretKey);
    const ids: string[] = [];
    for (let i = 1; i <= 3; i++) ids.push((await t.http.post('/uploads/image').set(key).attach('file', await solid(i, i).png().toBuffer(), 'p.png').expect(201)).body.id);
    const first = await t.http.get('/uploads/images?limit=2').set(key).expect(200);
    expect(first.body).toMatchObject({ total: 3, hasMore: true });
    const second = await t.http.get(`/uploads/images?limit=2&cursor=${first.body.cursor}`).set(key).expect(200);
    expect(second.body).toMatchObject({ total: 0, hasMore: false, cursor: null });
    expect([...first.body.data, ...second.body.data].map((u: { id: string }) => u.id).sort()).toEqual([...ids].sort());
    expect((await t.http.get('/uploads/images?cursor=garbage').set(key).expect(400)).body.error.code).toBe('INVALID_CURSOR');
    await t.http.get('/uploads/images?limit=1000').set(key).expect(422);
  });
});

/**
 * POSTs over a raw connection to the app (listening on loopback): `body` sent whole, or a multipart
 * head followed by up to `streamBytes` of file content in 64 KB chunks, stopping as soon as the answer
 * arrives (`sent` counts the file bytes written), or nothing but the headers.
 */
async function rawPost(t: EmailTestApp, headers: Record<string, string>, send: { body?: Buffer; streamBytes?: number }): Promise<{ status: number; body: { error: { code: string } }; sent: number }> {
  const server = t.app.getHttpServer();
  if (!server.listening) await t.app.listen(0, '127.0.0.1');
  const { port } = server.address() as { port: number };
  return new Promise((resolve, reject) => {
    let answered = false;
    let sent = 0;
    const req = httpRequest({ host: '127.0.0.1', port, path: '/uploads/image', method: 'POST', headers }, (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), sent });
      });
    });
    // once answered, the server closes the connection while we may still be writing
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    if (send.body) {
      req.end(send.body);
      return;
    }
    if (!send.streamBytes) {
      req.flushHeaders();
      return;
    }
    req.write('--X\r\nContent-Disposition: form-data; name="file"; filename="huge.png"\r\nContent-Type: image/png\r\n\r\n');
    const chunk = Buffer.alloc(64 * 1024, 7);
    const pump = () => {
      while (!answered && sent < send.streamBytes!) {
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) req.end();
    };
    pump();
  });
}
