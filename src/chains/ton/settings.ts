import { type Env, setting, text } from '../../config/setting.ts';

/**
 * TON's own settings. `config check` validates them and the README's Configuration table and
 * `.env.example` list them with the gateway's (config/settings.ts).
 */
export const TON_SETTINGS = {
  TON_API_KEY: setting({
    meaning: 'sent as `X-API-Key` to TON endpoints (toncenter), which raises their rate limit',
    secret: true,
    parse: text,
  }),
} as const;

/** toncenter's API-key header, sent to every TON endpoint when TON_API_KEY is set. */
export function tonEndpointHeaders(settings: Env): Record<string, string> {
  const apiKey = TON_SETTINGS.TON_API_KEY.read(settings, 'TON_API_KEY');
  return apiKey === undefined ? {} : { 'X-API-Key': apiKey };
}
