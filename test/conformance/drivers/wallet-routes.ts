// What Bitcoin, Solana and Tron answer alike on their wallet routes: a created and an imported address
// both as the first row of a list, a key exported from /addresses/export/<address> as `privateKey`, and the
// native balance as one base-unit field of /balances/<address>. (EVM answers an import with one row and
// exports from /privatekey.)
import type { ConformanceDriver } from '../driver.ts';

export const listedAddressRoutes: Pick<
  ConformanceDriver,
  'createdAddress' | 'importedAddress' | 'exportKey'
> = {
  createdAddress: (body) => body.data[0].address,
  importedAddress: (body) => body.data[0].address,
  exportKey: async (api, address, password) => {
    const response = await api('POST', `/addresses/export/${address}`, { json: { password } });
    return { response, privateKey: response.body?.data?.privateKey };
  },
};

/** The native balance read from GET /balances/<address>, whose `field` holds it in base units. */
export function nativeBalanceIn(field: string): ConformanceDriver['nativeBalance'] {
  return async (api, address) => BigInt((await api('GET', `/balances/${address}`)).body.data[field]);
}
