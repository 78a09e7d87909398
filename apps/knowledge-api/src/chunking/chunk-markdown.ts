/**
 * Splits markdown into chunks of at most `size` characters (the spec's 5000) for storage and search.
 *
 * A chunk ends at the best boundary inside its window, searched from the end and only past 30% of
 * the window (so chunks are never tiny): before a heading, else after a closing code fence, else
 * at a blank line (paragraph), else after a sentence end (". ", "! ", "? "), else at a newline,
 * else at a space; only a window with none of these is cut hard. A boundary that falls inside a
 * fenced code block is not used, so a code block is split only when it alone exceeds the window.
 * Each chunk carries the headings in force where it starts and those it contains (`headers`), its
 * character and word counts.
 */
export interface Chunk {
  content: string;
  headers: string[];
  char_count: number;
  word_count: number;
}

export const CHUNK_SIZE = 5000;
const MIN_FRACTION = 0.3;

export function countWords(text: string): number {
  const m = text.match(/\S+/g);
  return m ? m.length : 0;
}

/** Offsets [start, end) of fenced code blocks (``` or ~~~); an unclosed fence runs to the end. */
export function fenceRanges(text: string): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  const re = /^ {0,3}(`{3,}|~{3,})[^\n]*$/gm;
  let open: { start: number; fence: string } | null = null;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const fence = m[1];
    if (!open) open = { start: m.index, fence };
    else if (fence[0] === open.fence[0] && fence.length >= open.fence.length && m[0].trim() === fence) {
      ranges.push([open.start, m.index + m[0].length]);
      open = null;
    }
  }
  if (open) ranges.push([open.start, text.length]);
  return ranges;
}

function insideFence(pos: number, fences: Array<[number, number]>): boolean {
  return fences.some(([s, e]) => pos > s && pos < e);
}

/** The best end offset for a chunk starting at `start` (absolute offsets into `text`). */
function breakPoint(text: string, start: number, size: number, fences: Array<[number, number]>): number {
  const end = start + size;
  if (end >= text.length) return text.length;
  const window = text.slice(start, end);
  const min = Math.floor(size * MIN_FRACTION);
  const ok = (rel: number) => rel > min && !insideFence(start + rel, fences);
  const lastMatch = (re: RegExp, offset: (m: RegExpExecArray) => number): number => {
    let best = -1;
    re.lastIndex = 0;
    for (let m = re.exec(window); m; m = re.exec(window)) {
      const rel = offset(m);
      if (ok(rel)) best = rel;
      if (m[0].length === 0) re.lastIndex++;
    }
    return best;
  };
  const candidates: Array<() => number> = [
    () => lastMatch(/\n(?=#{1,6} )/g, (m) => m.index + 1), // before a heading
    () => {
      // after a code block that closes inside the window
      let best = -1;
      for (const [, e] of fences) if (e > start && e <= end && ok(e - start)) best = e - start;
      return best;
    },
    () => lastMatch(/\n[ \t]*\n/g, (m) => m.index + m[0].length), // paragraph
    () => lastMatch(/[.!?]["')\]]?[ \n]/g, (m) => m.index + m[0].length), // sentence
    () => lastMatch(/\n/g, (m) => m.index + 1),
    () => lastMatch(/ /g, (m) => m.index + 1),
  ];
  for (const candidate of candidates) {
    const rel = candidate();
    if (rel > 0) return start + rel;
  }
  // Inside a code block longer than the window: cut at its last newline in the window, else hard.
  const nl = window.lastIndexOf('\n');
  return nl > min ? start + nl + 1 : end;
}

interface Heading {
  level: number;
  text: string;
  at: number;
}

function headingsOf(text: string, fences: Array<[number, number]>): Heading[] {
  const out: Heading[] = [];
  const re = /^(#{1,6})[ \t]+(.+?)[ \t#]*$/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (!insideFence(m.index + 1, fences)) out.push({ level: m[1].length, text: m[2].trim(), at: m.index });
  }
  return out;
}

/** Headings in force at `pos` (the outline path), e.g. ["Guide", "Install"]. */
function outlineAt(headings: Heading[], pos: number): string[] {
  const stack: Heading[] = [];
  for (const h of headings) {
    if (h.at > pos) break;
    while (stack.length && stack[stack.length - 1].level >= h.level) stack.pop();
    stack.push(h);
  }
  return stack.map((h) => h.text);
}

export function chunkMarkdown(markdown: string, size = CHUNK_SIZE): Chunk[] {
  const text = markdown.replace(/\r\n?/g, '\n');
  const fences = fenceRanges(text);
  const headings = headingsOf(text, fences);
  const chunks: Chunk[] = [];
  let start = 0;
  while (start < text.length) {
    const end = breakPoint(text, start, size, fences);
    const content = text.slice(start, end).trim();
    if (content) {
      const headers = outlineAt(headings, start);
      for (const h of headings) if (h.at >= start && h.at < end && !headers.includes(h.text)) headers.push(h.text);
      chunks.push({ content, headers, char_count: content.length, word_count: countWords(content) });
    }
    start = end;
  }
  return chunks;
}

export interface CodeExample {
  language: string;
  code: string;
  /** Up to 500 characters of prose before the block: what the example is about. */
  context: string;
}

/** The spec's code examples: fenced blocks of at least `minLength` characters, with their language. */
export function extractCodeExamples(markdown: string, minLength = 250): CodeExample[] {
  const text = markdown.replace(/\r\n?/g, '\n');
  const out: CodeExample[] = [];
  for (const [s, e] of fenceRanges(text)) {
    const block = text.slice(s, e);
    const firstLine = block.slice(0, block.indexOf('\n') === -1 ? block.length : block.indexOf('\n'));
    const language = firstLine.replace(/^ {0,3}(`{3,}|~{3,})/, '').trim().split(/\s+/)[0]?.toLowerCase() ?? '';
    const body = block.slice(firstLine.length + 1).replace(/\n? {0,3}(`{3,}|~{3,})\s*$/, '');
    if (body.trim().length < minLength) continue;
    const before = text.slice(Math.max(0, s - 500), s).trim();
    out.push({ language: language || 'text', code: body, context: before });
  }
  return out;
}
