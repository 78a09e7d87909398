import { pdfText } from '@platform/documents';
import { ApiError } from '@platform/errors';
import mammoth from 'mammoth';
import WordExtractor from 'word-extractor';
import { fragmentToMarkdown } from '../markdown/html-to-markdown';

/**
 * Upload types of the spec with their size limits. The type must agree with the file's name and
 * with its content (magic bytes): `%PDF-` for PDF; a ZIP holding `word/document.xml` for DOCX;
 * an OLE2 compound file (D0 CF 11 E0 A1 B1 1A E1) for DOC; UTF-8 text without NUL bytes for
 * Markdown and plain text.
 */
export type UploadKind = 'pdf' | 'docx' | 'doc' | 'md' | 'txt';

const MB = 1024 * 1024;
export const UPLOAD_LIMITS: Record<UploadKind, number> = { pdf: 50 * MB, docx: 25 * MB, doc: 25 * MB, md: 10 * MB, txt: 10 * MB };
export const MAX_UPLOAD_BYTES = Math.max(...Object.values(UPLOAD_LIMITS));

const EXTENSIONS: Record<string, UploadKind> = { '.pdf': 'pdf', '.docx': 'docx', '.doc': 'doc', '.md': 'md', '.markdown': 'md', '.txt': 'txt' };
const SUPPORTED = 'Supported: .pdf (max 50 MB), .docx and .doc (max 25 MB), .md and .txt (max 10 MB)';

export function kindFromName(filename: string): UploadKind | null {
  const m = /\.[^.]+$/.exec(filename.toLowerCase());
  return m ? (EXTENSIONS[m[0]] ?? null) : null;
}

const OLE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

/** What the bytes are, as far as these types go (null: none of them). */
export function sniff(data: Buffer): UploadKind | 'text' | null {
  if (data.subarray(0, 1024).includes('%PDF-')) return 'pdf';
  if (data.subarray(0, 4).equals(Buffer.from('PK\x03\x04', 'latin1'))) return data.includes('word/document.xml') ? 'docx' : null;
  if (data.subarray(0, 8).equals(OLE)) return 'doc';
  if (data.includes(0)) return null;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(data);
    return 'text';
  } catch {
    return null;
  }
}

/** Checks name, content and size; returns the kind or throws 415 / 413 with what is accepted. */
export function checkUpload(filename: string, data: Buffer): UploadKind {
  const kind = kindFromName(filename);
  if (!kind) throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', `File type of "${filename}" is not supported. ${SUPPORTED}`);
  const content = sniff(data);
  const matches = kind === 'md' || kind === 'txt' ? content === 'text' : content === kind;
  if (!matches) {
    throw new ApiError(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      `"${filename}" does not contain what its name says (.${kind}): its content is ${content === 'text' ? 'plain text' : content ? `a ${content.toUpperCase()} file` : 'not a supported document'}. Rename it or upload the right file. ${SUPPORTED}`,
    );
  }
  if (data.length > UPLOAD_LIMITS[kind]) {
    throw new ApiError(413, 'PAYLOAD_TOO_LARGE', `"${filename}" is ${(data.length / MB).toFixed(1)} MB; .${kind} files may be at most ${UPLOAD_LIMITS[kind] / MB} MB`);
  }
  if (data.length === 0) throw new ApiError(400, 'BAD_REQUEST', `"${filename}" is empty`);
  return kind;
}

/** The text of a document as markdown (headings kept where the format has them). */
export async function extractText(kind: UploadKind, data: Buffer): Promise<string> {
  try {
    switch (kind) {
      case 'pdf':
        return await pdfText(data);
      case 'docx': {
        const { value } = await mammoth.convertToHtml({ buffer: data });
        return fragmentToMarkdown(value);
      }
      case 'doc': {
        const doc = await new WordExtractor().extract(data);
        return doc.getBody();
      }
      case 'md':
      case 'txt':
        return data.toString('utf8');
    }
  } catch (err) {
    throw new ApiError(422, 'VALIDATION_ERROR', `The .${kind} file could not be read (${(err as Error).message}); check that it opens in its own application, or export it again`);
  }
}
