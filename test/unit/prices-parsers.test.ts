import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.ts';
import { ApiError } from '../../src/errors.ts';
import { parseJsonNumbersAsText } from '../../src/json/lossless-parse.ts';
import { binanceQuotes, parseBinanceTickers } from '../../src/prices/binance.ts';
import { normalizeFeeds, readChainlinkFeeds } from '../../src/prices/chainlink.ts';
import { parseCoinGeckoMarketChart, parseCoinGeckoSimplePrice } from '../../src/prices/coingecko.ts';
import { parseChainlinkFeeds, parsePriceProviders } from '../../src/prices/config.ts';
import { formatDecimal } from '../../src/prices/decimal.ts';
import { createPriceService } from '../../src/prices/factory.ts';
import { LocalPriceProvider } from '../../src/prices/local.ts';
import {
  PRICE_SYMBOLS,
  resolveAsset,
  resolveCurrency,
  resolveSymbol,
  resolveSymbolList,
} from '../../src/prices/symbols.ts';
import type { Quote } from '../../src/prices/types.ts';
import { binanceTicker } from '../helpers/binance-ticker.ts';

/** GET /api/v3/simple/price?ids=...&vs_currencies=usd&include_24hr_change=true&include_last_updated_at=true&precision=full */
const COINGECKO_SIMPLE_PRICE = `{
  "bitcoin": {"usd": 67187.33589365664, "usd_24h_change": 3.638614140467016, "last_updated_at": 1711356300},
  "ethereum": {"usd": 3492.8178217645, "usd_24h_change": -0.39120372381224464, "last_updated_at": 1711356297},
  "tron": {"usd": 0.1226478193437921, "usd_24h_change": 1.1204839516478133, "last_updated_at": 1711356285},
  "solana": {"usd": 172.5421935398211, "usd_24h_change": 5.025434009131345, "last_updated_at": 1711356301},
  "the-open-network": {"usd": 5.213466893620312, "usd_24h_change": 2.117034116512386, "last_updated_at": 1711356293},
  "binancecoin": {"usd": 565.9876003015837, "usd_24h_change": 0.8203912245317613, "last_updated_at": 1711356290},
  "polygon-ecosystem-token": {"usd": 0.5461281102459935, "usd_24h_change": -1.718218294118112, "last_updated_at": 1711356284},
  "tether": {"usd": 1.0004116447370425, "usd_24h_change": 0.03197063024563451, "last_updated_at": 1711356295},
  "usd-coin": {"usd": 0.9998946003716698, "usd_24h_change": null, "last_updated_at": 1711356288}
}`;

/** GET /api/v3/coins/bitcoin/market_chart?vs_currency=usd&days=2 (shortened). */
const COINGECKO_MARKET_CHART = `{
  "prices": [[1711843200000, 69702.3087473573], [1711929600000, 71246.95144060145], [1711983682000, 6.8887749515856781e4]],
  "market_caps": [[1711843200000, 1370247487960.0945], [1711929600000, 1401370211582.3662], [1711983682000, 1355701979725.1665]],
  "total_volumes": [[1711843200000, 16408802301.837431], [1711929600000, 19723005998.21497], [1711983682000, 30137418199.643093]]
}`;

/** GET /api/v3/ticker/24hr?symbols=["BTCUSDT","USDCUSDT","EURUSDT"] */
const BINANCE_TICKERS = [
  binanceTicker('BTCUSDT', '67187.33000000', '64829.42000000', '3.637', 1711356300123),
  binanceTicker('USDCUSDT', '1.00010000', '1.00000000', '0.010', 1711356299874),
  binanceTicker('EURUSDT', '1.08230000', '1.08070000', '0.148', 1711356298001),
];

const text = (quote: Quote | undefined) =>
  quote && {
    symbol: quote.symbol,
    price: formatDecimal(quote.price),
    change: quote.change24h && formatDecimal(quote.change24h),
    updatedAt: quote.updatedAt.toISOString(),
    source: quote.source,
  };

