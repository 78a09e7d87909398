import { Injectable, Logger } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { randomUUID } from 'node:crypto';
import { CONTEXT_DOCUMENT_CHARS, ContextualEmbeddings, embeddingText } from '../embeddings/contextual-embeddings';
import { EmbeddingsService } from '../embeddings/embeddings.service';
import type { ProgressPayload } from '../progress/progress-payload';
import { CrawlCancelled, ProgressService, type ProgressReporter } from '../progress/progress.service';
import type { ProgressRow } from '../progress/progress.types';
import { SourcesService } from '../sources/sources.service';
import type { EmbeddedKind } from '../sources/sources.types';

/** Rows embedded per request and transaction. */
export const BACKFILL_BATCH = 64;

/**
 * Use case: the embeddings backfill. Embeds, with the configured EMBEDDINGS_MODEL, every chunk and
 * code example that has no vector (stored while the embeddings server was down) or one made by
 * another model (`embedding_model`; NULL for vectors stored before that column existed). Queued as
 * a progress row of kind `backfill` (one at a time) and run by the crawl worker on one replica,
 * reported like a crawl: `analyzing` (counting), `document_storage` with `Batch X/Y` lines, then
 * `completed` with `chunksStored` = rows embedded. A failing embeddings server ends it in `error`;
 * what was embedded stays, and the next backfill goes on from there.
 * With contextual embeddings active, chunks are expected with the model
 * `<EMBEDDINGS_MODEL>+context:<LLM_MODEL>`: turning them on makes this the re-embed job, which gives
 * every chunk its context (written from its page) and embeds it again; a chunk whose context failed
 * is embedded without it (plain model) and tried again by the next run.
 */
@Injectable()
export class BackfillEmbeddings {
  private readonly logger = new Logger(BackfillEmbeddings.name);

  constructor(
    private readonly sources: SourcesService,
    private readonly embeddings: EmbeddingsService,
    private readonly contextual: ContextualEmbeddings,
    private readonly progress: ProgressService,
    private readonly transactions: Transactions,
  ) {}

  /** Queues the backfill; answers the running one's progress when one is queued or running already. */
  async queue(): Promise<{ payload: ProgressPayload; created: boolean }> {
    if (!this.embeddings.enabled) {
      throw new ApiError(400, 'BAD_REQUEST', 'no embeddings server configured (EMBEDDINGS_URL): nothing to backfill');
    }
    return this.progress.createJob(randomUUID(), 'backfill', { model: this.embeddings.model }, `Queued embeddings backfill with ${this.embeddings.model}`);
  }

  async run(row: ProgressRow, reporter: ProgressReporter): Promise<void> {
    const model = this.embeddings.model;
    const modelOf = (kind: EmbeddedKind) => (kind === 'chunks' ? this.contextual.chunkModel : model);
    const heartbeat = setInterval(() => void reporter.heartbeat().catch(() => undefined), 1000);
    heartbeat.unref();
    try {
      await reporter.phase('analyzing', 0, {}, `Counting chunks without a ${modelOf('chunks')} vector and code examples without a ${model} vector`);
      const kinds: EmbeddedKind[] = ['chunks', 'code_examples'];
      const counts = await Promise.all(kinds.map((k) => this.sources.countPendingEmbeddings(k, modelOf(k))));
      const total = counts[0] + counts[1];
      const batches = Math.ceil(counts[0] / BACKFILL_BATCH) + Math.ceil(counts[1] / BACKFILL_BATCH);
      await reporter.phase('analyzing', 1, { totalPages: total, processedPages: 0 }, `${counts[0]} chunks and ${counts[1]} code examples to embed`);
      let done = 0;
      let batch = 0;
      for (const kind of kinds) {
        let after = 0;
        for (;;) {
          const pending = await this.sources.pendingEmbeddings(kind, modelOf(kind), after, BACKFILL_BATCH);
          if (pending.length === 0) break;
          batch++;
          await reporter.phase(
            'document_storage',
            total ? done / total : 0,
            {},
            `Batch ${batch}/${Math.max(batch, batches)}: Processing items ${done + 1}-${done + pending.length} of ${total}`,
          );
          if (kind === 'chunks' && this.contextual.active) await this.embedWithContext(pending.map((p) => p.id), reporter);
          else {
            const vectors = (await this.embeddings.embed(pending.map((p) => p.text))) ?? [];
            await this.transactions.transaction(() => this.sources.setEmbeddings(kind, pending.map((p) => p.id), vectors, model));
          }
          done += pending.length;
          after = pending[pending.length - 1].id;
          await reporter.phase('document_storage', total ? done / total : 1, { processedPages: done, totalPages: Math.max(total, done) });
        }
      }
      await reporter.complete({ chunksStored: done }, `Backfill completed: ${done} vectors made with ${model}${this.contextual.active ? ` (chunks with context by ${this.contextual.state.model})` : ''}`);
    } catch (err) {
      if (reporter.isLost) return;
      if (reporter.isCancelled || err instanceof CrawlCancelled) await reporter.fail('cancelled', 'Backfill cancelled').catch(() => undefined);
      else {
        this.logger.warn(`backfill ${row.progress_id} failed: ${(err as Error).message}`);
        await reporter.fail('error', (err as Error).message).catch(() => undefined);
      }
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** Chunks given their context, embedded, and stored with the model that says so (those without context under the plain model). */
  private async embedWithContext(ids: number[], reporter: ProgressReporter): Promise<void> {
    const chunks = await this.sources.chunksWithPages(ids, CONTEXT_DOCUMENT_CHARS);
    const contexts = await this.contextual.contexts(chunks.map((c) => ({ document: c.document, chunk: c.content })), reporter.abort.signal);
    reporter.check();
    const vectors = (await this.embeddings.embed(chunks.map((c, i) => embeddingText(c.title, c.content, contexts[i])))) ?? [];
    const withContext = chunks.map((_, i) => i).filter((i) => contexts[i]);
    const without = chunks.map((_, i) => i).filter((i) => !contexts[i]);
    await this.transactions.transaction(async () => {
      if (withContext.length) await this.sources.setEmbeddings('chunks', withContext.map((i) => chunks[i].id), withContext.map((i) => vectors[i]), this.contextual.chunkModel);
      if (without.length) await this.sources.setEmbeddings('chunks', without.map((i) => chunks[i].id), without.map((i) => vectors[i]), this.embeddings.model);
    });
    if (without.length) await reporter.log(`${without.length} of ${chunks.length} chunks embedded without context (the chat server failed); the next backfill tries them again`);
  }
}
