/**
 * A real IMAP server for tests: Dovecot (`apt-get install dovecot-imapd`) started in the foreground
 * from a ~25-line config in a temporary folder — loopback on a free port, no TLS, passwd-file users
 * with plain passwords, maildirs, its run/state/log files in that folder — and stopped by `close()`.
 * Mail is delivered by APPEND over IMAP (imapflow), as a mail server's delivery agent would.
 *
 * `dovecotAvailable(what)` says whether the binary exists: outside CI a test skips with a message
 * when it does not; with CI set the missing server fails the run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';
import { externalTool, freePort } from '@platform/testing';

const BINARIES = ['/usr/sbin/dovecot', '/usr/local/sbin/dovecot'];

export function dovecotBinary(): string | null {
  return BINARIES.find((b) => existsSync(b)) ?? null;
}

/** True when Dovecot can be started; otherwise false after `externalTool` registered a failing test (CI) or a skipped one. */
export function dovecotAvailable(what: string): boolean {
  return externalTool(BINARIES, { install: 'apt-get install -y dovecot-imapd (.ci/run does)', what }) !== undefined;
}

export interface DovecotUser {
  user: string;
  password: string;
}

export interface TestDovecot {
  host: string;
  port: number;
  /** Appends a raw RFC 5322 message to the user's INBOX (as delivery would); its UID. */
  deliver(user: DovecotUser, raw: string | Buffer, mailbox?: string): Promise<number>;
  /** Runs `fn` with a logged-in IMAP client of the user (closed afterwards). */
  withClient<T>(user: DovecotUser, fn: (client: ImapFlow) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

function waitForPort(port: number, child: ChildProcess, log: () => Promise<string>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      if (child.exitCode !== null) return void log().then((l) => reject(new Error(`dovecot exited (${child.exitCode}): ${l}`)));
      const socket = createConnection({ host: '127.0.0.1', port });
      socket.once('data', () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', () => {
        socket.destroy();
        if (Date.now() > deadline) return void log().then((l) => reject(new Error(`dovecot did not listen on ${port}: ${l}`)));
        setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

export async function startDovecot(users: DovecotUser[]): Promise<TestDovecot> {
  const binary = dovecotBinary();
  if (!binary) throw new Error('Dovecot is not installed (apt-get install dovecot-imapd)');
  const dir = await mkdtemp(path.join(tmpdir(), 'dovecot-test-'));
  await chmod(dir, 0o755);
  const root = process.getuid?.() === 0;
  // Mail processes run as the mail users' uid: the dovecot system user under root, else ourselves.
  const mailUser = root ? 'dovecot' : userInfo().username;
  const { uid, gid } = root ? await systemIds('dovecot') : { uid: userInfo().uid, gid: userInfo().gid };
  const mailDir = path.join(dir, 'mail');
  await mkdir(mailDir);
  if (root) await chown(mailDir, uid, gid);
  const port = await freePort();
  await writeFile(path.join(dir, 'users'), users.map((u) => `${u.user}:{PLAIN}${u.password}:${uid}:${gid}::${mailDir}/${u.user}\n`).join(''));
  const config = [
    'protocols = imap',
    'listen = 127.0.0.1',
    `base_dir = ${dir}/run`,
    `state_dir = ${dir}/state`,
    `log_path = ${dir}/dovecot.log`,
    'ssl = no',
    'disable_plaintext_auth = no',
    'auth_mechanisms = plain login',
    'auth_failure_delay = 0',
    `default_login_user = ${root ? 'dovenull' : mailUser}`,
    `default_internal_user = ${mailUser}`,
    `first_valid_uid = ${Math.min(uid, 100)}`,
    `mail_location = maildir:${mailDir}/%u`,
    `passdb {\n  driver = passwd-file\n  args = scheme=PLAIN username_format=%u ${dir}/users\n}`,
    `userdb {\n  driver = passwd-file\n  args = username_format=%u ${dir}/users\n}`,
    `service imap-login {\n  inet_listener imap {\n    address = 127.0.0.1\n    port = ${port}\n  }\n  inet_listener imaps {\n    port = 0\n  }\n}`,
  ].join('\n');
  const file = path.join(dir, 'dovecot.conf');
  await writeFile(file, `${config}\n`);
  const child = spawn(binary, ['-F', '-c', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += String(d)));
  child.stderr!.on('data', (d) => (output += String(d)));
  const log = async () => `${output}${await readFile(path.join(dir, 'dovecot.log'), 'utf8').catch(() => '')}`;
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitForPort(port, child, log);
  } catch (err) {
    await stop();
    throw err;
  }

  const withClient = async <T>(user: DovecotUser, fn: (client: ImapFlow) => Promise<T>): Promise<T> => {
    const client = new ImapFlow({ host: '127.0.0.1', port, secure: false, auth: { user: user.user, pass: user.password }, logger: false });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.logout().catch(() => client.close());
    }
  };

  return {
    host: '127.0.0.1',
    port,
    withClient,
    deliver: (user, raw, mailbox = 'INBOX') =>
      withClient(user, async (client) => {
        const res = await client.append(mailbox, raw);
        if (!res || !res.uid) throw new Error('APPEND returned no UID');
        return res.uid;
      }),
    close: stop,
  };
}

async function systemIds(name: string): Promise<{ uid: number; gid: number }> {
  const line = (await readFile('/etc/passwd', 'utf8')).split('\n').find((l) => l.startsWith(`${name}:`));
  if (!line) throw new Error(`no system user ${name}`);
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}
