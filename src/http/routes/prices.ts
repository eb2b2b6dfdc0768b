import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { thenOrNow } from '../../maybe-promise.ts';
import { MAX_HISTORY_DAYS, type PriceService } from '../../prices/service.ts';
import { PRICE_SYMBOLS, SYMBOL_ALIASES } from '../../prices/symbols.ts';
import { sendOk } from '../envelope.ts';
import { routeSchema } from '../route-schema.ts';

const TAGS = ['prices'];
const ALIASES_TEXT = [...SYMBOL_ALIASES].map(([alias, symbol]) => `${alias} is an alias of ${symbol}`);
const SYMBOLS_TEXT = `${PRICE_SYMBOLS.join(', ')}${ALIASES_TEXT.length > 0 ? ` (${ALIASES_TEXT.join(', ')})` : ''}, any case`;

const Price = Type.Object({
  symbol: Type.String({ description: 'Canonical symbol, upper case' }),
  currency: Type.String({ description: 'Currency of the price, lower case' }),
  price: Type.String({ description: 'Decimal string' }),
  change_24h: Type.Union([Type.String(), Type.Null()], {
    description: 'Percent change over 24 hours as a decimal string (3.5 is +3.5 %); null when unknown',
  }),
  updated_at: Type.String({ description: 'When the source last updated the price (ISO)' }),
  source: Type.String({
    description: 'Provider: coingecko, binance, chainlink or local ("a+b" for a cross rate)',
  }),
  stale: Type.Boolean({
    description: 'True when no provider could refresh the price lately: the last known one',
  }),
});

const Currency = Type.String({
  default: 'usd',
  pattern: '^[A-Za-z]{2,10}$',
  description:
    'Fiat code (usd, eur, gbp, ... as the configured providers offer) or a known symbol; default usd',
});

const SymbolParams = Type.Object({ symbol: Type.String({ maxLength: 20, description: SYMBOLS_TEXT }) });

const Conversion = Type.Object({
  from: Type.String(),
  to: Type.String(),
  amount: Type.String({ description: 'The amount converted, decimal string' }),
  result: Type.String({ description: 'amount in `to`, decimal string rounded to 18 significant digits' }),
  rate: Type.String({ description: 'Units of `to` per unit of `from`, rounded to 18 significant digits' }),
  updated_at: Type.String({ description: 'Oldest update time of the prices used (ISO)' }),
  stale: Type.Boolean(),
});

const HistoryPoint = Type.Object({ time: Type.String({ description: 'ISO' }), price: Type.String() });

/** Current prices, conversion and history of the supported coins and tokens. */
export const pricesRoutes: FastifyPluginAsyncTypebox<{ prices: PriceService }> = async (app, { prices }) => {
  app.get(
    '/api/v2/prices',
    {
      schema: routeSchema({
        summary: 'Current prices of several coins and tokens',
        description: `Symbols: ${SYMBOLS_TEXT}. An unknown one answers 404. When every price provider fails the last known prices are served with stale: true; 503 when none was ever known.`,
        tags: TAGS,
        querystring: Type.Object({
          symbols: Type.Optional(
            Type.String({ maxLength: 200, description: 'Comma-separated symbols; default: all known' }),
          ),
          currency: Type.Optional(Currency),
        }),
        data: Type.Array(Price),
        errors: [404, 503],
      }),
    },
    async (request, reply) => {
      const { symbols, currency } = request.query;
      return sendOk(reply, await prices.prices(symbols, currency), 'Prices fetched');
    },
  );

  app.get(
    '/api/v2/prices/convert',
    {
      schema: routeSchema({
        summary: 'Convert an amount between coins, tokens and fiat currencies',
        description:
          'from and to are each a known symbol or a fiat code (USDT -> TRX, BTC -> EUR, EUR -> BTC). Coin pairs cross through USD; exact decimal arithmetic, result and rate rounded half away from zero to 18 significant digits (whole units are never rounded away).',
        tags: TAGS,
        querystring: Type.Object({
          from: Type.String({ minLength: 1, maxLength: 20 }),
          to: Type.String({ minLength: 1, maxLength: 20 }),
          amount: Type.String({
            minLength: 1,
            maxLength: 200,
            description: 'Decimal string, at most 30 decimals',
          }),
        }),
        data: Conversion,
        errors: [404, 503],
      }),
    },
    async (request, reply) => {
      const { from, to, amount } = request.query;
      return sendOk(reply, await prices.convert(from, to, amount), 'Amount converted');
    },
  );

  app.get(
    '/api/v2/prices/:symbol',
    {
      schema: routeSchema({
        summary: 'Current price of one coin or token',
        tags: TAGS,
        params: SymbolParams,
        querystring: Type.Object({ currency: Type.Optional(Currency) }),
        data: Price,
        errors: [404, 503],
      }),
    },
    // Without a promise where the quote is cached, as it is for nearly every request.
    (request, reply) =>
      thenOrNow(prices.price(request.params.symbol, request.query.currency), (view) =>
        sendOk(reply, view, 'Price fetched'),
      ),
  );

  app.get(
    '/api/v2/prices/:symbol/history',
    {
      schema: routeSchema({
        summary: 'Price history of one coin or token',
        description:
          'Points oldest first, from the first provider that has history (CoinGecko market_chart: 5-minutely for 1 day, hourly up to 90 days, daily beyond). 503 when no provider has it.',
        tags: TAGS,
        params: SymbolParams,
        querystring: Type.Object({
          days: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_HISTORY_DAYS, default: 7 })),
          currency: Type.Optional(Currency),
        }),
        data: Type.Array(HistoryPoint),
        errors: [404, 503],
      }),
    },
    async (request, reply) => {
      const { days, currency } = request.query;
      return sendOk(
        reply,
        await prices.history(request.params.symbol, currency ?? 'usd', days ?? 7),
        'Price history fetched',
      );
    },
  );
};
