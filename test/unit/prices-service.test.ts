import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.ts';
import { type Decimal, parseDecimal } from '../../src/prices/decimal.ts';
import { quoteWithFallback } from '../../src/prices/fallback.ts';
import { LocalPriceProvider } from '../../src/prices/local.ts';
import { PriceService } from '../../src/prices/service.ts';
import { PRICE_SYMBOLS, type PriceSymbol } from '../../src/prices/symbols.ts';
import type { PricePoint, PriceProvider, Quote } from '../../src/prices/types.ts';

const d = (text: string): Decimal => parseDecimal(text)!;

/** A provider whose answers the test scripts: fixed prices per currency, or a failure. */
class ScriptedProvider implements PriceProvider {
  readonly calls: { symbols: PriceSymbol[]; currency: string }[] = [];
  failing = false;
  staleSymbols = new Set<PriceSymbol>();
  historyPoints: PricePoint[] | null = null;
  readonly currencies: ReadonlySet<string> | undefined;

  constructor(
    readonly name: string,
    readonly prices: Record<string, Partial<Record<PriceSymbol, string>>>,
    currencies?: string[],
  ) {
    this.currencies = currencies && new Set(currencies);
  }

  async quote(symbols: readonly PriceSymbol[], currency: string): Promise<Quote[]> {
    this.calls.push({ symbols: [...symbols], currency });
    if (this.failing) throw new Error(`${this.name} is down`);
    return symbols.flatMap((symbol) => {
      const price = this.prices[currency]?.[symbol];
      if (price === undefined) return [];
      return [
        {
          symbol,
          currency,
          price: d(price),
          change24h: d('1.5'),
          updatedAt: new Date('2025-01-01T00:00:00Z'),
          source: this.name,
          stale: this.staleSymbols.has(symbol),
        },
      ];
    });
  }

  async history(): Promise<PricePoint[]> {
    if (this.failing || this.historyPoints === null) throw new Error(`${this.name} has no history`);
    return this.historyPoints;
  }
}

const USD = { BTC: '67000.5', ETH: '3500.25', TRX: '0.12', USDT: '1.0001' };

function clock(start = Date.parse('2025-01-01T00:00:00Z')) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