describe('lossless JSON', () => {
  it('keeps every number as its exact text and strings as they are', () => {
    const parsed = parseJsonNumbersAsText(
      '{"a": 67187.335893656641234567, "b": [1, -2.5e-7, 0], "s": "x 1.5 \\" 2", "t": true, "n": null}',
    );
    expect(parsed).toEqual({
      a: '67187.335893656641234567',
      b: ['1', '-2.5e-7', '0'],
      s: 'x 1.5 " 2',
      t: true,
      n: null,
    });
    expect(() => parseJsonNumbersAsText('{"a": }')).toThrow(SyntaxError);
  });
});

describe('CoinGecko parsers', () => {
  const fetchedAt = new Date('2024-03-25T08:45:30.000Z');

  it('reads simple/price with full precision, 24h change and update time', () => {
    const quotes = parseCoinGeckoSimplePrice(
      parseJsonNumbersAsText(COINGECKO_SIMPLE_PRICE),
      PRICE_SYMBOLS,
      'usd',
      fetchedAt,
    );
    expect(quotes.map((q) => q.symbol)).toEqual([...PRICE_SYMBOLS]);
    expect(text(quotes[0])).toEqual({
      symbol: 'BTC',
      price: '67187.33589365664',
      change: '3.638614140467016',
      updatedAt: '2024-03-25T08:45:00.000Z',
      source: 'coingecko',
    });
    expect(text(quotes[1])?.change).toBe('-0.39120372381224464');
    const quoteOf = (symbol: string) => text(quotes.find((quote) => quote.symbol === symbol));
    expect(quoteOf('POL')).toMatchObject({ price: '0.5461281102459935' });
    expect(quoteOf('TON')).toMatchObject({ price: '5.213466893620312' });
    expect(quoteOf('USDC')).toMatchObject({ change: null });
  });

  it('leaves out coins without a price in the currency', () => {
    const body = parseJsonNumbersAsText('{"bitcoin": {}, "ethereum": {"eur": 3211.5}}');
    const quotes = parseCoinGeckoSimplePrice(body, ['BTC', 'ETH', 'SOL'], 'eur', fetchedAt);
    expect(quotes.map(text)).toEqual([
      {
        symbol: 'ETH',
        price: '3211.5',
        change: null,
        updatedAt: fetchedAt.toISOString(),
        source: 'coingecko',
      },
    ]);
    expect(() => parseCoinGeckoSimplePrice(['x'], ['BTC'], 'usd', fetchedAt)).toThrow(/not an object/);
  });

  it('reads market_chart prices, exponent notation included', () => {
    const points = parseCoinGeckoMarketChart(parseJsonNumbersAsText(COINGECKO_MARKET_CHART));
    expect(points.map((p) => [p.time.toISOString(), formatDecimal(p.price)])).toEqual([
      ['2024-03-31T00:00:00.000Z', '69702.3087473573'],
      ['2024-04-01T00:00:00.000Z', '71246.95144060145'],
      ['2024-04-01T15:01:22.000Z', '68887.749515856781'],
    ]);
    expect(() => parseCoinGeckoMarketChart({ error: 'coin not found' })).toThrow(/no prices/);
    expect(() => parseCoinGeckoMarketChart({ prices: [['x', '1']] })).toThrow(/not numeric/);
  });
});

describe('Binance parsers', () => {
  const fetchedAt = new Date('2024-03-25T08:45:30.000Z');

  it('reads 24hr tickers; USD is USDT, USDT itself is 1', () => {
    const quotes = binanceQuotes(
      parseBinanceTickers(BINANCE_TICKERS),
      ['BTC', 'USDC', 'USDT', 'ETH'],
      'usd',
      fetchedAt,
    );
    expect(quotes.map(text)).toEqual([
      {
        symbol: 'BTC',
        price: '67187.33',
        change: '3.637',
        updatedAt: '2024-03-25T08:45:00.123Z',
        source: 'binance',
      },
      {
        symbol: 'USDC',
        price: '1.0001',
        change: '0.01',
        updatedAt: '2024-03-25T08:44:59.874Z',
        source: 'binance',
      },
      { symbol: 'USDT', price: '1', change: null, updatedAt: fetchedAt.toISOString(), source: 'binance' },
    ]);
  });

  it('prices in EUR through EURUSDT, the 24h change from both opens, exactly', () => {
    const quotes = binanceQuotes(parseBinanceTickers(BINANCE_TICKERS), ['BTC', 'USDT'], 'eur', fetchedAt);
    expect(quotes.map(text)).toEqual([
      {
        symbol: 'BTC',
        price: '62078.2869814284394',
        change: '3.483888550645239',
        updatedAt: '2024-03-25T08:44:58.001Z',
        source: 'binance',
      },
      {
        symbol: 'USDT',
        price: '0.923958237087683637',
        change: '-0.1478333179340294',
        updatedAt: '2024-03-25T08:44:58.001Z',
        source: 'binance',
      },
    ]);
    // Without the EURUSDT ticker there is no EUR price at all.
    expect(
      binanceQuotes(parseBinanceTickers(BINANCE_TICKERS.slice(0, 2)), ['BTC'], 'eur', fetchedAt),
    ).toEqual([]);
  });

  it('refuses malformed tickers', () => {
    expect(() => parseBinanceTickers({ code: -1121, msg: 'Invalid symbol.' })).toThrow(/not an array/);
    expect(() => parseBinanceTickers([{ ...BINANCE_TICKERS[0], lastPrice: 67187.33 }])).toThrow(/lastPrice/);
  });
});

