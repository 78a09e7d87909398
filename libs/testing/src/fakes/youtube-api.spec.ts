import { startFakeYouTubeApi, type FakeYouTubeApi } from './youtube-api';

describe('fake YouTube Data API', () => {
  let yt: FakeYouTubeApi;
  const token = async () => {
    const res = await fetch(yt.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: yt.refreshToken, client_id: yt.clientId, client_secret: yt.clientSecret }),
    });
    return ((await res.json()) as { access_token: string }).access_token;
  };
  const start = async (access: string, size: number, title = 'T') =>
    fetch(`${yt.url}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status`, {
      method: 'POST',
      headers: { authorization: `Bearer ${access}`, 'content-type': 'application/json', 'x-upload-content-length': String(size), 'x-upload-content-type': 'video/mp4' },
      body: JSON.stringify({ snippet: { title, description: 'D' }, status: { privacyStatus: 'unlisted' } }),
    });

  beforeAll(async () => {
    yt = await startFakeYouTubeApi();
  });
  afterAll(() => yt.close());
  beforeEach(() => yt.reset());

  it('token endpoint: refresh grant → access token; wrong client 401, unknown grant 400', async () => {
    expect(await token()).toMatch(/^ya29\./);
    const bad = await fetch(yt.tokenUrl, { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', client_id: yt.clientId, client_secret: yt.clientSecret }) });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'invalid_grant' });
    const client = await fetch(yt.tokenUrl, { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: yt.refreshToken, client_id: 'x', client_secret: 'y' }) });
    expect(client.status).toBe(401);
  });

  it('resumable upload: session in Location, 308 with Range per chunk, status query, the video at the end', async () => {
    const access = await token();
    expect((await start('nope', 10)).status).toBe(401);
    expect((await start(access, 10, '')).status).toBe(400);
    const session = (await start(access, 10)).headers.get('location')!;
    const first = await fetch(session, { method: 'PUT', headers: { authorization: `Bearer ${access}`, 'content-range': 'bytes 0-5/10' }, body: Buffer.alloc(6) });
    expect(first.status).toBe(308);
    expect(first.headers.get('range')).toBe('bytes=0-5');
    const status = await fetch(session, { method: 'PUT', headers: { 'content-range': 'bytes */10' } });
    expect(status.status).toBe(308);
    expect(status.headers.get('range')).toBe('bytes=0-5');
    const last = await fetch(session, { method: 'PUT', headers: { 'content-range': 'bytes 6-9/10' }, body: Buffer.alloc(4) });
    expect(last.status).toBe(200);
    const video = (await last.json()) as { id: string; status: { privacyStatus: string } };
    expect(video).toMatchObject({ kind: 'youtube#video', id: yt.videos[0].id, status: { uploadStatus: 'uploaded', privacyStatus: 'unlisted' } });
    expect(yt.videos[0]).toMatchObject({ title: 'T', description: 'D', bytes: 10 });
    // Asking again after the end answers the same video.
    expect(((await (await fetch(session, { method: 'PUT', headers: { 'content-range': 'bytes */10' } })).json()) as { id: string }).id).toBe(video.id);
  });

  it('failures: injected errors in Google\'s shape, truncated chunks', async () => {
    const access = await token();
    yt.fail({ on: 'initiate', status: 403, reason: 'quotaExceeded', message: 'quota' });
    const refused = await start(access, 10);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ error: { code: 403, message: 'quota', errors: [{ message: 'quota', domain: 'youtube.quota', reason: 'quotaExceeded' }] } });
    const session = (await start(access, 10)).headers.get('location')!;
    yt.truncateNextChunk = 3;
    const cut = await fetch(session, { method: 'PUT', headers: { 'content-range': 'bytes 0-9/10' }, body: Buffer.alloc(10) });
    expect(cut.status).toBe(308);
    expect(cut.headers.get('range')).toBe('bytes=0-2');
  });
});
