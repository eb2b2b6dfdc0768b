/** The EVM chains whose anvil a test run shares: the shipped chains the API tests cover. */
export const SHARED_EVM_CHAINS = ['ethereum', 'bsc', 'polygon', 'arbitrum'] as const;
export type SharedEvmChain = (typeof SHARED_EVM_CHAINS)[number];
