import type { ChatService } from '../chat/chat.service';
import type { KnowledgeApiConfig } from '../config';
import { CONTEXT_DOCUMENT_CHARS, ContextualEmbeddings, contextPrompt, embeddingText } from './contextual-embeddings';
import type { EmbeddingsService } from './embeddings.service';

function make(opts: { flag: boolean; chat: boolean; embeddings: boolean; complete?: (i: number) => Promise<string> }) {
  let calls = 0;
  const chat = {
    configured: opts.chat,
    model: opts.chat ? 'llm' : null,
    complete: () => (opts.complete ?? (async () => 'ctx'))(calls++),
  } as unknown as ChatService;
  const embeddings = { enabled: opts.embeddings, model: 'emb' } as unknown as EmbeddingsService;
  return new ContextualEmbeddings({ CONTEXTUAL_EMBEDDINGS: opts.flag } as KnowledgeApiConfig, chat, embeddings);
}

describe('contextual embeddings', () => {
  it('embeds context, title and content, leaving out what is empty', () => {
    expect(embeddingText('T', 'C', 'X')).toBe('X\n\nT\n\nC');
    expect(embeddingText('', 'C', null)).toBe('C');
    expect(embeddingText('T', 'C', null)).toBe('T\n\nC');
  });

  it('sends the start of the document and the chunk', () => {
    const [, user] = contextPrompt({ document: 'd'.repeat(CONTEXT_DOCUMENT_CHARS + 10), chunk: 'the chunk' });
    expect(user.content).toBe(`<document>\n${'d'.repeat(CONTEXT_DOCUMENT_CHARS)}\n</document>\n\n<chunk>\nthe chunk\n</chunk>`);
  });

  it('acts only with the flag, a chat server and an embeddings server, and says why not', async () => {
    expect(make({ flag: false, chat: true, embeddings: true }).state).toMatchObject({ enabled: false, active: false });
    expect(make({ flag: true, chat: false, embeddings: true }).state).toMatchObject({ enabled: true, active: false, note: expect.stringMatching(/LLM_URL/) });
    expect(make({ flag: true, chat: true, embeddings: false }).state).toMatchObject({ active: false, note: expect.stringMatching(/EMBEDDINGS_URL/) });
    const off = make({ flag: true, chat: false, embeddings: true });
    expect(off.chunkModel).toBe('emb');
    expect(await off.contexts([{ document: 'd', chunk: 'c' }])).toEqual([null]);
    const on = make({ flag: true, chat: true, embeddings: true });
    expect(on.state).toEqual({ enabled: true, active: true, model: 'llm' });
    expect(on.chunkModel).toBe('emb+context:llm');
  });

  it('gives each chunk its context, null where the chat server failed', async () => {
    const c = make({ flag: true, chat: true, embeddings: true, complete: async (i) => (i === 1 ? Promise.reject(new Error('503')) : ` ctx ${i} `) });
    const out = await c.contexts([0, 1, 2, 3].map((i) => ({ document: 'd', chunk: `c${i}` })));
    expect(out.filter((x) => x === null)).toHaveLength(1);
    expect(out.filter((x) => x?.startsWith('ctx '))).toHaveLength(3);
  });
});
