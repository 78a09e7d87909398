import { createHash } from 'node:crypto';
import sharp, { type Sharp } from 'sharp';

/**
 * What an uploaded image goes through before it is stored (plain functions, no I/O but sharp):
 *
 * 1. its type is read from its first bytes (PNG, JPEG, GIF, WebP), never from the file name or the
 *    declared Content-Type; anything else (SVG, HTML, PDF, text named `.png`) is refused;
 * 2. sharp decodes it (a file that only starts like an image is refused) within a pixel budget
 *    (a small file that decompresses to a huge bitmap is refused before it is decoded);
 * 3. the EXIF orientation is applied (`rotate()`), the image scaled down to fit
 *    {@link MAX_IMAGE_DIMENSION} × {@link MAX_IMAGE_DIMENSION} (never up), and it is encoded again in
 *    its own format: the output carries no metadata at all (EXIF with GPS position and camera, XMP,
 *    IPTC, ICC profiles: colours are converted to sRGB); animated GIF and WebP keep every frame, their
 *    delays and loop count;
 * 4. its key is the SHA-256 of the stored bytes plus the extension: the same image uploaded twice
 *    gets the same key, hence the same URL.
 */

/** Largest upload, in bytes (5 MiB, the same as the CSV import). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Images wider or taller than this (pixels) are scaled down to fit, keeping the aspect ratio. */
export const MAX_IMAGE_DIMENSION = 2000;
/** Largest decoded image (width × height × frames) sharp accepts: about 50 megapixels (e.g. 8000 × 6000 still). */
export const MAX_INPUT_PIXELS = 50_000_000;

export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'webp';

export const IMAGE_FORMATS: Record<ImageFormat, { contentType: string; extension: string }> = {
  png: { contentType: 'image/png', extension: 'png' },
  jpeg: { contentType: 'image/jpeg', extension: 'jpg' },
  gif: { contentType: 'image/gif', extension: 'gif' },
  webp: { contentType: 'image/webp', extension: 'webp' },
};

const BY_EXTENSION = new Map(Object.values(IMAGE_FORMATS).map((f) => [f.extension, f.contentType]));

/** A stored image's key: the SHA-256 (hex) of its bytes and the extension of its format. */
export const IMAGE_KEY = /^([0-9a-f]{64})\.(png|jpg|gif|webp)$/;

/** The Content-Type of a stored key, null when the string is no image key (nothing else is ever served). */
export function contentTypeOfKey(key: string): string | null {
  const match = IMAGE_KEY.exec(key);
  return match ? BY_EXTENSION.get(match[2]) ?? null : null;
}

/** The format an image's first bytes announce (its signature), null for anything else. */
export function sniffImageFormat(bytes: Uint8Array): ImageFormat | null {
  const starts = (sig: number[], at = 0) => bytes.length >= at + sig.length && sig.every((b, i) => bytes[at + i] === b);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (starts([0xff, 0xd8, 0xff])) return 'jpeg';
  if (starts([0x47, 0x49, 0x46, 0x38, 0x37, 0x61]) || starts([0x47, 0x49, 0x46, 0x38, 0x39, 0x61])) return 'gif';
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return 'webp';
  return null;
}

export type ImageRejection =
  /** The bytes are not PNG, JPEG, GIF or WebP. */
  | 'unsupported_type'
  /** They start like one of them but do not decode (truncated or corrupt). */
  | 'corrupt'
  /** Decoded, the image would exceed {@link MAX_INPUT_PIXELS}. */
  | 'too_many_pixels';

export class ImageRejected extends Error {
  constructor(
    readonly reason: ImageRejection,
    message: string,
  ) {
    super(message);
  }
}

export interface ProcessedImage {
  data: Buffer;
  format: ImageFormat;
  contentType: string;
  /** `<sha256>.<extension>` */
  key: string;
  sha256: string;
  /** Of one frame for animated images. */
  width: number;
  height: number;
  /** Frames (1 for a still image). */
  frames: number;
}

export interface ImageLimits {
  maxDimension: number;
  maxInputPixels: number;
}

const DEFAULT_LIMITS: ImageLimits = { maxDimension: MAX_IMAGE_DIMENSION, maxInputPixels: MAX_INPUT_PIXELS };

/** Checks, cleans and scales one uploaded image (see the file's header). */
export async function processImage(input: Buffer, limits: ImageLimits = DEFAULT_LIMITS): Promise<ProcessedImage> {
  const format = sniffImageFormat(input);
  if (!format) throw new ImageRejected('unsupported_type', 'The file is not a PNG, JPEG, GIF or WebP image (its content was checked, not its name or declared type)');
  const animated = format === 'gif' || format === 'webp';
  const open = () => sharp(input, { animated, limitInputPixels: limits.maxInputPixels, failOn: 'error' });
  let pipeline = open();
  try {
    const meta = await pipeline.metadata();
    if (meta.format !== format) throw new ImageRejected('corrupt', `The file starts like a ${format.toUpperCase()} image but decodes as ${meta.format ?? 'nothing'}`);
    // EXIF orientation only exists on stills; rotate() applies it and drops the tag.
    if ((meta.pages ?? 1) <= 1) pipeline = pipeline.rotate();
    pipeline = pipeline.resize({ width: limits.maxDimension, height: limits.maxDimension, fit: 'inside', withoutEnlargement: true });
    pipeline = encode(pipeline, format);
    const { data, info } = await pipeline.toBuffer({ resolveWithObject: true });
    const sha256 = createHash('sha256').update(data).digest('hex');
    const { contentType, extension } = IMAGE_FORMATS[format];
    return { data, format, contentType, key: `${sha256}.${extension}`, sha256, width: info.width, height: info.pageHeight ?? info.height, frames: info.pages ?? 1 };
  } catch (err) {
    if (err instanceof ImageRejected) throw err;
    const message = err instanceof Error ? err.message : String(err);
    if (/pixel limit/i.test(message)) {
      throw new ImageRejected('too_many_pixels', `The image is too large once decoded: at most ${limits.maxInputPixels.toLocaleString('en-US')} pixels (width × height × frames)`);
    }
    throw new ImageRejected('corrupt', `The ${format.toUpperCase()} image cannot be decoded (truncated or corrupt)`);
  }
}

/** Encodes in the input's format; sharp writes no metadata unless asked (withMetadata is never called). */
function encode(pipeline: Sharp, format: ImageFormat): Sharp {
  switch (format) {
    case 'png':
      return pipeline.png();
    case 'jpeg':
      return pipeline.jpeg({ quality: 85, mozjpeg: true });
    case 'gif':
      return pipeline.gif();
    case 'webp':
      return pipeline.webp({ quality: 85 });
  }
}
