import { loadConfig } from '@platform/platform';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { EmailApiConfig } from '../config';
import { DiskImageStore } from './disk-image-store';
import { S3ImageStore } from './s3-image-store';
import { createImageStore } from './uploads.module';

const defaults = { PORT: 3002, REDIS_KEY_PREFIX: 'email-api:' };
const config = (env: Record<string, string>) => loadConfig(EmailApiConfig, { DATA_DIR: '/srv/data', ...env }, defaults);
const PROJECT = '7d3c2f1e-0a9b-4c8d-8e7f-6a5b4c3d2e1f';
const KEY = `${'ab'.repeat(32)}.png`;

describe('image store configuration', () => {
  it('keeps images under DATA_DIR while S3_BUCKET is unset', () => {
    const store = createImageStore(config({}));
    expect(store).toBeInstanceOf(DiskImageStore);
    expect((store as DiskImageStore).root).toBe(join('/srv/data', 'email-api', 'uploads'));
    expect(store.directUrl(PROJECT, KEY)).toBeNull();
  });

  it('uses the bucket when S3_BUCKET is set, with S3_PUBLIC_URL as the images\' origin when given', () => {
    const bucket = createImageStore(config({ S3_BUCKET: 'email-images', S3_ENDPOINT: 'http://minio:9000', S3_FORCE_PATH_STYLE: 'true' }));
    expect(bucket).toBeInstanceOf(S3ImageStore);
    expect(bucket.directUrl(PROJECT, KEY)).toBeNull();
    const cdn = createImageStore(config({ S3_BUCKET: 'email-images', S3_PUBLIC_URL: 'https://cdn.example.com/images/' }));
    expect(cdn.directUrl(PROJECT, KEY)).toBe(`https://cdn.example.com/images/${PROJECT}/${KEY}`);
  });

  it('names every bad S3 variable', () => {
    expect(() => config({ S3_PUBLIC_URL: 'https://cdn.example.com' })).toThrow(/S3_BUCKET: is not set \(must be a bucket name .*required when other S3_\* variables are set\)/);
    expect(() => config({ S3_BUCKET: 'Bad_Bucket' })).toThrow(/S3_BUCKET: must be a bucket name/);
    expect(() => config({ S3_BUCKET: 'ok-bucket', S3_ACCESS_KEY_ID: 'AKIA' })).toThrow(/S3_SECRET_ACCESS_KEY: is not set \(required when S3_ACCESS_KEY_ID is set\)/);
    expect(() => config({ S3_BUCKET: 'ok-bucket', S3_ENDPOINT: 'minio:9000', S3_FORCE_PATH_STYLE: 'maybe' })).toThrow(/S3_ENDPOINT[\s\S]*S3_FORCE_PATH_STYLE|S3_FORCE_PATH_STYLE[\s\S]*S3_ENDPOINT/);
    expect(config({ S3_BUCKET: 'ok-bucket', S3_ACCESS_KEY_ID: 'AKIA', S3_SECRET_ACCESS_KEY: 'secret', S3_REGION: 'auto' })).toMatchObject({ S3_REGION: 'auto', S3_FORCE_PATH_STYLE: false });
  });
});

describe('DiskImageStore', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'email-images-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('writes each key once, leaves no temporary files, and answers null for a key it does not hold', async () => {
    const store = new DiskImageStore(dir);
    await store.put({ project: PROJECT, key: KEY, data: Buffer.from('first'), contentType: 'image/png' });
    // content-addressed: the same key again is the same content, so the file is kept
    await store.put({ project: PROJECT, key: KEY, data: Buffer.from('second'), contentType: 'image/png' });
    expect(await readdir(join(store.root, PROJECT))).toEqual([KEY]);
    const stored = await store.open(PROJECT, KEY);
    expect(stored?.size).toBe(5);
    expect(await text(stored!.body)).toBe('first');
    expect(await store.open(PROJECT, `${'cd'.repeat(32)}.png`)).toBeNull();
    expect(await store.open('b1a2c3d4-0000-4000-8000-000000000000', KEY)).toBeNull();
  });
});
