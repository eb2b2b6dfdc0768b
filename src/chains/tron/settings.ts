import { type Env, setting, text, wholeNumber } from '../../config/setting.ts';

/**
 * Tron's own settings. `config check` validates them and the README's Configuration table and
 * `.env.example` list them with the gateway's (config/settings.ts).
 */
export const TRON_SETTINGS = {
  TRON_API_KEY: setting({
    meaning: 'sent as `TRON-PRO-API-KEY` to Tron endpoints (TronGrid)',
    secret: true,
    parse: text,
  }),
  TRON_FEE_LIMIT_TRX: setting({
    default: '100',
    meaning: 'most TRX a TRC20/TRC721 transfer may burn by default (`fee_limit` per request overrides)',
    parse: wholeNumber(1, 15_000),
  }),
} as const;

/** TronGrid's API-key header, sent to every Tron endpoint when TRON_API_KEY is set. */
export function tronEndpointHeaders(settings: Env): Record<string, string> {
  const apiKey = TRON_SETTINGS.TRON_API_KEY.read(settings, 'TRON_API_KEY');
  return apiKey === undefined ? {} : { 'TRON-PRO-API-KEY': apiKey };
}

/** The most sun a TRC20/TRC721 transfer may burn when the request names no `fee_limit`. */
export function tronFeeLimitSun(settings: Env): bigint {
  return BigInt(TRON_SETTINGS.TRON_FEE_LIMIT_TRX.read(settings, 'TRON_FEE_LIMIT_TRX')) * 1_000_000n;
}
