import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { KnowledgeApiConfig } from '../config';
import { ProgressService } from '../progress/progress.service';
import type { KnowledgeType } from '../sources/sources.types';
import type { DocumentDto } from './dto/upload.dto';
import { checkUpload } from './extract-text';
import type { UploadRequest } from './process-upload';
import { UploadsRepository } from './uploads.repository';

export function parseTags(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') return [];
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ApiError(400, 'BAD_REQUEST', 'tags must be a JSON array of strings, e.g. ["docs","api"]');
  }
  if (!Array.isArray(value) || !value.every((t) => typeof t === 'string' && t.length <= 100) || value.length > 50) {
    throw new ApiError(400, 'BAD_REQUEST', 'tags must be a JSON array of at most 50 strings of at most 100 characters');
  }
  return value as string[];
}

/**
 * The source id of an upload: `file:<name>` (the spec's "document name"). Uploading the same name
 * again replaces that source; a crawl's id never contains `:` (crawl/crawl.service.ts sourceIdOf),
 * so an upload named like a host (`.md` is a top-level domain) cannot merge with a crawl.
 */
export function uploadSourceId(filename: string): string {
  return `file:${filename}`;
}

/** What the upload route answers: the Document once stored, or where to follow it. */
export type UploadOutcome = { done: true; progressId: string; document: DocumentDto } | { done: false; progressId: string; document: Omit<DocumentDto, 'chunks_created' | 'processing_time'> };

/**
 * Upload: the request checks the file (name, content, size, tags) and queues a job with it (the
 * file in `uploads`, the job a progress row of kind `upload`, one transaction); extraction,
 * chunking and embedding run in the job (ProcessUpload) on whichever replica claims it. The request
 * then waits up to UPLOAD_WAIT_MS for it: done in time, the spec's Document; otherwise where to
 * follow it (progress_id). An unreadable document fails the job with 422, which a waiting request
 * answers as before.
 */
@Injectable()
export class DocumentsService {
  constructor(
    private readonly config: KnowledgeApiConfig,
    private readonly transactions: Transactions,
    private readonly progress: ProgressService,
    private readonly uploads: UploadsRepository,
  ) {}

  async upload(file: { originalname: string; buffer: Buffer; size: number }, knowledgeType: KnowledgeType, tagsRaw: string | undefined): Promise<UploadOutcome> {
    const started = process.hrtime.bigint();
    const filename = file.originalname.replace(/[\\/]/g, '_').trim().slice(0, 255);
    const tags = parseTags(tagsRaw);
    const kind = checkUpload(filename, file.buffer);
    const progressId = randomUUID();
    const request: UploadRequest = {
      filename,
      source_id: uploadSourceId(filename),
      kind,
      knowledge_type: knowledgeType,
      tags,
      file_size: file.size,
      created_at: new Date().toISOString(),
    };
    await this.transactions.transaction(async () => {
      await this.progress.createJob(progressId, 'upload', { ...request }, `Queued upload of ${filename}`, request.source_id);
      await this.uploads.insert(progressId, file.buffer);
    });
    this.progress.announceQueued();
    const base = { id: request.source_id, filename, knowledge_type: knowledgeType, tags, file_size: file.size, created_at: request.created_at };
    const deadline = Date.now() + this.config.UPLOAD_WAIT_MS;
    for (;;) {
      const p = await this.progress.get(progressId);
      if (p.status === 'completed') {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        return { done: true, progressId, document: { ...base, chunks_created: p.chunksStored ?? 0, processing_time: Math.round(seconds * 1000) / 1000 } };
      }
      if (p.status === 'error' || p.status === 'cancelled') {
        throw new ApiError(p.errorStatus === 422 ? 422 : 502, p.errorStatus === 422 ? 'VALIDATION_ERROR' : 'BAD_GATEWAY', p.error ?? `upload ${p.status}`);
      }
      if (Date.now() >= deadline) return { done: false, progressId, document: base };
      await sleep(50);
    }
  }
}
