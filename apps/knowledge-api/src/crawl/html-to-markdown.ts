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
  querySelector(selector: string): El | null;
  textContent: string | null;
  remove(): void;
}

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
turndown.remove(['script', 'style', 'noscript', 'iframe', 'form', 'button', 'nav']);
turndown.addRule('fencedWithLanguage', {
  filter: (node) => node.nodeName === 'PRE',
  replacement: (_content, node) => {
    const el = node as unknown as El;
    const code = el.querySelector('code');
    const classes = `${el.getAttribute('class') ?? ''} ${code?.getAttribute('class') ?? ''}`;
    const lang = /(?:^|\s)(?:language|lang)-([\w+#.-]+)/.exec(classes)?.[1] ?? el.getAttribute('data-lang') ?? '';
    const text = (code ?? el).textContent ?? '';
    const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((m: string) => m.length));
    const fence = '`'.repeat(longest + 1);
    return `\n\n${fence}${lang.toLowerCase()}\n${text.replace(/\n$/, '')}\n${fence}\n\n`;
  },
});

export function htmlToMarkdown(html: string, pageUrl: string): ConvertedPage {
  const { document } = parseHTML(html);
  const links: string[] = [];
  for (const a of Array.from(document.querySelectorAll('a[href]'))) {
    const href = (a as unknown as El).getAttribute('href');
    if (!href) continue;
    try {
      links.push(new URL(href, pageUrl).href);
    } catch {
      // not a URL: skipped
    }
  }
  const fallbackTitle = document.querySelector('title')?.textContent?.trim() ?? '';
  let title = fallbackTitle;
  let contentHtml: string | null = null;
  try {
    const article = new Readability(document as never, { keepClasses: true }).parse();
    if (article?.content) {
      contentHtml = article.content;
      title = article.title?.trim() || fallbackTitle;
    }
  } catch {
    contentHtml = null;
  }
  if (contentHtml === null) {
    const { document: again } = parseHTML(html);
    const main = again.querySelector('main, article, [role=main]') ?? again.body;
    for (const el of Array.from(main?.querySelectorAll('nav, header, footer, aside') ?? [])) (el as unknown as El).remove();
    contentHtml = main?.innerHTML ?? '';
  }
  const markdown = turndown
    .turndown(contentHtml)
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
