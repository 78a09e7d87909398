// The part of Go's html/template that Sablier's themes use, so that a Sablier user's custom theme
// works here unchanged: `{{ .DisplayName }}`, `{{ if .ShowDetails }}…{{ else }}…{{ end }}`,
// `{{ range $i, $instance := .InstanceStates }}{{ $instance.Name }}{{ end }}`, `{{ range .InstanceStates }}{{ .Name }}{{ end }}`,
// comments `{{/* … */}}` and the trim markers `{{-` / `-}}`. Every value is HTML-escaped. A template is
// checked when it is parsed: syntax, balanced blocks, and every field named against the data
// Sablier's templates get (unknown field → refused with its line). Plain functions, no I/O.

/** The data a theme gets, as Sablier names it. */
export interface ThemeData {
  DisplayName: string;
  ShowDetails: boolean;
  InstanceStates: { Name: string; Status: string; Error: string; CurrentReplicas: number; DesiredReplicas: number }[];
  SessionDuration: string;
  RefreshFrequency: string;
}

const ROOT_FIELDS = new Set(['DisplayName', 'ShowDetails', 'InstanceStates', 'SessionDuration', 'RefreshFrequency']);
const INSTANCE_FIELDS = new Set(['Name', 'Status', 'Error', 'CurrentReplicas', 'DesiredReplicas']);

type Kind = 'root' | 'instance' | 'list' | 'scalar';
type Operand = { base: '.' | '$' | string; path: string[] };
type Node =
  | { t: 'text'; text: string }
  | { t: 'value'; op: Operand }
  | { t: 'if'; op: Operand; then: Node[]; else: Node[] }
  | { t: 'range'; op: Operand; index?: string; elem?: string; body: Node[]; else: Node[] };

export class TemplateError extends Error {}

export interface Template {
  render(data: ThemeData): string;
}

/** Parses and checks a template; throws TemplateError naming the line of the first problem. */
export function parseTemplate(source: string): Template {
  const tokens = tokenize(source);
  let pos = 0;
  const scopes: { dot: Kind; vars: Map<string, Kind> }[] = [{ dot: 'root', vars: new Map([['$', 'root']]) }];

  const kindOf = (op: Operand, line: number): Kind => {
    const scope = scopes[scopes.length - 1];
    let kind: Kind | undefined;
    if (op.base === '.') kind = scope.dot;
    else for (let i = scopes.length - 1; i >= 0 && !kind; i--) kind = scopes[i].vars.get(op.base);
    if (!kind) throw new TemplateError(`line ${line}: undefined variable ${op.base}`);
    for (const field of op.path) {
      const fields: ReadonlySet<string> | undefined = kind === 'root' ? ROOT_FIELDS : kind === 'instance' ? INSTANCE_FIELDS : undefined;
      if (!fields?.has(field)) {
        const known = fields ? `; known: ${[...fields].join(', ')}` : '';
        throw new TemplateError(`line ${line}: no field ${field} here${known}`);
      }
      kind = field === 'InstanceStates' ? 'list' : 'scalar';
    }
    return kind;
  };

  const parseBlock = (closers: string[]): { nodes: Node[]; closer: string } => {
    const nodes: Node[] = [];
    while (pos < tokens.length) {
      const tok = tokens[pos++];
      if (tok.kind === 'text') {
        nodes.push({ t: 'text', text: tok.text });
        continue;
      }
      const action = tok.text;
      if (action === '' || action.startsWith('/*')) continue;
      const word = action.split(/\s+/, 1)[0];
      if (word === 'end' || word === 'else') {
        if (!closers.includes(word)) throw new TemplateError(`line ${tok.line}: unexpected {{${word}}}`);
        return { nodes, closer: word };
      }
      if (word === 'if') {
        const op = operand(action.slice(2).trim(), tok.line);
        kindOf(op, tok.line);
        const then = parseBlock(['else', 'end']);
        const other = then.closer === 'else' ? parseBlock(['end']).nodes : [];
        nodes.push({ t: 'if', op, then: then.nodes, else: other });
        continue;
      }
      if (word === 'range') {
        const m = /^range\s+(?:(\$\w+)\s*(?:,\s*(\$\w+)\s*)?:=\s*)?(.+)$/.exec(action);
        if (!m) throw new TemplateError(`line ${tok.line}: malformed range`);
        const op = operand(m[3].trim(), tok.line);
        if (kindOf(op, tok.line) !== 'list') throw new TemplateError(`line ${tok.line}: range needs a list (.InstanceStates)`);
        const [index, elem] = m[2] ? [m[1], m[2]] : [undefined, m[1]];
        scopes.push({ dot: 'instance', vars: new Map<string, Kind>([...(index ? [[index, 'scalar'] as const] : []), ...(elem ? [[elem, 'instance'] as const] : [])]) });
        const body = parseBlock(['else', 'end']);
        scopes.pop();
        const other = body.closer === 'else' ? parseBlock(['end']).nodes : [];
        nodes.push({ t: 'range', op, index, elem, body: body.nodes, else: other });
        continue;
      }
      const op = operand(action, tok.line);
      kindOf(op, tok.line);
      nodes.push({ t: 'value', op });
    }
    if (closers.length > 0) throw new TemplateError(`unclosed block: a {{${closers.join('}} or {{')}}} is missing at the end`);
    return { nodes, closer: '' };
  };

  const root = parseBlock([]).nodes;
  return { render: (data) => renderNodes(root, [{ dot: data, vars: new Map<string, unknown>([['$', data]]) }]) };
}

