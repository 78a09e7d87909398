import type { LogLine } from '@platform/containers';

export interface McpLogEntry {
  timestamp: string;
  level: 'debug' | 'info' | 'warning' | 'error';
  message: string;
}

const PINO_LEVELS: Array<[number, McpLogEntry['level']]> = [
  [50, 'error'],
  [40, 'warning'],
  [30, 'info'],
  [0, 'debug'],
];

/**
 * One container log line as a log entry: the line's own timestamp (the engine's), its level and
 * message. JSON lines (pino: numeric `level`, `msg`; or a `level` name and `message`) give theirs;
 * other lines are read for a level word (ERROR, WARN, WARNING, DEBUG, INFO), else stderr is `error`
 * and stdout `info`.
 */
export function toLogEntry(line: LogLine, fallbackTime = new Date().toISOString()): McpLogEntry {
  const timestamp = line.timestamp ?? fallbackTime;
  const text = line.text.trim();
  if (text.startsWith('{')) {
    try {
      const json = JSON.parse(text) as { level?: unknown; msg?: unknown; message?: unknown };
      const message = typeof json.msg === 'string' ? json.msg : typeof json.message === 'string' ? json.message : text;
      return { timestamp, level: levelOf(json.level, line.stream), message };
    } catch {
      // not JSON after all: read as text
    }
  }
  const word = /\b(ERROR|FATAL|CRITICAL|WARN(?:ING)?|DEBUG|TRACE|INFO)\b/i.exec(text)?.[1];
  return { timestamp, level: word ? levelOf(word, line.stream) : line.stream === 'stderr' ? 'error' : 'info', message: line.text };
}

function levelOf(level: unknown, stream: LogLine['stream']): McpLogEntry['level'] {
  if (typeof level === 'number') return PINO_LEVELS.find(([min]) => level >= min)![1];
  if (typeof level === 'string') {
    const l = level.toLowerCase();
    if (l === 'error' || l === 'fatal' || l === 'critical') return 'error';
    if (l.startsWith('warn')) return 'warning';
    if (l === 'debug' || l === 'trace') return 'debug';
    if (l === 'info') return 'info';
  }
  return stream === 'stderr' ? 'error' : 'info';
}