describe('LocalPriceProvider', () => {
  const at = (iso: string) => new LocalPriceProvider({ now: () => Date.parse(iso) });

  it('is deterministic, realistic and drifts at most 1 %', async () => {
    const a = await at('2025-01-01T12:00:10Z').quote([...PRICE_SYMBOLS], 'usd');
    const b = await at('2025-01-01T12:00:50Z').quote([...PRICE_SYMBOLS], 'usd');
    expect(a).toEqual(b);
    const btc = Number(formatDecimal(a[0]!.price));
    expect(btc).toBeGreaterThanOrEqual(66330);
    expect(btc).toBeLessThanOrEqual(67670);
    const usdt = Number(formatDecimal(a.find((quote) => quote.symbol === 'USDT')!.price));
    expect(Math.abs(usdt - 1)).toBeLessThanOrEqual(0.0005);
    expect(a[0]!.updatedAt.toISOString()).toBe('2025-01-01T12:00:00.000Z');
    const later = await at('2025-01-01T14:00:00Z').quote(['BTC'], 'usd');
    expect(later[0]!.price).not.toEqual(a[0]!.price);
    expect(a.every((q) => q.change24h !== null)).toBe(true);
  });

  it('prices in usd, eur and gbp only', async () => {
    const provider = at('2025-01-01T12:00:00Z');
    const [usd] = await provider.quote(['ETH'], 'usd');
    const [eur] = await provider.quote(['ETH'], 'eur');
    expect(formatDecimal(eur!.price)).toBe(
      formatDecimal({ units: usd!.price.units * 92n, scale: usd!.price.scale + 2 }),
    );
    expect(await provider.quote(['ETH'], 'jpy')).toEqual([]);
  });

  it('has history with CoinGecko granularity', async () => {
    const provider = at('2025-01-01T12:34:56Z');
    const day = await provider.history('BTC', 'usd', 1);
    expect(day).toHaveLength(289);
    expect(day.at(-1)!.time.toISOString()).toBe('2025-01-01T12:30:00.000Z');
    expect(await provider.history('BTC', 'usd', 30)).toHaveLength(721);
    const year = await provider.history('BTC', 'eur', 365);
    expect(year).toHaveLength(366);
    expect(year[0]!.time.toISOString()).toBe('2024-01-02T00:00:00.000Z');
  });
});

describe('symbols and currencies', () => {
  it('resolves symbols in any case, MATIC as POL, and lists', () => {
    expect(resolveSymbol('btc')).toBe('BTC');
    expect(resolveSymbol(' Matic ')).toBe('POL');
    expect(resolveSymbolList(undefined)).toEqual([...PRICE_SYMBOLS]);
    expect(resolveSymbolList('eth, ETH,matic,,')).toEqual(['ETH', 'POL']);
    const error = (() => {
      try {
        resolveSymbolList('BTC,doge');
      } catch (e) {
        return e;
      }
    })() as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect([error.status, error.message]).toEqual([404, 'Unknown symbol']);
  });

  it('takes fiat codes and known symbols as currencies; anything else is 422', () => {
    expect(resolveCurrency('EUR')).toEqual({ kind: 'fiat', code: 'eur' });
    expect(resolveCurrency('btc')).toEqual({ kind: 'coin', symbol: 'BTC' });
    expect(() => resolveCurrency('xyz')).toThrow(ApiError);
    expect(resolveAsset('usdt')).toEqual({ kind: 'coin', symbol: 'USDT' });
    expect(resolveAsset('gbp')).toEqual({ kind: 'fiat', code: 'gbp' });
    expect(() => resolveAsset('doge')).toThrow('Unknown symbol');
  });
});

