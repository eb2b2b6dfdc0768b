import { Type } from '@sinclair/typebox';
import { addressSchema, type FamilyModule } from '../../../chains/family.ts';

/**
 * The `:address` path parameter of a shared route, in the family's accepted forms; marked as the family's
 * address, so its checksum and network are checked before the route runs (`http/address-fields.ts`).
 */
export function addressParams(family: FamilyModule) {
  return Type.Object({
    address: addressSchema(family.address),
  });
}