function operand(text: string, line: number): Operand {
  const m = /^(\.|\$\w*)((?:\.?\w+)?(?:\.\w+)*)$/.exec(text);
  if (!m || (m[1] === '.' && m[2] !== '' && /^\./.test(m[2]))) throw new TemplateError(`line ${line}: unsupported action {{${text}}} (fields, variables, if, range, else, end)`);
  const path = m[2] ? m[2].replace(/^\./, '').split('.') : [];
  return { base: m[1], path };
}

interface Frame {
  dot: unknown;
  vars: Map<string, unknown>;
}

function lookup(op: Operand, frames: Frame[]): unknown {
  let value: unknown;
  if (op.base === '.') value = frames[frames.length - 1].dot;
  else for (let i = frames.length - 1; i >= 0 && value === undefined; i--) value = frames[i].vars.get(op.base);
  for (const field of op.path) value = (value as Record<string, unknown> | undefined)?.[field];
  return value;
}

function truthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return Boolean(value);
}

function renderNodes(nodes: Node[], frames: Frame[]): string {
  let out = '';
  for (const node of nodes) {
    if (node.t === 'text') out += node.text;
    else if (node.t === 'value') out += escape(lookup(node.op, frames));
    else if (node.t === 'if') out += renderNodes(truthy(lookup(node.op, frames)) ? node.then : node.else, frames);
    else {
      const list = (lookup(node.op, frames) as unknown[]) ?? [];
      if (list.length === 0) out += renderNodes(node.else, frames);
      list.forEach((item, i) => {
        const vars = new Map<string, unknown>();
        if (node.index) vars.set(node.index, i);
        if (node.elem) vars.set(node.elem, item);
        out += renderNodes(node.body, [...frames, { dot: item, vars }]);
      });
    }
  }
  return out;
}

function escape(value: unknown): string {
  const text = value === undefined || value === null ? '' : String(value);
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&#34;', "'": '&#39;' })[c] as string);
}

type Token = { kind: 'text'; text: string } | { kind: 'action'; text: string; line: number };

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let trimNext = false;
  while (i < source.length) {
    const open = source.indexOf('{{', i);
    let text = source.slice(i, open < 0 ? source.length : open);
    if (trimNext) text = text.replace(/^\s+/, '');
    if (open < 0) {
      if (text) tokens.push({ kind: 'text', text });
      break;
    }
    const close = source.indexOf('}}', open + 2);
    const line = source.slice(0, open).split('\n').length;
    if (close < 0) throw new TemplateError(`line ${line}: {{ without }}`);
    let inner = source.slice(open + 2, close);
    if (inner.startsWith('- ') || inner === '-') {
      text = text.replace(/\s+$/, '');
      inner = inner.slice(1);
    }
    trimNext = inner.endsWith(' -') || inner === '-';
    if (trimNext) inner = inner.slice(0, -1);
    if (text) tokens.push({ kind: 'text', text });
    tokens.push({ kind: 'action', text: inner.trim(), line });
    i = close + 2;
  }
  return tokens;
}
