/**
 * EVM's own key import and export (a keystore v3 file as well as a raw private key), as operations: they
 * stand where the shared import/export routes stand for the other families, in the EVM answers' shapes.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { NewWalletPassword, PrivateKey, WalletPassword } from '../../custody/wallet-fields.ts';
import { invalidField } from '../../errors.ts';
import { type ChainOperation, familyOperation, NO_INPUT } from '../operations.ts';
import type { Caller } from '../ports.ts';
import type { EvmKeystores } from './keystores.ts';
import { Address, NodeJson } from './request-schemas.ts';

const AddressParams = Type.Object({ address: Address });
const PasswordBody = Type.Object({ password: WalletPassword });
const ImportBody = Type.Object({
  content: Type.Optional(
    Type.Union([Type.String({ maxLength: 16_384 }), Type.Object({}, { additionalProperties: true })], {
      description: 'A Web3 keystore v3 (scrypt or pbkdf2), as JSON or its text; sent with its `password`',
    }),
  ),
  filename: Type.Optional(Type.String({ maxLength: 200 })),
  password: Type.Optional(NewWalletPassword),
  privatekey: Type.Optional(PrivateKey),
});

export function evmKeyOperations(keystores: EvmKeystores): ChainOperation[] {
  return [
    familyOperation({
      method: 'POST',
      path: '/addresses/import',
      summary:
        'Import a keystore v3 (`content`, `filename`, `password`; scrypt or pbkdf2) or a `privatekey` (optional `password`)',
      input: { params: NO_INPUT, querystring: NO_INPUT, body: ImportBody },
      data: NodeJson,
      status: 201,
      message: 'Address imported',
      errors: [404],
      bodySize: 'keystore',
      run: async (caller, { body }) => {
        if (body.privatekey !== undefined) {
          return keystores.importPrivateKey(caller, body.privatekey, body.password);
        }
        if (body.content === undefined || body.password === undefined) {
          throw invalidField('content', 'Send content + filename + password (keystore) or privatekey.');
        }
        return keystores.importKeystore(caller, body.content, body.filename ?? '', body.password);
      },
    }),
    keyExport({
      path: '/addresses/export/:address',
      summary: 'Export as a Web3 Secret Storage v3 keystore (scrypt), encrypted with the password',
      data: Type.Object({ filename: Type.String(), content: NodeJson }),
      message: 'Address exported',
      exported: (caller, address, password) => keystores.exportKeystore(caller, address, password),
    }),
    keyExport({
      path: '/addresses/export/:address/privatekey',
      summary: 'Export the private key',
      data: Type.Object({ private_key: Type.String() }),
      message: 'Private key exported',
      exported: (caller, address, password) => keystores.exportPrivateKey(caller, address, password),
    }),
  ];
}

/** An export of a stored address's key, opened with its password. */
function keyExport<Data extends TSchema>(form: {
  path: string;
  summary: string;
  data: Data;
  message: string;
  exported(caller: Caller, address: string, password: string): Promise<Static<Data>>;
}): ChainOperation {
  return familyOperation({
    method: 'POST',
    path: form.path,
    summary: form.summary,
    input: { params: AddressParams, querystring: NO_INPUT, body: PasswordBody },
    data: form.data,
    message: form.message,
    errors: [404],
    run: (caller, { params, body }) => form.exported(caller, params.address, body.password),
  });
}
