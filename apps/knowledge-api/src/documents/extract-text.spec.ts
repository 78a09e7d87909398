import { ApiError } from '@platform/errors';
import { checkUpload, kindFromName, sniff } from './extract-text';

const status = (fn: () => unknown): number | undefined => {
  try {
    fn();
  } catch (err) {
    return err instanceof ApiError ? err.getStatus() : undefined;
  }
  return undefined;
};

describe('upload checks', () => {
  it('knows the types by name', () => {
    expect(kindFromName('a.PDF')).toBe('pdf');
    expect(kindFromName('notes.markdown')).toBe('md');
    expect(kindFromName('x.exe')).toBeNull();
  });

  it('sniffs the content', () => {
    expect(sniff(Buffer.from('%PDF-1.4\n...'))).toBe('pdf');
    expect(sniff(Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(10)]))).toBe('doc');
    expect(sniff(Buffer.from('PK\x03\x04....word/document.xml', 'latin1'))).toBe('docx');
    expect(sniff(Buffer.from('PK\x03\x04....other.xml', 'latin1'))).toBeNull();
    expect(sniff(Buffer.from('# héllo'))).toBe('text');
    expect(sniff(Buffer.from([0xff, 0xfe, 0x00]))).toBeNull();
  });

  it('refuses a wrong type (415), content not matching the name (415), too large (413), empty (400)', () => {
    expect(status(() => checkUpload('x.exe', Buffer.from('MZ')))).toBe(415);
    expect(status(() => checkUpload('fake.pdf', Buffer.from('just text')))).toBe(415);
    expect(status(() => checkUpload('notes.txt', Buffer.from('%PDF-1.7')))).toBe(415);
    expect(status(() => checkUpload('big.md', Buffer.alloc(10 * 1024 * 1024 + 1, 'a')))).toBe(413);
    expect(status(() => checkUpload('empty.txt', Buffer.alloc(0)))).toBe(400);
    expect(checkUpload('fine.md', Buffer.from('# ok'))).toBe('md');
  });
});
