import { Injectable, Logger } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { CrawlCancelled, type ProgressReporter } from '../progress/progress.service';
import type { ProgressRow } from '../progress/progress.types';
import { KnowledgeStore } from '../sources/knowledge-store.service';
import type { KnowledgeType } from '../sources/sources.types';
import { extractText, type UploadKind } from './extract-text';
import { UploadsRepository } from './uploads.repository';

/** The request of an upload job (`progress.request` of kind `upload`). */
export interface UploadRequest {
  filename: string;
  source_id: string;
  kind: UploadKind;
  knowledge_type: KnowledgeType;
  tags: string[];
  file_size: number;
  created_at: string;
}

/**
 * Use case: an upload job, run by the job runner (crawl/crawl.worker.ts) on one replica. Reads the
 * file the request stored (`uploads`), extracts its text (pdf-parse in a worker thread, mammoth,
 * word-extractor), chunks, embeds and stores it as the source `file:<name>` (KnowledgeStore,
 * reporting `processing` → `source_creation` → `document_storage` → `code_storage`), and completes
 * with chunksStored and wordCount; an unreadable document fails with `errorStatus` 422. The file is
 * deleted when the job ends.
 */
@Injectable()
export class ProcessUpload {
  private readonly logger = new Logger(ProcessUpload.name);

  constructor(
    private readonly uploads: UploadsRepository,
    private readonly store: KnowledgeStore,
  ) {}

  async run(row: ProgressRow, reporter: ProgressReporter): Promise<void> {
    const req = row.request as unknown as UploadRequest;
    const heartbeat = setInterval(() => void reporter.heartbeat().catch(() => undefined), 1000);
    heartbeat.unref();
    try {
      await reporter.phase('analyzing', 0, { currentUrl: `file://${encodeURIComponent(req.filename)}`, totalPages: 1 }, `Extracting text from ${req.filename}`);
      const content = await this.uploads.content(row.progress_id);
      if (!content) throw new Error(`the file of upload ${row.progress_id} is gone (a job that already ended)`);
      const text = await extractText(req.kind, content);
      if (!text.trim()) throw new ApiError(422, 'VALIDATION_ERROR', `"${req.filename}" contains no text to index (a scanned PDF needs OCR first)`);
      const title = (req.kind === 'md' ? /^#\s+(.+)$/m.exec(text)?.[1]?.trim() : undefined) || req.filename;
      const url = `file://${encodeURIComponent(req.filename)}`;
      await reporter.phase('analyzing', 1, { processedPages: 1 }, `Extracted ${text.length} characters`);
      const result = await this.store.store(
        {
          source_id: req.source_id,
          title,
          description: `Uploaded ${req.kind.toUpperCase()} document`,
          source_type: 'file',
          url,
          knowledge_type: req.knowledge_type,
          tags: req.tags,
          update_frequency: null,
          max_depth: null,
        },
        [{ url, title, markdown: text }],
        { onlyChanged: false, phase: (phase, fraction, patch, log) => reporter.phase(phase, fraction, patch, log) },
      );
      await reporter.complete(
        { chunksStored: result.chunksStored, wordCount: result.wordCount, codeExamplesStored: result.codeExamplesStored, sourceId: req.source_id },
        `Upload completed: ${result.chunksStored} chunks stored`,
      );
    } catch (err) {
      if (reporter.isLost) return;
      if (reporter.isCancelled || err instanceof CrawlCancelled) await reporter.fail('cancelled', 'Upload cancelled').catch(() => undefined);
      else {
        this.logger.warn(`upload ${row.progress_id} failed: ${(err as Error).message}`);
        await reporter.fail('error', (err as Error).message, err instanceof ApiError ? err.getStatus() : undefined).catch(() => undefined);
      }
    } finally {
      clearInterval(heartbeat);
      if (!reporter.isLost) await this.uploads.delete(row.progress_id).catch(() => undefined);
    }
  }
}
