/**
 * A small, valid WAV file built in memory: RIFF header, `fmt ` chunk (PCM, mono, 16-bit) and a
 * `data` chunk holding a sine tone. Used by the tests and the benchmark instead of fixtures.
 */
export function makeWav(opts: { seconds?: number; sampleRate?: number; frequency?: number } = {}): Buffer {
  const sampleRate = opts.sampleRate ?? 16_000;
  const seconds = opts.seconds ?? 0.5;
  const frequency = opts.frequency ?? 440;
  const samples = Math.round(sampleRate * seconds);
  const dataBytes = samples * 2;
  const buf = Buffer.alloc(44 + dataBytes);
  buf.write('RIFF', 0, 'ascii');
  buf.writeUInt32LE(36 + dataBytes, 4);
  buf.write('WAVE', 8, 'ascii');
  buf.write('fmt ', 12, 'ascii');
  buf.writeUInt32LE(16, 16); // fmt chunk size
  buf.writeUInt16LE(1, 20); // PCM
  buf.writeUInt16LE(1, 22); // mono
  buf.writeUInt32LE(sampleRate, 24);
  buf.writeUInt32LE(sampleRate * 2, 28); // byte rate
  buf.writeUInt16LE(2, 32); // block align
  buf.writeUInt16LE(16, 34); // bits per sample
  buf.write('data', 36, 'ascii');
  buf.writeUInt32LE(dataBytes, 40);
  for (let i = 0; i < samples; i++) {
    buf.writeInt16LE(Math.round(Math.sin((2 * Math.PI * frequency * i) / sampleRate) * 12_000), 44 + i * 2);
  }
  return buf;
}
