import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { addressSchema, type FamilyModule } from '../../../chains/family.ts';
import { type FieldError, validationFailed } from '../../../errors.ts';

/** The `:address` path parameter of a shared route, in the family's accepted forms. */
export function addressParams(family: FamilyModule) {
  return Type.Object({
    address: addressSchema(family.address),
  });
}

/**
 * A preHandler, after schema validation: what the address pattern cannot see (an EIP-55 typo) is
 * refused before anything is read or stored.
 */
export function refuseMistypedAddress(family: FamilyModule) {
  return async (request: FastifyRequest<{ Params: { address: string } }>) => {
    const problem = family.address.fieldProblem('address', request.params.address);
    const errors: FieldError[] = problem === null ? [] : [{ field: 'address', message: problem }];
    if (errors.length > 0) throw validationFailed(errors);
  };
}
