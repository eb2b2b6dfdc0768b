import { Type } from '@sinclair/typebox';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * One entry of `GET {chain}/transactions`: what was sent through the gateway, as Chaingateway lists it;
 * `types` are the names its `type` takes on that chain.
 */
export const historyRecord = (types: readonly string[]) =>
  Type.Object({
    id: Type.Integer(),
    user_id: Type.Integer({
      description: "The user's number: users are numbered 1, 2, 3 ... in the order they were created",
    }),
    blockchain: Type.String(),
    network: Type.String(),
    type: Type.String({ description: `What was sent, as this chain names it (e.g. ${types.join(', ')})` }),
    txid: Nullable(Type.String()),
    from: Nullable(Type.String()),
    to: Nullable(Type.String()),
    contractaddress: Nullable(Type.String()),
    amount: Nullable(
      Type.String({
        description:
          "Decimal text in the asset's units with exactly the asset's decimals (1.500000 TRX, 1.500000000000000000 ETH, 1 for an NFT)",
      }),
    ),
    tokenid: Nullable(Type.String()),
    responseJson: Nullable(
      Type.String({
        description:
          "The node's answer to the send (its txid) or the error, as JSON text, as Chaingateway sends it: parse it to read it. An EVM send gains status (SUCCESS or FAILED) and error once mined. Null while the send has no answer yet (in flight, or cut off by a restart until the gateway settles it from the chain)",
      }),
    ),
    httpStatus: Nullable(
      Type.String({
        description:
          'The HTTP status the API answered for this request, as text ("201", "422"); for a send cut off by a restart, the answer settled from the chain ("201", or "410" when it never reached the chain). Null while the send has no answer yet',
      }),
    ),
    created_at: Type.String(),
    updated_at: Type.String(),
  });
