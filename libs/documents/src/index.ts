export { pdfText, UnreadablePdfError, type PdfTextOptions } from './pdf-text';
