import { Worker } from 'node:worker_threads';

/** A PDF that cannot be read: damaged, encrypted, not a PDF at all, or too slow to parse. */
export class UnreadablePdfError extends Error {
  override readonly name = 'UnreadablePdfError';
}

export interface PdfTextOptions {
  /** Read only the first pages (default: all). */
  maxPages?: number;
  /** Abandon a file that takes longer (default 120 s); the worker is terminated. */
  timeoutMs?: number;
}

// pdf.js (inside pdf-parse) loads its own worker through a dynamic import, which only a plain Node
// thread allows (not a VM context such as Jest's), and parsing is CPU-bound (seconds for a large file):
// it runs in a worker thread of its own, so the event loop keeps serving meanwhile.
const SCRIPT = `
const { parentPort, workerData: job } = require('node:worker_threads');
const { PDFParse } = require(job.parser);
const parser = new PDFParse({ data: new Uint8Array(job.bytes) });
parser.getText(job.maxPages ? { first: job.maxPages } : {})
  .then((r) => parentPort.postMessage({ ok: true, text: r.text }), (e) => parentPort.postMessage({ ok: false, message: String((e && e.message) || e) }))
  .finally(() => parser.destroy().catch(() => {}));
`;

/**
 * The text of a PDF (of its first `maxPages` pages when given), extracted by pdf-parse in a worker
 * thread that is ended after `timeoutMs`. Anything that cannot be read as a PDF rejects with an
 * {@link UnreadablePdfError} saying why.
 */
export async function pdfText(data: Buffer, opts: PdfTextOptions = {}): Promise<string> {
  const timeoutMs = opts.timeoutMs ?? 120_000;
  if (data.subarray(0, 1024).indexOf('%PDF-') === -1) throw new UnreadablePdfError('the file is not a PDF (no %PDF- header)');
  const bytes = Uint8Array.from(data).buffer;
  const worker = new Worker(SCRIPT, { eval: true, workerData: { parser: require.resolve('pdf-parse'), bytes, maxPages: opts.maxPages }, transferList: [bytes] });
  let timer: NodeJS.Timeout | undefined;
  try {
    const answer = await new Promise<{ ok: boolean; text?: string; message?: string }>((resolve, reject) => {
      timer = setTimeout(() => reject(new UnreadablePdfError(`reading the PDF took longer than ${timeoutMs} ms`)), timeoutMs);
      worker.on('message', resolve);
      worker.on('error', reject);
      worker.on('exit', (code) => reject(new UnreadablePdfError(`the PDF reader stopped (exit code ${code})`)));
    });
    if (!answer.ok) throw new UnreadablePdfError(`the PDF cannot be read: ${answer.message}`);
    return answer.text ?? '';
  } catch (err) {
    throw err instanceof UnreadablePdfError ? err : new UnreadablePdfError(`the PDF cannot be read: ${(err as Error).message}`);
  } finally {
    clearTimeout(timer);
    await worker.terminate();
  }
}
