/**
 * How a wrong password answers: the custody throws `WrongPasswordError`, and whoever opens a key says
 * what that is for its caller (401 `Wrong password provided`, or a send's answer in its family's words).
 */
import { WrongPasswordAnswer } from '../errors.ts';
import { WrongPasswordError } from './key-vault.ts';

/** A wrong wallet password is the API's 401; anything else passes through. */
export function wrongPasswordIs401<T>(work: () => Promise<T>): Promise<T> {
  return wrongPasswordAnswers(work, () => new WrongPasswordAnswer());
}

/** A wrong wallet password is `answer()` (a send's: in its family's words); anything else passes through. */
export async function wrongPasswordAnswers<T>(
  work: () => Promise<T>,
  answer: () => WrongPasswordAnswer,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw error instanceof WrongPasswordError ? answer() : error;
  }
}
