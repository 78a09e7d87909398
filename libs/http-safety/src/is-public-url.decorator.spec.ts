import { IsOptional, validate } from 'class-validator';
import { IsPublicHttpsUrl, IsPublicUrl } from './is-public-url.decorator';
import { LookupFn } from './lookup';

const lookup: LookupFn = async (host) => {
  const table: Record<string, string> = { 'hooks.test': '93.184.216.34', 'intranet.test': '10.0.0.7' };
  if (!table[host]) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return [{ address: table[host], family: 4 }];
};

let allowPrivate = false;

class WebhookDto {
  @IsOptional()
  @IsPublicHttpsUrl({ lookup })
  webhook_url?: string;
}

class CrawlDto {
  @IsPublicUrl({ lookup, allowPrivate: () => allowPrivate })
  url: string;
}

class SyntaxOnlyDto {
  @IsPublicHttpsUrl({ resolve: false })
  url: string;
}

const messagesOf = async (obj: object) => (await validate(obj)).flatMap((e) => Object.values(e.constraints ?? {}));
const make = <T extends object>(cls: new () => T, values: Partial<T>) => Object.assign(new cls(), values);

describe('@IsPublicHttpsUrl / @IsPublicUrl', () => {
  afterEach(() => {
    allowPrivate = false;
  });

  it('accepts an https URL whose host resolves to public addresses', async () => {
    await expect(messagesOf(make(WebhookDto, { webhook_url: 'https://hooks.test/in' }))).resolves.toEqual([]);
    await expect(messagesOf(make(WebhookDto, {}))).resolves.toEqual([]);
  });

  it('rejects http, private literals, private resolutions and unknown hosts with the reason', async () => {
    const cases: Array<[string, RegExp]> = [
      ['http://hooks.test/in', /webhook_url must be a public https URL: the URL must use https/],
      ['https://127.0.0.1/in', /loopback address/],
      ['https://intranet.test/in', /intranet\.test resolves to 10\.0\.0\.7, a private address/],
      ['https://nowhere.test/', /could not be resolved/],
      ['not a url', /is not an absolute URL/],
    ];
    for (const [url, message] of cases) {
      const messages = await messagesOf(make(WebhookDto, { webhook_url: url }));
      expect(messages).toHaveLength(1);
      expect(messages[0]).toMatch(message);
    }
    const nonString = await messagesOf(Object.assign(new WebhookDto(), { webhook_url: 42 }));
    expect(nonString[0]).toMatch(/must be a URL string/);
  });

  it('reads allowPrivate at validation time', async () => {
    const dto = make(CrawlDto, { url: 'http://intranet.test/docs' });
    await expect(messagesOf(dto)).resolves.toHaveLength(1);
    allowPrivate = true;
    await expect(messagesOf(dto)).resolves.toEqual([]);
  });

  it('checks syntax only when resolve is false', async () => {
    await expect(messagesOf(make(SyntaxOnlyDto, { url: 'https://does-not-exist.invalid/' }))).resolves.toEqual([]);
    await expect(messagesOf(make(SyntaxOnlyDto, { url: 'https://10.0.0.1/' }))).resolves.toHaveLength(1);
  });
});
