import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { NodeHttpError } from '../../src/chains/node-client.ts';
import { BinanceProvider } from '../../src/prices/binance.ts';
import { CoinGeckoProvider } from '../../src/prices/coingecko.ts';
import { formatDecimal } from '../../src/prices/decimal.ts';
import { createPriceService } from '../../src/prices/factory.ts';
import { PRICE_SYMBOLS } from '../../src/prices/symbols.ts';
import { binanceTicker } from '../helpers/binance-ticker.ts';
import { listenUntilTestEnds } from '../helpers/test-server.ts';

interface Hit {
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
}

type Handler = (res: ServerResponse, hit: Hit) => void;

/** A real HTTP server on 127.0.0.1 answering like a price API, recording each request. */
async function startServer(handler: Handler): Promise<{ url: string; hits: Hit[] }> {
  const hits: Hit[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const hit = { path: url.pathname, query: url.searchParams, headers: req.headers };
    hits.push(hit);
    handler(res, hit);
  });
  return { url: await listenUntilTestEnds(server), hits };
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(body);
}

/** CoinGecko simple/price values (precision=full) by coin id and currency, written as the API does. */
const COINGECKO: Record<string, string> = {
  bitcoin:
    '{"usd":67187.33589365664,"usd_24h_change":3.638614140467016,"eur":62078.11254786531,"eur_24h_change":3.4791055501,"last_updated_at":1711356300}',
  ethereum:
    '{"usd":3492.8178217645,"usd_24h_change":-0.39120372381224464,"eur":3227.1802551247,"eur_24h_change":-0.5402519044,"last_updated_at":1711356297}',
  tron: '{"usd":0.1226478193437921,"usd_24h_change":1.1204839516478133,"last_updated_at":1711356285}',
  solana: '{"usd":172.5421935398211,"usd_24h_change":5.025434009131345,"last_updated_at":1711356301}',
  'the-open-network':
    '{"usd":5.213466893620312,"usd_24h_change":2.117034116512386,"last_updated_at":1711356293}',
  binancecoin: '{"usd":565.9876003015837,"usd_24h_change":0.8203912245317613,"last_updated_at":1711356290}',
  'polygon-ecosystem-token':
    '{"usd":0.5461281102459935,"usd_24h_change":-1.718218294118112,"last_updated_at":1711356284}',
  tether: '{"usd":1.0004116447370425,"usd_24h_change":0.03197063024563451,"last_updated_at":1711356295}',
  'usd-coin':
    '{"usd":0.9998946003716698,"usd_24h_change":-0.012053010441082466,"last_updated_at":1711356288}',
};

function coingeckoSimplePrice(res: ServerResponse, hit: Hit) {
  const ids = (hit.query.get('ids') ?? '').split(',');
  send(res, 200, `{${ids.map((id) => `"${id}":${COINGECKO[id] ?? '{}'}`).join(',')}}`);
}

/** Binance spot 24hr tickers: [lastPrice, openPrice, priceChangePercent]. */
const BINANCE: Record<string, [string, string, string]> = {
  BTCUSDT: ['67190.01000000', '64830.00000000', '3.640'],
  ETHUSDT: ['3493.10000000', '3506.82000000', '-0.391'],
  TRXUSDT: ['0.12267000', '0.12131000', '1.121'],
  SOLUSDT: ['172.56000000', '164.30000000', '5.027'],
  TONUSDT: ['5.21400000', '5.10600000', '2.115'],
  BNBUSDT: ['566.10000000', '561.50000000', '0.819'],
  POLUSDT: ['0.54620000', '0.55570000', '-1.710'],
  USDCUSDT: ['0.99990000', '1.00000000', '-0.010'],
  EURUSDT: ['1.08230000', '1.08070000', '0.148'],
};

