import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { readFileSync, statSync } from 'node:fs';
import { AutostartProxyConfig } from '../config';
import { ThemesService } from '../waiting/themes.service';
import { buildCatalog, indexCatalog, normalizeHost, parseCatalog, type Catalog, type ManagedService } from './catalog';
import { mergeServices } from './discovery';

const EMPTY: Catalog = buildCatalog({ services: [] });

/**
 * The current catalog of managed services. Read and checked when the app is created (a bad file
 * stops the start with every problem listed); then the file is checked every
 * AUTOSTART_CONFIG_WATCH_MS and reloaded when it changed. A bad edit is logged and the previous
 * catalog stays in force.
 */
@Injectable()
export class CatalogService implements OnModuleDestroy {
  private readonly logger = new Logger('Catalog');
  private current: Catalog;
  /** the YAML file's catalog alone */
  private file: Catalog;
  private discovered: readonly ManagedService[] = [];
  private discoveredKey = '[]';
  private fingerprint = '';
  private readonly timer?: NodeJS.Timeout;
  private readonly listeners: ((catalog: Catalog) => void)[] = [];

  constructor(
    private readonly config: AutostartProxyConfig,
    private readonly themes: ThemesService,
  ) {
    const file = config.AUTOSTART_CONFIG;
    if (!file) {
      this.current = this.file = EMPTY;
      if (!config.AUTOSTART_DISCOVERY || config.AUTOSTART_DISCOVERY === 'none') {
        this.logger.warn('AUTOSTART_CONFIG is not set: no service is managed (set it to the YAML file of services, or AUTOSTART_DISCOVERY)');
      }
      return;
    }
    const text = this.read(file);
    this.fingerprint = this.stat(file);
    this.current = this.file = parseCatalog(text, `AUTOSTART_CONFIG (${file})`, { themes: this.themes.names });
    this.timer = setInterval(() => this.reloadIfChanged(), config.AUTOSTART_CONFIG_WATCH_MS);
    this.timer.unref();
  }

  get catalog(): Catalog {
    return this.current;
  }

  /** The service a hostname (any case, with or without port) belongs to. */
  byHost(host: string): ManagedService | undefined {
    return this.current.byHost.get(normalizeHost(host));
  }

  onChange(listener: (catalog: Catalog) => void): void {
    this.listeners.push(listener);
  }

  /** Re-reads the file when its size or modification time changed; true when a new catalog took effect. */
  reloadIfChanged(): boolean {
    const file = this.config.AUTOSTART_CONFIG;
    if (!file) return false;
    let fingerprint: string;
    try {
      fingerprint = this.stat(file);
    } catch (err) {
      this.logger.error(`${file} cannot be read (${(err as Error).message}); the previous services stay in force`);
      return false;
    }
    if (fingerprint === this.fingerprint) return false;
    this.fingerprint = fingerprint;
    try {
      this.file = parseCatalog(this.read(file), `AUTOSTART_CONFIG (${file})`, { themes: this.themes.names });
    } catch (err) {
      this.logger.error(`${(err as Error).message}\nThe previous services stay in force until the file is fixed.`);
      return false;
    }
    this.logger.log(`${file} reloaded: ${this.file.services.map((s) => s.name).join(', ') || 'no services'}`);
    this.publish();
    return true;
  }

  /** The services the workloads declare (AUTOSTART_DISCOVERY); true when that changed the catalog. The file wins on conflict. */
  setDiscovered(services: readonly ManagedService[]): boolean {
    const key = JSON.stringify(services);
    if (key === this.discoveredKey) return false;
    this.discoveredKey = key;
    this.discovered = services;
    this.publish();
    return true;
  }

  /** The idle timeout discovered services default to (the file's). */
  get defaultIdleTimeout(): number {
    return this.file.idleTimeout;
  }

  private publish(): void {
    const { services, dropped } = mergeServices(this.file.services, this.discovered);
    for (const line of dropped) this.logger.warn(`discovered service left out: ${line}`);
    this.current = indexCatalog(this.file.idleTimeout, services);
    for (const listener of this.listeners) listener(this.current);
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private stat(file: string): string {
    const s = statSync(file);
    return `${s.size}:${s.mtimeMs}:${s.ino}`;
  }

  private read(file: string): string {
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(`AUTOSTART_CONFIG: cannot read ${file}: ${(err as Error).message}`);
    }
  }
}
