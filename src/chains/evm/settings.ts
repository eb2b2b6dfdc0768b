import { type Setting, setting } from '../../config/setting.ts';
import { readEvmChainFile } from './chain-file.ts';
import { EVM_CHAINS_FILE } from './chains.ts';

/** The EVM family's own settings, documented and checked with the gateway's. */
export const EVM_SETTINGS: Readonly<Record<string, Setting<unknown>>> = {
  [EVM_CHAINS_FILE]: setting({
    meaning:
      'a JSON file of more EVM chains, in the format of the shipped `src/chains/evm/evm-chains.json` (docs/evm-chains.md); its chains are served beside the shipped ones, and one of the same name replaces the shipped one',
    parse: (raw, name) => {
      readEvmChainFile(raw, name);
      return raw;
    },
  }),
};
