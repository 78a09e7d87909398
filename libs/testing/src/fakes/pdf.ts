/**
 * A small, valid PDF built by a test: one page of Helvetica text, a line per entry, written object by
 * object with its cross-reference table (what a PDF reader such as pdf-parse reads back line by line).
 */
export function textPdf(lines: string[]): Buffer {
  const literal = (s: string) => `(${s.replace(/[\\()]/g, (c) => `\\${c}`)})`;
  const stream = ['BT', '/F1 11 Tf', '14 TL', '50 760 Td', ...lines.map((l) => `${literal(l)} '`), 'ET'].join('\n');
  const bodies = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Count 1 /Kids [ 3 0 R ] >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 595 842 ] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`,
  ];
  let out = '%PDF-1.7\n';
  const offsets: number[] = [];
  for (const [i, body] of bodies.entries()) {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  }
  const xref = Buffer.byteLength(out, 'latin1');
  out += ['xref', `0 ${bodies.length + 1}`, '0000000000 65535 f ', ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n `)].join('\n');
  out += `\ntrailer\n<< /Size ${bodies.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