function binanceTickers(res: ServerResponse, hit: Hit) {
  const pairs = JSON.parse(hit.query.get('symbols') ?? '[]') as string[];
  if (pairs.some((pair) => !BINANCE[pair])) {
    send(res, 400, '{"code":-1121,"msg":"Invalid symbol."}');
    return;
  }
  const closeTime = 1711356300123;
  const body = pairs.map((symbol) => {
    const [lastPrice, openPrice, priceChangePercent] = BINANCE[symbol]!;
    return binanceTicker(symbol, lastPrice, openPrice, priceChangePercent, closeTime);
  });
  send(res, 200, JSON.stringify(body));
}

describe('CoinGeckoProvider against a local CoinGecko', () => {
  it('asks simple/price the documented way, with the demo key header, and reads it losslessly', async () => {
    const server = await startServer(coingeckoSimplePrice);
    const provider = new CoinGeckoProvider({ url: `${server.url}/api/v3`, apiKey: 'CG-demo-key-123' });
    const quotes = await provider.quote(['BTC', 'POL', 'USDT'], 'usd');
    await provider.close();
    expect(server.hits).toHaveLength(1);
    const [hit] = server.hits;
    expect(hit!.path).toBe('/api/v3/simple/price');
    expect(Object.fromEntries(hit!.query)).toEqual({
      ids: 'bitcoin,polygon-ecosystem-token,tether',
      vs_currencies: 'usd',
      include_24hr_change: 'true',
      include_last_updated_at: 'true',
      precision: 'full',
    });
    expect(hit!.headers['x-cg-demo-api-key']).toBe('CG-demo-key-123');
    expect(
      quotes.map((q) => [q.symbol, formatDecimal(q.price), q.change24h && formatDecimal(q.change24h)]),
    ).toEqual([
      ['BTC', '67187.33589365664', '3.638614140467016'],
      ['POL', '0.5461281102459935', '-1.718218294118112'],
      ['USDT', '1.0004116447370425', '0.03197063024563451'],
    ]);
  });

  it('sends a pro key in x-cg-pro-api-key and reads market_chart', async () => {
    const server = await startServer((res) =>
      send(
        res,
        200,
        '{"prices":[[1711843200000,69702.3087473573],[1711929600000,71246.95144060145]],"market_caps":[],"total_volumes":[]}',
      ),
    );
    const provider = new CoinGeckoProvider({
      url: `${server.url}/api/v3`,
      apiKey: 'CG-pro-key-456',
      apiKeyKind: 'pro',
    });
    const points = await provider.history('BTC', 'eur', 30);
    await provider.close();
    expect(server.hits[0]!.path).toBe('/api/v3/coins/bitcoin/market_chart');
    expect(Object.fromEntries(server.hits[0]!.query)).toEqual({
      vs_currency: 'eur',
      days: '30',
      precision: 'full',
    });
    expect(server.hits[0]!.headers['x-cg-pro-api-key']).toBe('CG-pro-key-456');
    expect(server.hits[0]!.headers['x-cg-demo-api-key']).toBeUndefined();
    expect(points.map((p) => formatDecimal(p.price))).toEqual(['69702.3087473573', '71246.95144060145']);
  });

  it('retries a 429 rate limit and then answers', async () => {
    let first = true;
    const server = await startServer((res, hit) => {
      if (first) {
        first = false;
        send(res, 429, '{"status":{"error_code":429,"error_message":"You\'ve exceeded the Rate Limit."}}', {
          'retry-after': '0',
        });
        return;
      }
      coingeckoSimplePrice(res, hit);
    });
    const provider = new CoinGeckoProvider({ url: `${server.url}/api/v3`, retries: 1 });
    expect((await provider.quote(['ETH'], 'usd'))[0]?.source).toBe('coingecko');
    await provider.close();
    expect(server.hits).toHaveLength(2);
  });
});

