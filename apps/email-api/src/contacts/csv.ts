/**
 * RFC 4180 CSV: fields separated by commas, records by CRLF or LF, fields in double quotes may hold
 * commas, line breaks and doubled quotes. A leading UTF-8 BOM is ignored, blank lines are skipped.
 * Returns each record with the line it starts on (1-based).
 */
export function parseCsv(text: string): Array<{ line: number; fields: string[] }> {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const records: Array<{ line: number; fields: string[] }> = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let recordLine = 1;
  let fieldStarted = false;
  const endRecord = () => {
    fields.push(field);
    if (!(fields.length === 1 && fields[0] === '' && !fieldStarted)) records.push({ line: recordLine, fields });
    fields = [];
    field = '';
    fieldStarted = false;
  };
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (quoted) {
      if (c === '"') {
        if (src[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else {
        if (c === '\n') line++;
        field += c;
      }
      continue;
    }
    if (c === '"' && field === '') {
      quoted = true;
      fieldStarted = true;
    } else if (c === ',') {
      fields.push(field);
      field = '';
      fieldStarted = true;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && src[i + 1] === '\n') i++;
      endRecord();
      line++;
      recordLine = line;
    } else {
      field += c;
      fieldStarted = true;
    }
  }
  if (quoted) throw new CsvError(`unterminated quoted field starting on line ${recordLine}`);
  if (field !== '' || fields.length > 0 || fieldStarted) endRecord();
  return records;
}

export class CsvError extends Error {}

const TRUE = new Set(['true', '1', 'yes', 'y', 'subscribed']);
const FALSE = new Set(['false', '0', 'no', 'n', 'unsubscribed']);

/** `true/false`, `1/0`, `yes/no`; undefined for an empty cell; null when unreadable. */
export function parseBooleanCell(value: string): boolean | undefined | null {
  const v = value.trim().toLowerCase();
  if (v === '') return undefined;
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  return null;
}