describe('configuration', () => {
  it('reads PRICE_PROVIDERS', () => {
    expect(parsePriceProviders(undefined)).toEqual(['coingecko', 'binance']);
    expect(parsePriceProviders(' CoinGecko, binance ,chainlink')).toEqual([
      'coingecko',
      'binance',
      'chainlink',
    ]);
    expect(() => parsePriceProviders('coingecko,kraken')).toThrow(ConfigError);
    expect(() => parsePriceProviders('local,local')).toThrow(/twice/);
  });

  it('reads CHAINLINK_FEEDS', () => {
    const feeds = parseChainlinkFeeds(
      '{"BTC/USD":{"chain":"ethereum","address":"0xF4030086522a5bEEa4988F8cA5B36dbC97BeE88c"},"EUR/USD":{"chain":"ethereum","network":"mainnet","address":"0xb49f677943BC038e9857d61E7d053CaA2C1734C1","maxAgeSeconds":90000}}',
    );
    expect(feeds['BTC/USD']).toEqual({
      chain: 'ethereum',
      network: 'mainnet',
      address: '0xF4030086522a5bEEa4988F8cA5B36dbC97BeE88c',
    });
    expect(feeds['EUR/USD']?.maxAgeSeconds).toBe(90000);
    expect(parseChainlinkFeeds('')).toEqual({});
    expect(() => parseChainlinkFeeds('[1]')).toThrow(ConfigError);
    expect(() => parseChainlinkFeeds('{"BTC":{"chain":"ethereum","address":"0x12"}}')).toThrow(/address/);
    expect(() =>
      parseChainlinkFeeds(
        '{"BTC/DOGE":{"chain":"ethereum","address":"0xF4030086522a5bEEa4988F8cA5B36dbC97BeE88c"}}',
      ),
    ).toThrow(/SYMBOL/);
    // Which coins are priced is the families' to say: a feed of any other is refused at start.
    const doge = '{"DOGE/USD":{"chain":"ethereum","address":"0xF4030086522a5bEEa4988F8cA5B36dbC97BeE88c"}}';
    expect(parseChainlinkFeeds(doge)['DOGE/USD']?.chain).toBe('ethereum');
    expect(() => readChainlinkFeeds(doge)).toThrow(ConfigError);
    expect(() => readChainlinkFeeds(doge)).toThrow(/CHAINLINK_FEEDS.*SYMBOL/);
    expect(() =>
      parseChainlinkFeeds('{"BTC":{"chain":"ethereum","network":"devnet","address":"0x0"}}'),
    ).toThrow(/network/);
  });

  it('normalizes feed keys', () => {
    const feed = {
      chain: 'ethereum',
      network: 'mainnet' as const,
      address: '0xF4030086522a5bEEa4988F8cA5B36dbC97BeE88c',
    };
    expect([
      ...normalizeFeeds({ btc: feed, 'matic/usd': feed, 'eur/usd': feed, 'ETH/EUR': feed }).keys(),
    ]).toEqual(['BTC/USD', 'POL/USD', 'EUR/USD', 'ETH/EUR']);
  });

  it('the factory builds providers in order and refuses what it cannot build', () => {
    expect(createPriceService({ providers: ['local'] }).providerNames).toEqual(['local']);
    expect(createPriceService({ providers: ['coingecko', 'binance'] }).providerNames).toEqual([
      'coingecko',
      'binance',
    ]);
    expect(() => createPriceService({ providers: [] })).toThrow(TypeError);
    expect(() => createPriceService({ providers: ['kraken'] })).toThrow(/unknown price provider/);
    expect(() => createPriceService({ providers: ['chainlink'] })).toThrow(/chainlinkFeeds/);
  });
});
