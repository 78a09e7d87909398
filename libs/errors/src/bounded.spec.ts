import { boundedError, MAX_FIELD_ERROR_LENGTH, MAX_MESSAGE_LENGTH } from './bounded';
import type { NormalizedError } from './normalize';

const base: NormalizedError = { status: 400, code: 'UNKNOWN_ACTION', message: 'Unknown action "x"', validation: false, unexpected: false };

describe('boundedError', () => {
  // Found by `npm run fuzz`: logistics-hooks answered a 100 kB 400 quoting the `action` it was sent.
  it('cuts a message that quotes a large input, saying how much was left out', () => {
    const out = boundedError({ ...base, message: `Unknown action "${'a'.repeat(100_000)}"` });
    expect(out.message.length).toBeLessThan(MAX_MESSAGE_LENGTH + 40);
    expect(out.message).toMatch(/… \(9\d{4} more characters\)$/);
  });

  it('cuts long field errors and never splits a surrogate pair', () => {
    const out = boundedError({ ...base, errors: [{ field: 'f'.repeat(1_000), message: `${'x'.repeat(MAX_FIELD_ERROR_LENGTH - 1)}😀😀`, code: 'c' }] });
    expect(out.errors![0].field.startsWith('f'.repeat(MAX_FIELD_ERROR_LENGTH))).toBe(true);
    expect(out.errors![0].message).toBe(`${'x'.repeat(MAX_FIELD_ERROR_LENGTH - 1)}… (4 more characters)`);
  });

  it('leaves ordinary errors as they are', () => {
    expect(boundedError(base)).toBe(base);
  });
});
