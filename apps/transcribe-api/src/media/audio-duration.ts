/**
 * The audio's duration read from the file's header, for progress estimates (no decoding): WAV/RF64
 * (data size / byte rate), FLAC (STREAMINFO total samples), MP3 (the Xing/Info/VBRI frame count, else
 * constant bitrate over the file size), MP4/M4A/MOV (`moov/mvhd`). Null for other containers or a
 * header that does not say.
 */
import { open, type FileHandle } from 'node:fs/promises';

export interface ByteSource {
  size: number;
  read(position: number, length: number): Promise<Buffer>;
}

/**
 * Seconds of audio in the file at `path`, or null when its header does not tell. `known`: the
 * file's size and first bytes, already in memory (an upload's): the file is opened only for reads
 * beyond them.
 */
export async function readAudioSeconds(path: string, known?: { size: number; head: Buffer }): Promise<number | null> {
  if (known) {
    let handle: FileHandle | undefined;
    try {
      return await audioSecondsOf({
        size: known.size,
        read: async (position, length) => {
          const end = Math.min(position + length, known.size);
          if (end <= known.head.length) return known.head.subarray(position, end);
          handle ??= await open(path, 'r');
          return readAt(handle, known.size, position, length);
        },
      });
    } finally {
      await handle?.close();
    }
  }
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    return await audioSecondsOf({ size, read: (position, length) => readAt(handle, size, position, length) });
  } finally {
    await handle.close();
  }
}

async function readAt(handle: FileHandle, size: number, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(Math.max(0, Math.min(length, size - position)));
  if (!buf.length) return buf;
  const { bytesRead } = await handle.read(buf, 0, buf.length, position);
  return buf.subarray(0, bytesRead);
}

const round = (n: number): number | null => (Number.isFinite(n) && n > 0 ? Math.round(n * 1000) / 1000 : null);

export async function audioSecondsOf(src: ByteSource): Promise<number | null> {
  const head = await src.read(0, 64 * 1024);
  if (head.length < 12) return null;
  const tag = head.toString('latin1', 0, 4);
  if ((tag === 'RIFF' || tag === 'RF64') && head.toString('latin1', 8, 12) === 'WAVE') return wavSeconds(head, src.size);
  if (tag === 'fLaC') return flacSeconds(head);
  if (head.toString('latin1', 4, 8) === 'ftyp') return mp4Seconds(src);
  return mp3Seconds(head, src.size);
}

function wavSeconds(head: Buffer, fileSize: number): number | null {
  let pos = 12;
  let byteRate = 0;
  let ds64Data: number | null = null;
  while (pos + 8 <= head.length) {
    const id = head.toString('latin1', pos, pos + 4);
    const size = head.readUInt32LE(pos + 4);
    if (id === 'ds64' && pos + 8 + 24 <= head.length) ds64Data = Number(head.readBigUInt64LE(pos + 8 + 8));
    if (id === 'fmt ' && pos + 8 + 12 <= head.length) byteRate = head.readUInt32LE(pos + 8 + 8);
    if (id === 'data') {
      if (!byteRate) return null;
      const declared = size === 0xffffffff ? (ds64Data ?? fileSize - pos - 8) : size;
      return round(Math.min(declared, fileSize - pos - 8) / byteRate);
    }
    pos += 8 + size + (size % 2);
  }
  return null;
}

function flacSeconds(head: Buffer): number | null {
  // STREAMINFO is the first metadata block: 4 bytes of block header, then the fields.
  if (head.length < 8 + 18) return null;
  const info = head.subarray(8);
  const sampleRate = (info[10] << 12) | (info[11] << 4) | (info[12] >> 4);
  const totalSamples = (info[13] & 0x0f) * 2 ** 32 + info.readUInt32BE(14);
  return sampleRate ? round(totalSamples / sampleRate) : null;
}

const MP3_BITRATES: Record<string, number[]> = {
  // kbit/s by index, for MPEG-1 layer III and MPEG-2/2.5 layer III
  '1': [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  '2': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const MP3_RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

function mp3Seconds(head: Buffer, fileSize: number): number | null {
  let pos = 0;
  if (head.toString('latin1', 0, 3) === 'ID3' && head.length >= 10) {
    pos = 10 + ((head[6] & 0x7f) << 21) + ((head[7] & 0x7f) << 14) + ((head[8] & 0x7f) << 7) + (head[9] & 0x7f);
  }
  for (; pos + 4 <= head.length; pos++) {
    if (head[pos] !== 0xff || (head[pos + 1] & 0xe0) !== 0xe0) continue;
    const version = (head[pos + 1] >> 3) & 0x03; // 3 = MPEG-1, 2 = MPEG-2, 0 = MPEG-2.5
    const layer = (head[pos + 1] >> 1) & 0x03; // 1 = layer III
    const bitrateIndex = head[pos + 2] >> 4;
    const rateIndex = (head[pos + 2] >> 2) & 0x03;
    if (version === 1 || layer !== 1 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) continue;
    const sampleRate = MP3_RATES[version][rateIndex];
    const kbps = MP3_BITRATES[version === 3 ? '1' : '2'][bitrateIndex];
    const samplesPerFrame = version === 3 ? 1152 : 576;
    const mono = head[pos + 3] >> 6 === 3;
    const sideInfo = version === 3 ? (mono ? 17 : 32) : mono ? 9 : 17;
    const xing = pos + 4 + sideInfo;
    const xingTag = head.toString('latin1', xing, xing + 4);
    if ((xingTag === 'Xing' || xingTag === 'Info') && xing + 12 <= head.length && head.readUInt32BE(xing + 4) & 0x1) {
      return round((head.readUInt32BE(xing + 8) * samplesPerFrame) / sampleRate);
    }
    const vbri = pos + 4 + 32;
    if (head.toString('latin1', vbri, vbri + 4) === 'VBRI' && vbri + 18 <= head.length) {
      return round((head.readUInt32BE(vbri + 14) * samplesPerFrame) / sampleRate);
    }
    return round(((fileSize - pos) * 8) / (kbps * 1000));
  }
  return null;
}

/** Walks the atoms from the top (reading only their headers) to `moov`, then its `mvhd`. */
async function mp4Seconds(src: ByteSource): Promise<number | null> {
  let pos = 0;
  for (let guard = 0; guard < 64 && pos + 8 <= src.size; guard++) {
    const header = await src.read(pos, 16);
    if (header.length < 8) return null;
    let size = header.readUInt32BE(0);
    const type = header.toString('latin1', 4, 8);
    let headerSize = 8;
    if (size === 1 && header.length >= 16) {
      size = Number(header.readBigUInt64BE(8));
      headerSize = 16;
    } else if (size === 0) size = src.size - pos;
    if (size < headerSize) return null;
    if (type === 'moov') {
      const moov = await src.read(pos + headerSize, Math.min(size - headerSize, 1024 * 1024));
      let p = 0;
      while (p + 8 <= moov.length) {
        const childSize = moov.readUInt32BE(p);
        if (moov.toString('latin1', p + 4, p + 8) === 'mvhd') {
          const body = moov.subarray(p + 8);
          const version = body[0];
          if (version === 1 && body.length >= 32) return round(Number(body.readBigUInt64BE(24)) / body.readUInt32BE(20));
          if (body.length >= 20) return round(body.readUInt32BE(16) / body.readUInt32BE(12));
          return null;
        }
        if (childSize < 8) return null;
        p += childSize;
      }
      return null;
    }
    pos += size;
  }
  return null;
}
