import { CsvError as ParseError, parse, type Info } from 'csv-parse/sync';

/** One record of a CSV file with the line it starts on (1-based). */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/**
 * RFC 4180 CSV read by csv-parse: fields separated by commas, records by CRLF, LF or CR, fields in
 * double quotes may hold commas, line breaks and doubled quotes; a quote inside an unquoted field is
 * kept as it is. A leading UTF-8 BOM is ignored, blank lines are skipped, records may have any
 * number of fields. Throws CsvError for broken quoting.
 */
export function parseCsv(text: string): CsvRecord[] {
  let parsed: Array<{ record: string[]; info: Info }>;
  try {
    parsed = parse(text, {
      bom: true,
      info: true,
      record_delimiter: ['\r\n', '\n', '\r'],
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
    }) as unknown as Array<{ record: string[]; info: Info }>;
  } catch (err) {
    if (err instanceof ParseError) throw new CsvError(err.message);
    throw err;
  }
  // Where a record starts: after the previous one and the blank lines skipped since. (csv-parse's
  // own `lines` is where a record ends, and counts a CRLF inside a quoted field as two lines.)
  let line = 1;
  let skipped = 0;
  return parsed.map(({ record, info }) => {
    line += info.empty_lines - skipped;
    skipped = info.empty_lines;
    const start = line;
    for (const field of record) line += field.split('\n').length - 1;
    line += 1;
    return { line: start, fields: record };
  });
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
