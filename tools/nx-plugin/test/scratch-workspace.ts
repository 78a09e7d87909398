// A scratch copy of the workspace for the generators' e2e tests: the files git tracks or would track
// (node_modules linked), so a generator runs with `npx nx g …` and the real tree stays untouched.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const root = path.resolve(__dirname, '../../..');

export interface ScratchWorkspace {
  dir: string;
  /** Runs a command in the scratch workspace (no NX_* variable of an outer Nx run points it elsewhere); throws with its output when it fails. */
  run(command: string, args: string[]): string;
  /** Files (relative) the scratch copy added or changed since it was made. */
  changed(): string[];
  remove(): void;
}

function workspaceFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' });
  return [...new Set(listed.split('\0'))].filter((f) => f && f !== 'node_modules' && fs.statSync(path.join(root, f), { throwIfNoEntry: false })?.isFile());
}

/** Every file below `dir` (relative), skipping node_modules, dist and the tool caches. */
function filesBelow(dir: string, from = dir): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (['node_modules', 'dist', '.nx', '.data'].includes(e.name)) return [];
    const full = path.join(dir, e.name);
    return e.isDirectory() ? filesBelow(full, from) : [path.relative(from, full)];
  });
}

const hash = (content: Buffer) => createHash('sha256').update(content).digest('hex');

export function scratchWorkspace(prefix: string): ScratchWorkspace {
  const originals = workspaceFiles();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  /** What each file held when copied (others may edit the real tree meanwhile). */
  const copied = new Map<string, string>();
  for (const file of originals) {
    const content = fs.readFileSync(path.join(root, file));
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), content);
    copied.set(file, hash(content));
  }
  fs.symlinkSync(fs.realpathSync(path.join(root, 'node_modules')), path.join(dir, 'node_modules'));
  return {
    dir,
    run(command, args) {
      const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('NX_')));
      try {
        return execFileSync(command, args, { cwd: dir, encoding: 'utf8', stdio: 'pipe', env: { ...env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' } });
      } catch (e) {
        const failed = e as Error & { stdout?: string; stderr?: string };
        throw new Error(`${command} ${args.join(' ')} failed:\n${failed.stdout ?? ''}${failed.stderr ?? ''}`);
      }
    },
    changed() {
      return filesBelow(dir).filter((file) => copied.get(file) !== hash(fs.readFileSync(path.join(dir, file))));
    },
    remove() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
