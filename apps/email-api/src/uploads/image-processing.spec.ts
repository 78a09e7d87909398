import sharp from 'sharp';
import { contentTypeOfKey, ImageRejected, processImage, sniffImageFormat, type ImageRejection } from './image-processing';

const solid = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 30 } } });

async function animatedGif(width: number, height: number, frames: number): Promise<Buffer> {
  const pages = await Promise.all(Array.from({ length: frames }, (_v, i) => sharp({ create: { width, height, channels: 4, background: { r: 80 * i, g: 40, b: 200, alpha: 1 } } }).png().toBuffer()));
  return sharp(pages, { join: { animated: true } }).gif({ delay: pages.map(() => 120), loop: 0 }).toBuffer();
}

async function rejectionOf(input: Buffer, limits?: { maxDimension: number; maxInputPixels: number }): Promise<ImageRejection | 'accepted'> {
  try {
    await processImage(input, limits);
    return 'accepted';
  } catch (err) {
    if (err instanceof ImageRejected) return err.reason;
    throw err;
  }
}

describe('sniffImageFormat', () => {
  it.each([
    ['png', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]],
    ['jpeg', [0xff, 0xd8, 0xff, 0xe0]],
    ['gif', [...Buffer.from('GIF89a')]],
    ['gif', [...Buffer.from('GIF87a')]],
    ['webp', [...Buffer.from('RIFF'), 1, 2, 3, 4, ...Buffer.from('WEBPVP8 ')]],
  ])('reads %s from its signature', (format, bytes) => {
    expect(sniffImageFormat(Buffer.from(bytes))).toBe(format);
  });

  it.each([
    ['text', Buffer.from('hello, I am not a picture')],
    ['SVG', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')],
    ['HTML', Buffer.from('<!doctype html><img src=x onerror=alert(1)>')],
    ['RIFF but WAVE', Buffer.from('RIFF\u0001\u0002\u0003\u0004WAVEfmt ')],
    ['a PNG signature cut short', Buffer.from([0x89, 0x50, 0x4e, 0x47])],
    ['nothing', Buffer.alloc(0)],
  ])('refuses %s', (_what, bytes) => {
    expect(sniffImageFormat(bytes)).toBeNull();
  });
});

describe('contentTypeOfKey', () => {
  const sha = 'a'.repeat(64);
  it.each([
    [`${sha}.png`, 'image/png'],
    [`${sha}.jpg`, 'image/jpeg'],
    [`${sha}.gif`, 'image/gif'],
    [`${sha}.webp`, 'image/webp'],
    [`${sha}.svg`, null],
    [`${sha}.png/../x`, null],
    [`../${sha}.png`, null],
    [`${'A'.repeat(64)}.png`, null],
    [`${sha.slice(1)}.png`, null],
    ['x.png', null],
  ])('%s → %s', (key, type) => {
    expect(contentTypeOfKey(key)).toBe(type);
  });
});

describe('processImage', () => {
  it('keeps each format, names it by the hash of the stored bytes, and gives the same key for the same image', async () => {
    const inputs = {
      png: await solid(40, 30).png().toBuffer(),
      jpeg: await solid(40, 30).jpeg().toBuffer(),
      gif: await solid(40, 30).gif().toBuffer(),
      webp: await solid(40, 30).webp().toBuffer(),
    };
    for (const [format, input] of Object.entries(inputs)) {
      const out = await processImage(input);
      expect(out).toMatchObject({ format, width: 40, height: 30, frames: 1 });
      expect((await sharp(out.data).metadata()).format).toBe(format);
      expect(out.key).toBe(`${out.sha256}.${format === 'jpeg' ? 'jpg' : format}`);
      expect((await processImage(input)).key).toBe(out.key);
    }
  });

  it('removes EXIF (GPS, camera), XMP and ICC, applying the EXIF orientation first', async () => {
    const input = await solid(60, 20)
      .jpeg()
      .withExif({ IFD0: { Make: 'SecretCam', Copyright: 'someone' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 0/1' } })
      .withMetadata({ orientation: 6 })
      .withIccProfile('p3')
      .toBuffer();
    const before = await sharp(input).metadata();
    expect(before.exif?.toString('latin1')).toContain('SecretCam');
    expect(before.orientation).toBe(6);
    expect(before.icc).toBeDefined();

    const out = await processImage(input);
    const after = await sharp(out.data).metadata();
    expect([after.exif, after.xmp, after.icc, after.iptc, after.orientation, after.hasProfile]).toEqual([undefined, undefined, undefined, undefined, undefined, false]);
    expect(out.data.includes(Buffer.from('SecretCam'))).toBe(false);
    // orientation 6 (rotate 90°): the stored image is upright, 20 × 60
    expect([out.width, out.height, after.width, after.height]).toEqual([20, 60, 20, 60]);
  });

  it('scales images larger than the limit down to fit, keeping the aspect ratio and never enlarging', async () => {
    const wide = await processImage(await solid(3000, 1000).png().toBuffer());
    expect([wide.width, wide.height]).toEqual([2000, 667]);
    const tall = await processImage(await solid(500, 4000).jpeg().toBuffer());
    expect([tall.width, tall.height]).toEqual([250, 2000]);
    const small = await processImage(await solid(10, 10).png().toBuffer(), { maxDimension: 100, maxInputPixels: 1_000_000 });
    expect([small.width, small.height]).toEqual([10, 10]);
  });

  it('keeps every frame of an animated GIF, scaling each frame', async () => {
    const out = await processImage(await animatedGif(2400, 300, 3));
    expect(out).toMatchObject({ format: 'gif', width: 2000, height: 250, frames: 3 });
    const meta = await sharp(out.data, { animated: true }).metadata();
    expect(meta).toMatchObject({ pages: 3, pageHeight: 250, width: 2000, loop: 0 });
    expect(meta.delay).toEqual([120, 120, 120]);
  });

  it('refuses what is not an image, what does not decode, and decompression bombs', async () => {
    expect(await rejectionOf(Buffer.from('just text in a file named photo.png'))).toBe('unsupported_type');
    expect(await rejectionOf(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'))).toBe('unsupported_type');
    const png = await sharp({ create: { width: 200, height: 200, channels: 3, background: 'black', noise: { type: 'gaussian', mean: 128, sigma: 40 } } }).png().toBuffer();
    expect(await rejectionOf(png.subarray(0, Math.floor(png.length / 2)))).toBe('corrupt');
    // a JPEG signature followed by garbage
    expect(await rejectionOf(Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(64, 7)]))).toBe('corrupt');
    // a GIF signature on PNG bytes: the declared format and the decoded one differ
    expect(await rejectionOf(Buffer.concat([Buffer.from('GIF89a'), png]))).toBe('corrupt');
    expect(await rejectionOf(png, { maxDimension: 2000, maxInputPixels: 10_000 })).toBe('too_many_pixels');
    expect(await rejectionOf(png, { maxDimension: 2000, maxInputPixels: 40_000 })).toBe('accepted');
  });
});
