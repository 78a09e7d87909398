import { makeWav } from '@platform/testing';
import { sniffMedia } from './sniff-media';

const b = (...parts: Array<string | number[]>): Buffer =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));
const pad = (buf: Buffer, size = 64): Buffer => Buffer.concat([buf, Buffer.alloc(Math.max(0, size - buf.length))]);

describe('sniffMedia', () => {
  it.each<[string, Buffer, string]>([
    ['generated WAV', makeWav({ seconds: 0.01 }), 'wav'],
    ['RF64 WAV', pad(b('RF64', [0xff, 0xff, 0xff, 0xff], 'WAVE')), 'wav'],
    ['AVI', pad(b('RIFF', [0, 0, 0, 0], 'AVI LIST')), 'avi'],
    ['MP3 with ID3v2.3 tag', pad(b('ID3', [3, 0, 0, 0, 0, 0, 0])), 'mp3'],
    ['MP3 frame (MPEG-1 layer III, 128 kbit/s, 44.1 kHz)', pad(b([0xff, 0xfb, 0x90, 0x64])), 'mp3'],
    ['MP3 frame (MPEG-2 layer III)', pad(b([0xff, 0xf3, 0x48, 0xc4])), 'mp3'],
    ['Ogg', pad(b('OggS', [0, 2])), 'ogg'],
    ['FLAC', pad(b('fLaC', [0, 0, 0, 0x22])), 'flac'],
    ['MP4 isom', pad(b([0, 0, 0, 0x20], 'ftypisom')), 'mp4'],
    ['M4A', pad(b([0, 0, 0, 0x20], 'ftypM4A ')), 'm4a'],
    ['MOV ftyp qt', pad(b([0, 0, 0, 0x14], 'ftypqt  ')), 'mov'],
    ['old QuickTime moov atom', pad(b([0, 0, 0, 0x6c], 'moov')), 'mov'],
    ['3GP', pad(b([0, 0, 0, 0x18], 'ftyp3gp5')), '3gp'],
    ['WebM', pad(b([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x84], 'webm')), 'webm'],
    ['Matroska', pad(b([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x88], 'matroska')), 'mkv'],
    ['AAC ADTS', pad(b([0xff, 0xf1, 0x50, 0x80, 0x02, 0x1f, 0xfc])), 'aac'],
    ['AMR-NB', b('#!AMR\n', [0x3c]), 'amr'],
    ['AMR-WB', b('#!AMR-WB\n', [0x04]), 'amr'],
    ['AIFF', pad(b('FORM', [0, 0, 0, 0], 'AIFF')), 'aiff'],
    ['CAF', pad(b('caff', [0, 1])), 'caf'],
    ['WMA/ASF', pad(b([0x30, 0x26, 0xb2, 0x75, 0x8e, 0x66, 0xcf, 0x11, 0xa6, 0xd9])), 'asf'],
  ])('recognises %s', (_name, head, container) => {
    expect(sniffMedia(head)?.container).toBe(container);
  });

  it.each<[string, Buffer]>([
    ['empty', Buffer.alloc(0)],
    ['plain text', b('hello, this is not audio at all')],
    ['JSON', b('{"text":"hi"}')],
    ['PDF', pad(b('%PDF-1.7\n'))],
    ['PNG', pad(b([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))],
    ['JPEG', pad(b([0xff, 0xd8, 0xff, 0xe0]))],
    ['ZIP', pad(b('PK', [3, 4]))],
    ['WebP (RIFF but an image)', pad(b('RIFF', [0, 0, 0, 0], 'WEBPVP8 '))],
    ['HEIC (ISO-BMFF but an image)', pad(b([0, 0, 0, 0x18], 'ftypheic'))],
    ['truncated RIFF header', b('RIFF')],
    ['bytes that look like a frame sync with reserved fields', pad(b([0xff, 0xe9, 0xf0, 0x00]))],
    ['ID3 with an impossible version', pad(b('ID3', [9, 0]))],
  ])('refuses %s', (_name, head) => {
    expect(sniffMedia(head)).toBeNull();
  });
});
