/** The decimal places of the EVM amounts the API writes: coin in ether-like units, fees in gwei. */
export const WEI_DECIMALS = 18;
export const GWEI_DECIMALS = 9;
