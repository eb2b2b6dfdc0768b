import { ApiError } from '../../errors.ts';

/**
 * The node refused a transaction (preflight simulation, signatures, an expired blockhash): 422 with the
 * node's own words, which the history keeps too.
 */
export class SolanaSendRefused extends ApiError {
  constructor(message: string) {
    super(422, message);
    this.name = 'SolanaSendRefused';
  }
}
