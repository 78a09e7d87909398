/**
 * automation-api: the comment poller's cost per pass (`npm run bench`, suite `automation-api poller`).
 *
 * A fake Graph API (from @platform/testing, on loopback) holds 10 posts with 1,000 comments of the
 * last hour, 100 per post; half of them came through the webhook receiver already (signed deliveries,
 * so the pass finds their `comment:<id>` records), the other half never did. Measured:
 *
 *  - `automation-api: comment poller pass at 1,000 recent comments` — one pass over the account that
 *    reads all of them (the post listing, then one page of 100 per post: 11 platform requests,
 *    COMMENT_POLL_MAX_REQUESTS=11), decides, deduplicates against the work queue and queues the 500
 *    missing comments. Baseline: the same 11 platform requests made by a bare HTTP client, one after
 *    the other, in the same run.
 *  - `automation-api: comment poller pass, nothing new` — the next pass, when no post changed: one
 *    request. Baseline: that one request by the bare client.
 *
 * Uses DATABASE_URL when set (own throwaway schema), else the embedded PGlite. No automation matches,
 * so the engine's processing of the queued comments never calls the platform; each pass is measured
 * once the work queue is idle.
 */
import { createHmac } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import { request } from 'undici';
import { sendRequest, startBenchService, type BenchMeasurement } from '@platform/bench';
import { startFakeGraphApi, type FakeGraphApi } from '@platform/testing';
import { CommentPollerWorker } from '../src/comment-poller/comment-poller.worker';
import { automationApiService } from '../src/service';

const KEY = 'bench-key-0123456789abcdef';
const IG_USER = '17841499999999998';
const TOKEN = 'bench-poller-token';
const SECRET = 'bench-app-secret';
const POSTS = 10;
const PER_POST = 100;

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+0000');

function seed(fake: FakeGraphApi): Array<{ id: string; media: string; from: { id: string; username: string }; text: string }> {
  const now = Date.now();
  const out = [];
  for (let p = 0; p < POSTS; p++) {
    const media = fake.addMedia({ timestamp: iso(now - (p + 2) * 3_600_000) });
    for (let i = 0; i < PER_POST; i++) {
      const n = p * PER_POST + i;
      const c = fake.addComment(media.id, { text: 'nothing matches this', from: { id: `u${n}`, username: `user${n}` }, timestamp: iso(now - 120_000 - n * 1000) });
      out.push({ id: c.id, media: media.id, from: c.from, text: c.text });
    }
  }
  return out;
}

/** The requests of one full pass, by a bare client: the post listing, then each post's first page of 100 comments. */
async function bareReads(fake: FakeGraphApi, mediaIds: string[]): Promise<number> {
  const get = async (path: string, query: Record<string, string>) => {
    const url = new URL(`${fake.url}${path}`);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const res = await request(url, { headers: { authorization: `Bearer ${TOKEN}` } });
    await res.body.json();
  };
  const started = performance.now();
  await get(`/${IG_USER}/media`, { fields: 'id,caption,media_type,media_product_type,media_url,thumbnail_url,permalink,timestamp,comments_count,like_count', limit: String(POSTS) });
  for (const id of mediaIds) await get(`/${id}/comments`, { fields: 'id,text,timestamp,from,username,parent_id,replies{id,text,timestamp,from}', limit: '100' });
  return performance.now() - started;
}

export async function runCommentPollerBench(databaseUrl?: string): Promise<BenchMeasurement[]> {
  const fake = await startFakeGraphApi({ accessToken: TOKEN, userId: IG_USER, username: 'bench_brand' });
  try {
    const comments = seed(fake);
    const mediaIds = [...new Set(comments.map((c) => c.media))];
    const bench = await startBenchService(
      automationApiService,
      {
        AUTOMATION_API_KEY: KEY,
        IG_USER_ID: IG_USER,
        IG_ACCESS_TOKEN: TOKEN,
        IG_APP_SECRET: SECRET,
        IG_VERIFY_TOKEN: 'bench-verify',
        IG_GRAPH_URL: fake.url,
        PUBLIC_BASE_URL: 'https://bench.example.com',
        COMMENT_POLL_INTERVAL_MS: '3600000',
        COMMENT_POLL_MAX_REQUESTS: String(POSTS + 1),
        COMMENT_POLL_START: new Date(Date.now() - 24 * 3_600_000).toISOString(),
        SUBSCRIPTION_CHECK_INTERVAL_MS: '3600000',
      },
      databaseUrl,
    );
    try {
      const ds = bench.service.app.get(DataSource);
      const poller = bench.service.app.get(CommentPollerWorker);
      // Half the comments came through the webhook receiver.
      for (const c of comments.filter((_c, i) => i % 2 === 0)) {
        const body = JSON.stringify({ object: 'instagram', entry: [{ id: IG_USER, time: Math.floor(Date.now() / 1000), changes: [{ field: 'comments', value: { id: c.id, from: c.from, text: c.text, media: { id: c.media } } }] }] });
        const res = await sendRequest(`${bench.url}/webhooks/instagram`, 'POST', body, { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}` });
        if (res.status !== 200) throw new Error(`webhook answered ${res.status}`);
      }
      /** The engine processed what was queued (so that a pass is measured alone). */
      const queueIdle = async () => {
        for (let i = 0; i < 2400; i++) {
          const [{ n }] = await ds.query(`SELECT count(*)::int AS n FROM ${bench.schema}.inbound_events WHERE processed_at IS NULL`);
          if (n === 0) return;
          await new Promise((r) => setTimeout(r, 25));
        }
        throw new Error('the work queue was not processed within a minute');
      };
      const pass = async () => {
        await queueIdle();
        await poller.drain(); // registers the account when the start tick has not
        await ds.query(`UPDATE ${bench.schema}.comment_poll_accounts SET lease_until = NULL`);
        const before = fake.requests.length;
        const started = performance.now();
        await poller.drain();
        return { ms: performance.now() - started, requests: fake.requests.length - before };
      };
      const baseFull = await bareReads(fake, mediaIds);
      const full = await pass();
      const [row] = await ds.query(`SELECT last_recovered, last_requests FROM ${bench.schema}.comment_poll_accounts`);
      if (row.last_recovered !== comments.length / 2) throw new Error(`the pass recovered ${row.last_recovered} comments, expected ${comments.length / 2}`);
      const baseQuiet = await bareReads(fake, []);
      const quiet = await pass();
      return [
        {
          name: 'automation-api: comment poller pass at 1,000 recent comments',
          value: round(full.ms),
          unit: 'ms/pass',
          baseline: round(baseFull),
          ratio: round(full.ms / baseFull, 3),
          detail: `${POSTS} posts × ${PER_POST} comments of the last hour, ${comments.length / 2} already stored by webhooks: ${full.requests} platform requests, ${row.last_recovered} comments queued, vs the same ${full.requests} requests by a bare client`,
        },
        {
          name: 'automation-api: comment poller pass, nothing new',
          value: round(quiet.ms, 2),
          unit: 'ms/pass',
          baseline: round(baseQuiet, 2),
          ratio: round(quiet.ms / baseQuiet, 3),
          detail: `the next pass when no post's comment count changed: ${quiet.requests} platform request(s), vs that request by a bare client`,
        },
      ];
    } finally {
      await bench.close();
    }
  } finally {
    await fake.close();
  }
}
