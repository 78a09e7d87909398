import { htmlToMarkdown, type ConvertedPage } from '../markdown/html-to-markdown';
import type { ConvertTask } from './page-converter';

/**
 * A conversion thread of PageConverter's pool (piscina runs the exported function for each page).
 * Compiled next to page-converter.js, which names it.
 */
export default function convertPage(task: ConvertTask): ConvertedPage {
  return htmlToMarkdown(task.html, task.url, { links: task.links });
}