/** The ApiError `call` throws or rejects with (a read from the cache answers, and refuses, at once). */
async function apiError(call: () => unknown): Promise<ApiError> {
  try {
    await call();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('fallback order', () => {
  it('asks the next provider only for what the earlier ones could not price', async () => {
    const first = new ScriptedProvider('first', { usd: { BTC: '1' } });
    const second = new ScriptedProvider('second', { usd: { BTC: '2', ETH: '3' } });
    const third = new ScriptedProvider('third', { usd: { TRX: '4' } });
    const { quotes, failures } = await quoteWithFallback(
      [first, second, third],
      ['BTC', 'ETH', 'TRX'],
      'usd',
    );
    expect([...quotes.values()].map((q) => [q.symbol, q.source])).toEqual([
      ['BTC', 'first'],
      ['ETH', 'second'],
      ['TRX', 'third'],
    ]);
    expect(second.calls).toEqual([{ symbols: ['ETH', 'TRX'], currency: 'usd' }]);
    expect(third.calls).toEqual([{ symbols: ['TRX'], currency: 'usd' }]);
    expect(failures).toEqual([]);
  });

  it('falls back past failing providers and skips those without the currency', async () => {
    const down = new ScriptedProvider('down', { usd: USD });
    down.failing = true;
    const usdOnly = new ScriptedProvider('usd-only', { usd: USD }, ['usd']);
    const any = new ScriptedProvider('any', { eur: { BTC: '61000' } });
    const { quotes, failures } = await quoteWithFallback([down, usdOnly, any], ['BTC'], 'eur');
    expect(quotes.get('BTC')?.source).toBe('any');
    expect(usdOnly.calls).toEqual([]);
    expect(failures.map((f) => f.provider)).toEqual(['down']);
  });

  it('prefers a later fresh quote over one its source flags stale, and keeps the stale one if alone', async () => {
    const chainlink = new ScriptedProvider('chainlink', { usd: { BTC: '66000', ETH: '3400' } });
    chainlink.staleSymbols = new Set(['BTC', 'ETH']);
    const backup = new ScriptedProvider('backup', { usd: { BTC: '67000' } });
    const { quotes } = await quoteWithFallback([chainlink, backup], ['BTC', 'ETH'], 'usd');
    expect(quotes.get('BTC')).toMatchObject({ source: 'backup', stale: false });
    expect(quotes.get('ETH')).toMatchObject({ source: 'chainlink', stale: true });
  });
});

describe('PriceService cache and staleness', () => {
  it('answers from the cache until the TTL passes (injected clock)', async () => {
    const time = clock();
    const provider = new ScriptedProvider('p', { usd: USD });
    const service = new PriceService({ providers: [provider], ttlMs: 30_000, now: time.now });
    await service.prices('BTC,ETH');
    await service.price('btc');
    time.advance(29_999);
    await service.prices('ETH');
    expect(provider.calls).toHaveLength(1);
    time.advance(1);
    await service.price('BTC');
    expect(provider.calls).toHaveLength(2);
    expect(provider.calls[1]).toEqual({ symbols: ['BTC'], currency: 'usd' });
  });

  it('serves the last known price flagged stale once every provider fails, and waits before retrying', async () => {
    const time = clock();
    const primary = new ScriptedProvider('primary', { usd: USD });
    const backup = new ScriptedProvider('backup', { usd: { BTC: '67001' } });
    const service = new PriceService({
      providers: [primary, backup],
      ttlMs: 30_000,
      retryAfterFailureMs: 5_000,
      now: time.now,
    });
    expect(await service.price('BTC')).toMatchObject({ price: '67000.5', source: 'primary', stale: false });

    primary.failing = true;
    time.advance(30_000);
    expect(await service.price('BTC')).toMatchObject({ price: '67001', source: 'backup', stale: false });

    backup.failing = true;
    time.advance(30_000);
    const stale = await service.price('BTC');
    expect(stale).toMatchObject({ price: '67001', source: 'backup', stale: true, change_24h: '1.5' });
    const calls = primary.calls.length + backup.calls.length;
    time.advance(4_999);
    expect((await service.price('BTC')).stale).toBe(true);
    expect(primary.calls.length + backup.calls.length).toBe(calls);

    primary.failing = false;
    time.advance(1);
    expect(await service.price('BTC')).toMatchObject({ price: '67000.5', source: 'primary', stale: false });
  });

  it('answers 503 Prices unavailable when no price was ever known', async () => {
    const down = new ScriptedProvider('down', { usd: USD });
    down.failing = true;
    const service = new PriceService({ providers: [down] });
    const error = await apiError(() => service.prices(undefined));
    expect([error.status, error.message]).toEqual([503, 'Prices unavailable']);
    // A provider that answers but does not know the symbol is the same: nothing known.
    const partial = new PriceService({ providers: [new ScriptedProvider('partial', { usd: { BTC: '1' } })] });
    expect((await apiError(() => partial.prices('BTC,SOL'))).status).toBe(503);
  });

  it('shares one provider round between concurrent requests', async () => {
    const provider = new ScriptedProvider('p', { usd: USD });
    const service = new PriceService({ providers: [provider] });
    await Promise.all([service.prices('BTC,ETH'), service.price('BTC'), service.price('ETH')]);
    expect(provider.calls).toHaveLength(1);
  });

  it('refreshes in the background: start() fetches every watched currency, stop() ends it', async () => {
    const provider = new ScriptedProvider('p', { usd: USD, eur: { BTC: '61000' } });
    const service = new PriceService({ providers: [provider], refreshIntervalMs: 20 });
    await service.price('BTC', 'eur');
    provider.calls.length = 0;
    service.start();
    await new Promise((resolve) => setTimeout(resolve, 70));
    service.stop();
    const rounds = provider.calls.length;
    expect(rounds).toBeGreaterThanOrEqual(4);
    expect(new Set(provider.calls.map((c) => c.currency))).toEqual(new Set(['usd', 'eur']));
    expect(provider.calls[0]!.symbols).toHaveLength(PRICE_SYMBOLS.length);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(provider.calls.length).toBe(rounds);
  });

  it('refuses a currency no provider offers (422) and unknown symbols (404)', async () => {
    const service = new PriceService({
      providers: [new ScriptedProvider('p', { usd: USD }, ['usd', 'eur'])],
    });
    const currency = await apiError(() => service.price('BTC', 'jpy'));
    expect([currency.status, currency.errors[0]?.field]).toEqual([422, 'currency']);
    expect((await apiError(() => service.price('BTC', 'dollars'))).status).toBe(422);
    const unknown = await apiError(() => service.price('DOGE'));
    expect([unknown.status, unknown.message]).toEqual([404, 'Unknown symbol']);
  });

  it('prices in another coin as a cross rate through USD', async () => {
    const service = new PriceService({ providers: [new ScriptedProvider('p', { usd: USD })] });
    const [eth, btc] = await service.prices('ETH,BTC', 'btc');
    expect(eth).toMatchObject({
      symbol: 'ETH',
      currency: 'btc',
      price: '0.0522421474466608458',
      change_24h: '0',
    });
    expect(btc).toMatchObject({ symbol: 'BTC', currency: 'btc', price: '1' });
  });
});

describe('PriceService conversion', () => {
  const local = () =>
    new PriceService({
      providers: [new LocalPriceProvider({ now: () => Date.parse('2025-01-01T12:00:00Z') })],
    });

  it('converts coin to coin through USD, exactly', async () => {
    const service = new PriceService({ providers: [new ScriptedProvider('p', { usd: USD })] });
    expect(await service.convert('usdt', 'TRX', '100')).toMatchObject({
      from: 'USDT',
      to: 'TRX',
      amount: '100',
      result: '833.416666666666667',
      rate: '8.33416666666666667',
      stale: false,
    });
    expect(await service.convert('TRX', 'USDT', '833.416666666666667')).toMatchObject({ result: '100' });
    expect(await service.convert('BTC', 'btc', '0.5')).toMatchObject({ rate: '1', result: '0.5' });
  });

  it('converts coin to fiat and back with the provider price in that fiat', async () => {
    const service = local();
    const there = await service.convert('BTC', 'EUR', '2');
    const price = (await service.price('BTC', 'eur')).price;
    expect(there.rate).toBe(price);
    const back = await service.convert('eur', 'btc', there.result);
    expect(back).toMatchObject({ from: 'EUR', to: 'BTC', result: '2' });
  });

  it('converts fiat to fiat through BTC priced in both', async () => {
    const service = local();
    // Local FX: 0.92 EUR and 0.79 GBP per USD, so 1 EUR = 0.79 / 0.92 GBP.
    expect(await service.convert('EUR', 'GBP', '92')).toMatchObject({
      result: '79',
      rate: '0.858695652173913043',
    });
    expect(await service.convert('usd', 'usd', '5')).toMatchObject({ rate: '1', result: '5' });
  });

  it('refuses bad amounts (422) and unknown assets (404)', async () => {
    const service = local();
    for (const amount of ['abc', '-1', '1e', '0.0000000000000000000000000000001', '']) {
      const error = await apiError(() => service.convert('BTC', 'USD', amount));
      expect([error.status, error.errors[0]?.field], amount).toEqual([422, 'amount']);
    }
    expect(await service.convert('BTC', 'USD', '0')).toMatchObject({ result: '0' });
    expect((await apiError(() => service.convert('DOGE', 'USD', '1'))).message).toBe('Unknown symbol');
    expect((await apiError(() => service.convert('BTC', 'XYZ', '1'))).message).toBe('Unknown symbol');
  });
});

describe('PriceService history', () => {
  it('uses the first provider that has history, validates days, 503 when none has it', async () => {
    const time = clock();
    const noHistory = new ScriptedProvider('spot', { usd: USD });
    const charts = new ScriptedProvider('charts', { usd: USD });
    charts.historyPoints = [
      { time: new Date('2025-01-01T00:00:00Z'), price: d('67000.25') },
      { time: new Date('2025-01-01T01:00:00Z'), price: d('67100') },
    ];
    const service = new PriceService({ providers: [noHistory, charts], now: time.now });
    expect(await service.history('btc', 'usd', 1)).toEqual([
      { time: '2025-01-01T00:00:00.000Z', price: '67000.25' },
      { time: '2025-01-01T01:00:00.000Z', price: '67100' },
    ]);
    // Cached: a failing provider does not take away what was fetched.
    charts.failing = true;
    time.advance(600_000);
    expect(await service.history('BTC', 'usd', 1)).toHaveLength(2);
    expect((await apiError(() => service.history('BTC', 'usd', 7))).message).toBe(
      'Price history unavailable',
    );
    for (const days of [0, 366, 1.5]) {
      const error = await apiError(() => service.history('BTC', 'usd', days));
      expect([error.status, error.errors[0]?.field]).toEqual([422, 'days']);
    }
    expect((await apiError(() => service.history('BTC', 'eth', 1))).status).toBe(422);
  });
});
