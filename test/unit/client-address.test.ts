import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { clientAddress, trustedProxies } from '../../src/auth/client-address';
import { linkThrottleKey } from '../../src/domain/link-password';

// The one client-address rule (src/auth/client-address.ts) and the link-password throttle's key.

test('forwarded headers count from trusted proxies only; a chain is read from its end, past the proxies', () => {
  const chain = trustedProxies(['127.0.0.0/8', '::1', '10.0.0.0/8']);
  const xff = { 'x-forwarded-for': '192.0.2.9, 198.51.100.4, 10.1.2.3' };
  assert.is(clientAddress('127.0.0.1', xff, chain), '198.51.100.4', 'the first hop no proxy of ours made');
  assert.is(clientAddress('::ffff:127.0.0.1', xff, chain), '198.51.100.4');
  assert.is(clientAddress('203.0.113.1', xff, chain), '203.0.113.1', 'an untrusted peer is itself');
  assert.is(clientAddress('127.0.0.1', { 'x-forwarded-for': '10.0.0.5' }, chain), '10.0.0.5', 'all proxies: the last');
  assert.is(clientAddress('127.0.0.1', { 'x-forwarded-for': '192.0.2.1, garbage' }, chain), '127.0.0.1');
  assert.is(clientAddress('::1', { 'x-real-ip': '2001:db8::5' }, chain), '2001:db8::5');
  assert.is(clientAddress('127.0.0.1', {}, chain), '127.0.0.1');
  // A port some proxies add is not part of the address.
  assert.is(clientAddress('127.0.0.1', { 'x-forwarded-for': '192.0.2.1:4711' }, chain), '192.0.2.1');
  assert.is(clientAddress('127.0.0.1', { 'x-forwarded-for': '[2001:db8::7]:4711' }, chain), '2001:db8::7');
  assert.is(clientAddress('127.0.0.1', { 'x-real-ip': '[2001:db8::8]' }, chain), '2001:db8::8');
  // The default is a proxy on the same host.
  assert.is(clientAddress('127.0.0.9', { 'x-forwarded-for': '192.0.2.7' }), '192.0.2.7');
  assert.is(clientAddress('192.0.2.8', { 'x-forwarded-for': '192.0.2.7' }), '192.0.2.8');
});

test('link-password tries are counted per link and address; an IPv6 client by its /64', () => {
  assert.is(linkThrottleKey(7, '192.0.2.1'), 'link:7:192.0.2.1');
  assert.is.not(linkThrottleKey(7, '192.0.2.1'), linkThrottleKey(8, '192.0.2.1'));
  assert.is(linkThrottleKey(7, '2001:db8:1:2:aaaa::1'), 'link:7:2001:db8:1:2::/64');
  assert.is(linkThrottleKey(7, '2001:db8:1:2:ffff:1:2:3'), 'link:7:2001:db8:1:2::/64');
  assert.is(linkThrottleKey(7, '2001:db8::1'), 'link:7:2001:db8:0:0::/64');
  assert.is(linkThrottleKey(7, '::1'), 'link:7:0:0:0:0::/64');
  assert.is.not(linkThrottleKey(7, '2001:db8:1:3::1'), linkThrottleKey(7, '2001:db8:1:2::1'));
});

test("no handler reads the TCP peer or Koa's ctx.ip: every client address goes through the one rule", () => {
  const root = path.resolve(__dirname, '../../src');
  const allowed = new Set([
    'http/client-address.ts', // the rule's one entry for requests
    'http/middleware/authenticate.ts', // the header service provider checks the proxy itself, by design
  ]);
  const offenders: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.tsx?$/.test(e.name) && !allowed.has(path.relative(root, p))) {
        const text = fs.readFileSync(p, 'utf8');
        // Comments may name the headers; code reading them is what counts.
        const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
        if (/\b(?:ctx|request)\.ips?\b|socket\.remoteAddress|x-forwarded-for|x-real-ip/i.test(code))
          offenders.push(path.relative(root, p));
      }
    }
  };
  walk(root);
  assert.equal(
    offenders.filter((f) => f !== 'auth/client-address.ts'),
    [],
  );
});

test.run();
