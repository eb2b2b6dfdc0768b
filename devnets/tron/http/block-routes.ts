// Block and transaction queries; under /walletsolidity/ they only see solidified blocks.
import { printBlock } from '../block.ts';
import type { TronChain } from '../chain.ts';
import type { Json } from '../json.ts';
import { printTransactionInfo } from '../transaction-info.ts';
import { printTransaction } from '../transaction-json.ts';
import { boolParam, intParam, stringParam } from './params.ts';
import { type Handler, type NodeRequest, ServletError } from './server.ts';

const BLOCK_LIMIT_NUM = 100n;

export function blockRoutes(chain: TronChain): Record<string, Handler> {
  const head = (req: NodeRequest) => (req.solidity ? chain.solidBlock : chain.head);
  const list = (req: NodeRequest, blocks: ReturnType<TronChain['blocksInRange']>): Json => ({
    block: blocks.map((b) => printBlock(b, req.visible)),
  });
  return {
    getnowblock: (req) => printBlock(head(req), req.visible),
    getblockbynum: (req) => {
      const b = chain.blockByNumber(intParam(req, 'num'), req.solidity);
      return b ? printBlock(b, req.visible) : {};
    },
    getblockbyid: (req) => {
      const b = chain.blockById(stringParam(req, 'value'), req.solidity);
      return b ? printBlock(b, req.visible) : {};
    },
    getblockbylimitnext: (req) => {
      const start = intParam(req, 'startNum');
      const end = intParam(req, 'endNum');
      if (!(end > 0n && end > start && end - start <= BLOCK_LIMIT_NUM)) return {};
      return list(req, chain.blocksInRange(start, end, req.solidity));
    },
    getblockbylatestnum: (req) => {
      const num = intParam(req, 'num');
      if (!(num > 0n && num < BLOCK_LIMIT_NUM)) return {};
      const last = head(req).header.number;
      return list(req, chain.blocksInRange(last - num + 1n, last + 1n, req.solidity));
    },
    getblock: (req) => {
      const idOrNum = stringParam(req, 'id_or_num');
      const detail = boolParam(req, 'detail');
      let block = head(req);
      if (idOrNum) {
        if (/^\d+$/.test(idOrNum)) {
          const b = chain.blockByNumber(BigInt(idOrNum), req.solidity);
          if (!b) return {};
          block = b;
        } else {
          if (!/^[0-9a-fA-F]{64}$/.test(idOrNum)) {
            if (/^-\d+$/.test(idOrNum)) return { Error: 'num must be non-positive number.' };
            return { Error: 'id must be legal block hash.' };
          }
          const b = chain.blockById(idOrNum, req.solidity);
          if (!b) return { Error: 'id must be legal block hash.' };
          block = b;
        }
      }
      return printBlock(block, req.visible, detail);
    },
    gettransactionbyid: (req) => {
      const t = chain.transaction(stringParam(req, 'value'), req.solidity);
      return t ? printTransaction(t.tx, req.visible) : {};
    },
    gettransactioninfobyid: (req) => {
      const t = chain.transaction(stringParam(req, 'value'), req.solidity);
      return t ? printTransactionInfo(t.info, req.visible) : {};
    },
    gettransactioninfobyblocknum: (req) => {
      const num = intParam(req, 'num');
      if (num < 0n) throw new ServletError('class java.lang.IllegalArgumentException', 'num must be >= 0');
      if (!chain.blockByNumber(num, req.solidity)) return [];
      return chain.txInfosOfBlock(num).map((i) => printTransactionInfo(i, req.visible));
    },
  };
}
