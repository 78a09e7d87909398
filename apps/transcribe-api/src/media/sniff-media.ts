/**
 * Recognises audio and video containers by their first bytes (magic numbers), never by the file
 * name or the client's Content-Type, which anyone can set to anything.
 */
export interface SniffedMedia {
  /** short container name: wav, mp3, ogg, flac, mp4, mov, webm, mkv, aac, amr, aiff, caf, asf, avi, mpegts */
  container: string;
  /** the usual MIME type of that container */
  mime: string;
}

/** How many leading bytes `sniffMedia` needs to decide (fewer are fine for short files). */
export const SNIFF_BYTES = 192;

const ascii = (buf: Uint8Array, offset: number, text: string): boolean => {
  if (buf.length < offset + text.length) return false;
  for (let i = 0; i < text.length; i++) {
    if (buf[offset + i] !== text.charCodeAt(i)) return false;
  }
  return true;
};

const bytes = (buf: Uint8Array, offset: number, expected: number[]): boolean =>
  buf.length >= offset + expected.length && expected.every((b, i) => buf[offset + i] === b);

/** MPEG-1/2/2.5 audio frame header (layers I–III): 11 sync bits and no reserved field values. */
function isMpegAudioFrame(buf: Uint8Array): boolean {
  if (buf.length < 4 || buf[0] !== 0xff || (buf[1] & 0xe0) !== 0xe0) return false;
  const version = (buf[1] >> 3) & 0b11; // 01 is reserved
  const layer = (buf[1] >> 1) & 0b11; // 00 is reserved (and means AAC ADTS when version bits say so)
  const bitrate = buf[2] >> 4; // 1111 is invalid
  const sampleRate = (buf[2] >> 2) & 0b11; // 11 is reserved
  return version !== 0b01 && layer !== 0b00 && bitrate !== 0b1111 && sampleRate !== 0b11;
}

/** AAC in an ADTS stream: 12 sync bits, layer 00, a valid sampling-frequency index. */
function isAdts(buf: Uint8Array): boolean {
  if (buf.length < 4 || buf[0] !== 0xff || (buf[1] & 0xf6) !== 0xf0) return false;
  const frequencyIndex = (buf[2] >> 2) & 0x0f;
  return frequencyIndex <= 12;
}

/** EBML document (Matroska, WebM): the DocType string sits within the first few dozen bytes. */
function ebmlDocType(buf: Uint8Array): 'webm' | 'mkv' {
  const head = Buffer.from(buf.subarray(0, SNIFF_BYTES)).toString('latin1');
  return head.includes('webm') ? 'webm' : 'mkv';
}

const FTYP_QUICKTIME = new Set(['qt  ']);
const FTYP_AUDIO = new Set(['M4A ', 'M4B ', 'M4P ', 'F4A ', 'F4B ']);
const FTYP_3GP = /^3g[2p]/;
const QUICKTIME_ATOMS = ['moov', 'mdat', 'wide', 'free', 'skip', 'pnot'];

/**
 * Returns the container the bytes start with, or null when they are not a supported audio or
 * video container. Pure: give it the first `SNIFF_BYTES` bytes of the upload.
 */
export function sniffMedia(head: Uint8Array): SniffedMedia | null {
  if (ascii(head, 0, 'RIFF') || ascii(head, 0, 'RF64') || ascii(head, 0, 'BW64')) {
    if (ascii(head, 8, 'WAVE')) return { container: 'wav', mime: 'audio/wav' };
    if (ascii(head, 8, 'AVI ')) return { container: 'avi', mime: 'video/x-msvideo' };
    return null; // RIFF also wraps WebP images, CorelDRAW files and more
  }
  if (ascii(head, 0, 'ID3') && head.length >= 10 && head[3] <= 4 && head[3] >= 2) {
    return { container: 'mp3', mime: 'audio/mpeg' };
  }
  if (ascii(head, 0, 'OggS')) return { container: 'ogg', mime: 'audio/ogg' };
  if (ascii(head, 0, 'fLaC')) return { container: 'flac', mime: 'audio/flac' };
  if (ascii(head, 4, 'ftyp') && head.length >= 12) {
    const brand = Buffer.from(head.subarray(8, 12)).toString('latin1');
    if (FTYP_QUICKTIME.has(brand)) return { container: 'mov', mime: 'video/quicktime' };
    if (FTYP_AUDIO.has(brand)) return { container: 'm4a', mime: 'audio/mp4' };
    if (FTYP_3GP.test(brand)) return { container: '3gp', mime: 'video/3gpp' };
    // heic/avif images are ISO-BMFF too: refuse image brands
    if (/^(heic|heix|hevc|hevx|mif1|msf1|avif|avis)$/.test(brand)) return null;
    return { container: 'mp4', mime: 'video/mp4' };
  }
  if (QUICKTIME_ATOMS.some((atom) => ascii(head, 4, atom))) return { container: 'mov', mime: 'video/quicktime' };
  if (bytes(head, 0, [0x1a, 0x45, 0xdf, 0xa3])) {
    return ebmlDocType(head) === 'webm'
      ? { container: 'webm', mime: 'video/webm' }
      : { container: 'mkv', mime: 'video/x-matroska' };
  }
  if (ascii(head, 0, '#!AMR-WB\n')) return { container: 'amr', mime: 'audio/amr-wb' };
  if (ascii(head, 0, '#!AMR\n')) return { container: 'amr', mime: 'audio/amr' };
  if (ascii(head, 0, 'FORM') && (ascii(head, 8, 'AIFF') || ascii(head, 8, 'AIFC'))) {
    return { container: 'aiff', mime: 'audio/aiff' };
  }
  if (ascii(head, 0, 'caff')) return { container: 'caf', mime: 'audio/x-caf' };
  if (bytes(head, 0, [0x30, 0x26, 0xb2, 0x75, 0x8e, 0x66, 0xcf, 0x11])) {
    return { container: 'asf', mime: 'audio/x-ms-wma' };
  }
  if (ascii(head, 0, 'ADIF')) return { container: 'aac', mime: 'audio/aac' };
  if (isAdts(head)) return { container: 'aac', mime: 'audio/aac' };
  if (isMpegAudioFrame(head)) return { container: 'mp3', mime: 'audio/mpeg' };
  // MPEG transport stream: sync byte 0x47 every 188 bytes (two packets seen when available)
  if (head[0] === 0x47 && head.length >= 189 && head[188] === 0x47) return { container: 'mpegts', mime: 'video/mp2t' };
  return null;
}

/** The formats `sniffMedia` accepts, for error messages and the API docs. */
export const SUPPORTED_CONTAINERS =
  'WAV, MP3, OGG/Opus, FLAC, MP4/M4A/MOV/3GP, WebM/MKV, AAC (ADTS), AMR, AIFF, CAF, WMA/ASF, AVI';
