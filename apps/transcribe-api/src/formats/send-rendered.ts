import type { Response } from 'express';
import type { RenderedTranscript } from './transcript-output';

/**
 * Sets the headers of a rendered transcript on `res` and returns the body for Nest to send (a
 * handler with `@Res({ passthrough: true })`): JSON as usual, documents with their content type and,
 * when `attachment` is given, `Content-Disposition: attachment; filename="…"`.
 */
export function sendRendered(res: Response, rendered: RenderedTranscript, opts: { attachment?: string; contentType?: string; headers?: Record<string, string> } = {}): object | string {
  for (const [name, value] of Object.entries(opts.headers ?? {})) res.setHeader(name, value);
  if (opts.attachment) res.setHeader('Content-Disposition', `attachment; filename="${encodeURIComponent(opts.attachment)}"`);
  if (rendered.kind === 'json') {
    if (opts.contentType) {
      res.setHeader('Content-Type', opts.contentType);
      return JSON.stringify(rendered.body);
    }
    return rendered.body;
  }
  res.setHeader('Content-Type', opts.contentType ?? rendered.contentType);
  return rendered.body;
}
