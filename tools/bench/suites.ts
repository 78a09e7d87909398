// The apps' own benchmark suites (apps/<app>/bench/*.bench.ts), run by `npm run bench` after the
// autocannon scenarios, each in a child process of its own (tools/bench/suite-runner.ts) so that the
// services they start in-process, their pools and their globals cannot affect one another.
// A suite is loaded lazily: the runner only loads the app it runs.
import type { BenchMeasurement } from '@platform/bench';

export interface AppSuite {
  /** BENCH_ONLY matches this or one of `measures` */
  name: string;
  /** the names of the measurements the suite returns (checked after the run) */
  measures: string[];
  /** those of `measures` the suite may leave out where the machine cannot measure them (it says why in another line's detail) */
  optional?: string[];
  run: () => Promise<BenchMeasurement[]>;
}

export const APP_SUITES: AppSuite[] = [
  {
    name: 'transcribe-api',
    measures: [
      'transcribe-api: queue jobs/s (faster-whisper)',
      'transcribe-api: queue jobs/s (whisper)',
      'transcribe-api: upload MB/s',
      'transcribe-api: subtitles of a 3-hour transcript',
    ],
    run: async () => (await import('../../apps/transcribe-api/bench/transcribe.bench')).runTranscribeBench(),
  },
  {
    name: 'email-api',
    measures: ['email-api: /v1/track events/s', 'email-api: /v1/track p99 latency'],
    run: async () => (await import('../../apps/email-api/bench/track.bench')).runEmailTrackBench(),
  },
  {
    name: 'email-api campaigns',
    measures: ['email-api: campaign fan-out mails/s', 'email-api: campaign fan-out with billing caps mails/s', 'email-api: segment count at 100k contacts'],
    run: async () => (await import('../../apps/email-api/bench/campaign.bench')).runEmailCampaignBench(),
  },
  {
    name: 'email-api inbound',
    measures: ['email-api: inbound DSNs/s'],
    run: async () => (await import('../../apps/email-api/bench/inbound.bench')).runEmailInboundBench(),
  },
  {
    name: 'email-api workflows',
    measures: ['email-api: workflow step runs/s'],
    run: async () => (await import('../../apps/email-api/bench/workflow.bench')).runEmailWorkflowBench(),
  },
  {
    name: 'email-api tracking',
    measures: ['email-api: open pixel requests/s', 'email-api: click redirect requests/s', 'email-api: /analytics/timeseries p95'],
    run: async () => (await import('../../apps/email-api/bench/tracking.bench')).runEmailTrackingBench(),
  },
  {
    name: 'automation-api webhooks',
    measures: ['automation-api: webhook deliveries/s'],
    run: async () => [await (await import('../../apps/automation-api/bench/automation.bench')).benchWebhookIngest()],
  },
  {
    name: 'automation-api clicks',
    measures: ['automation-api: click redirects/s'],
    run: async () => [await (await import('../../apps/automation-api/bench/automation.bench')).benchClickRedirect()],
  },
  {
    name: 'automation-api poller',
    measures: ['automation-api: comment poller pass at 1,000 recent comments', 'automation-api: comment poller pass, nothing new'],
    run: async () => (await import('../../apps/automation-api/bench/comment-poller.bench')).runCommentPollerBench(),
  },
  {
    name: 'knowledge-api',
    measures: ['knowledge-api: crawl pages/s', 'knowledge-api: search p50 at 100k chunks', 'knowledge-api: search p95 at 100k chunks'],
    run: async () => (await import('../../apps/knowledge-api/bench/knowledge.bench')).runKnowledgeBench(),
  },
  {
    name: 'knowledge-api hybrid',
    measures: ['knowledge-api: hybrid search p50 at 100k chunks', 'knowledge-api: hybrid search p95 at 100k chunks'],
    run: async () => (await import('../../apps/knowledge-api/bench/hybrid.bench')).runKnowledgeHybridBench(),
  },
  {
    name: 'knowledge-mcp',
    measures: ['knowledge-mcp: perform_rag_query overhead p50', 'knowledge-mcp: perform_rag_query p50'],
    run: async () => (await import('../../apps/knowledge-mcp/bench/mcp.bench')).runKnowledgeMcpBench(),
  },
  {
    name: 'autostart-proxy',
    measures: [
      'autostart-proxy: p50 latency',
      'autostart-proxy: p99 latency',
      'autostart-proxy: requests/s, pinned',
      'autostart-proxy: requests/s vs a bare proxy hop, pinned',
      'autostart-proxy: requests/s, shared CPUs',
      'autostart-proxy: requests/s vs a bare proxy hop, shared CPUs',
    ],
    // without taskset or a second CPU; the shared lines' detail says so
    optional: ['autostart-proxy: requests/s, pinned', 'autostart-proxy: requests/s vs a bare proxy hop, pinned'],
    run: async () => (await import('../../apps/autostart-proxy/bench/autostart.bench')).runAutostartBench(),
  },
  {
    name: 'autostart-proxy sablier',
    measures: ['dynamic', 'blocking'].flatMap((s) => [
      `autostart-proxy: Sablier ${s} p50 latency`,
      `autostart-proxy: Sablier ${s} p99 latency`,
      `autostart-proxy: Sablier ${s} requests/s`,
    ]),
    run: async () => (await import('../../apps/autostart-proxy/bench/sablier.bench')).runSablierBench(),
  },
  {
    name: 'conversation-api webhooks',
    measures: ['conversation-api: inbound webhook messages/s'],
    run: async () => [await (await import('../../apps/conversation-api/bench/webhook.bench')).benchInboundWebhooks()],
  },
  {
    name: 'conversation-api recipes',
    measures: ['conversation-api: inbound webhook messages/s with five recipes'],
    run: async () => [await (await import('../../apps/conversation-api/bench/recipes.bench')).benchRecipes()],
  },
  {
    name: 'logistics-hooks',
    measures: ['logistics-hooks: /ocean-track answers/s (cached)', 'logistics-hooks: 200-shipment batch-track'],
    run: async () => {
      const bench = await import('../../apps/logistics-hooks/bench/logistics.bench');
      return [await bench.benchOceanTrackCache(), await bench.benchBatchTrack()];
    },
  },
];

/** The suites BENCH_ONLY selects (all when unset). */
export function selectSuites(only: string | undefined): AppSuite[] {
  if (!only) return APP_SUITES;
  return APP_SUITES.filter((s) => s.name.includes(only) || s.measures.some((m) => m.includes(only)));
}
