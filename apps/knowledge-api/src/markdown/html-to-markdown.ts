import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';

/**
 * One HTML page turned into clean markdown: Readability keeps the main content (navigation,
 * headers, footers and sidebars dropped), Turndown writes ATX headings and fenced code blocks
 * whose language comes from the `language-*`/`lang-*` class of the `<pre>` or `<code>`.
 * The links of the whole page (navigation included) are returned for the crawl to follow.
 */
export interface ConvertedPage {
  title: string;
  markdown: string;
  links: string[];
}

/** The part of a DOM element used here (the project compiles without the DOM library). */
interface El {
  getAttribute(name: string): string | null;
  getElementsByTagName(name: string): ArrayLike<El>;
  textContent: string | null;
  remove(): void;
}

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
turndown.remove(['script', 'style', 'noscript', 'iframe', 'form', 'button', 'nav']);
turndown.addRule('fencedWithLanguage', {
  filter: (node) => node.nodeName === 'PRE',
  replacement: (_content, node) => {
    const el = node as unknown as El;
    const code = el.getElementsByTagName('code')[0] ?? null;
    const classes = `${el.getAttribute('class') ?? ''} ${code?.getAttribute('class') ?? ''}`;
    const lang = /(?:^|\s)(?:language|lang)-([\w+#.-]+)/.exec(classes)?.[1] ?? el.getAttribute('data-lang') ?? '';
    const text = (code ?? el).textContent ?? '';
    const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((m: string) => m.length));
    const fence = '`'.repeat(longest + 1);
    return `\n\n${fence}${lang.toLowerCase()}\n${text.replace(/\n$/, '')}\n${fence}\n\n`;
  },
});

/**
 * Readability's article element as Turndown takes it: adjacent text nodes (the parser splits text
 * at entities) merged, as a serialise-and-parse would, so Turndown escapes each text as one.
 */
function articleNode(el: unknown): TurndownService.Node {
  (el as { normalize(): void }).normalize();
  return el as TurndownService.Node;
}

/**
 * `links: false` skips collecting the links (a sitemap's pages, or the last depth of a crawl, whose
 * links are not followed).
 */
export function htmlToMarkdown(html: string, pageUrl: string, opts: { links?: boolean } = {}): ConvertedPage {
  const { document } = parseHTML(html);
  const links: string[] = [];
  if (opts.links !== false) {
    for (const a of Array.from(document.getElementsByTagName('a'))) {
      const href = (a as unknown as El).getAttribute('href');
      if (!href) continue;
      try {
        links.push(new URL(href, pageUrl).href);
      } catch {
        // not a URL: skipped
      }
    }
  }
  // by tag name: linkedom runs a CSS selector as a compiled matcher over the whole tree
  const fallbackTitle = document.getElementsByTagName('title')[0]?.textContent?.trim() ?? '';
  let title = fallbackTitle;
  // Readability's article as its DOM element, which Turndown walks directly: no HTML string written
  // out and parsed again per page.
  let content: TurndownService.Node | string | null = null;
  try {
    const article = new Readability<TurndownService.Node>(document as never, { keepClasses: true, serializer: articleNode }).parse();
    if (article?.content) {
      content = article.content;
      title = article.title?.trim() || fallbackTitle;
    }
  } catch {
    content = null;
  }
  if (content === null) {
    const { document: again } = parseHTML(html);
    const main = again.querySelector('main, article, [role=main]') ?? again.body;
    for (const el of Array.from(main?.querySelectorAll('nav, header, footer, aside') ?? [])) (el as unknown as El).remove();
    content = main?.innerHTML ?? '';
  }
  const markdown = turndown
    .turndown(content)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { title, markdown, links };
}

/** An HTML fragment (a converted Word document) as markdown, without the page clean-up. */
export function fragmentToMarkdown(html: string): string {
  return turndown
    .turndown(html)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
