import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pricesRoutes } from '../../src/http/routes/prices.ts';
import { createPriceService } from '../../src/prices/factory.ts';
import type { PriceService } from '../../src/prices/service.ts';
import { PRICE_SYMBOLS } from '../../src/prices/symbols.ts';
import { binanceTicker } from '../helpers/binance-ticker.ts';
import { type RequestOptions, startGateway, type TestGateway } from '../helpers/gateway.ts';

/** A local stand-in for a price API: real HTTP on 127.0.0.1, switchable to failing with 500. */
async function startPriceApi(answer: (res: ServerResponse, url: URL) => void) {
  const state = { failing: false, hits: 0 };
  const server = createServer((req, res) => {
    state.hits += 1;
    if (state.failing) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"error":"Internal Server Error"}');
      return;
    }
    answer(res, new URL(req.url ?? '/', 'http://localhost'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const json = (res: ServerResponse, body: string) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
  res.end(body);
};

/** CoinGecko simple/price (precision=full) and market_chart, as the public API answers them. */
const COINGECKO_USD: Record<string, string> = {
  bitcoin: '67187.33589365664',
  ethereum: '3492.8178217645',
  tron: '0.1226478193437921',
  solana: '172.5421935398211',
  'the-open-network': '5.213466893620312',
  binancecoin: '565.9876003015837',
  'polygon-ecosystem-token': '0.5461281102459935',
  tether: '1.0004116447370425',
  'usd-coin': '0.9998946003716698',
};

function coingecko(res: ServerResponse, url: URL) {
  if (url.pathname.endsWith('/market_chart')) {
    json(
      res,
      '{"prices":[[1711843200000,69702.3087473573],[1711929600000,71246.95144060145]],"market_caps":[[1711843200000,1370247487960.0945],[1711929600000,1401370211582.3662]],"total_volumes":[[1711843200000,16408802301.837431],[1711929600000,19723005998.21497]]}',
    );
    return;
  }
  const currency = url.searchParams.get('vs_currencies') ?? 'usd';
  const ids = (url.searchParams.get('ids') ?? '').split(',');
  const entries = ids.map((id) =>
    currency === 'usd' && COINGECKO_USD[id]
      ? `"${id}":{"usd":${COINGECKO_USD[id]},"usd_24h_change":-0.39120372381224464,"last_updated_at":1711356300}`
      : `"${id}":{}`,
  );
  json(res, `{${entries.join(',')}}`);
}

const BINANCE_LAST: Record<string, string> = {
  BTCUSDT: '67190.01000000',
  ETHUSDT: '3493.10000000',
  TRXUSDT: '0.12267000',
  SOLUSDT: '172.56000000',
  TONUSDT: '5.21400000',
  BNBUSDT: '566.10000000',
  POLUSDT: '0.54620000',
  USDCUSDT: '0.99990000',
  EURUSDT: '1.08230000',
};

function binance(res: ServerResponse, url: URL) {
  const pairs = JSON.parse(url.searchParams.get('symbols') ?? '[]') as string[];
  const body = pairs.map((symbol) => {
    const last = BINANCE_LAST[symbol];
    if (last === undefined) throw new Error(`the Binance stand-in has no price for ${symbol}`);
    return binanceTicker(symbol, last, last, '1.250', 1711356300123);
  });
  json(res, JSON.stringify(body));
}

describe('prices API on the local provider', () => {
  let gw: TestGateway;
  let prices: PriceService;
  let token: string;
  const get = (url: string, options: RequestOptions = {}) => gw.request('GET', url, { token, ...options });

  beforeAll(async () => {
    prices = createPriceService({ providers: ['local'] });
    gw = await startGateway({ prices });
    ({ token } = await gw.userToken());
  });
  afterAll(async () => {
    await prices?.close();
    await gw?.close();
  });

  it('answers every symbol, in usd by default, in the envelope', async () => {
    const res = await get('/api/v2/prices');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: 200, ok: true, message: 'Prices fetched' });
    expect(res.body.data.map((p: { symbol: string }) => p.symbol)).toEqual([...PRICE_SYMBOLS]);
    for (const price of res.body.data) {
      expect(price).toEqual({
        symbol: price.symbol,
        currency: 'usd',
        price: expect.stringMatching(/^\d+(\.\d+)?$/),
        change_24h: expect.stringMatching(/^-?\d+(\.\d+)?$/),
        updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        source: 'local',
        stale: false,
      });
    }
    const some = await get('/v2/prices?symbols=eth,MATIC&currency=EUR');
    expect(some.status, some.text).toBe(200);
    expect(some.body.data.map((p: { symbol: string; currency: string }) => [p.symbol, p.currency])).toEqual([
      ['ETH', 'eur'],
      ['POL', 'eur'],
    ]);
  });

  it('answers one symbol, in fiat or in another coin', async () => {
    for (const symbol of [...PRICE_SYMBOLS, 'matic']) {
      const res = await get(`/api/v2/prices/${symbol}?currency=gbp`);
      expect(res.status, `${symbol}: ${res.text}`).toBe(200);
      expect(res.body.data).toMatchObject({ currency: 'gbp', stale: false });
    }
    const inBtc = await get('/api/v2/prices/ETH?currency=btc');
    expect(inBtc.body.data).toMatchObject({ symbol: 'ETH', currency: 'btc', source: 'local' });
    expect(Number(inBtc.body.data.price)).toBeGreaterThan(0.04);
    expect(Number(inBtc.body.data.price)).toBeLessThan(0.06);
  });

  it('converts both ways: coin to coin, coin to fiat, fiat to coin', async () => {
    const usdtTrx = await get('/api/v2/prices/convert?from=USDT&to=TRX&amount=100');
    expect(usdtTrx.status, usdtTrx.text).toBe(200);
    expect(usdtTrx.body.message).toBe('Amount converted');
    expect(usdtTrx.body.data).toMatchObject({ from: 'USDT', to: 'TRX', amount: '100', stale: false });
    const back = await get(`/api/v2/prices/convert?from=trx&to=usdt&amount=${usdtTrx.body.data.result}`);
    expect(Number(back.body.data.result)).toBeCloseTo(100, 12);

    const btcEur = await get('/api/v2/prices/convert?from=BTC&to=EUR&amount=0.5');
    const btcInEur = (await get('/api/v2/prices/BTC?currency=eur')).body.data.price;
    expect(btcEur.body.data).toMatchObject({ from: 'BTC', to: 'EUR', rate: btcInEur });
    const eurBtc = await get(`/api/v2/prices/convert?from=EUR&to=BTC&amount=${btcEur.body.data.result}`);
    expect(eurBtc.body.data).toMatchObject({ from: 'EUR', to: 'BTC', result: '0.5' });
  });

  it('serves history in the envelope', async () => {
    const res = await get('/api/v2/prices/SOL/history?days=2&currency=eur');
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toHaveLength(49);
    expect(res.body.data[0]).toEqual({
      time: expect.stringMatching(/T/),
      price: expect.stringMatching(/^\d/),
    });
  });

  it('answers an unknown symbol with 404 in the envelope', async () => {
    for (const url of [
      '/api/v2/prices/DOGE',
      '/api/v2/prices?symbols=BTC,doge',
      '/api/v2/prices/convert?from=DOGE&to=USD&amount=1',
      '/api/v2/prices/doge/history?days=1',
    ]) {
      const res = await get(url);
      expect(res.status, url).toBe(404);
      expect(res.body).toEqual({ status: 404, ok: false, message: 'Unknown symbol', errors: [] });
    }
    // What was asked is never quoted back, markup least of all.
    const hostile = await get(`/api/v2/prices/${encodeURIComponent('<SVG/ONLOAD=1>')}`);
    expect(hostile.status).toBe(404);
    expect(hostile.text.toUpperCase()).not.toContain('ONLOAD');
  });

  it('answers bad input with 422 validation errors', async () => {
    const cases: [string, string][] = [
      ['/api/v2/prices?currency=us$', 'currency'],
      ['/api/v2/prices?currency=xyz', 'currency'],
      ['/api/v2/prices/BTC?currency=jpy', 'currency'],
      ['/api/v2/prices/convert?from=BTC&to=USD&amount=abc', 'amount'],
      ['/api/v2/prices/convert?from=BTC&to=USD&amount=-1', 'amount'],
      ['/api/v2/prices/convert?from=BTC&to=USD&amount=1e1', 'amount'],
      ['/api/v2/prices/convert?from=BTC&to=USD', 'amount'],
      ['/api/v2/prices/BTC/history?days=0', 'days'],
      ['/api/v2/prices/BTC/history?days=366', 'days'],
      ['/api/v2/prices/BTC/history?days=week', 'days'],
    ];
    for (const [url, field] of cases) {
      const res = await get(url);
      expect(res.status, `${url}: ${res.text}`).toBe(422);
      expect(res.body).toMatchObject({ ok: false, message: 'Data validation failed' });
      expect(
        res.body.errors.map((e: { field: string }) => e.field),
        url,
      ).toContain(field);
    }
  });

  it('needs a token, and shows the routes in the OpenAPI document', async () => {
    expect((await gw.request('GET', '/api/v2/prices/BTC')).status).toBe(401);
    const spec = await gw.request('GET', '/openapi.json');
    for (const path of [
      '/api/v2/prices',
      '/api/v2/prices/convert',
      '/api/v2/prices/{symbol}',
      '/api/v2/prices/{symbol}/history',
    ]) {
      expect(spec.body.paths[path]?.get?.tags, path).toEqual(['prices']);
    }
    expect(spec.body.paths['/api/v2/prices/{symbol}/history'].get.responses).toHaveProperty('503');
  });
});

