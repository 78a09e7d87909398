import { Worker } from 'node:worker_threads';

/**
 * The text of a PDF, extracted by pdf-parse (pdf.js) in a worker thread: parsing is CPU-bound and
 * may take seconds for a large file, so the event loop keeps serving meanwhile; a file that takes
 * longer than `timeoutMs` is abandoned (the worker is terminated).
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { PDFParse } = require(workerData.module);
(async () => {
  const parser = new PDFParse({ data: new Uint8Array(workerData.data) });
  try {
    const result = await parser.getText();
    parentPort.postMessage({ text: result.text });
  } catch (err) {
    parentPort.postMessage({ error: String((err && err.message) || err) });
  } finally {
    await parser.destroy().catch(() => undefined);
  }
})();
`;

export function pdfText(data: Buffer, timeoutMs = 120_000): Promise<string> {
  const module = require.resolve('pdf-parse');
  const copy = new Uint8Array(data).buffer;
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { eval: true, workerData: { module, data: copy }, transferList: [copy] });
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(new Error(`PDF parsing took longer than ${timeoutMs / 1000} s`));
    }, timeoutMs);
    worker.once('message', (msg: { text?: string; error?: string }) => {
      clearTimeout(timer);
      void worker.terminate();
      if (msg.error !== undefined) reject(new Error(msg.error));
      else resolve(msg.text ?? '');
    });
    worker.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    worker.once('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`PDF parser stopped (exit code ${code})`));
    });
  });
}
