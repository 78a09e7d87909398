// Small PDFs built by the tests: one page of Helvetica text lines (a readable invoice or a page
// without invoice fields), written object by object with a cross-reference table.
export function textPdf(lines: string[]): Buffer {
  const literal = (s: string) => `(${s.replace(/\\/g, '\\\\').replace(/\(/g, '\\(').replace(/\)/g, '\\)')})`;
  const stream = ['BT', '/F1 11 Tf', '14 TL', '50 760 Td', ...lines.map((l) => `${literal(l)} '`), 'ET'].join('\n');
  const bodies = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Count 1 /Kids [ 3 0 R ] >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 595 842 ] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`,
  ];
  const chunks: string[] = ['%PDF-1.7\n'];
  const at: number[] = [];
  let size = Buffer.byteLength(chunks[0], 'latin1');
  for (const [i, body] of bodies.entries()) {
    const obj = `${i + 1} 0 obj\n${body}\nendobj\n`;
    at.push(size);
    chunks.push(obj);
    size += Buffer.byteLength(obj, 'latin1');
  }
  const table = ['xref', `0 ${bodies.length + 1}`, '0000000000 65535 f ', ...at.map((o) => `${o.toString().padStart(10, '0')} 00000 n `)].join('\n');
  chunks.push(`${table}\ntrailer\n<< /Size ${bodies.length + 1} /Root 1 0 R >>\nstartxref\n${size}\n%%EOF\n`);
  return Buffer.from(chunks.join(''), 'latin1');
}
