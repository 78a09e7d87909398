import { textPdf } from '@platform/testing';
import { pdfText, UnreadablePdfError } from './pdf-text';

describe('pdfText', () => {
  it('reads the text of a PDF, line by line', async () => {
    const text = await pdfText(textPdf(['Invoice INV-7', 'Total (EUR): 12.50']));
    expect(text).toContain('Invoice INV-7');
    expect(text).toContain('Total (EUR): 12.50');
  });

  it('refuses a file that is not a PDF before starting a reader', async () => {
    await expect(pdfText(Buffer.from('PK\u0003\u0004 a zip'))).rejects.toThrow(new UnreadablePdfError('the file is not a PDF (no %PDF- header)'));
  });

  it('says a damaged PDF cannot be read', async () => {
    const err = await pdfText(Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(300, 0x41)])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnreadablePdfError);
    expect((err as Error).message).toMatch(/^the PDF cannot be read: /);
  });

  it('abandons a file that takes longer than its time', async () => {
    await expect(pdfText(textPdf(['slow']), { timeoutMs: 1 })).rejects.toThrow(new UnreadablePdfError('reading the PDF took longer than 1 ms'));
  });
});