describe('BinanceProvider against a local Binance', () => {
  it('asks ticker/24hr for the listed USDT pairs only, plus EURUSDT for EUR', async () => {
    const server = await startServer(binanceTickers);
    const provider = new BinanceProvider({ url: server.url });
    const usd = await provider.quote([...PRICE_SYMBOLS], 'usd');
    const eur = await provider.quote(['ETH'], 'eur');
    await provider.close();
    expect(server.hits[0]!.path).toBe('/api/v3/ticker/24hr');
    expect(JSON.parse(server.hits[0]!.query.get('symbols')!)).toEqual([
      'BTCUSDT',
      'ETHUSDT',
      'TRXUSDT',
      'SOLUSDT',
      'TONUSDT',
      'BNBUSDT',
      'POLUSDT',
      'USDCUSDT',
    ]);
    expect(JSON.parse(server.hits[1]!.query.get('symbols')!)).toEqual(['ETHUSDT', 'EURUSDT']);
    expect(usd.map((q) => q.symbol)).toEqual([...PRICE_SYMBOLS]);
    expect(formatDecimal(usd.find((q) => q.symbol === 'USDT')!.price)).toBe('1');
    expect(formatDecimal(eur[0]!.price)).toBe('3227.47851797098771');
    expect(await new BinanceProvider({ url: server.url }).quote(['BTC'], 'gbp')).toEqual([]);
  });

  it('does not retry a 4xx such as -1121 Invalid symbol', async () => {
    const server = await startServer((res) => send(res, 400, '{"code":-1121,"msg":"Invalid symbol."}'));
    const provider = new BinanceProvider({ url: server.url, retries: 3 });
    await expect(provider.quote(['BTC'], 'usd')).rejects.toBeInstanceOf(NodeHttpError);
    await provider.close();
    expect(server.hits).toHaveLength(1);
  });
});

describe('fallback across real servers', () => {
  it('a CoinGecko answering 500 falls back to Binance', async () => {
    const coingecko = await startServer((res) => send(res, 500, '{"error":"Internal Server Error"}'));
    const binance = await startServer(binanceTickers);
    const service = createPriceService({
      providers: ['coingecko', 'binance'],
      coingeckoUrl: `${coingecko.url}/api/v3`,
      binanceUrl: binance.url,
      retries: 1,
      timeoutMs: 1000,
    });
    const prices = await service.prices('BTC,ETH,USDT');
    await service.close();
    expect(prices.map((p) => [p.symbol, p.price, p.source, p.stale])).toEqual([
      ['BTC', '67190.01', 'binance', false],
      ['ETH', '3493.1', 'binance', false],
      ['USDT', '1', 'binance', false],
    ]);
    expect(coingecko.hits).toHaveLength(2);
  });

  it('a CoinGecko that never answers times out and falls back to Binance', async () => {
    const coingecko = await startServer(() => {
      // Never answers: the client's timeout must end the attempt.
    });
    const binance = await startServer(binanceTickers);
    const service = createPriceService({
      providers: ['coingecko', 'binance'],
      coingeckoUrl: `${coingecko.url}/api/v3`,
      binanceUrl: binance.url,
      retries: 0,
      timeoutMs: 300,
    });
    const started = Date.now();
    const price = await service.price('SOL', 'eur');
    await service.close();
    expect(Date.now() - started).toBeLessThan(3000);
    expect(price).toMatchObject({ symbol: 'SOL', currency: 'eur', source: 'binance', stale: false });
    expect(price.price).toBe('159.438233391850688');
    expect(coingecko.hits).toHaveLength(1);
  });

  it('CoinGecko answering for one currency but not another falls back per request', async () => {
    const coingecko = await startServer(coingeckoSimplePrice);
    const binance = await startServer(binanceTickers);
    const service = createPriceService({
      providers: ['coingecko', 'binance'],
      coingeckoUrl: `${coingecko.url}/api/v3`,
      binanceUrl: binance.url,
    });
    // CoinGecko has TRX only in USD here, so TRX in EUR comes from Binance; ETH in EUR from CoinGecko.
    const prices = await service.prices('ETH,TRX', 'eur');
    await service.close();
    expect(prices.map((p) => [p.symbol, p.source])).toEqual([
      ['ETH', 'coingecko'],
      ['TRX', 'binance'],
    ]);
  });
});
