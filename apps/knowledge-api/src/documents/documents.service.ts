import { Injectable } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { KnowledgeStore } from '../sources/knowledge-store.service';
import type { KnowledgeType } from '../sources/sources.types';
import type { DocumentDto } from './dto/upload.dto';
import { checkUpload, extractText } from './extract-text';

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

/** Upload: checked (name, content, size), text extracted, chunked and stored under the file name as source id. */
@Injectable()
export class DocumentsService {
  constructor(private readonly store: KnowledgeStore) {}

  async upload(file: { originalname: string; buffer: Buffer; size: number }, knowledgeType: KnowledgeType, tagsRaw: string | undefined): Promise<DocumentDto> {
    const started = process.hrtime.bigint();
    const filename = file.originalname.replace(/[\\/]/g, '_').trim().slice(0, 255);
    const tags = parseTags(tagsRaw);
    const kind = checkUpload(filename, file.buffer);
    const text = await extractText(kind, file.buffer);
    if (!text.trim()) throw new ApiError(422, 'VALIDATION_ERROR', `"${filename}" contains no text to index (a scanned PDF needs OCR first)`);
    const title = (kind === 'md' ? /^#\s+(.+)$/m.exec(text)?.[1]?.trim() : undefined) || filename;
    const result = await this.store.store(
      {
        source_id: filename,
        title,
        description: `Uploaded ${kind.toUpperCase()} document`,
        source_type: 'file',
        url: `file://${encodeURIComponent(filename)}`,
        knowledge_type: knowledgeType,
        tags,
        update_frequency: null,
        max_depth: null,
      },
      [{ url: `file://${encodeURIComponent(filename)}`, title, markdown: text }],
      { onlyChanged: false },
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return {
      id: filename,
      filename,
      knowledge_type: knowledgeType,
      tags,
      file_size: file.size,
      chunks_created: result.chunksStored,
      processing_time: Math.round(seconds * 1000) / 1000,
      created_at: new Date().toISOString(),
    };
  }
}
