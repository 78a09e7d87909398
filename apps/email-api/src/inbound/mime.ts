/**
 * The little MIME reading the report parsers need: header blocks (RFC 5322, folded lines joined),
 * `Content-Type` parameters (RFC 2045, quoted strings) and the parts of a multipart body (RFC 2046).
 * Pure functions over the message text; nothing here throws on odd input, it answers less.
 */

export interface HeaderField {
  /** Lower-cased field name. */
  name: string;
  value: string;
}

export interface MimeEntity {
  headers: HeaderField[];
  /** The body as it travelled (before Content-Transfer-Encoding is undone). */
  body: string;
}

/** Splits a message (or a part) into its header block and body. */
export function splitEntity(raw: string): MimeEntity {
  const text = raw.replace(/\r\n/g, '\n');
  const end = text.search(/\n\n/);
  const head = end < 0 ? text : text.slice(0, end);
  const body = end < 0 ? '' : text.slice(end + 2);
  // A part without headers begins with its blank line.
  if (text.startsWith('\n')) return { headers: [], body: text.slice(1) };
  return { headers: parseFields(head), body };
}

/**
 * `Name: value` lines with continuation lines (starting with a space or tab) joined; lines that are
 * no field are skipped. Also reads the field blocks of `message/delivery-status` and
 * `message/feedback-report` bodies.
 */
export function parseFields(block: string): HeaderField[] {
  const fields: HeaderField[] = [];
  for (const line of block.replace(/\r\n/g, '\n').split('\n')) {
    if (/^[ \t]/.test(line) && fields.length) {
      fields[fields.length - 1].value += ` ${line.trim()}`;
      continue;
    }
    const m = /^([!-9;-~]+)[ \t]*:(.*)$/.exec(line);
    if (m) fields.push({ name: m[1].toLowerCase(), value: m[2].trim() });
  }
  return fields;
}

export function field(headers: HeaderField[], name: string): string | undefined {
  return headers.find((h) => h.name === name)?.value;
}

export function fieldsOf(headers: HeaderField[], name: string): string[] {
  return headers.filter((h) => h.name === name).map((h) => h.value);
}

/** `type/subtype; a=b; c="d"` → `{type: 'type/subtype', params: {a: 'b', c: 'd'}}` (names lower-cased). */
export function parseContentType(value: string | undefined): { type: string; params: Record<string, string> } {
  if (!value) return { type: 'text/plain', params: {} };
  const [head, ...rest] = splitParams(value);
  const params: Record<string, string> = {};
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq <= 0) continue;
    let v = p.slice(eq + 1).trim();
    if (v.startsWith('"') && v.endsWith('"') && v.length >= 2) v = v.slice(1, -1).replace(/\\(.)/g, '$1');
    params[p.slice(0, eq).trim().toLowerCase()] = v;
  }
  return { type: head.trim().toLowerCase(), params };
}

function splitParams(value: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '\\' && quoted && i + 1 < value.length) {
      current += c + value[++i];
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === ';' && !quoted) {
      out.push(current);
      current = '';
    } else current += c;
  }
  out.push(current);
  return out;
}

/** The parts of a multipart body; null when the boundary's delimiter never appears. */
export function splitMultipart(body: string, boundary: string): string[] | null {
  const text = body.replace(/\r\n/g, '\n');
  const delimiter = `--${boundary}`;
  const lines = text.split('\n');
  const parts: string[] = [];
  let current: string[] | null = null;
  let seen = false;
  for (const line of lines) {
    const trimmed = line.replace(/[ \t]+$/, '');
    if (trimmed === delimiter || trimmed === `${delimiter}--`) {
      seen = true;
      if (current) parts.push(current.join('\n'));
      if (trimmed.endsWith('--') && trimmed !== delimiter) {
        current = null;
        break;
      }
      current = [];
      continue;
    }
    current?.push(line);
  }
  if (current) parts.push(current.join('\n'));
  return seen ? parts : null;
}

/** Undoes a Content-Transfer-Encoding (7bit, 8bit, binary: as is; quoted-printable; base64). */
export function decodeTransfer(body: string, encoding: string | undefined): string {
  const enc = (encoding ?? '7bit').trim().toLowerCase();
  if (enc === 'base64') return Buffer.from(body.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64').toString('utf8');
  if (enc === 'quoted-printable') {
    const bytes = Buffer.from(body.replace(/=\r?\n/g, ''), 'latin1');
    const out: number[] = [];
    for (let i = 0; i < bytes.length; i++) {
      if (bytes[i] === 0x3d && i + 2 < bytes.length && /^[0-9A-Fa-f]{2}$/.test(String.fromCharCode(bytes[i + 1], bytes[i + 2]))) {
        out.push(parseInt(String.fromCharCode(bytes[i + 1], bytes[i + 2]), 16));
        i += 2;
      } else out.push(bytes[i]);
    }
    return Buffer.from(out).toString('utf8');
  }
  return body;
}

/** The address inside `<…>`, or the trimmed value; lower-cased. Empty for `<>`. */
export function bareAddress(value: string): string {
  const m = /<([^>]*)>/.exec(value);
  return (m ? m[1] : value).trim().toLowerCase();
}
