import { Injectable, Logger } from '@nestjs/common';
import { ChatService } from '../chat/chat.service';
import { KnowledgeApiConfig } from '../config';
import { EmbeddingsService } from './embeddings.service';

/** Chunks given context at once (chat calls in flight). */
export const CONTEXT_CONCURRENCY = 3;
/** The part of the document sent with each chunk. */
export const CONTEXT_DOCUMENT_CHARS = 8000;

export interface ContextInput {
  /** the whole document (page) the chunk comes from */
  document: string;
  chunk: string;
}

export function contextPrompt(input: ContextInput): Array<{ role: 'system' | 'user'; content: string }> {
  return [
    {
      role: 'system',
      content:
        'You help a search index. Given a document and one chunk of it, answer with one or two sentences that situate the chunk within the document (what it is about, which part of the document it belongs to), to be prepended to the chunk before it is embedded. Answer with the context only.',
    },
    {
      role: 'user',
      content: `<document>\n${input.document.slice(0, CONTEXT_DOCUMENT_CHARS)}\n</document>\n\n<chunk>\n${input.chunk}\n</chunk>`,
    },
  ];
}

/** The text embedded for a chunk: its context (when it has one), its title, its content. */
export function embeddingText(title: string, content: string, context: string | null): string {
  return [context, title, content].filter((x) => !!x).join('\n\n');
}

/**
 * Contextual embeddings (the MCP setting `use_contextual_embeddings`): with CONTEXTUAL_EMBEDDINGS
 * on, LLM_URL (the chat model LLM_MODEL, the setting's `model_choice`) and EMBEDDINGS_URL, each
 * chunk gets a short context written by the chat model from its page, and context + title +
 * content is embedded. Its vectors are recorded with the model `<EMBEDDINGS_MODEL>+context:<LLM_MODEL>`
 * (`embedding_model`), so turning it on (or changing either model) makes the embeddings backfill
 * re-embed every chunk with context; a chunk whose context failed is embedded without it under the
 * plain model, and the next backfill tries it again. Code examples are embedded as before.
 */
@Injectable()
export class ContextualEmbeddings {
  private readonly logger = new Logger(ContextualEmbeddings.name);
  private readonly wanted: boolean;

  constructor(
    config: KnowledgeApiConfig,
    private readonly chat: ChatService,
    private readonly embeddings: EmbeddingsService,
  ) {
    this.wanted = config.CONTEXTUAL_EMBEDDINGS;
  }

  /** On and able to work (both servers configured). */
  get active(): boolean {
    return this.wanted && this.chat.configured && this.embeddings.enabled;
  }

  /** What `/api/health` and the MCP config report. */
  get state(): { enabled: boolean; active: boolean; model: string | null; note?: string } {
    if (!this.wanted) return { enabled: false, active: false, model: null, note: 'CONTEXTUAL_EMBEDDINGS is off' };
    if (!this.embeddings.enabled) return { enabled: true, active: false, model: null, note: 'no EMBEDDINGS_URL: nothing is embedded' };
    if (!this.chat.configured) return { enabled: true, active: false, model: null, note: 'no LLM_URL: chunks are embedded without context' };
    return { enabled: true, active: true, model: this.chat.model };
  }

  /** The `embedding_model` recorded for chunks embedded with context. */
  get chunkModel(): string {
    return this.active ? `${this.embeddings.model}+context:${this.chat.model}` : this.embeddings.model;
  }

  /** A context for each chunk (null where the chat server failed; null for all when not active). */
  async contexts(inputs: ContextInput[], signal?: AbortSignal): Promise<Array<string | null>> {
    const out = new Array<string | null>(inputs.length).fill(null);
    if (!this.active) return out;
    let next = 0;
    let failures = 0;
    let lastError = '';
    const worker = async () => {
      while (next < inputs.length) {
        const i = next++;
        if (signal?.aborted) return;
        try {
          const answer = (await this.chat.complete(contextPrompt(inputs[i]), { maxTokens: 200, signal })).trim();
          out[i] = answer || null;
        } catch (err) {
          failures++;
          lastError = (err as Error).message;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONTEXT_CONCURRENCY, inputs.length) }, worker));
    if (failures) this.logger.warn(`contextual embeddings: ${failures} of ${inputs.length} chunks without context (${lastError})`);
    return out;
  }
}
