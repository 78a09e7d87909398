import { Injectable, Logger } from '@nestjs/common';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AutostartProxyConfig } from '../config';
import { parseTemplate, TemplateError, type Template } from './go-template';
import { renderSessionPage, type SessionPageData } from './session-page';
import { THEMES, type ThemeName } from './themes';

const THEME_NAME = /^[a-z0-9]([a-z0-9_-]{0,61}[a-z0-9])?$/;
/** A theme file larger than this is refused (a page, not an archive). */
const MAX_THEME_BYTES = 512 * 1024;

/**
 * The themes of the waiting pages: the built-in ones and the custom ones of AUTOSTART_THEMES_DIR
 * (each `<name>.html`, a template in the Go syntax Sablier's themes use, see go-template.ts). Every
 * custom theme is checked when the proxy starts: a bad one stops the start, with every problem named.
 */
@Injectable()
export class ThemesService {
  private readonly logger = new Logger('Themes');
  private readonly custom = new Map<string, Template>();
  readonly names: ReadonlySet<string>;

  constructor(config: AutostartProxyConfig) {
    const dir = config.AUTOSTART_THEMES_DIR;
    if (dir) this.load(dir);
    this.names = new Set([...Object.keys(THEMES), ...this.custom.keys()]);
  }

  has(name: string): boolean {
    return this.names.has(name);
  }

  /** Sablier's waiting page in the theme (built in or custom). */
  render(theme: string, data: SessionPageData): string {
    const template = this.custom.get(theme);
    if (!template) return renderSessionPage(theme as ThemeName, data);
    return template.render({
      DisplayName: data.displayName,
      ShowDetails: data.showDetails,
      InstanceStates: data.instances.map((i) => ({
        Name: i.name,
        Status: i.status,
        Error: i.error ?? '',
        CurrentReplicas: i.currentReplicas,
        DesiredReplicas: i.desiredReplicas,
      })),
      SessionDuration: data.sessionDuration,
      RefreshFrequency: String(data.refreshSeconds),
    });
  }

  private load(dir: string): void {
    let files: string[];
    try {
      files = readdirSync(dir).filter((f) => f.endsWith('.html')).sort();
    } catch (err) {
      throw new Error(`AUTOSTART_THEMES_DIR: cannot read ${dir}: ${(err as Error).message}`);
    }
    const problems: string[] = [];
    for (const file of files) {
      const name = file.slice(0, -'.html'.length);
      if (!THEME_NAME.test(name)) problems.push(`${file}: a theme name is lower-case letters, digits, - and _`);
      else if (name in THEMES) problems.push(`${file}: ${name} is a built-in theme; give the custom one another name`);
      else {
        try {
          const text = readFileSync(join(dir, file), 'utf8');
          if (Buffer.byteLength(text) > MAX_THEME_BYTES) throw new TemplateError(`larger than ${MAX_THEME_BYTES} bytes`);
          this.custom.set(name, parseTemplate(text));
        } catch (err) {
          problems.push(`${file}: ${(err as Error).message}`);
        }
      }
    }
    if (problems.length > 0) throw new Error(`AUTOSTART_THEMES_DIR (${dir}) holds invalid themes:\n  ${problems.join('\n  ')}`);
    this.logger.log(`custom themes from ${dir}: ${[...this.custom.keys()].join(', ') || 'none'}`);
  }
}
