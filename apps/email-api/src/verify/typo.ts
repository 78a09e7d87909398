/** Domains people mistype most; a typo within distance 2 of one of them gets a suggestion. */
export const COMMON_DOMAINS = [
  'gmail.com', 'googlemail.com', 'yahoo.com', 'yahoo.co.uk', 'yahoo.fr', 'hotmail.com', 'hotmail.co.uk', 'hotmail.fr', 'outlook.com',
  'live.com', 'msn.com', 'icloud.com', 'me.com', 'mac.com', 'aol.com', 'proton.me', 'protonmail.com', 'gmx.com', 'gmx.de', 'gmx.net',
  'web.de', 'mail.com', 'yandex.com', 'yandex.ru', 'mail.ru', 'zoho.com', 'comcast.net', 'verizon.net', 'att.net', 'orange.fr', 'free.fr',
  'libero.it', 'qq.com', '163.com', 't-online.de',
];

const COMMON_TLDS = ['com', 'net', 'org', 'edu', 'gov', 'io', 'co', 'de', 'fr', 'uk', 'co.uk', 'it', 'es', 'nl', 'ru', 'me', 'us', 'ca', 'au', 'info', 'biz', 'app', 'dev'];

/** Optimal string alignment distance (Damerau–Levenshtein with adjacent transpositions). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * A likely intended domain for a mistyped one (`gmial.com` → `gmail.com`, `yahoo.con` →
 * `yahoo.com`), or null when the domain is a known one or nothing is close enough.
 */
export function suggestDomain(domain: string): string | null {
  const d = domain.toLowerCase();
  if (COMMON_DOMAINS.includes(d)) return null;
  let best: { domain: string; distance: number } | null = null;
  for (const candidate of COMMON_DOMAINS) {
    const distance = editDistance(d, candidate);
    const limit = candidate.length <= 7 ? 1 : 2;
    if (distance <= limit && (!best || distance < best.distance)) best = { domain: candidate, distance };
  }
  if (best) return best.domain;
  // A known name with a mistyped TLD: "example.cmo" → "example.com".
  const dot = d.indexOf('.');
  if (dot > 0) {
    const name = d.slice(0, dot);
    const tld = d.slice(dot + 1);
    if (!COMMON_TLDS.includes(tld)) {
      const close = COMMON_TLDS.map((t) => ({ t, distance: editDistance(tld, t) })).filter((c) => c.distance === 1 && c.t.length === tld.length);
      if (close.length === 1) return `${name}.${close[0].t}`;
    }
  }
  return null;
}
