import { makeWav } from '@platform/testing';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { audioSecondsOf, readAudioSeconds, type ByteSource } from './audio-duration';

const source = (buf: Buffer): ByteSource => ({ size: buf.length, read: async (p, n) => buf.subarray(p, p + n) });

function atom(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length, 0);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, body]);
}

function mvhd(timescale: number, duration: number): Buffer {
  const body = Buffer.alloc(100);
  body.writeUInt32BE(timescale, 12);
  body.writeUInt32BE(duration, 16);
  return atom('mvhd', body);
}

function flac(sampleRate: number, totalSamples: number): Buffer {
  const info = Buffer.alloc(34);
  info[10] = (sampleRate >> 12) & 0xff;
  info[11] = (sampleRate >> 4) & 0xff;
  info[12] = ((sampleRate & 0x0f) << 4) | 0x01;
  info[13] = 0xf0 | Math.floor(totalSamples / 2 ** 32);
  info.writeUInt32BE(totalSamples % 2 ** 32, 14);
  return Buffer.concat([Buffer.from('fLaC'), Buffer.from([0x80, 0, 0, 34]), info]);
}

/** An MPEG-1 layer III frame header (128 kbit/s, 44.1 kHz, stereo) followed by `body`. */
function mp3(body: Buffer, xingFrames?: number): Buffer {
  const header = Buffer.from([0xff, 0xfb, 0x90, 0x00]);
  const side = Buffer.alloc(32);
  const xing = xingFrames === undefined ? Buffer.alloc(0) : Buffer.concat([Buffer.from('Xing'), Buffer.from([0, 0, 0, 1]), Buffer.alloc(4)]);
  if (xingFrames !== undefined) xing.writeUInt32BE(xingFrames, 8);
  return Buffer.concat([header, side, xing, body]);
}

describe('audioSecondsOf', () => {
  it.each<[string, Buffer, number | null]>([
    ['WAV: data size over byte rate', makeWav({ seconds: 1.25, sampleRate: 8000 }), 1.25],
    ['WAV cut short: what is there', makeWav({ seconds: 2, sampleRate: 8000 }).subarray(0, 44 + 8000), 0.5],
    ['FLAC: STREAMINFO samples over rate', flac(16000, 48000), 3],
    ['MP4: moov after mdat', Buffer.concat([atom('ftyp', Buffer.from('M4A \0\0\0\0')), atom('mdat', Buffer.alloc(64)), atom('moov', mvhd(1000, 90500))]), 90.5],
    ['MP3 with a Xing frame count', mp3(Buffer.alloc(100), 1000), 26.122],
    ['MP3 at constant bitrate: size over bitrate', mp3(Buffer.alloc(16000 - 36)), 1],
    ['MP3 after an ID3 tag', Buffer.concat([Buffer.from([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 10]), Buffer.alloc(10), mp3(Buffer.alloc(100), 38)]), 0.993],
    ['unknown container', Buffer.from('OggS'.padEnd(64, '\0')), null],
    ['too short', Buffer.from('RIFF'), null],
  ])('%s', async (_name, bytes, seconds) => {
    await expect(audioSecondsOf(source(bytes))).resolves.toBe(seconds);
  });
});

describe('readAudioSeconds with the upload\'s first bytes in memory', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'audio-duration-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('answers from them without opening the file when the header lies in them', async () => {
    const wav = makeWav({ seconds: 1.25, sampleRate: 8000 });
    await expect(readAudioSeconds(join(dir, 'never-written.wav'), { size: wav.length, head: wav })).resolves.toBe(1.25);
  });

  it('reads the rest from the file when the header lies beyond them (MP4 with moov at the end)', async () => {
    const mp4 = Buffer.concat([atom('ftyp', Buffer.from('M4A \0\0\0\0')), atom('mdat', Buffer.alloc(200_000)), atom('moov', mvhd(1000, 90500))]);
    const path = join(dir, 'long.m4a');
    await writeFile(path, mp4);
    await expect(readAudioSeconds(path, { size: mp4.length, head: mp4.subarray(0, 64 * 1024) })).resolves.toBe(90.5);
  });
});