describe('prices API on local CoinGecko and Binance servers', () => {
  let gw: TestGateway;
  let remote: PriceService;
  let dead: PriceService;
  let token: string;
  let now = Date.parse('2025-01-01T00:00:00Z');
  let cg: Awaited<ReturnType<typeof startPriceApi>>;
  let bn: Awaited<ReturnType<typeof startPriceApi>>;
  const get = (url: string) => gw.request('GET', url, { token });

  beforeAll(async () => {
    cg = await startPriceApi(coingecko);
    bn = await startPriceApi(binance);
    const common = { retries: 0, timeoutMs: 2000, ttlMs: 30_000, retryAfterFailureMs: 0, now: () => now };
    remote = createPriceService({
      ...common,
      providers: ['coingecko', 'binance'],
      coingeckoUrl: `${cg.url}/api/v3`,
      binanceUrl: bn.url,
    });
    // Nothing ever answers this one: both providers point at a server that always fails.
    const down = await startPriceApi(() => undefined);
    down.state.failing = true;
    dead = createPriceService({
      ...common,
      providers: ['coingecko', 'binance'],
      coingeckoUrl: `${down.url}/api/v3`,
      binanceUrl: down.url,
    });
    gw = await startGateway({
      prices: remote,
      routes: [async (app) => app.register(pricesRoutes, { prices: dead, prefix: '/dead' })],
    });
    ({ token } = await gw.userToken());
    cleanupDown = down.close;
  });
  let cleanupDown: () => Promise<void> = async () => undefined;
  beforeEach(() => {
    // Each test starts with both servers healthy and the cache expired.
    cg.state.failing = false;
    bn.state.failing = false;
    now += 30_000;
  });
  afterAll(async () => {
    await remote?.close();
    await dead?.close();
    await gw?.close();
    await Promise.all([cg?.close(), bn?.close(), cleanupDown()]);
  });

  it('answers from CoinGecko, then Binance when CoinGecko fails, then stale when both fail', async () => {
    const first = await get('/api/v2/prices');
    expect(first.status, first.text).toBe(200);
    expect(first.body.data).toHaveLength(PRICE_SYMBOLS.length);
    expect(first.body.data[0]).toEqual({
      symbol: 'BTC',
      currency: 'usd',
      price: '67187.33589365664',
      change_24h: '-0.39120372381224464',
      updated_at: '2024-03-25T08:45:00.000Z',
      source: 'coingecko',
      stale: false,
    });

    cg.state.failing = true;
    now += 30_000;
    const fallback = await get('/api/v2/prices/BTC');
    expect(fallback.body.data).toMatchObject({
      price: '67190.01',
      change_24h: '1.25',
      source: 'binance',
      stale: false,
    });

    bn.state.failing = true;
    now += 30_000;
    const stale = await get('/api/v2/prices?symbols=BTC,ETH');
    expect(stale.status, stale.text).toBe(200);
    expect(
      stale.body.data.map((p: { price: string; source: string; stale: boolean }) => [
        p.price,
        p.source,
        p.stale,
      ]),
    ).toEqual([
      ['67190.01', 'binance', true],
      ['3492.8178217645', 'coingecko', true],
    ]);
    const convert = await get('/api/v2/prices/convert?from=BTC&to=ETH&amount=1');
    expect(convert.body.data).toMatchObject({ stale: true, rate: '19.2366202386292749' });

    cg.state.failing = false;
    bn.state.failing = false;
    now += 30_000;
    expect((await get('/api/v2/prices/BTC')).body.data).toMatchObject({ source: 'coingecko', stale: false });
  });

  it('falls back to Binance for EUR, which this CoinGecko does not price', async () => {
    const res = await get('/api/v2/prices/ETH?currency=eur');
    expect(res.body.data).toMatchObject({ currency: 'eur', price: '3227.47851797098771', source: 'binance' });
  });

  it('serves CoinGecko market_chart history', async () => {
    const res = await get('/api/v2/prices/BTC/history?days=30');
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toEqual([
      { time: '2024-03-31T00:00:00.000Z', price: '69702.3087473573' },
      { time: '2024-04-01T00:00:00.000Z', price: '71246.95144060145' },
    ]);
  });

  it('answers 503 Prices unavailable when no price was ever known', async () => {
    for (const url of [
      '/dead/api/v2/prices',
      '/dead/api/v2/prices/BTC',
      '/dead/api/v2/prices/convert?from=BTC&to=EUR&amount=1',
    ]) {
      const res = await get(url);
      expect(res.status, url).toBe(503);
      expect(res.body).toEqual({ status: 503, ok: false, message: 'Prices unavailable', errors: [] });
    }
    const history = await get('/dead/api/v2/prices/BTC/history?days=1');
    expect(history.body).toMatchObject({ status: 503, message: 'Price history unavailable' });
  });
});
