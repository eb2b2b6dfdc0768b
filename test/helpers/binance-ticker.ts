// One entry of Binance's GET /api/v3/ticker/24hr as the exchange writes it: every field, prices as
// decimal strings, so a stand-in answers with the whole shape and not only the fields the parser reads.

/** A 24 h ticker of `symbol` closing at `closeTime` (ms); the quantities and trade ids are a real sample's. */
export function binanceTicker(
  symbol: string,
  lastPrice: string,
  openPrice: string,
  priceChangePercent: string,
  closeTime: number,
) {
  return {
    symbol,
    priceChange: '0.00000000',
    priceChangePercent,
    weightedAvgPrice: lastPrice,
    prevClosePrice: openPrice,
    lastPrice,
    lastQty: '0.00150000',
    bidPrice: lastPrice,
    bidQty: '1.00000000',
    askPrice: lastPrice,
    askQty: '1.00000000',
    openPrice,
    highPrice: lastPrice,
    lowPrice: openPrice,
    volume: '27164.78530000',
    quoteVolume: '1793620741.12963690',
    openTime: closeTime - 86_400_000 + 1,
    closeTime,
    firstId: 3493201147,
    lastId: 3494525063,
    count: 1323917,
  };
}
