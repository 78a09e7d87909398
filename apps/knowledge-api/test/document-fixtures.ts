import JSZip from 'jszip';

/**
 * Small documents of the upload types, generated here so no binary fixture is committed (a PDF:
 * `textPdf` of @platform/testing): a DOCX (WordprocessingML in a ZIP) and a Word 97 .doc
 * (an OLE2 compound file with a FIB, a piece table and 8-bit text: the parts a text extractor reads).
 */
export async function docxFixture(heading: string, paragraphs: string[]): Promise<Buffer> {
  const zip = new JSZip();
  const x = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  zip.file(
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
  );
  zip.file(
    '_rels/.rels',
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
  );
  const para = (text: string, style?: string) =>
    `<w:p>${style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : ''}<w:r><w:t xml:space="preserve">${x(text)}</w:t></w:r></w:p>`;
  zip.file(
    'word/document.xml',
    `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${para(heading, 'Heading1')}${paragraphs.map((p) => para(p)).join('')}</w:body></w:document>`,
  );
  return zip.generateAsync({ type: 'nodebuffer' });
}

const SECTOR = 512;
const STREAM_BYTES = 9 * SECTOR; // above the 4096-byte mini-stream cutoff: regular sectors only

export function docFixture(text: string): Buffer {
  const body = `${text.replace(/\n/g, '\r')}\r`;
  const TEXT_AT = 0x800;
  const word = Buffer.alloc(STREAM_BYTES);
  word.writeUInt16LE(0xa5ec, 0x0000); // wIdent
  word.writeUInt16LE(0x00c1, 0x0002); // nFib (Word 97)
  word.writeUInt16LE(0x0000, 0x000a); // flags: fWhichTblStm = 0 → "0Table"
  word.writeUInt32LE(TEXT_AT, 0x0018); // fcMin
  word.writeUInt32LE(TEXT_AT + body.length, 0x001c); // fcMac
  word.writeUInt32LE(body.length, 0x004c); // ccpText
  word.writeUInt32LE(0, 0x01a2); // fcClx (in the table stream)
  word.writeUInt32LE(21, 0x01a6); // lcbClx
  word.write(body, TEXT_AT, 'latin1');

  const table = Buffer.alloc(STREAM_BYTES);
  table.writeUInt8(2, 0); // Pcdt
  table.writeUInt32LE(16, 1); // PlcPcd size: 2 CPs + 1 PCD
  table.writeUInt32LE(0, 5); // CP 0
  table.writeUInt32LE(body.length, 9); // CP end
  table.writeUInt16LE(0, 13); // PCD flags
  table.writeUInt32LE(((TEXT_AT * 2) | 0x40000000) >>> 0, 15); // fc: compressed (8-bit) text at TEXT_AT
  table.writeUInt16LE(0, 19); // prm

  const header = Buffer.alloc(SECTOR);
  Buffer.from('D0CF11E0A1B11AE1', 'hex').copy(header, 0);
  header.writeUInt16LE(0x003e, 24);
  header.writeUInt16LE(0x0003, 26);
  header.writeUInt16LE(0xfffe, 28);
  header.writeUInt16LE(9, 30); // 512-byte sectors
  header.writeUInt16LE(6, 32); // 64-byte mini sectors
  header.writeInt32LE(1, 44); // one FAT sector
  header.writeInt32LE(1, 48); // directory at sector 1
  header.writeInt32LE(4096, 56);
  header.writeInt32LE(-2, 60); // no mini FAT
  header.writeInt32LE(0, 64);
  header.writeInt32LE(-2, 68); // no DIFAT sectors
  header.writeInt32LE(0, 72);
  for (let i = 0; i < 109; i++) header.writeInt32LE(i === 0 ? 0 : -1, 76 + i * 4);

  const sectorsPerStream = STREAM_BYTES / SECTOR;
  const wordStart = 2;
  const tableStart = wordStart + sectorsPerStream;
  const fat = Buffer.alloc(SECTOR, 0xff);
  fat.writeInt32LE(-3, 0); // the FAT itself
  fat.writeInt32LE(-2, 4); // directory: one sector
  const chain = (start: number) => {
    for (let i = 0; i < sectorsPerStream; i++) fat.writeInt32LE(i === sectorsPerStream - 1 ? -2 : start + i + 1, (start + i) * 4);
  };
  chain(wordStart);
  chain(tableStart);

  const dir = Buffer.alloc(SECTOR);
  const entry = (i: number, name: string, type: number, right: number, child: number, start: number, size: number) => {
    const o = i * 128;
    dir.write(name, o, 'utf16le');
    dir.writeInt16LE(name ? (name.length + 1) * 2 : 0, o + 64);
    dir.writeInt8(type, o + 66);
    dir.writeInt8(1, o + 67);
    dir.writeInt32LE(-1, o + 68);
    dir.writeInt32LE(right, o + 72);
    dir.writeInt32LE(child, o + 76);
    dir.writeInt32LE(start, o + 116);
    dir.writeInt32LE(size, o + 120);
  };
  entry(0, 'Root Entry', 5, -1, 1, -2, 0);
  entry(1, 'WordDocument', 2, 2, -1, wordStart, STREAM_BYTES);
  entry(2, '0Table', 2, -1, -1, tableStart, STREAM_BYTES);
  entry(3, '', 0, -1, -1, 0, 0);

  return Buffer.concat([header, fat, dir, word, table]);
}
