/**
 * The Transfer event shared by the EVM token standards and Tron's copies of them: ERC20/BEP20/TRC20 log
 * it with 3 topics (value in the data), ERC721/BEP721/TRC721 with 4 (token id indexed). EVM nodes write
 * topics 0x-prefixed, java-tron writes bare hex; both forms come from the one hash.
 */

/** keccak256("Transfer(address,address,uint256)"), bare hex as java-tron writes log topics. */
export const TRANSFER_TOPIC_HEX = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/** The same topic 0x-prefixed, as EVM nodes write it. */
export const TRANSFER_TOPIC = `0x${TRANSFER_TOPIC_HEX}` as const;
