import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addressRefusal,
  checkWebhookUrl,
  compileAllowlist,
  guardedDispatcher,
  type LookupAll,
  parseIpAllowlist,
} from '../../src/webhooks/url-guard.ts';

const PUBLIC = '93.184.216.34';

/** A resolver that answers from a script, so DNS answers (and their changes) are staged. */
function scriptedLookup(...answers: string[][]): LookupAll {
  let call = 0;
  return async () => {
    const answer = answers[Math.min(call++, answers.length - 1)]!;
    return answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

describe('checkWebhookUrl refuses every non-public range', () => {
  const refused: [string, string][] = [
    ['http://127.0.0.1/', 'loopback'],
    ['http://127.255.255.254:8080/x', 'loopback'],
    ['http://2130706433/', 'loopback'],
    ['http://0x7f.1/', 'loopback'],
    ['http://0x7f000001/', 'loopback'],
    ['http://017700000001/', 'loopback'],
    ['http://127.1/', 'loopback'],
    ['http://0/', 'this-network'],
    ['http://0.0.0.0:80/', 'this-network'],
    ['http://10.1.2.3/', 'private'],
    ['http://172.16.0.1/', 'private'],
    ['http://172.31.255.255/', 'private'],
    ['http://192.168.1.1/', 'private'],
    ['http://169.254.169.254/latest/meta-data/', 'link-local'],
    ['http://100.64.0.1/', 'shared'],
    ['http://100.127.255.255/', 'shared'],
    ['http://192.0.0.8/', 'IETF'],
    ['http://192.0.2.10/', 'documentation'],
    ['http://198.51.100.7/', 'documentation'],
    ['http://203.0.113.9/', 'documentation'],
    ['http://198.18.0.1/', 'benchmarking'],
    ['http://198.19.255.255/', 'benchmarking'],
    ['http://192.88.99.1/', '6to4 relay'],
    ['http://224.0.0.1/', 'multicast'],
    ['http://239.255.255.250/', 'multicast'],
    ['http://240.0.0.1/', 'reserved'],
    ['http://255.255.255.255/', 'broadcast'],
    ['http://[::1]/', 'loopback'],
    ['http://[0:0:0:0:0:0:0:1]/', 'loopback'],
    ['http://[::]/', 'unspecified'],
    ['http://[::ffff:127.0.0.1]/', 'IPv4-mapped form of 127.0.0.1'],
    ['http://[::ffff:7f00:1]/', 'IPv4-mapped form of 127.0.0.1'],
    ['http://[::ffff:169.254.169.254]/', 'link-local'],
    ['http://[::ffff:a00:1]/', 'private'],
    ['http://[::127.0.0.1]/', 'IPv4-compatible'],
    ['http://[64:ff9b::7f00:1]/', 'NAT64 form of 127.0.0.1'],
    ['http://[64:ff9b::a9fe:a9fe]/', 'NAT64 form of 169.254.169.254'],
    ['http://[64:ff9b:1::1]/', 'local-use NAT64'],
    ['http://[2002:7f00:1::1]/', '6to4 form of 127.0.0.1'],
    ['http://[2002:c0a8:101::1]/', '6to4 form of 192.168.1.1'],
    ['http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', 'Teredo'],
    ['http://[2001:db8::1]/', 'documentation'],
    ['http://[3fff::1]/', 'documentation'],
    ['http://[fc00::1]/', 'unique local'],
    ['http://[fd12:3456:789a::1]/', 'unique local'],
    ['http://[fe80::1]/', 'link-local'],
    ['http://[febf::1]/', 'link-local'],
    ['http://[fec0::1]/', 'site-local'],
    ['http://[ff02::1]/', 'multicast'],
    ['http://[100::1]/', 'discard-only'],
    ['http://[::ffff:0:7f00:1]/', 'not a global unicast'],
  ];
  it.each(refused)('%s (%s)', async (url, why) => {
    const reason = await checkWebhookUrl(url, []);
    expect(reason).toContain(why);
  });

  it('accepts public addresses, including public IPv4 in IPv6 forms', async () => {
    for (const url of [
      'https://8.8.8.8/hook',
      'http://1.1.1.1:8080/x?y=1',
      'http://172.32.0.1/',
      'http://100.128.0.1/',
      'http://198.20.0.1/',
      'http://[2606:4700:4700::1111]/',
      'http://[::ffff:8.8.8.8]/',
      'http://[64:ff9b::808:808]/',
      'http://[2002:808:808::1]/',
    ]) {
      expect(await checkWebhookUrl(url, []), url).toBeNull();
    }
  });

  it('allows only http and https, without credentials', async () => {
    for (const url of ['ftp://8.8.8.8/', 'file:///etc/passwd', 'gopher://8.8.8.8/', 'javascript:alert(1)']) {
      expect(await checkWebhookUrl(url, []), url).toBe('must use http or https');
    }
    expect(await checkWebhookUrl('http://user:pass@8.8.8.8/', [])).toContain('user name or password');
    expect(await checkWebhookUrl('https://user@8.8.8.8/', [])).toContain('user name or password');
    expect(await checkWebhookUrl('not a url', [])).toBe('is not a valid URL');
  });

  it('refuses URLs that parsers read differently: a backslash, an @ before the host, no //', async () => {
    // WHATWG reads the first as host 8.8.8.8 with the path /@10.0.0.1/; other parsers as host 10.0.0.1.
    for (const url of ['http://8.8.8.8\\@10.0.0.1/', 'https://8.8.8.8/a\\b', 'http:\\\\8.8.8.8/']) {
      expect(await checkWebhookUrl(url, []), url).toBe('must not contain a backslash');
    }
    for (const url of [
      'http://@8.8.8.8/',
      'http://:@8.8.8.8/',
      'https://user:pass@8.8.8.8/',
      'http://a@b@8.8.8.8/',
      'http://8.8.8.8\t@1.1.1.1/',
      'HTTP://u@8.8.8.8/',
    ]) {
      expect(await checkWebhookUrl(url, []), url).toBe('must not contain a user name or password');
    }
    for (const url of [
      'http:8.8.8.8/',
      'http:@8.8.8.8/',
      'http:/8.8.8.8/',
      ' http://8.8.8.8/',
      'ht\ttp://8.8.8.8/',
    ]) {
      expect(await checkWebhookUrl(url, []), JSON.stringify(url)).toBe('must begin with http:// or https://');
    }
    // An @ after the host is part of the path or query, not a user name.
    expect(await checkWebhookUrl('https://8.8.8.8/a@b?c=d@e#f@g', [])).toBeNull();
    expect(await checkWebhookUrl('HTTPS://8.8.8.8/', [])).toBeNull();
  });

  it('refuses a host name that resolves to loopback (localhost) unless allowlisted', async () => {
    expect(await checkWebhookUrl('http://localhost:9/hook', [])).toMatch(/localhost resolves to .*loopback/);
    expect(await checkWebhookUrl('http://localhost:9/hook', ['127.0.0.0/8', '::1/128'])).toBeNull();
  });

  it('checks every resolved address, and names an unresolvable host', async () => {
    const mixed = scriptedLookup([PUBLIC, '10.0.0.7']);
    expect(await checkWebhookUrl('https://hooks.example.com/', [], { lookup: mixed })).toContain('10.0.0.7');
    const publicOnly = scriptedLookup([PUBLIC, '2606:4700:4700::1111']);
    expect(await checkWebhookUrl('https://hooks.example.com/', [], { lookup: publicOnly })).toBeNull();
    const nothing: LookupAll = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    expect(await checkWebhookUrl('https://nowhere.invalid/', [], { lookup: nothing })).toContain(
      'does not resolve',
    );
  });

  it('opens exactly the allowlisted ranges', async () => {
    const allow = ['127.0.0.0/8'];
    expect(await checkWebhookUrl('http://127.0.0.1:8080/', allow)).toBeNull();
    expect(await checkWebhookUrl('http://[::ffff:127.0.0.1]/', allow)).toBeNull();
    expect(await checkWebhookUrl('http://10.0.0.1/', allow)).toContain('private');
    expect(await checkWebhookUrl('http://[::1]/', allow)).toContain('loopback');
    expect(addressRefusal('192.168.7.7', ['192.168.7.0/24'])).toBeNull();
    expect(addressRefusal('192.168.8.7', ['192.168.7.0/24'])).toContain('private');
  });

  it('validates allowlist entries without echoing anything else', () => {
    expect(parseIpAllowlist('127.0.0.0/8, ::1/128 10.0.0.5')).toEqual(['127.0.0.0/8', '::1/128', '10.0.0.5']);
    expect(() => compileAllowlist(['nonsense'])).toThrow(/not an address or CIDR/);
    expect(() => compileAllowlist(['10.0.0.0/33'])).toThrow(/not an address or CIDR/);
    expect(() => compileAllowlist(['10.0.0.0/8/1'])).toThrow(/not an address or CIDR/);
  });
});

describe('guardedDispatcher', () => {
  let target: Server;
  let redirector: Server;
  let targetHits = 0;
  let port = 0;
  let redirectPort = 0;

  beforeAll(async () => {
    target = createServer((_req, res) => {
      targetHits += 1;
      res.end('target');
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    port = (target.address() as AddressInfo).port;
    redirector = createServer((_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${port}/landed` }).end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    redirectPort = (redirector.address() as AddressInfo).port;
  });

  afterAll(async () => {
    for (const server of [target, redirector]) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses a loopback IP literal at connect time unless allowlisted', async () => {
    const hits = targetHits;
    const closed = guardedDispatcher([]);
    await expect(request(`http://127.0.0.1:${port}/`, { dispatcher: closed })).rejects.toMatchObject({
      code: 'WEBHOOK_URL_REFUSED',
    });
    await expect(request(`http://[::ffff:127.0.0.1]:${port}/`, { dispatcher: closed })).rejects.toMatchObject(
      {
        code: 'WEBHOOK_URL_REFUSED',
      },
    );
    expect(targetHits).toBe(hits);
    const open = guardedDispatcher(['127.0.0.0/8']);
    const response = await request(`http://127.0.0.1:${port}/`, { dispatcher: open });
    expect(await response.body.text()).toBe('target');
    await Promise.all([closed.close(), open.close()]);
  });

  it('refuses a name resolving to loopback (localhost) at connect time', async () => {
    const hits = targetHits;
    const closed = guardedDispatcher([]);
    await expect(request(`http://localhost:${port}/`, { dispatcher: closed })).rejects.toMatchObject({
      code: 'WEBHOOK_URL_REFUSED',
      message: expect.stringContaining('loopback'),
    });
    expect(targetHits).toBe(hits);
    const open = guardedDispatcher(['127.0.0.0/8', '::1/128']);
    const response = await request(`http://localhost:${port}/`, { dispatcher: open });
    expect(response.statusCode).toBe(200);
    await response.body.dump();
    await Promise.all([closed.close(), open.close()]);
  });

  it('refuses a DNS rebinding: public when checked, loopback when dialled', async () => {
    const hits = targetHits;
    const lookup = scriptedLookup([PUBLIC], ['127.0.0.1']);
    const url = `http://rebind.example:${port}/`;
    expect(await checkWebhookUrl(url, [], { lookup })).toBeNull();
    const dispatcher = guardedDispatcher([], { lookup });
    await expect(request(url, { dispatcher })).rejects.toMatchObject({
      code: 'WEBHOOK_URL_REFUSED',
      message: expect.stringContaining('rebind.example resolves to 127.0.0.1'),
    });
    expect(targetHits).toBe(hits);
    await dispatcher.close();
  });

  it('does not follow a redirect', async () => {
    const hits = targetHits;
    const dispatcher = guardedDispatcher(['127.0.0.0/8']);
    const response = await request(`http://127.0.0.1:${redirectPort}/`, {
      method: 'POST',
      body: '{}',
      dispatcher,
    });
    expect(response.statusCode).toBe(302);
    await response.body.dump();
    expect(targetHits).toBe(hits);
    await dispatcher.close();
  });
});
