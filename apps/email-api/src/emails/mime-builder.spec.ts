import { generateKeyPairSync } from 'node:crypto';
import { MimeBuilder } from './mime-builder';

describe('MimeBuilder (worker threads)', () => {
  const builder = new MimeBuilder();
  afterAll(() => builder.onApplicationShutdown());

  it('answers each message with its own bytes when many are built at once', async () => {
    const built = await Promise.all(
      Array.from({ length: 60 }, (_, i) => builder.build({ from: 'news@acme.test', to: `reader${i}@example.com`, subject: `Issue ${i}`, html: `<p>${i}</p>`, messageId: `<m${i}@acme.test>` }, null)),
    );
    built.forEach((b, i) => {
      const text = b.raw.toString('utf8');
      expect(text).toContain(`Subject: Issue ${i}\r\n`);
      expect(text).toContain(`Message-ID: <m${i}@acme.test>`);
      expect(b.envelope).toEqual({ from: 'news@acme.test', to: [`reader${i}@example.com`] });
    });
  });

  it('signs with the DKIM key it is given and keeps the envelope it is given', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const b = await builder.build(
      { from: 'news@acme.test', to: 'reader@example.com', subject: 'Signed', text: 'x', envelope: { from: 'bounces+1@bounce.acme.test', to: 'reader@example.com' } },
      { domainName: 'acme.test', keySelector: 'sel1', privateKey },
    );
    expect(b.raw.toString('utf8')).toMatch(/^DKIM-Signature: v=1; a=rsa-sha256; c=relaxed\/relaxed; d=acme\.test;\s+q=dns\/txt; s=sel1;/);
    expect(b.envelope).toEqual({ from: 'bounces+1@bounce.acme.test', to: ['reader@example.com'] });
  });

  it('fails a message nodemailer cannot build without stopping the others', async () => {
    const bad = builder.build({ from: 'news@acme.test', to: 'reader@example.com', subject: 's', attachments: [{ path: '/nonexistent/file.pdf' }] }, null);
    const good = builder.build({ from: 'news@acme.test', to: 'reader@example.com', subject: 'fine', text: 'x' }, null);
    await expect(bad).rejects.toThrow(/ENOENT|no such file/);
    await expect(good).resolves.toMatchObject({ envelope: { to: ['reader@example.com'] } });
  });

  it('on shutdown finishes the messages under way, then refuses new ones', async () => {
    const own = new MimeBuilder();
    const underWay = own.build({ from: 'news@acme.test', to: 'reader@example.com', subject: 'last', text: 'x' }, null);
    await own.onApplicationShutdown();
    await expect(underWay).resolves.toMatchObject({ envelope: { to: ['reader@example.com'] } });
    await expect(own.build({ from: 'news@acme.test', to: 'reader@example.com', subject: 'late', text: 'x' }, null)).rejects.toThrow('shut down');
  });
});
