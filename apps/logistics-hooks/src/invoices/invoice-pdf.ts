import { Worker } from 'node:worker_threads';

/** A PDF the parser could not read (damaged, encrypted, not a PDF at all, too slow). */
export class UnreadablePdfError extends Error {}

// pdf.js (inside pdf-parse) loads its own worker through a dynamic import, which only a plain Node
// thread allows (not a VM context such as Jest's), and parsing is CPU-bound: it runs in a worker thread.
const SCRIPT = `
const { parentPort, workerData: job } = require('node:worker_threads');
const { PDFParse } = require(job.parser);
const parser = new PDFParse({ data: new Uint8Array(job.bytes) });
parser.getText({ first: job.maxPages })
  .then((r) => parentPort.postMessage({ ok: true, text: r.text }), (e) => parentPort.postMessage({ ok: false, message: String(e && e.message || e) }))
  .finally(() => parser.destroy().catch(() => {}));
`;

/**
 * The text of an invoice PDF (its first `maxPages` pages), extracted by pdf-parse (the parser
 * knowledge-api uses) in a worker thread that is ended after `timeoutMs`. Anything that is not a
 * readable PDF is an {@link UnreadablePdfError}.
 */
export async function invoiceText(data: Buffer, opts: { maxPages: number; timeoutMs: number }): Promise<string> {
  if (data.subarray(0, 1024).indexOf('%PDF-') === -1) throw new UnreadablePdfError('the file is not a PDF (no %PDF- header)');
  const bytes = Uint8Array.from(data).buffer;
  const worker = new Worker(SCRIPT, { eval: true, workerData: { parser: require.resolve('pdf-parse'), bytes, maxPages: opts.maxPages }, transferList: [bytes] });
  let timer: NodeJS.Timeout | undefined;
  try {
    const answer = await new Promise<{ ok: boolean; text?: string; message?: string }>((resolve, reject) => {
      timer = setTimeout(() => reject(new UnreadablePdfError(`reading the PDF took longer than ${opts.timeoutMs} ms`)), opts.timeoutMs);
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
