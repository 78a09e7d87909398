/**
 * Invoice fields from the text of a PDF (English and Spanish labels). Plain functions.
 *
 * | field | found as |
 * |---|---|
 * | supplier | the text after `Supplier`, `Vendor`, `From`, `Proveedor`, `Emisor`, `Razón social` |
 * | invoice_number | after `Invoice No`, `Invoice #`, `Invoice Number`, `Invoice`, `Factura`, `Folio` |
 * | invoice_date | after `Invoice Date`, `Date`, `Fecha de emisión`, `Fecha` (YYYY-MM-DD, DD/MM/YYYY, DD-MM-YYYY, DD.MM.YYYY) |
 * | due_date | after `Due Date`, `Due`, `Vencimiento`, `Fecha de vencimiento` |
 * | currency | after `Currency` / `Moneda`, else the ISO code (USD, MXN, EUR, CAD, GBP, CNY) next to the total |
 * | subtotal, tax, total | the last amount on the line labelled `Subtotal`; `IVA`, `Tax`, `VAT`, `Impuesto` (a percentage on that line is the stated rate); `Total` (not `Subtotal`) |
 * | shipment_ref | the first container (check digit right), bill of lading or booking number in the text, else the text after `Shipment`, `Reference`, `Referencia`, `Embarque` |
 *
 * Complete (processable) when `supplier`, `invoice_number`, `invoice_date`, `currency` and `total` are found.
 */
import { allRefs, extractShipmentRefs } from '../tasks/shipment-refs';

export interface InvoiceFields {
  supplier: string | null;
  invoice_number: string | null;
  invoice_date: string | null;
  due_date: string | null;
  currency: string | null;
  subtotal: number | null;
  tax: number | null;
  tax_rate_stated: number | null;
  total: number | null;
  shipment_ref: string | null;
}

export const REQUIRED_FIELDS = ['supplier', 'invoice_number', 'invoice_date', 'currency', 'total'] as const;
const CURRENCIES = ['USD', 'MXN', 'EUR', 'CAD', 'GBP', 'CNY'];

const SEP = String.raw`\s*(?:no\.?|number|num\.?|#|n[°º])?\s*[:#.]?\s*`;

function labelled(lines: string[], labels: string[], value = String.raw`(.+)`): string | null {
  const re = new RegExp(String.raw`^\s*(?:${labels.join('|')})\b` + SEP + value, 'i');
  for (const line of lines) {
    const m = re.exec(line);
    if (m && m[1]?.trim()) return m[1].trim();
  }
  return null;
}

/** `1,234.56`, `1.234,56`, `$ 1234`, `1234.5 USD` → a number (two decimals), or null. */
export function parseAmount(raw: string): number | null {
  let s = raw.replace(/[^\d.,-]/g, '');
  if (!/\d/.test(s)) return null;
  const lastComma = s.lastIndexOf(',');
  const lastDot = s.lastIndexOf('.');
  if (lastComma > lastDot) s = /,\d{1,2}$/.test(s) ? s.replace(/\./g, '').replace(',', '.') : s.replace(/,/g, '');
  else s = s.replace(/,/g, '');
  const n = Number(s);
  return Number.isFinite(n) ? Math.round(n * 100) / 100 : null;
}

/** The last money amount on a line (not a percentage). */
function lastAmount(line: string): number | null {
  const amounts = [...line.matchAll(/(?:[$€£]\s*)?-?\d{1,3}(?:[.,\s]\d{3})*(?:[.,]\d{1,2})?(?!\s*%)(?!\d)/g)].map((m) => m[0]).filter((a) => !/^\s*$/.test(a));
  for (let i = amounts.length - 1; i >= 0; i--) {
    const n = parseAmount(amounts[i]);
    if (n !== null) return n;
  }
  return null;
}

/** A date in a supported form → `YYYY-MM-DD`, or null. */
export function parseDate(raw: string): string | null {
  let m = /(\d{4})-(\d{2})-(\d{2})/.exec(raw);
  let y: number, mo: number, d: number;
  if (m) [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  else if ((m = /(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})/.exec(raw))) [d, mo, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
  else return null;
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  return date.toISOString().slice(0, 10);
}

function amountLine(lines: string[], labels: RegExp, exclude?: RegExp): string | null {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i];
    if (labels.test(line) && !(exclude && exclude.test(line)) && lastAmount(line) !== null) return line;
  }
  return null;
}

export function parseInvoiceText(text: string): InvoiceFields {
  const lines = text.split(/\r?\n/).map((l) => l.replace(/\s+/g, ' ').trim()).filter(Boolean);
  const supplier = labelled(lines, ['supplier', 'vendor', 'from', 'proveedor', 'emisor', 'raz[oó]n social']);
  const number = labelled(lines, ['invoice', 'factura', 'folio'], String.raw`((?=[A-Z/-]*\d)[A-Z0-9][A-Z0-9/-]{0,39})\b`);
  const dueRaw = labelled(lines, ['due date', 'due', 'vencimiento', 'fecha de vencimiento']);
  const dateRaw = labelled(lines, ['invoice date', 'date', 'fecha de emisi[oó]n', 'fecha']);
  const subtotalLine = amountLine(lines, /\bsub-?total\b/i);
  const taxLine = amountLine(lines, /\b(iva|tax|vat|impuesto)\b/i, /\b(total|tax id|rfc)\b/i);
  const totalLine = amountLine(lines, /\btotal\b/i, /\bsub-?total\b/i);
  const currencyRaw = labelled(lines, ['currency', 'moneda'], String.raw`([A-Z]{3})\b`);
  const currency =
    (currencyRaw && CURRENCIES.includes(currencyRaw.toUpperCase()) ? currencyRaw.toUpperCase() : null) ??
    CURRENCIES.find((c) => totalLine && new RegExp(String.raw`\b${c}\b`).test(totalLine)) ??
    CURRENCIES.find((c) => new RegExp(String.raw`\b${c}\b`).test(text)) ??
    null;
  const rate = taxLine ? /(\d{1,2}(?:[.,]\d+)?)\s*%/.exec(taxLine) : null;
  const refs = allRefs(extractShipmentRefs(text));
  return {
    supplier: supplier ? supplier.slice(0, 200) : null,
    invoice_number: number ? number.toUpperCase() : null,
    invoice_date: dateRaw ? parseDate(dateRaw) : null,
    due_date: dueRaw ? parseDate(dueRaw) : null,
    currency,
    subtotal: subtotalLine ? lastAmount(subtotalLine) : null,
    tax: taxLine ? lastAmount(taxLine) : null,
    tax_rate_stated: rate ? Number(rate[1].replace(',', '.')) : null,
    total: totalLine ? lastAmount(totalLine) : null,
    shipment_ref: refs[0] ?? labelled(lines, ['shipment', 'reference', 'referencia', 'embarque'], String.raw`([A-Z0-9-]{4,35})\b`),
  };
}

export function missingFields(fields: InvoiceFields): string[] {
  return REQUIRED_FIELDS.filter((f) => fields[f] === null || fields[f] === '');
}
