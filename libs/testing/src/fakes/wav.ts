/**
 * WAV files built in memory instead of fixtures: a RIFF header with a `fmt ` chunk (PCM, mono,
 * 16-bit) and a `data` chunk. For uploads to a transcription service and its fake engine.
 */

/** The 44-byte header of a WAV file whose samples take `dataBytes` (sizes capped at the format's 4 GiB). */
export function wavHeader(dataBytes: number, sampleRate = 16_000): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(Math.min(36 + dataBytes, 0xffffffff), 4);
  h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii');
  h.writeUInt32LE(16, 16); // fmt chunk size
  h.writeUInt16LE(1, 20); // PCM
  h.writeUInt16LE(1, 22); // mono
  h.writeUInt32LE(sampleRate, 24);
  h.writeUInt32LE(sampleRate * 2, 28); // byte rate
  h.writeUInt16LE(2, 32); // block align
  h.writeUInt16LE(16, 34); // bits per sample
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(Math.min(dataBytes, 0xffffffff), 40);
  return h;
}

/** A short WAV file holding a sine tone (`frequency` 0: silence). */
export function makeWav(opts: { seconds?: number; sampleRate?: number; frequency?: number } = {}): Buffer {
  const sampleRate = opts.sampleRate ?? 16_000;
  const frequency = opts.frequency ?? 440;
  const samples = Math.round(sampleRate * (opts.seconds ?? 0.5));
  const data = Buffer.alloc(samples * 2);
  if (frequency > 0) {
    for (let i = 0; i < samples; i++) data.writeInt16LE(Math.round(Math.sin((2 * Math.PI * frequency * i) / sampleRate) * 12_000), i * 2);
  }
  return Buffer.concat([wavHeader(data.length, sampleRate), data]);
}
