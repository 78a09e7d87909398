import { chunkMarkdown, countWords, extractCodeExamples, fenceRanges } from './chunk-markdown';

const para = (n: number, word = 'lorem') => Array.from({ length: n }, (_, i) => `${word}${i}`).join(' ') + '.';

describe('chunkMarkdown', () => {
  it('keeps a short document in one chunk with its headers and counts', () => {
    const [c, ...rest] = chunkMarkdown('# Guide\n\n## Install\n\nRun the installer now.');
    expect(rest).toHaveLength(0);
    expect(c.headers).toEqual(['Guide', 'Install']);
    expect(c.char_count).toBe(c.content.length);
    expect(c.word_count).toBe(countWords(c.content));
  });

  it('never exceeds the size and breaks before a heading when there is one', () => {
    const doc = `# A\n\n${para(400)}\n\n# B\n\n${para(400, 'ipsum')}\n\n# C\n\n${para(400, 'dolor')}`;
    const chunks = chunkMarkdown(doc, 5000);
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(c.char_count).toBeLessThanOrEqual(5000);
    expect(chunks[1].content.startsWith('# ')).toBe(true);
    expect(chunks.map((c) => c.content).join(' ').replace(/\s+/g, ' ')).toBe(doc.replace(/\s+/g, ' '));
  });

  it('falls back to paragraphs, then sentences', () => {
    const sentences = Array.from({ length: 300 }, (_, i) => `Sentence number ${i} ends here.`).join(' ');
    const chunks = chunkMarkdown(sentences, 1000);
    for (const c of chunks.slice(0, -1)) expect(c.content.endsWith('.')).toBe(true);
  });

  it('does not split inside a code block when it can end before or after it', () => {
    const code = '```ts\n' + Array.from({ length: 40 }, (_, i) => `const v${i} = ${i};`).join('\n') + '\n```';
    const doc = `${para(150)}\n\n${code}\n\n${para(150, 'after')}`;
    const chunks = chunkMarkdown(doc, 1800);
    const holder = chunks.filter((c) => c.content.includes('const v0'));
    expect(holder).toHaveLength(1);
    expect(holder[0].content).toContain('const v39 = 39;');
  });

  it('carries the outline path into later chunks', () => {
    const doc = `# Top\n\n## Section\n\n${para(900)}`;
    const chunks = chunkMarkdown(doc, 2000);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks[chunks.length - 1].headers).toEqual(['Top', 'Section']);
  });

  it('ignores heading-like lines inside code', () => {
    expect(chunkMarkdown('```sh\n# not a heading\n```\n\ntext')[0].headers).toEqual([]);
  });
});

describe('code examples', () => {
  it('extracts fenced blocks of at least the minimum length with their language', () => {
    const long = 'x = 1\n'.repeat(60);
    const md = `Intro to the API.\n\n\`\`\`python\n${long}\`\`\`\n\n\`\`\`\nshort\n\`\`\``;
    const ex = extractCodeExamples(md);
    expect(ex).toHaveLength(1);
    expect(ex[0].language).toBe('python');
    expect(ex[0].code).toBe(long.replace(/\n$/, ''));
    expect(ex[0].context).toContain('Intro to the API');
    expect(extractCodeExamples(md, 1)).toHaveLength(2);
    expect(extractCodeExamples(md, 1)[1].language).toBe('text');
  });

  it('finds fences, an unclosed one running to the end', () => {
    expect(fenceRanges('a\n```\nb\n```\nc')).toEqual([[2, 11]]);
    expect(fenceRanges('```\nopen')).toEqual([[0, 8]]);
  });
});
